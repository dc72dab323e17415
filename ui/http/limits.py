"""Request limits: body size (413 before a body is read into memory), the API key, and the
length of a question."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from fastapi import Request

from ui.http.errors import ApiError, error_response

if TYPE_CHECKING:
    from collections.abc import Callable

    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_JSON_BYTES", "BodyLimit", "bearer_check", "question_check"]

MAX_JSON_BYTES = 1 << 20  # every request but an upload


class BodyLimit:
    """Refuse a request body over its limit with 413 before it is read into memory
    (Content-Length up front, and counted as it streams for chunked uploads)."""

    def __init__(self, app: ASGIApp, *, upload_bytes: int) -> None:
        self.app = app
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if not path.startswith(("/api", "/v1")):
            await self.app(scope, receive, send)  # the UI's own uploads are gradio's
            return
        limit = self.upload_bytes if path == "/api/ingest" else MAX_JSON_BYTES
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(send, limit)

    @staticmethod
    async def _refuse(send: Send, limit: int) -> None:
        response = error_response(
            413, f"request body over {limit / 1e6:g} MB: send less (PAPERCHAT_MAX_UPLOAD_MB "
            "sets the upload limit)", "too_large",
        )  # fmt: skip
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json")]})  # fmt: skip
        await send({"type": "http.response.body", "body": response.body})


class _TooLarge(Exception):
    pass


def bearer_check(key: str) -> Callable[[Request], None]:
    """A FastAPI dependency: with a key, requests need ``Authorization: Bearer <key>``
    (compared in constant time); without one, everything passes."""
    secret = key.encode()

    def authorized(request: Request) -> None:
        if not secret:
            return
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), secret):
            raise ApiError(
                401,
                "missing or wrong API key: send 'Authorization: Bearer <PAPERCHAT_API_KEY>'",
                "unauthorized",
            )

    return authorized


def question_check(max_chars: int) -> Callable[..., str]:
    """The question (or query) stripped, or a 422 / 413 naming ``field``."""

    def checked(question: str, field: str = "question") -> str:
        question = question.strip()
        if not question:
            raise ApiError(422, f"{field}: the {field} is empty", "invalid_request")
        if len(question) > max_chars:
            raise ApiError(
                413,
                f"{field}: {len(question)} characters, over the limit of {max_chars} "
                "(PAPERCHAT_MAX_QUESTION_CHARS)",
                "question_too_long",
            )
        return question

    return checked
