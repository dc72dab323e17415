"""A bounded work queue: at most ``concurrency`` searches and answers run at once per
process, at most ``queue`` more wait for a slot, and the rest are refused at once with 429
and ``Retry-After``.

Without it, 32 questions at once on a fresh server ran 32 embeddings side by side (3.2 GB,
never given back, p95 4.7 s); in turn, they share the sentence vectors the first one made.
Waiting happens on the event loop, so a waiting request holds no thread, and a stuck
dependency holds at most ``concurrency`` threads: requests that do not need it still run.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ui.http.errors import error_response

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["WORK_PATHS", "WorkLimit"]

WORK_PATHS = frozenset({"/api/ask", "/api/search", "/v1/chat/completions"})


class WorkLimit:
    def __init__(self, app: ASGIApp, *, concurrency: int, queue: int) -> None:
        self.app = app
        self.concurrency, self.queue = concurrency, queue
        self._slots = asyncio.Semaphore(concurrency) if concurrency else None
        self.waiting = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        slots = self._slots
        if slots is None or scope["type"] != "http" or scope["path"] not in WORK_PATHS:
            await self.app(scope, receive, send)
            return
        if slots.locked() and self.waiting >= self.queue:
            wait = max(1, self.waiting // max(self.concurrency, 1))
            response = error_response(
                429,
                f"the server is busy ({self.concurrency} requests running, {self.waiting} "
                f"waiting): try again in {wait} s (PAPERCHAT_WORK_QUEUE sets how many wait)",
                "busy",
                {"retry-after": str(wait)},
            )
            await response(scope, receive, send)
            return
        self.waiting += 1
        try:
            await slots.acquire()
        finally:
            self.waiting -= 1
        try:
            await self.app(scope, receive, send)
        finally:
            slots.release()
