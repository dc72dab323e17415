"""Deterministic stand-ins for unit tests of our own logic (never for integration tests)."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence

import numpy as np

from rag.answer.cite import Source
from rag.records import PaperRow

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Bag of hashed words -> 64-d unit vectors. Same text, same vector; shared words, near."""

    name = "fake-hash"
    max_tokens = 256

    def __init__(self, *, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls: list[int] = []

    @property
    def dim(self) -> int:
        return 64

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_WORD.findall(t)) + 2 for t in texts]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, h % 64] += 1.0 if h & 1 << 20 else -1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else np.eye(64, dtype=np.float32)[0]
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class ScriptedChat:
    """A chat model that replies with scripted texts, in order, streamed word by word.

    A reply may be a string; an exception, raised when the call opens (before any text);
    or ``(text, exception)``: the text is streamed, then the exception is raised. Every
    call's messages are kept in ``calls``.
    """

    name = "scripted"

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict[str, str]]] = []

    def stream(self, messages, *, max_tokens: int, temperature: float = 0.0):  # type: ignore[no-untyped-def]
        from rag.answer.chat import Usage

        self.calls.append([dict(m) for m in messages])
        reply = self.replies.pop(0) if self.replies else "nothing scripted"
        if isinstance(reply, BaseException):
            raise reply
        text, error = reply if isinstance(reply, tuple) else (reply, None)
        pieces = re.findall(r"\S+\s*|\s+", text)
        yield from pieces
        if error is not None:
            raise error
        yield Usage(sum(len(m["content"].split()) for m in messages), len(pieces))


def small_index(folder, papers):  # type: ignore[no-untyped-def]
    """A real embedded store and retriever over ``papers`` ({id: (title, authors,
    abstract)}, all from 2024), embedded by HashEmbedder: (store, retriever, embedder)."""
    import json

    from ingest.chunk import Chunker
    from ingest.pipeline import ingest_paths
    from rag.index.connect import open_store
    from rag.retrieve import Retriever, lexical_dir
    from rag.settings import load_settings

    path = folder / "papers.jsonl"
    with path.open("w") as fh:
        for pid, (title, authors, abstract) in papers.items():
            rec = {"id": pid, "title": title, "authors": authors, "abstract": abstract}
            fh.write(json.dumps(rec | {"year": 2024}) + "\n")
    settings = load_settings()
    store = open_store(settings)
    embedder = HashEmbedder()
    ingest_paths([path], store=store, embedder=embedder, chunker=Chunker(64, 8))
    retriever = Retriever(
        store, embedder, index_dir=lexical_dir(settings, store), refresh_seconds=0
    )
    return store, retriever, embedder


def make_source(
    n: int,
    paper_id: str,
    label: str = "",
    title: str = "",
    authors: Sequence[str] = (),
    year: int | None = None,
    source: str = "s.txt",
    abstract: str = "",
) -> Source:
    """A numbered source for a paper with these fields (the old positional order)."""
    row = PaperRow(id=paper_id, label=label, title=title, authors=tuple(authors), year=year,
                   source=source, position=n, n_chunks=1, abstract=abstract)  # fmt: skip
    return Source(n, row)
