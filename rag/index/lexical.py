"""The lexical side of retrieval: BM25 over each paper's title and abstract, and (down-
weighted, :data:`FULL_TEXT_WEIGHT`) over its full text when a PDF gave one.

Chroma has no local BM25 ranking, so this index lives beside it in the data directory: the
postings in tantivy (:mod:`rag.index.postings`), the papers' metadata in the catalogue
(:mod:`rag.index.catalogue`, on disk as a snapshot plus a journal, :mod:`rag.index.journal`).
It is built once from the store's own contents (each paper's abstract rides on its first
chunk), then grows and shrinks in place: :meth:`LexicalIndex.apply` adds, replaces and
removes papers, touching only those. The store's *generation* it is current with is saved
with it, so any process (one sharing a Chroma server with other writers too) can tell when
to catch up (:mod:`rag.index.sync`).

A :class:`LexicalIndex` is a snapshot: a search holds one while a change makes the next.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.aliases import with_names
from rag.index import journal
from rag.index.catalogue import Catalogue, add_row, compact, empty_columns, in_source_order
from rag.index.postings import Postings
from rag.spelling import american, plain_text

if TYPE_CHECKING:
    from rag.records import PaperRow

__all__ = ["Bm25Params", "LexicalIndex"]

_FORMAT = 11  # 3: the catalogue by column; 4: has_abstract, entry_type, cite_key;
# 5: collections; 6: tantivy postings, catalogue snapshot + journal, changed in place;
# 7: the names abstracts give their papers (coined, acronyms); 8: full text, its own field;
# 9: zotero_uri; 10: one spelling (rag.spelling), hyphenated compounds also joined;
# 11: TeX sub- and superscripts glued to their name, Unicode folded (rag.spelling)
CATALOGUE = journal.SNAPSHOT
POSTINGS = "postings"
# bm25s's default token pattern, r"(?u)\b\w\w+\b", without the \b: the same words
# (a greedy run of word characters starts and ends at boundaries), found 25% faster.
_TOKEN = re.compile(r"\w\w+")
# "self-supervised", "non-linear", "COVID-19": also one word, as others write them.
_COMPOUND = re.compile(r"\b(\w+)-(\w+)\b")


@dataclass(frozen=True, slots=True)
class Bm25Params:
    """BM25 variant and its constants; part of the saved index (a change rebuilds it).
    ``k1``, ``b`` and ``method`` record how the postings rank: tantivy's Lucene BM25, whose
    constants are fixed (its Python bindings do not expose them). Until issue #17, bm25s
    ranked with k1 0.9, b 0.4 (settable); SciFact train nDCG@10 was no lower with these
    (docs/benchmarks.md), so the settings went."""

    k1: float = 1.2
    b: float = 0.75
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


class Analyzer:
    """Text -> BM25 terms: Greek letters and TeX read as words and lowercase
    (:func:`rag.spelling.plain_text`), words of 2+ characters (a hyphenated compound also
    joined: "self-supervised" gives "selfsupervised" too), English stopwords out (bm25s's
    list), one spelling for British and American (:func:`rag.spelling.american`),
    Snowball-stemmed (PyStemmer). The same function indexes and queries, so their
    terms always agree. Each distinct word is looked at once: its term ("" for a stopword)
    is remembered, so a word seen before costs one dict lookup: analysis of 20k abstracts
    went from 2.8 s (each list through PyStemmer, its own cache included) to 1.5 s; BM25
    build times are in docs/benchmarks.md."""

    MAX_WORDS = 500_000  # remembered words (~75 MB at most); then it starts afresh

    def __init__(self, params: Bm25Params) -> None:
        from bm25s.stopwords import STOPWORDS_EN

        # bm25s sets its own logger to DEBUG on import, which prints wherever logging is
        # configured; a library should stay quiet, so undo that.
        logging.getLogger("bm25s").setLevel(logging.WARNING)

        stop = frozenset(STOPWORDS_EN) if params.stopwords == "en" else frozenset()
        stem = None
        if params.stem:
            import Stemmer  # PyStemmer

            stem = Stemmer.Stemmer("english").stemWord
        self._terms = _Terms(stop, stem, self.MAX_WORDS)

    def __call__(self, text: str) -> list[str]:
        terms = self._terms
        text = plain_text(text).lower()
        out = [t for w in _TOKEN.findall(text) if (t := terms[w])]
        if "-" in text:
            out += [t for a, b in _COMPOUND.findall(text) if (t := terms[a + b])]
        return out


class _Terms(dict[str, str]):
    """word -> its term, computed on first sight ("" for a stopword)."""

    def __init__(self, stop: frozenset[str], stem: Callable[[str], str] | None, limit: int):
        super().__init__()
        self._stop, self._stem, self._limit = stop, stem, limit

    def __missing__(self, word: str) -> str:
        stem = self._stem or str
        term = "" if word in self._stop else stem(american(word))
        if len(self) >= self._limit:
            self.clear()
        self[word] = term
        return term


# BM25 over a paper's full text counts this much of the title-and-abstract field's: enough
# for a question only the body answers to find its paper, too little for a long body to
# outrank the paper whose abstract is about the question (measured on the sample with the
# real PDFs beside it: docs/benchmarks.md, "BM25 over the full text").
FULL_TEXT_WEIGHT = 0.2


def paper_text(row: PaperRow) -> str:
    """What BM25 sees of a paper: its title (or label), its abstract and its keywords."""
    keywords = "; ".join(row.keywords)
    return f"{row.name}\n{row.abstract}\n{keywords}" if keywords else f"{row.name}\n{row.abstract}"


class LexicalIndex:
    """BM25 over papers, and the catalogue of those papers (their metadata, for filters
    and display). Build with :meth:`build`, open with :meth:`load`, change with :meth:`apply`."""

    def __init__(
        self,
        postings: Postings,
        catalogue: Catalogue,
        *,
        params: Bm25Params,
        generation: str,
        stamp: journal.Stamp,
        analyzer: Analyzer | None = None,
    ) -> None:
        self._postings = postings
        self._searcher = postings.searcher  # this snapshot's view; later commits leave it be
        self.directory = postings.directory.parent
        self.catalogue = catalogue
        self.paper_ids = catalogue.ids
        self.params = params
        self.generation = generation
        self.n_chunks = catalogue.n_chunks
        self.analyze_one = analyzer or Analyzer(params)  # passed on: its word cache stays warm
        self.timings: dict[str, float] = {}  # seconds per phase of the change that made it
        self.unlinked_since: float | None = None  # when a sync first found the change log
        # not linking this generation (rag.index.sync)
        self.stamp = stamp  # what was read of the saved catalogue (another process's write
        # changes the one on disk)

    def __len__(self) -> int:
        return len(self.paper_ids)

    @property
    def consistent(self) -> bool:
        """The postings hold as many papers as the catalogue (a kill between the postings'
        commit and the journal's line can make it false until the next change heals it)."""
        return int(self._searcher.num_docs) == len(self.catalogue)

    # -- making and changing ---------------------------------------------------------------

    @classmethod
    def build(
        cls, rows: Iterable[PaperRow], *, params: Bm25Params, generation: str, directory: Path
    ) -> LexicalIndex:
        """Index ``rows`` (any order, read once) afresh in ``directory``: made aside, then
        swapped in whole, so a reader sees the old index or the new one, never half."""
        start = time.perf_counter()
        analyze = Analyzer(params)
        columns = empty_columns()  # the catalogue's, filled as rows pass (no abstracts kept)

        def docs() -> Iterator[tuple[str, list[str], list[str]]]:
            for stored in rows:  # one pass: ``rows`` may be a stream too big to hold
                row = with_names(stored)
                add_row(columns, row)
                yield row.id, analyze(paper_text(row)), analyze(row.body)

        directory.parent.mkdir(parents=True, exist_ok=True)
        with _locked(directory):
            tmp = Path(tempfile.mkdtemp(prefix=".lexical-", dir=directory.parent))
            try:
                Postings(tmp / POSTINGS).write(docs(), delete=())
                indexed = time.perf_counter()
                catalogue = Catalogue(compact(in_source_order(columns)))
                stamp = journal.write_snapshot(tmp, catalogue, generation)  # kept by the rename
                meta = {"format": _FORMAT, "params": params.to_json(), "engine": "tantivy"}
                (tmp / "meta.json").write_text(json.dumps(meta))
                old = directory.with_name(directory.name + ".old")
                shutil.rmtree(old, ignore_errors=True)
                if directory.exists():
                    os.replace(directory, old)
                os.replace(tmp, directory)
                shutil.rmtree(old, ignore_errors=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            # The catalogue just written, not read back: a second copy of it at 100k papers
            index = cls(Postings(directory / POSTINGS), catalogue, params=params,
                        generation=generation, stamp=stamp)  # fmt: skip
        index.timings = {"index_s": indexed - start, "save_s": time.perf_counter() - indexed}
        return index

    def apply(
        self, rows: Sequence[PaperRow], removed: Iterable[str], *, generation: str
    ) -> LexicalIndex | None:
        """The index with ``rows`` added (or replacing their papers) and ``removed`` gone,
        current with ``generation``: saved in place, touching only these papers. None when
        the saved index cannot be read (the caller rebuilds)."""
        start = time.perf_counter()
        rows = [with_names(r) for r in rows]
        removed = set(removed) - {r.id for r in rows}
        with _locked(self.directory):
            base = self.reloaded()  # another process on this machine may have changed it
            if base is None or base.generation == generation:
                return base
            postings = base._postings
            postings.write(_docs(rows, self.analyze_one), delete=[*(r.id for r in rows), *removed])
            indexed = time.perf_counter()
            catalogue = base.catalogue.changed(rows, removed)
            stamp = journal.append(self.directory, rows, removed, generation, base.stamp)
            if journal.should_compact(self.directory, stamp):
                stamp = journal.write_snapshot(self.directory, catalogue, generation)
        index = LexicalIndex(postings, catalogue, params=self.params, generation=generation,
                             stamp=stamp, analyzer=self.analyze_one)  # fmt: skip
        index.timings = {"index_s": indexed - start, "save_s": time.perf_counter() - indexed}
        return index

    def reloaded(self) -> LexicalIndex | None:
        """The index as saved now: this one if nothing was written since it was read; else
        with the journal lines written since (another process's changes) applied; else (a
        fold or a rebuild replaced the snapshot) read whole. None if it cannot be read."""
        if journal.current_stamp(self.directory) == self.stamp:
            return self
        try:
            tail = journal.read_tail(self.directory, self.catalogue, self.generation, self.stamp)
        except OSError:
            tail = None
        if tail is None:
            return LexicalIndex._open(self.directory, self.params)
        catalogue, generation, stamp = tail
        self._postings.searcher = self._postings.reloaded()
        return LexicalIndex(self._postings, catalogue, params=self.params, generation=generation,
                            stamp=stamp, analyzer=self.analyze_one)  # fmt: skip

    # -- reading -----------------------------------------------------------------------------

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
        terms = self.analyze_one(query)
        if not terms:
            return []
        limit = k
        while True:
            hits = self._postings.search(self._searcher, terms, limit, full_weight=FULL_TEXT_WEIGHT)
            out = []
            for pid, score in hits:
                i = self.catalogue.position(pid)  # None: a paper the catalogue does not hold
                if score > 0 and i is not None and (allowed is None or allowed[i]):
                    out.append((pid, score))
                    if len(out) == k:
                        return out
            if len(hits) < limit:
                return out
            limit *= 4  # filtered out too many: look further down

    def mentions(self, text: str) -> int:
        """How many papers hold every word of ``text`` the index keeps; 0 when it keeps none,
        or drops a number ("ERNIE 3.0" is more than "ernie": the index cannot tell). A letter
        or a stopword it drops says no more: "CD4+ T" is as common as "CD4"."""
        terms = list(dict.fromkeys(self.analyze_one(text)))
        dropped = [w for w in set(re.findall(r"\w+", text.casefold())) if not self.analyze_one(w)]
        if not terms or any(c.isdigit() for w in dropped for c in w):
            return 0
        return self._postings.count_all(self._searcher, terms)

    def document_frequency(self, terms: Sequence[str] | set[str]) -> dict[str, int]:
        """How many papers hold each term (0 for a term no paper holds)."""
        return {t: self._postings.document_frequency(self._searcher, t) for t in terms}

    def mask(self, paper_ids: Sequence[str] | set[str]) -> np.ndarray:
        """A boolean mask over the index for these papers (unknown ids ignored)."""
        out = np.zeros(len(self.paper_ids), dtype=bool)
        for pid in paper_ids:
            i = self.catalogue.position(pid)
            if i is not None:
                out[i] = True
        return out

    # -- persistence -------------------------------------------------------------------------

    @classmethod
    def load(cls, directory: Path, *, params: Bm25Params) -> LexicalIndex | None:
        """The saved index, or None if there is none, it was built differently (another
        format or parameters: rebuilt once) or it is damaged."""
        try:
            meta = json.loads((directory / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        if meta.get("format") != _FORMAT or meta.get("params") != params.to_json():
            return None
        return cls._open(directory, params)

    @classmethod
    def _open(cls, directory: Path, params: Bm25Params) -> LexicalIndex | None:
        if not (directory / POSTINGS / "meta.json").is_file():
            return None  # no committed postings (tantivy would start an empty index)
        try:
            catalogue, generation, stamp = journal.read(directory)
            postings = Postings(directory / POSTINGS)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # damaged: rebuild
        return cls(postings, catalogue, params=params, generation=generation, stamp=stamp)


def _docs(
    rows: Iterable[PaperRow], analyze: Analyzer
) -> Iterator[tuple[str, list[str], list[str]]]:
    return ((r.id, analyze(paper_text(r)), analyze(r.body)) for r in rows)


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """One writer at a time per index, across processes (the OS frees it if one dies)."""
    with directory.with_name(directory.name + ".lock").open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
