"""The one way paperchat talks to an OpenAI-compatible API, for chat and embeddings alike.

OpenAI, vLLM, Ollama, llama.cpp's server and text-embeddings-inference all speak it;
``OPENAI_BASE_URL`` picks the server. An :class:`Endpoint` builds the ``openai`` client
(which retries connection errors, timeouts, 408/409/429/5xx with backoff) and turns what
still fails into a ``(kind, message)`` pair: the message names the endpoint and what to do,
and never contains the API key, whatever the server echoed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Endpoint", "Failure"]


@dataclass(frozen=True, slots=True)
class Failure:
    """What went wrong, as a ``kind`` (unreachable, timeout, auth, rate_limit, server,
    bad_request) and a message for people."""

    kind: str
    message: str


@dataclass(kw_only=True)
class Endpoint:
    """An OpenAI-compatible server: where it is, the key, and how patiently to call it."""

    base_url: str | None = None
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0
    max_retries: int = 2
    _client: Any = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def where(self) -> str:
        return self.base_url or "api.openai.com"

    @property
    def client(self) -> Any:
        """The ``openai`` client, built on first use (importing openai takes a while)."""
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    api_key=self.api_key or "not-needed",  # local servers take any key
                    base_url=self.base_url or None,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
            return self._client

    def model_ids(self) -> tuple[str, ...]:
        """The ids of the models the server lists (``GET {base}/models``), sorted; the
        openai client's errors propagate (:meth:`failure` says them for people)."""
        return tuple(sorted(m.id for m in self.client.models.list()))

    def redact(self, text: str) -> str:
        """``text`` with the API key blanked out."""
        return text.replace(self.api_key, "<key>") if self.api_key else text

    def failure(
        self,
        exc: Exception,
        *,
        service: str,
        model: str,
        model_setting: str,
        busy_hint: str,
        offline_hint: str,
    ) -> Failure:
        """``exc`` from the openai client, said for people. ``service`` names what was
        called ("the language model"), ``model_setting`` the setting that picks the model,
        ``busy_hint`` what to do about a rate limit, ``offline_hint`` how to do without."""
        import openai

        where = self.where
        retried = f" (after {self.max_retries} retries)" if self.max_retries else ""
        if isinstance(exc, openai.APITimeoutError):
            return Failure(
                "timeout",
                f"{service} at {where} did not answer within {self.timeout:g} s{retried}: "
                "raise PAPERCHAT_OPENAI_TIMEOUT or check the server",
            )
        if isinstance(exc, openai.APIConnectionError):
            return Failure(
                "unreachable",
                f"cannot reach {service} at {where}{retried}: check OPENAI_BASE_URL and that "
                f"the server is running, or {offline_hint}",
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            # The body of a 401 may echo part of the key: it is not repeated here.
            return Failure(
                "auth",
                f"{service} at {where} refused the API key (HTTP {exc.status_code}): set "
                "OPENAI_API_KEY to a valid key",
            )
        if isinstance(exc, openai.RateLimitError):
            return Failure(
                "rate_limit",
                f"{service} at {where} is rate-limiting (HTTP 429){retried}: {busy_hint}",
            )
        if isinstance(exc, openai.NotFoundError):
            return Failure(
                "bad_request",
                f"model {model!r} not found at {where} (HTTP 404): set {model_setting} to a "
                "model the server serves, or check OPENAI_BASE_URL",
            )
        if isinstance(exc, openai.APIStatusError):
            server = exc.status_code >= 500
            return Failure(
                "server" if server else "bad_request",
                f"{service} at {where} failed with HTTP {exc.status_code}"
                f"{retried if server else ''}: {self.redact(str(exc.message))[:300]}",
            )
        return Failure("server", f"{service} at {where} failed: {self.redact(str(exc))[:300]}")
