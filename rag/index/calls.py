"""Calls to Chroma with a time limit, on a bounded pool of threads.

Neither the embedded database nor chromadb's HTTP client has a timeout of its own, so a
frozen server (or a stuck disk) held every caller for ever. Here each call fails with
:class:`StoreError` after ``timeout`` seconds, at most ``threads`` calls run at once, and
while a call that timed out is still stuck, the next ones fail at once instead of each
waiting ``timeout`` again (four questions to a frozen server failed one after the other,
after 31, 61 and 91 s and more: bench/robustness.py). When the stuck call ends (the server
thaws), calls go through again.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from rag.errors import StoreError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

__all__ = ["BoundedCalls", "bound_http"]


class BoundedCalls:
    def __init__(self, *, location: str, timeout: float, threads: int) -> None:
        self.location = location
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="paperchat-chroma")
        self._stuck: list[tuple[Future[Any], float]] = []
        self._lock = threading.Lock()

    def __call__(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self._fail_fast_while_stuck(what)
        started = time.monotonic()
        future = self._pool.submit(fn, *args, **kwargs)
        try:
            return future.result(timeout=self.timeout)
        except FutureTimeout:
            if not future.cancel():  # running, not just queued: it holds a thread
                with self._lock:
                    self._stuck.append((future, started))
            raise StoreError(
                f"Chroma {what} did not answer within {self.timeout:g} s at {self.location}: "
                "is the server (or the disk) stuck? Raise PAPERCHAT_CHROMA_TIMEOUT for very "
                "large collections"
            ) from None
        except StoreError:
            raise
        except Exception as exc:  # chromadb raises many unrelated types; translate at the edge
            raise StoreError(
                f"Chroma {what} failed at {self.location}: {type(exc).__name__}: {exc}"
            ) from exc

    def _fail_fast_while_stuck(self, what: str) -> None:
        with self._lock:
            self._stuck = [(f, t) for f, t in self._stuck if not f.done()]
            if not self._stuck:
                return
            waited = time.monotonic() - min(t for _, t in self._stuck)
        raise StoreError(
            f"Chroma {what} not tried: Chroma at {self.location} has not answered a call for "
            f"{waited:.0f} s (is the server or the disk stuck?); try again later"
        )


def bound_http(client: ClientAPI, seconds: float) -> None:
    """Give the HTTP client's connection a timeout: chromadb makes it with none, so a frozen
    server would hold a thread for ever (the pool's timeout frees the caller, not the thread).
    And free each response as soon as chromadb has read it (:func:`_freed_when_read`)."""
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(seconds)
        session.request = _freed_when_read(session.request)  # type: ignore[method-assign]


def _freed_when_read(request: Any) -> Any:
    """``request``, returning responses that do not refer to themselves. An httpx response
    and its stream refer to each other, so each one chromadb read (a page of 200 first
    chunks: ~5 MB of bytes, text and parsed JSON) stayed until a full garbage collection,
    which a growing heap makes rarer: ten pages were alive at once in a 30k-paper rebuild,
    whose peak fell from 242 to 183 MB once responses were freed when read. The body is
    read by then (chromadb does not stream), so the stream is no longer needed."""
    import httpx

    def call(*args: Any, **kwargs: Any) -> Any:
        response = request(*args, **kwargs)
        if isinstance(response, httpx.Response) and response.is_stream_consumed:
            response.stream = httpx.ByteStream(b"")
        return response

    return call
