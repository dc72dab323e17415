"""The HTTP API over one App: JSON under /api, OpenAI-compatible under /v1, /healthz.

With ``PAPERCHAT_API_KEY`` set, /api and /v1 need ``Authorization: Bearer <key>``
(:mod:`ui.http.limits`); /healthz and /docs stay open. Errors are JSON
(:mod:`ui.http.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ui.http.docs import install_docs
from ui.http.errors import error_response, install_error_handlers
from ui.http.limits import BodyLimit
from ui.http.openai import openai_router
from ui.http.routes import api_router

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["create_api"]


def create_api(app: App) -> FastAPI:
    """The FastAPI app (without the UI; :func:`ui.http.server.create_app` mounts it at /)."""
    api = FastAPI(
        title="paperchat",
        summary="Cited answers over a collection of scientific abstracts.",
        version="0.1.0",
        docs_url=None,  # ui.http.docs serves it, without a CDN
        redoc_url=None,
    )
    api.add_middleware(BodyLimit, upload_bytes=int(app.settings.max_upload_mb * 1e6))
    install_error_handlers(api)
    install_docs(api)

    @api.get("/healthz", tags=["meta"])
    def healthz() -> dict[str, Any]:
        """Index loaded, papers, embedder, answer mode; a hint when the index is empty."""
        return app.engine.health()

    api.include_router(api_router(app))
    api.include_router(openai_router(app))

    @api.api_route("/api/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    @api.api_route("/v1/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    def unknown(request: Request, rest: str) -> JSONResponse:
        # Without these, the UI mounted at / would answer an unknown API path with its own
        # (non-JSON-error) 404.
        return error_response(404, f"Not Found: {request.method} {request.url.path}", "not_found")

    return api
