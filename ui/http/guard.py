"""Web safety for a server that a browser can reach, with or without a key.

A keyless server listens on loopback only, but any web page the user opens can still send
requests to it: through DNS rebinding (a name the attacker controls that resolves to
127.0.0.1: the browser then sends that name as ``Host``) or with a cross-site form POST.
So every request must name an allowed host, every state-changing request must come from
this server's own pages or from a client that is not a browser, and every response tells
the browser not to frame the page nor guess content types.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK_HOSTS", "SECURITY_HEADERS", "FailureLimiter", "WebGuard", "host_name"]

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# The Gradio page needs inline scripts and styles; everything else comes from this server,
# but for the /docs page's Swagger UI, which FastAPI loads from jsDelivr.
_CSP = (
    "default-src 'self'; "
    "script-src 'self' 'unsafe-inline' 'unsafe-eval' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: blob: https://fastapi.tiangolo.com; "
    "font-src 'self' data:; connect-src 'self'; media-src 'self' blob:; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", _CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


def host_name(value: str) -> str:
    """The host of a ``Host`` header or an origin's netloc, lowercased, without the port."""
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:7860
        return value[1:].partition("]")[0]
    if value.count(":") > 1:  # a bare IPv6 address
        return value
    return value.partition(":")[0].rstrip(".")


class FailureLimiter:
    """Failed attempts per client in a sliding minute; ``blocked`` once over ``limit``."""

    def __init__(self, limit: int, *, window: float = 60.0) -> None:
        self.limit, self.window = limit, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        seen = self._failures.setdefault(client, deque())
        while seen and now - seen[0] > self.window:
            seen.popleft()
        return seen

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try again; 0 when it may now."""
        now = time.monotonic()
        with self._lock:
            seen = self._recent(client, now)
            if len(seen) < self.limit:
                return 0
            return max(1, int(seen[0] + self.window - now) + 1)

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._recent(client, now).append(now)
            if len(self._failures) > 10_000:  # forget clients that stopped trying
                for key in [k for k, v in self._failures.items() if not v]:
                    del self._failures[key]


class WebGuard:
    """Host allow-list, cross-site checks on state-changing requests, security headers,
    and the failed-login limit of the UI's ``/login``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: str,
        failures: FailureLimiter,
        keyed: bool = False,
    ) -> None:
        self.app = app
        extra = {host_name(h) for h in allowed_hosts.split(",") if h.strip()}
        # With a key, a rebound page cannot read or write anything without it, and the
        # server may be reached by names no one listed: the Host check is then opt-in.
        self.any_host = "*" in extra or (keyed and not extra)
        self.extra = extra - {"*"}  # hosts the operator named: their pages may post here
        self.hosts = LOOPBACK_HOSTS | extra
        self.failures = failures

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _send_json(send, *refusal)
            return
        client = (scope.get("client") or ("?", 0))[0]
        login = scope["path"] == "/login" and scope["method"] == "POST"
        if login and (wait := self.failures.retry_after(client)):
            await _send_json(send, 429, _too_many(wait), (b"retry-after", str(wait).encode()))
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
                if login and message["status"] in (400, 401, 403):
                    self.failures.failed(client)
            await send(message)

        await self.app(scope, receive, secured)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = host_name(headers.get("host", ""))
        if not self.any_host and host not in self.hosts:
            return 400, (
                f"Host {host or '(none)'!r} is not served here (a web page may be trying to "
                "reach this server through DNS rebinding); add it to PAPERCHAT_ALLOWED_HOSTS "
                "if it is yours"
            )
        if scope["method"] in _SAFE_METHODS:
            return None
        if headers.get("sec-fetch-site", "") in ("cross-site", "same-site"):
            return 403, "cross-site request refused: send it from this server's own pages"
        origin = headers.get("origin")
        if origin is not None:
            netloc = urlsplit(origin).netloc.lower() if origin != "null" else "null"
            same = netloc == headers.get("host", "").strip().lower()
            if not same and host_name(netloc) not in self.extra:
                return 403, (
                    f"request from another site ({origin[:100]!r}) refused: send it from this "
                    "server's own pages, or from a client that is not a browser"
                )
        return None


def _too_many(wait: int) -> str:
    return f"too many failed sign-in attempts from this address: wait {wait} s and try again"


async def _send_json(send: Send, status: int, message: str, *extra: tuple[bytes, bytes]) -> None:
    kind = "invalid_request_error" if status < 500 else "server_error"
    code = {400: "bad_host", 403: "cross_site", 429: "too_many_attempts"}.get(status, "refused")
    body = json.dumps({"error": {"message": message, "type": kind, "code": code}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS, *extra]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
