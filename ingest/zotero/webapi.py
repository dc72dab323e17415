"""pyzotero (1.6.11) for one Zotero library, made fit for a sync (:mod:`ingest.zotero.web`):

- retries: pyzotero has none. 429, 5xx, timeouts and dropped connections are tried again
  (``Retry-After``/``Backoff`` honoured up to :data:`MAX_WAIT`); a refused connection fails
  at once (offline);
- pyzotero does not raise on a 429 that carries ``Retry-After`` (it parses the error body
  as the answer): every response is seen here, so that 429 is retried too;
- a 304 (``If-Modified-Since-Version`` current) is an error in pyzotero: here it is
  :data:`NOT_MODIFIED`;
- pyzotero gives every request its module-wide 30 s timeout and starts a non-daemon timer
  thread per ``Backoff`` header (holding the process open that long): here the timeout is
  ours and a backoff is a time to wait before the next request;
- failures become :class:`Failed` (an HTTP status and one line) or :class:`Unreachable`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import httpx
from pyzotero import zotero
from pyzotero import zotero_errors as ze

__all__ = ["MAX_WAIT", "NOT_MODIFIED", "Api", "Failed", "Unreachable"]

MAX_WAIT = 60.0  # the longest Retry-After or Backoff honoured, in seconds
NOT_MODIFIED = object()


class Failed(Exception):
    """The API answered with an error (``status``; 0: no answer in time), after any
    retries, or with something that is not what it sends."""

    def __init__(self, status: int, problem: str) -> None:
        super().__init__(problem)
        self.status = status


class Unreachable(Exception):
    """No connection to the API."""


class _Client(httpx.Client):
    """pyzotero gives every request its own module-wide timeout (30 s): ours wins."""

    def build_request(self, *args: Any, **kwargs: Any) -> httpx.Request:
        kwargs["timeout"] = self.timeout
        return super().build_request(*args, **kwargs)


class _Zotero(zotero.Zotero):  # type: ignore[misc]
    """pyzotero's client with our httpx client, ``If-Modified-Since-Version`` when asked,
    and its backoff handled by :class:`Api`."""

    client: httpx.Client

    def __init__(self, api: Api, library_id: str, library_type: str, api_key: str) -> None:
        self._api = api
        super().__init__(library_id, library_type, api_key or None)
        self.client.close()
        self.client = api.client

    def default_headers(self) -> dict[str, str]:
        headers: dict[str, str] = super().default_headers()
        if self._api.conditional:
            headers["If-Modified-Since-Version"] = self._api.conditional
        return headers

    def _set_backoff(self, duration: object) -> None:
        self._api.wait_until(_seconds(duration))

    def _check_backoff(self) -> None:
        self._api.pause()


class Api:
    """One library (``kind`` "users"/"groups", its id) on the API at ``endpoint``:
    ``zot`` is pyzotero's client, :meth:`call` runs one of its calls with retries."""

    def __init__(
        self,
        kind: str,
        library_id: str,
        api_key: str,
        *,
        endpoint: str,
        timeout: float,
        retries: int,
        backoff: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.retries = max(retries, 0)
        self.backoff = backoff
        self.conditional = ""  # a library version: sent as If-Modified-Since-Version
        self.last: httpx.Response | None = None
        self._sleep = sleep
        self._not_before = 0.0
        self.client = _Client(
            follow_redirects=True,
            timeout=timeout,
            trust_env=False,
            event_hooks={"response": [self._saw]},
        )
        self.zot = _Zotero(self, library_id, kind.removesuffix("s"), api_key)
        self.zot.endpoint = endpoint

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def _saw(self, response: httpx.Response) -> None:
        self.last = response

    def wait_until(self, seconds: float) -> None:
        self._not_before = max(self._not_before, time.monotonic() + seconds)

    def pause(self) -> None:
        left = self._not_before - time.monotonic()
        if left > 0:
            self._sleep(left)

    def version(self) -> int:
        """The library version the last answer reported (``Last-Modified-Version``)."""
        value = self.last.headers.get("last-modified-version", "") if self.last else ""
        if not value.isdigit():
            raise Failed(200, "an answer without a Last-Modified-Version header")
        return int(value)

    def file(self, key: str) -> httpx.Response:
        """The response to ``items/<key>/file`` (after its redirect), whatever its type."""
        with contextlib.suppress(ValueError):  # pyzotero reads unknown content types as JSON
            self.zot.file(key)
        if self.last is None:
            raise Failed(0, "no answer")
        return self.last

    def all(self, first: Callable[[], Any], versions: list[int]) -> list[Any] | None:
        """Every object of a multi-object request, following its ``rel="next"`` pages;
        each page's library version goes to ``versions``. None on 304."""
        page = self.call(first)
        if page is NOT_MODIFIED:
            return None
        objects: list[Any] = []
        while True:
            if not isinstance(page, list):
                raise Failed(200, "a page of objects that is not a JSON list")
            objects.extend(page)
            versions.append(self.version())
            if not (self.zot.links and self.zot.links.get("next")):
                return objects
            page = self.call(self.zot.follow)

    def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` (one pyzotero call), tried again on 429, 5xx, timeouts and dropped
        connections. Returns :data:`NOT_MODIFIED` on 304."""
        for attempt in range(self.retries + 1):
            self.zot.url_params = None  # pyzotero keeps a failed call's parameters
            self.last = None
            problem = ""
            try:
                value = fn()
            except httpx.ConnectError as exc:  # refused, no route, DNS: offline, fail fast
                raise Unreachable(_one_line(exc)) from None
            except httpx.TimeoutException:
                status, problem = 0, f"no answer within {self.timeout:g} s"
            except httpx.TransportError as exc:
                status, problem = 0, f"connection lost ({_one_line(exc)})"
            except (ze.PyZoteroError, ValueError, KeyError):
                if self.last is None:
                    raise
                status = self.last.status_code
                if status == 304:
                    return NOT_MODIFIED
                if status < 300:
                    raise Failed(status, "an answer that is not the JSON the API sends") from None
            else:
                if self.last is None or self.last.status_code != 429:
                    return value
                status = 429
            response = self.last
            if response is not None and status != 429 and 400 <= status < 500:
                raise Failed(status, _one_line(response.text)[:200] or f"HTTP {status}")
            problem = problem or f"HTTP {status}"
            if attempt == self.retries:
                raise Failed(status, f"{problem} after {attempt + 1} attempt(s)")
            wait = self.backoff * 2**attempt
            if response is not None:
                told = response.headers.get("retry-after") or response.headers.get("backoff")
                wait = _seconds(told) if told else wait
            self.wait_until(min(wait, MAX_WAIT))
        raise AssertionError("unreachable")


def _seconds(value: object) -> float:
    try:
        return min(max(float(str(value)), 0.0), MAX_WAIT)
    except ValueError:
        return MAX_WAIT


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) or type(value).__name__
