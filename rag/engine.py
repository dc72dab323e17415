"""The engine every face shares: store, embedder, retriever and chat model, built once from
settings, and the operations the CLI, the HTTP API and the UI offer on them.

Building an Engine opens the store but loads no model: the embedder loads on first use
(``warm_up`` does it eagerly, for servers that should be ready before they say so).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rag.embed import CachedEmbedder
from rag.errors import ConfigError

if TYPE_CHECKING:
    from ingest.pipeline import IngestReport
    from rag.embed import Embedder
    from rag.events import Event
    from rag.followup import HistoryItem
    from rag.llm import ChatModel
    from rag.retrieve import Filters, Hit, Mode, Retriever
    from rag.settings import Settings
    from rag.store import PaperRow, Store

__all__ = ["Engine"]

LLMChoice = Literal["extractive", "openai"] | None


class Engine:
    """One index and the models that answer from it."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store,
        embedder: Embedder,
        chat: ChatModel | None,
    ) -> None:
        from rag.retrieve import Retriever

        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.chat = chat
        # Answers embed their papers' sentences, which recur, and their query twice (to
        # retrieve, to choose sentences): the vectors are remembered. Ingest uses the plain
        # embedder: chunk vectors are stored, not needed again in memory.
        self.sentence_embedder = CachedEmbedder(embedder)
        self.retriever: Retriever = Retriever.from_settings(settings, store, self.sentence_embedder)
        self._openai: ChatModel | None = chat
        self._ingest_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Engine:
        from rag.embed import make_embedder
        from rag.llm import make_chat_model
        from rag.store import open_store

        return cls(
            settings,
            store=open_store(settings),
            embedder=make_embedder(settings),
            chat=make_chat_model(settings),
        )

    # -- models ---------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """What writes answers by default: "extractive" or the model's name."""
        return self.chat.name if self.chat is not None else "extractive"

    def chat_for(self, llm: LLMChoice) -> ChatModel | None:
        """The chat model for a request's ``llm`` choice (None: the settings' default)."""
        if llm is None:
            return self.chat
        if llm == "extractive":
            return None
        if self._openai is None:
            from rag.llm import make_chat_model

            self._openai = make_chat_model(self.settings.model_copy(update={"llm": "openai"}))
        return self._openai

    def warm_up(self) -> None:
        """Load now what the first question would otherwise wait for: the embedder, the
        lexical index, and Chroma's vector index, which Chroma reads from disk on the first
        query (9.3 s of the first question at 1M chunks, bench/scale/query.py)."""
        self.embedder.embed_query("warm up")
        if len(self.retriever.index):
            self.retriever.search("warm up", k=1, mode="dense")

    # -- operations -------------------------------------------------------------------------

    def answer(
        self,
        question: str,
        *,
        history: Sequence[HistoryItem] = (),
        filters: Filters | None = None,
        llm: LLMChoice = None,
        k: int | None = None,
        fallback: bool | None = None,
    ) -> Iterator[Event]:
        """:func:`rag.answer.answer_stream` with this engine's parts and settings."""
        from rag.answer import answer_stream

        return answer_stream(
            question,
            retriever=self.retriever,
            embedder=self.sentence_embedder,
            chat=self.chat_for(llm),
            history=history,
            filters=filters,
            k=k or self.settings.answer_k,
            min_relevance=self.settings.min_relevance,
            llm=self.settings.llm_options(),
            fallback=self.settings.llm_fallback if fallback is None else fallback,
        )

    def search(
        self, query: str, *, k: int = 10, filters: Filters | None = None, mode: Mode = "hybrid"
    ) -> list[Hit]:
        return self.retriever.search(query, k=k, filters=filters, mode=mode)

    def papers(self, offset: int = 0, limit: int | None = None) -> tuple[int, list[PaperRow]]:
        """(how many papers are stored, ``limit`` of them from ``offset`` in source order),
        from the catalogue: no scan of the store, no sort, and rows made for the page only."""
        catalogue = self.retriever.index.catalogue
        return len(catalogue), catalogue.page(offset, len(catalogue) if limit is None else limit)

    def ingest(self, paths: Sequence[Path], *, format: str | None = None) -> IngestReport:
        """Ingest files, as ``paperchat ingest`` does; one ingest at a time per process."""
        from ingest.chunk import Chunker
        from ingest.pipeline import ingest_paths

        with self._ingest_lock:
            report = ingest_paths(
                paths,
                store=self.store,
                embedder=self.embedder,
                chunker=Chunker.from_settings(self.settings, self.embedder),
                format=format,
                batch_papers=max(self.settings.embed_batch_size * 4, 32),
            )
            self.retriever.refresh()
        return report

    def health(self) -> dict[str, Any]:
        papers = len(self.retriever.index.catalogue)
        info: dict[str, Any] = {
            "status": "ok",
            "index_loaded": True,
            "papers": papers,
            "chunks": self.retriever.index.n_chunks,
            "collection": self.store.collection_name,
            "store": self.store.location,
            "embedder": self.settings.embedder_id,
            "llm": {"mode": "llm" if self.chat else "extractive", "model": self.mode},
            "worker_pid": os.getpid(),
        }
        if not papers:
            info["hint"] = (
                "the index is empty: run `paperchat ingest data/sample` (or your files), "
                "or POST files to /api/ingest"
            )
        return info


def require_shared_store(settings: Settings, workers: int) -> None:
    """Several worker processes need a Chroma server: the embedded store is one process's."""
    if workers > 1 and not settings.chroma_host:
        raise ConfigError(
            f"--workers {workers} needs a Chroma server: the embedded store cannot be shared "
            "by several processes. Start `chroma run` and set PAPERCHAT_CHROMA_HOST, or use "
            "--workers 1"
        )
