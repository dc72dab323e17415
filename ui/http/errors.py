"""Every HTTP error is JSON, ``{"error": {"message", "type", "code"}}`` (OpenAI's shape, so
OpenAI clients show the message): bad input is a 4xx naming the field, a failed language
model a 502, never a traceback. Exceptions are translated here and nowhere else."""

from __future__ import annotations

import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rag.errors import (
    ConfigError,
    EmbedderError,
    IngestError,
    LLMError,
    NotFoundError,
    PaperchatError,
    ParseError,
    QueryError,
    SourceError,
    StoreError,
)

__all__ = ["ApiError", "error_response", "install_error_handlers", "scrub_paths"]

log = logging.getLogger("paperchat.api")

_STATUS = {  # PaperchatError subclass -> (HTTP status, code); the first that fits
    NotFoundError: (404, "not_found"),
    QueryError: (400, "bad_query"),
    ConfigError: (400, "not_configured"),
    ParseError: (400, "bad_file"),
    IngestError: (400, "bad_ingest"),
    LLMError: (502, "llm_failed"),
    SourceError: (502, "source_unreachable"),
    EmbedderError: (503, "embedder_unavailable"),
    StoreError: (503, "store_unavailable"),
}


# An absolute path (two or more parts) not inside a URL: "/srv/x/uploads/ab/f.json" -> "f.json".
_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s/'\"()]+/)+([^\s/'\"():,;]+)")


def scrub_paths(message: str) -> str:
    """``message`` with every absolute server path cut to its last part: a client needs the
    file's name, not where the server keeps it."""
    return _PATH.sub(r"\1", message)


class ApiError(Exception):
    """A request refused with ``status``: the message says which field and why."""

    def __init__(
        self, status: int, message: str, code: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code
        self.headers = headers or {}


def error_response(
    status: int, message: str, code: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": code}},
        status_code=status,
        headers=headers,
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.code, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        if first.get("type") in ("malformed_text", "string_unicode"):  # text no one can encode
            return error_response(400, f"{where}: {first.get('msg')}", "malformed_text")
        return error_response(422, f"{where}: {first.get('msg', 'invalid')}", "invalid_request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), "http_error")

    @app.exception_handler(PaperchatError)
    async def _paperchat(_: Request, exc: PaperchatError) -> JSONResponse:
        status, code = next(
            (v for cls, v in _STATUS.items() if isinstance(exc, cls)), (500, "internal_error")
        )
        return error_response(status, scrub_paths(str(exc)), code)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error_response(
            500, f"internal error ({type(exc).__name__}); see the server log", "internal"
        )
