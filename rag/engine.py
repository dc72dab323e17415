"""The engine: one index and the models that answer from it, and what may be asked of them.

Every face (CLI, HTTP API, web UI) reads and removes through one :class:`Engine`; papers
come in through the ingester (:mod:`ingest.ingester`), which writes into the engine's store
and then calls :meth:`Engine.refresh`. Both are built in one place from the settings
(:mod:`ui.app`).

Building an Engine opens the store but loads no model: the embedder loads on first use
(:meth:`Engine.warm_up` does it eagerly, for servers that should be ready before they say
so), and the chat model is made when an answer first needs it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from rag.answer.chat import make_chat_model
from rag.answer.events import Answer, Event, collect
from rag.answer.generate import LLMOptions
from rag.answer.question import Names
from rag.answer.stream import answer_stream
from rag.index.embed import CachedEmbedder, make_embedder
from rag.index.store import open_store
from rag.retrieve import Retriever

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.answer.followup import HistoryItem
    from rag.index.embed import Embedder
    from rag.index.store import Store
    from rag.records import PaperRow
    from rag.retrieve import Filters, Hit, Mode
    from rag.settings import Settings

__all__ = ["AnswererChoice", "Engine"]

# Who writes a request's answer: the settings' choice (None), no model, or the configured one.
AnswererChoice = Literal["extractive", "openai"] | None

_UNSET: Any = object()


class Engine:
    """One index and the models that answer from it."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store,
        embedder: Embedder,
        chat: ChatModel | None = _UNSET,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        # Answers embed their papers' sentences, which recur, and their query twice (to
        # retrieve, to choose sentences): the vectors are remembered. Ingest uses the plain
        # embedder: chunk vectors are stored, not needed again in memory.
        self.answer_embedder = CachedEmbedder(embedder)
        self.retriever = Retriever.from_settings(settings, store, self.answer_embedder)
        self._chat = chat
        self._openai: ChatModel | None = None if chat is _UNSET else chat
        self._lock = threading.Lock()
        self._names: tuple[object, Names] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Engine:
        return cls(settings, store=open_store(settings), embedder=make_embedder(settings))

    # -- who answers ------------------------------------------------------------------------

    @property
    def chat(self) -> ChatModel | None:
        """The chat model the settings choose (None: extractive answers); made on first use,
        so a command that only searches never needs a model configured."""
        with self._lock:
            if self._chat is _UNSET:
                self._chat = make_chat_model(self.settings)
            return self._chat

    @property
    def answerer(self) -> str:
        """What writes answers by default: "extractive" or the model's name."""
        return self.chat.name if self.chat is not None else "extractive"

    def chat_for(self, choice: AnswererChoice) -> ChatModel | None:
        """The chat model for a request's choice (None: the settings' default)."""
        if choice is None:
            return self.chat
        if choice == "extractive":
            return None
        with self._lock:
            if self._openai is None:
                self._openai = make_chat_model(self.settings.model_copy(update={"llm": "openai"}))
            return self._openai

    def warm_up(self) -> None:
        """Load now what the first question would otherwise wait for: the embedder, the
        lexical index, Chroma's vector index, which Chroma reads from disk on the first
        query (9.3 s of the first question at 1M chunks, bench/scale/query.py), and the
        library's names that questions are matched against."""
        self.embedder.embed_query("warm up")
        if len(self.retriever.index):
            self.retriever.search("warm up", k=1, mode="dense")
            self.names()

    def names(self) -> Names:
        """The library's paper names and authors (for questions that name them), made once
        per version of the catalogue."""
        catalogue = self.retriever.index.catalogue
        with self._lock:
            if self._names is None or self._names[0] is not catalogue:
                self._names = (catalogue, Names(catalogue[pid] for pid in catalogue))
            return self._names[1]

    # -- reading ----------------------------------------------------------------------------

    def answer(
        self,
        question: str,
        *,
        history: Sequence[HistoryItem] = (),
        filters: Filters | None = None,
        llm: AnswererChoice = None,
        k: int | None = None,
        fallback: bool | None = None,
    ) -> Iterator[Event]:
        """The answer to ``question`` as a stream of events (:mod:`rag.answer.events`)."""
        s = self.settings
        return answer_stream(
            question,
            retriever=self.retriever,
            embedder=self.answer_embedder,
            chat=self.chat_for(llm),
            history=history,
            filters=filters,
            k=k or s.answer_k,
            min_relevance=s.min_relevance,
            names=self.names(),
            llm=LLMOptions(
                max_tokens=s.llm_max_tokens,
                context_tokens=s.llm_context_tokens,
                history_tokens=s.llm_history_tokens,
                temperature=s.llm_temperature,
                encoding=s.tiktoken_encoding,
            ),
            fallback=s.llm_fallback if fallback is None else fallback,
        )

    def ask(self, question: str, **options: Any) -> Answer:
        """:meth:`answer`, collapsed into the final answer (the same options)."""
        return collect(self.answer(question, **options))

    def search(
        self, query: str, *, k: int = 10, filters: Filters | None = None, mode: Mode = "hybrid"
    ) -> list[Hit]:
        return self.retriever.search(query, k=k, filters=filters, mode=mode)

    def papers(self, offset: int = 0, limit: int | None = None) -> tuple[int, list[PaperRow]]:
        """(how many papers are stored, ``limit`` of them from ``offset`` in source order),
        from the catalogue: no scan of the store, no sort, and rows made for the page only."""
        catalogue = self.retriever.index.catalogue
        return len(catalogue), catalogue.page(offset, len(catalogue) if limit is None else limit)

    def stats(self) -> dict[str, Any]:
        """What the index holds and where (``paperchat stats``)."""
        index = self.retriever.index
        s = self.settings
        return {
            "papers": len(index),
            "chunks": index.n_chunks,
            "collection": self.store.collection_name,
            "embedder": s.embedder_id,
            "chunk_tokens": s.chunk_tokens,
            "chunk_overlap": s.chunk_overlap,
            "store": self.store.location,
            "data_dir": str(s.data_dir),
        }

    def health(self) -> dict[str, Any]:
        index = self.retriever.index
        info: dict[str, Any] = {
            "status": "ok",
            "index_loaded": True,
            "papers": len(index),
            "chunks": index.n_chunks,
            "collection": self.store.collection_name,
            "store": self.store.location,
            "embedder": self.settings.embedder_id,
            "llm": {"mode": "llm" if self.chat else "extractive", "model": self.answerer},
            "worker_pid": os.getpid(),
        }
        if not len(index):
            info["hint"] = (
                "the index is empty: run `paperchat ingest data/sample` (or your files), "
                "or POST files to /api/ingest"
            )
        return info

    # -- changing ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the lexical index and catalogue up to date with the store now (after an
        ingest or a removal; other writers' changes are noticed on their own)."""
        self.retriever.refresh()

    def remove(self, paper_ids: Sequence[str]) -> list[str]:
        """Delete these papers (their chunks, lexical entries and catalogue rows); the ids
        that were stored. Removing an absent paper is no error."""
        removed = self.store.remove(paper_ids)
        self.refresh()
        return removed

    def reset(self) -> None:
        """Delete the whole collection these settings name, and start it empty."""
        self.store.reset()
        self.refresh()
