"""``GET /healthz``: answers within ``PAPERCHAT_HEALTH_TIMEOUT`` (2 s) whatever the store does.

The store is asked on a thread of its own (one probe at a time: a stuck probe is waited
for again, never doubled), so a frozen Chroma makes /healthz say 503 "not ok" with the
reason, and never takes a thread from the requests. Without the key (when one is set) the
answer is only the status: paths, counts and the process id are for those who hold it.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import JSONResponse

from rag.errors import PaperchatError
from ui.http.errors import scrub_paths
from ui.http.limits import key_matches

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["HealthCheck"]


class HealthCheck:
    def __init__(self, app: App) -> None:
        self.app = app
        self.timeout = app.settings.health_timeout
        self.secret = app.settings.api_key.get_secret_value().encode()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="paperchat-health")
        self._probe: Future[dict[str, Any]] | None = None
        self._lock = threading.Lock()

    def _check(self) -> dict[str, Any]:
        return self.app.engine.probe()  # one real round trip to Chroma

    def _current_probe(self) -> Future[dict[str, Any]]:
        with self._lock:
            if self._probe is None or self._probe.done():
                self._probe = self._pool.submit(self._check)
            return self._probe

    async def __call__(self, request: Request) -> JSONResponse:
        full = not self.secret or key_matches(request.headers.get("authorization", ""), self.secret)
        probe = asyncio.wrap_future(self._current_probe())
        try:
            info = await asyncio.wait_for(asyncio.shield(probe), self.timeout)
        except TimeoutError:
            reason = f"the store did not answer within {self.timeout:g} s"
            return self._not_ok(reason, full)
        except PaperchatError as exc:
            return self._not_ok(scrub_paths(str(exc)), full)
        if not full:
            return JSONResponse({"status": "ok"})
        return JSONResponse(info)

    @staticmethod
    def _not_ok(reason: str, full: bool) -> JSONResponse:
        body = {"status": "not ok", "reason": reason} if full else {"status": "not ok"}
        return JSONResponse(body, status_code=503)
