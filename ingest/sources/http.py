"""One polite HTTP client for the outside sources: a timeout, retries of 429, 5xx and
timeouts with exponential backoff (``Retry-After`` honoured), a pause between requests to
one service (arXiv asks for 3 s), and errors that say in one line what could not be reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from rag.errors import SourceError

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["Fetcher"]

MAX_WAIT = 60.0  # the longest Retry-After we honour


class Fetcher:
    """GETs JSON or XML from the sources. Build it with :meth:`from_settings`."""

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        retries: int = 3,
        backoff: float = 1.0,
        contact: str = "",
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        agent = "paperchat/0.1" + (f" (mailto:{contact})" if contact else "")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.contact = contact
        self._sleep = sleep
        self._last: dict[str, float] = {}
        self._client = httpx.Client(
            timeout=timeout,
            headers={"User-Agent": agent},
            follow_redirects=True,
            transport=transport,
            trust_env=False,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Fetcher:
        return cls(
            timeout=settings.sources_timeout,
            retries=settings.sources_retries,
            contact=settings.contact_email,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(
        self,
        service: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        spacing: float = 0.0,
    ) -> httpx.Response | None:
        """The 200 response to ``GET url``, or None on 404. Raises :class:`SourceError`
        when the service cannot be reached, keeps failing after the retries, or refuses."""
        for attempt in range(self.retries + 1):
            self._space(service, spacing)
            wait = self.backoff * 2**attempt
            try:
                response = self._client.get(url, params=params)
            except httpx.TimeoutException:
                problem = f"no answer within {self.timeout:g} s"
            except httpx.TransportError as exc:  # DNS, refused, reset: offline, fail fast
                raise SourceError(
                    f"could not reach {service}: {_one_line(exc)} ({url}); check the network "
                    "connection, or the service's URL setting"
                ) from None
            else:
                status = response.status_code
                if status == 404:
                    return None
                if status < 400:
                    return response
                if status != 429 and status < 500:
                    raise SourceError(
                        f"{service} refused the request (HTTP {status}) at {response.url}: "
                        f"{_one_line(response.text)[:200]}"
                    )
                problem = f"HTTP {status}"
                wait = _retry_after(response) if "retry-after" in response.headers else wait
            if attempt == self.retries:
                raise SourceError(
                    f"could not reach {service}: {problem} after {attempt + 1} attempt(s) "
                    f"({url}); try again later"
                )
            self._sleep(min(wait, MAX_WAIT))
        raise AssertionError("unreachable")

    def _space(self, service: str, spacing: float) -> None:
        last = self._last.get(service)
        if last is not None and spacing > 0:
            left = spacing - (time.monotonic() - last)
            if left > 0:
                self._sleep(left)
        self._last[service] = time.monotonic()


def _retry_after(response: httpx.Response) -> float:
    try:
        return max(float(response.headers["retry-after"]), 0.0)
    except ValueError:
        return MAX_WAIT


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) or type(value).__name__
