"""The HTTP API over one App: JSON under /api, OpenAI-compatible under /v1, /healthz.

With ``PAPERCHAT_API_KEY`` set, /api and /v1 need ``Authorization: Bearer <key>``
(:mod:`ui.http.limits`; failed attempts are limited per client); /healthz says only "ok" or
"not ok" without it (:mod:`ui.http.health`). Every request passes the web guard (allowed
Host, no cross-site writes, security headers: :mod:`ui.http.guard`), the body limit and,
for searches and answers, the bounded work queue (:mod:`ui.http.work`). Errors are JSON
(:mod:`ui.http.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ui.http.conversations import conversations_router
from ui.http.docs import install_docs
from ui.http.errors import error_response, install_error_handlers
from ui.http.guard import FailureLimiter, WebGuard
from ui.http.health import HealthCheck
from ui.http.limits import BodyLimit
from ui.http.openai import openai_router
from ui.http.papers import papers_router
from ui.http.routes import api_router
from ui.http.tables import tables_router
from ui.http.work import WorkLimit

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
    s = app.settings
    api.state.auth_failures = FailureLimiter(s.auth_failures_per_minute)
    # The last added runs first: guard, then body limit, then the work queue.
    api.add_middleware(WorkLimit, concurrency=s.work_concurrency, queue=s.work_queue)
    api.add_middleware(BodyLimit, upload_bytes=int(s.max_upload_mb * 1e6))
    api.add_middleware(
        WebGuard,
        allowed_hosts=s.allowed_hosts,
        failures=api.state.auth_failures,
        keyed=bool(s.api_key.get_secret_value()),
    )
    install_error_handlers(api)
    health = HealthCheck(app)
    install_docs(api)

    @api.get("/healthz", tags=["meta"], response_model=None)
    async def healthz(request: Request) -> JSONResponse:
        """ "ok" or "not ok" (503, within PAPERCHAT_HEALTH_TIMEOUT); with the key (or when
        none is set): index loaded, papers, embedder, answer mode, a hint when empty."""
        return await health(request)

    api.include_router(api_router(app))
    api.include_router(papers_router(app))
    api.include_router(conversations_router(app))
    api.include_router(openai_router(app))
    api.include_router(tables_router(app))

    @api.api_route("/api/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    @api.api_route("/v1/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    def unknown(request: Request, rest: str) -> JSONResponse:
        # Without these, the UI mounted at / would answer an unknown API path with its own
        # (non-JSON-error) 404.
        return error_response(404, f"Not Found: {request.method} {request.url.path}", "not_found")

    return api
