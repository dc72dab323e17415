"""Chat models: any OpenAI-compatible ``/chat/completions`` endpoint, streamed.

OpenAI, vLLM, Ollama and a llama.cpp server all speak this API; ``OPENAI_BASE_URL`` picks
the server. A call retries what is worth retrying before a stream starts (connection errors,
408/409/429/5xx, with backoff), all within ``PAPERCHAT_OPENAI_TIMEOUT`` in total (a timeout
is not retried); whatever still fails is raised
as :class:`rag.errors.LLMError` with a ``kind`` and a message that says what to do and
never contains the key. A stream that breaks off after it started is not retried (its
text has been shown): it fails with kind ``stream``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rag.errors import ConfigError, LLMError
from rag.openai_api import Endpoint

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["ChatModel", "Message", "OpenAIChat", "Usage", "complete", "make_chat_model"]

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the server counted for one call (as it reported them)."""

    prompt_tokens: int
    completion_tokens: int


class ChatModel(Protocol):
    name: str  # the model's name, shown as the answer mode

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0.0
    ) -> Iterator[str | Usage]:
        """Text pieces as the model writes them; a Usage, if the server reports one."""
        ...


def complete(model: ChatModel, messages: Sequence[Message], *, max_tokens: int) -> str:
    """The whole reply of one call (for short helper calls such as query rewriting)."""
    return "".join(p for p in model.stream(messages, max_tokens=max_tokens) if isinstance(p, str))


# Parameters some servers reject: each is dropped (or swapped) once if a 400 names it.
_OPTIONAL = ("stream_options",)


class OpenAIChat:
    """A chat model behind an OpenAI-compatible API. At most ``concurrency`` calls run at
    once in this process (others wait), so a busy server is not flooded."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str = "",
        timeout: float = 60.0,
        max_retries: int = 2,
        concurrency: int = 4,
    ) -> None:
        if concurrency < 1:
            raise ConfigError("PAPERCHAT_LLM_CONCURRENCY must be at least 1")
        self.name = model
        self.base_url = base_url
        self.endpoint = Endpoint(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )
        self._slots = threading.BoundedSemaphore(concurrency)
        self._unsupported: set[str] = set()

    @property
    def where(self) -> str:
        return self.endpoint.where

    @property
    def client(self) -> Any:
        return self.endpoint.client

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0.0
    ) -> Iterator[str | Usage]:
        # Waiting for a slot counts against the same budget as the call itself.
        if not self._slots.acquire(timeout=self.endpoint.timeout):
            raise LLMError(
                f"the language model at {self.where} is busy: every slot stayed taken for "
                f"{self.endpoint.timeout:g} s; ask again later",
                kind="timeout",
            )
        try:
            response = self._open(list(messages), max_tokens, temperature)
            try:
                yield from self._read(response)
            finally:
                response.close()
        finally:
            self._slots.release()

    def _open(self, messages: list[Message], max_tokens: int, temperature: float) -> Any:
        """The response stream, within ``timeout`` seconds in all, retries included.

        The ``openai`` client's own retries gave each attempt the whole timeout, so a model
        that never answers cost 3 x 60 s (and backoff); here a timeout is not retried (a
        model that did not answer in its time will not now) and every retry gets only
        what is left of the one budget."""
        import openai

        deadline = time.monotonic() + self.endpoint.timeout
        retries = 0
        while True:
            params: dict[str, Any] = {
                "model": self.name,
                "messages": messages,
                "stream": True,
                "temperature": temperature,
                "max_tokens": max_tokens,
            }
            if "stream_options" not in self._unsupported:
                params["stream_options"] = {"include_usage": True}
            if "max_tokens" in self._unsupported:
                params["max_completion_tokens"] = params.pop("max_tokens")
            left = max(deadline - time.monotonic(), 0.05)
            try:
                client = self.client.with_options(max_retries=0, timeout=left)
                return client.chat.completions.create(**params)
            except openai.BadRequestError as exc:
                rejected = self._rejected_param(exc, params)
                if rejected is None:
                    raise self._translate(exc) from exc
                self._unsupported.add(rejected)
            except openai.OpenAIError as exc:
                wait = self._retry_wait(exc, retries, deadline)
                if wait is None:
                    raise self._translate(exc) from exc
                retries += 1
                time.sleep(wait)

    def _retry_wait(self, exc: Exception, retries: int, deadline: float) -> float | None:
        """Seconds to wait before retrying after ``exc``, or None: do not retry."""
        import openai

        if retries >= self.endpoint.max_retries or isinstance(exc, openai.APITimeoutError):
            return None
        wait = min(0.5 * 2**retries, 8.0)
        if isinstance(exc, openai.APIStatusError):
            if exc.status_code not in (408, 409, 429) and exc.status_code < 500:
                return None
            wait = _retry_after(exc.response.headers) or wait
        elif not isinstance(exc, openai.APIConnectionError):
            return None
        return wait if time.monotonic() + wait < deadline else None

    def _rejected_param(self, exc: Any, params: dict[str, Any]) -> str | None:
        text = str(getattr(exc, "message", "") or exc)
        for name in (*_OPTIONAL, "max_tokens"):
            if name in params and name not in self._unsupported and name in text:
                return name
        return None

    def _read(self, response: Any) -> Iterator[str | Usage]:
        import openai

        try:
            for chunk in response:
                for choice in chunk.choices or ():
                    text = getattr(choice.delta, "content", None) if choice.delta else None
                    if text:
                        yield text
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    yield Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))
        except (openai.OpenAIError, json.JSONDecodeError, AttributeError, TypeError) as exc:
            raise LLMError(
                f"the stream from the language model at {self.where} broke off "
                f"({type(exc).__name__}: {self.endpoint.redact(str(exc))[:200]}); ask again",
                kind="stream",
            ) from exc

    def _translate(self, exc: Exception) -> LLMError:
        failure = self.endpoint.failure(
            exc,
            service="the language model",
            model=self.name,
            model_setting="PAPERCHAT_LLM_MODEL",
            busy_hint="wait and ask again, or lower PAPERCHAT_LLM_CONCURRENCY",
            offline_hint="choose PAPERCHAT_LLM=extractive (offline)",
        )
        return LLMError(failure.message, kind=failure.kind)


def _retry_after(headers: Any) -> float | None:
    """The server's own wait (``retry-after-ms`` or ``retry-after`` seconds), at most 8 s."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return min(float(headers.get(name, "")) * scale, 8.0)
        except ValueError:
            continue
    return None


def make_chat_model(settings: Settings, *, model: str | None = None) -> ChatModel | None:
    """The chat model the settings ask for (``model``, when given, instead of
    ``PAPERCHAT_LLM_MODEL``), or None for extractive answers.

    ``PAPERCHAT_LLM=auto`` (the default) uses the API when ``OPENAI_API_KEY`` or
    ``OPENAI_BASE_URL`` is set, else a local Ollama or llama.cpp server when one answers at
    its default address (``PAPERCHAT_DETECT_LOCAL_LLM``); ``openai`` insists on a server;
    ``extractive`` never calls one.
    """
    from rag.answer.models import configured, model_server

    api_key = settings.openai_api_key.get_secret_value()
    if settings.llm == "extractive":
        return None
    base_url = settings.openai_base_url
    name = model or settings.llm_model
    if not configured(settings):
        local = model_server(settings) if settings.detect_local_llm else None
        if local is None or not local.models:
            if settings.llm == "auto":
                return None
            raise ConfigError(
                "PAPERCHAT_LLM=openai but OPENAI_API_KEY is not set and no local model server "
                "answered: put the key in .env (see .env.example), set OPENAI_BASE_URL to a "
                "local OpenAI-compatible server, or choose PAPERCHAT_LLM=extractive (offline)"
            )
        base_url = local.base_url
        name = name if name in local.models else local.models[0]
    return OpenAIChat(
        model=name,
        base_url=base_url or None,
        api_key=api_key,
        timeout=settings.openai_timeout,
        max_retries=settings.llm_retries,
        concurrency=settings.llm_concurrency,
    )
