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

    from ui.http.guard import FailureLimiter

__all__ = [
    "MAX_JSON_BYTES",
    "UPLOAD_PATHS",
    "BodyLimit",
    "bearer_check",
    "key_matches",
    "question_check",
]

MAX_JSON_BYTES = 1 << 20  # every request but an upload


UPLOAD_PATHS = ("/api/ingest", "/api/add", "/gradio_api/upload")
"""Paths that take files (the upload limit); every other body has the 1 MB limit."""


class BodyLimit:
    """Refuse a request body over its limit with 413 before it is read into memory:
    Content-Length up front, and counted as it streams (chunked bodies have none). Every
    path counts, the UI's own (gradio's upload route has the upload limit)."""

    def __init__(self, app: ASGIApp, *, upload_bytes: int) -> None:
        self.app = app
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        limit = self.upload_bytes if path.startswith(UPLOAD_PATHS) else MAX_JSON_BYTES
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit)
            return
        seen = 0
        over = False
        started = False

        async def counted() -> Message:
            nonlocal seen, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Tell the app the client went away; its reply is dropped for our 413.
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if over:
                return
            started = True
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            if not over:
                raise
        if over and not started:
            await self._refuse(send, limit)

    @staticmethod
    async def _refuse(send: Send, limit: int) -> None:
        response = error_response(
            413, f"request body over {limit / 1e6:g} MB: send less (PAPERCHAT_MAX_UPLOAD_MB "
            "sets the upload limit)", "too_large",
        )  # fmt: skip
        length = str(len(response.body)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", length)]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": response.body})


def bearer_check(key: str) -> Callable[[Request], None]:
    """A FastAPI dependency: with a key, requests need ``Authorization: Bearer <key>``
    (compared in constant time); without one, everything passes."""
    secret = key.encode()

    def authorized(request: Request) -> None:
        if not secret:
            return
        limiter: FailureLimiter | None = getattr(request.app.state, "auth_failures", None)
        client = request.client.host if request.client else "?"
        if limiter is not None and (wait := limiter.retry_after(client)):
            raise ApiError(
                429,
                f"too many failed API-key attempts from this address: wait {wait} s",
                "too_many_attempts",
                headers={"retry-after": str(wait)},
            )
        if not key_matches(request.headers.get("authorization", ""), secret):
            if limiter is not None:
                limiter.failed(client)
            raise ApiError(
                401,
                "missing or wrong API key: send 'Authorization: Bearer <PAPERCHAT_API_KEY>'",
                "unauthorized",
            )

    return authorized


def key_matches(authorization: str, secret: bytes) -> bool:
    """Whether an ``Authorization`` header carries the key (compared in constant time)."""
    scheme, _, token = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), secret)


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
