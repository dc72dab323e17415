"""The lexical side of retrieval: BM25 over each paper's title and abstract (bm25s).

Chroma has no local BM25 ranking, so this index lives beside it in the data directory. It
is built from the store's own contents (each paper's abstract rides on its first chunk),
saved once per ingest, and loaded once at start-up; a search never rebuilds it. The
store's *generation* it was built from is saved with it, so a process sharing a Chroma
server with other writers can tell when to refresh.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.index.catalogue import Catalogue

if TYPE_CHECKING:
    import bm25s

    from rag.records import PaperRow

__all__ = ["Bm25Params", "LexicalIndex"]

_FORMAT = 5  # 3: the catalogue by column (catalogue.json); 4: has_abstract, entry_type,
# cite_key; 5: collections
CATALOGUE = "catalogue.json"
# bm25s's default token pattern, r"(?u)\b\w\w+\b", without the \b: the same words
# (a greedy run of word characters starts and ends at boundaries), found 25% faster.
_TOKEN = re.compile(r"\w\w+")


@dataclass(frozen=True, slots=True)
class Bm25Params:
    """BM25 variant and its constants; part of the saved index (a change rebuilds it)."""

    k1: float = 0.9
    b: float = 0.4
    method: str = "lucene"
    stem: bool = True
    stopwords: str = "en"

    def to_json(self) -> dict[str, Any]:
        return {
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "stem": self.stem,
            "stopwords": self.stopwords,
        }


def _bm25s() -> Any:
    """bm25s, imported on first use. It sets its own logger to DEBUG on import, which
    prints wherever logging is configured; a library should stay quiet, so undo that."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


class Analyzer:
    """Text -> BM25 terms: lowercase, words of 2+ characters, English stopwords out (bm25s's
    list), Snowball-stemmed (PyStemmer). The same function indexes and queries, so their
    terms always agree. Each distinct word is looked at once: its term ("" for a stopword)
    is remembered, so a word seen before costs one dict lookup: analysis of 20k abstracts
    went from 2.8 s (each list through PyStemmer, its own cache included) to 1.5 s; BM25
    build times are in docs/benchmarks.md."""

    MAX_WORDS = 500_000  # remembered words (~75 MB at most); then it starts afresh

    def __init__(self, params: Bm25Params) -> None:
        from bm25s.stopwords import STOPWORDS_EN

        stop = frozenset(STOPWORDS_EN) if params.stopwords == "en" else frozenset()
        stem = None
        if params.stem:
            import Stemmer  # PyStemmer

            stem = Stemmer.Stemmer("english").stemWord
        self._terms = _Terms(stop, stem, self.MAX_WORDS)

    def __call__(self, text: str) -> list[str]:
        terms = self._terms
        return [t for w in _TOKEN.findall(text.lower()) if (t := terms[w])]


class _Terms(dict[str, str]):
    """word -> its term, computed on first sight ("" for a stopword)."""

    def __init__(self, stop: frozenset[str], stem: Callable[[str], str] | None, limit: int):
        super().__init__()
        self._stop, self._stem, self._limit = stop, stem, limit

    def __missing__(self, word: str) -> str:
        stem = self._stem or str
        term = "" if word in self._stop else stem(word)
        if len(self) >= self._limit:
            self.clear()
        self[word] = term
        return term


def paper_text(row: PaperRow) -> str:
    """What BM25 sees of a paper: its title (or label), its abstract and its keywords."""
    keywords = "; ".join(row.keywords)
    return f"{row.name}\n{row.abstract}\n{keywords}" if keywords else f"{row.name}\n{row.abstract}"


class LexicalIndex:
    """BM25 over papers, and the catalogue of those papers (their metadata, for filters
    and display). ``paper_ids[i]`` is document ``i``."""

    def __init__(
        self,
        retriever: bm25s.BM25,
        catalogue: Catalogue,
        *,
        params: Bm25Params,
        generation: str,
    ) -> None:
        self._retriever = retriever
        self.catalogue = catalogue
        self.paper_ids = catalogue.ids
        self.params = params
        self.generation = generation
        self.n_chunks = catalogue.n_chunks
        self.analyze_one = Analyzer(params)
        self.timings: dict[str, float] = {}  # seconds per phase of the build that made it

    def __len__(self) -> int:
        return len(self.paper_ids)

    @classmethod
    def build(
        cls, rows: Iterable[PaperRow], *, params: Bm25Params, generation: str
    ) -> LexicalIndex:
        bm25s = _bm25s()
        rows = list(rows)
        start = time.perf_counter()
        analyze = Analyzer(params)
        terms = [analyze(paper_text(r)) for r in rows]
        analyzed = time.perf_counter()
        retriever = bm25s.BM25(k1=params.k1, b=params.b, method=params.method)
        if rows:
            retriever.index(terms, show_progress=False)
        del terms
        # The catalogue keeps no abstracts: they stay in the store, and memory stays small.
        index = cls(retriever, Catalogue.from_rows(rows), params=params, generation=generation)
        index.timings = {"analyze_s": analyzed - start, "bm25_s": time.perf_counter() - analyzed}
        return index

    def analyze(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms BM25 sees in each text."""
        return [self.analyze_one(t) for t in texts]

    def search(
        self, query: str, *, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` papers as (paper_id, score), best first; only papers with a positive
        score. ``allowed`` is a boolean mask over :attr:`paper_ids` (filters)."""
        if not self.paper_ids or k <= 0:
            return []
        tokens = self.analyze([query])[0]
        vocab = self._retriever.vocab_dict
        ids = [vocab[t] for t in tokens if t in vocab]
        if not ids:
            return []
        scores = self._retriever.get_scores(ids)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.paper_ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def document_frequency(self, terms: Sequence[str] | set[str]) -> dict[str, int]:
        """How many papers hold each term (0 for a term no paper holds)."""
        vocab = self._retriever.vocab_dict if self.paper_ids else {}
        indptr = self._retriever.scores["indptr"] if vocab else None
        return {
            t: int(indptr[vocab[t] + 1] - indptr[vocab[t]]) if t in vocab else 0  # type: ignore[index]
            for t in terms
        }

    def mask(self, paper_ids: Sequence[str] | set[str]) -> np.ndarray:
        """A boolean mask over the index for these papers (unknown ids ignored)."""
        out = np.zeros(len(self.paper_ids), dtype=bool)
        for pid in paper_ids:
            i = self.catalogue.position(pid)
            if i is not None:
                out[i] = True
        return out

    # -- persistence -------------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        """Write atomically: a reader sees the old index or the new one, never half."""
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".lexical-", dir=directory.parent))
        try:
            if self.paper_ids:
                self._retriever.save(str(tmp / "bm25"), show_progress=False)
            meta = {
                "format": _FORMAT,
                "params": self.params.to_json(),
                "generation": self.generation,
            }
            self.catalogue.save(tmp / CATALOGUE)
            (tmp / "meta.json").write_text(json.dumps(meta))
            old = directory.with_name(directory.name + ".old")
            if directory.exists():
                os.replace(directory, old)
            os.replace(tmp, directory)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, directory: Path, *, params: Bm25Params) -> LexicalIndex | None:
        """The saved index, or None if there is none or it was built differently."""
        bm25s = _bm25s()

        try:
            meta = json.loads((directory / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        if meta.get("format") != _FORMAT or meta.get("params") != params.to_json():
            return None
        try:
            catalogue = Catalogue.load(directory / CATALOGUE)
            if len(catalogue):
                # Memory-mapped: nothing is read until a query needs a term's postings, and
                # what is read stays in the page cache, shared by every worker on the machine.
                retriever = bm25s.BM25.load(str(directory / "bm25"), mmap=True, show_progress=False)
            else:
                retriever = bm25s.BM25(k1=params.k1, b=params.b, method=params.method)
        except (OSError, ValueError, KeyError):
            return None  # damaged or half-written by an old version: rebuild
        if len(catalogue) and retriever.scores.get("num_docs") != len(catalogue):
            return None  # the catalogue and the postings are not from one build: rebuild
        return cls(retriever, catalogue, params=params, generation=meta["generation"])
