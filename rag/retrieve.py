"""Hybrid retrieval: dense (Chroma) + lexical (BM25), fused, grouped by paper, filtered.

Dense hits are chunks; a paper's dense score is its best chunk's cosine similarity. The
lexical index scores whole papers. Hybrid fuses the two as a convex combination of
min-max-normalised scores over each side's pool (a paper absent from one side gets 0
there): on SciFact train this beat reciprocal-rank fusion and stayed stable when the weight
was chosen on either half of the queries (bench/retrieval_study.py). Filters are one
predicate applied on both sides, so a filter gives the same papers whichever side finds them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from rag.errors import QueryError
from rag.index.lexical import Bm25Params, LexicalIndex
from rag.index.sync import lexical_dir, sync_lexical
from rag.tokens import truncate_tokens

if TYPE_CHECKING:
    from rag.index.embed import Embedder
    from rag.index.store import Store
    from rag.records import PaperRow
    from rag.settings import Settings


__all__ = [
    "Filters",
    "Hit",
    "Mode",
    "Passage",
    "Retriever",
    "fuse_minmax",
    "group_by_paper",
    "lexical_dir",
]

# Longer queries are cut to this many tokens (a pasted abstract is fine; a pasted book is not).
MAX_QUERY_TOKENS = 512

Mode = Literal["hybrid", "dense", "lexical"]
MODES: tuple[Mode, ...] = ("hybrid", "dense", "lexical")


@dataclass(frozen=True, slots=True)
class Filters:
    """Year range (inclusive), author (case-insensitive substring of any author), source
    (substring of the source path), collection (a collection the paper is in, exactly),
    paper_ids (only these papers). Empty fields do not filter."""

    year_from: int | None = None
    year_to: int | None = None
    author: str = ""
    source: str = ""
    collection: str = ""
    paper_ids: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.year_from is not None
            or self.year_to is not None
            or self.author
            or self.source
            or self.collection
            or self.paper_ids
        )

    def matches(self, row: PaperRow) -> bool:
        return self.keeps(row.year, row.authors, row.source, row.collections, row.id)

    def keeps(
        self,
        year: int | None,
        authors: Sequence[str],
        source: str,
        collections: Sequence[str] = (),
        paper_id: str = "",
    ) -> bool:
        """The predicate on what the catalogue holds of a paper."""
        if self.paper_ids and paper_id not in self.paper_ids:
            return False
        if self.collection and self.collection not in collections:
            return False
        if self.year_from is not None and (year is None or year < self.year_from):
            return False
        if self.year_to is not None and (year is None or year > self.year_to):
            return False
        if self.author:
            needle = self.author.casefold().strip()
            if not any(needle in a.casefold() for a in authors):
                return False
        return not (self.source and self.source.casefold() not in source.casefold())

    def to_json(self) -> dict[str, Any]:
        return {
            "year_from": self.year_from,
            "year_to": self.year_to,
            "author": self.author,
            "source": self.source,
            "collection": self.collection,
            "paper_ids": list(self.paper_ids),
        }


@dataclass(frozen=True, slots=True)
class Passage:
    """A chunk of a paper: its abstract's, or (``page`` set) its full text's, with the
    heading of the section it is in."""

    chunk_id: str
    index: int
    text: str
    score: float
    section: str = ""
    page: int | None = None

    @property
    def where(self) -> str:
        """Where a body passage is, for people: "p. 5, 3.1 Traces" ("" for the abstract)."""
        if self.page is None:
            return ""
        return f"p. {self.page}, {self.section}" if self.section else f"p. {self.page}"


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved paper, its fused score, each side's raw score and best passages."""

    paper: PaperRow
    score: float
    dense: float | None
    lexical: float | None
    passages: tuple[Passage, ...] = field(default=())

    @property
    def snippet(self) -> str:
        return self.passages[0].text if self.passages else self.paper.abstract[:400]

    def to_json(self) -> dict[str, Any]:
        p = self.paper
        return {
            "paper_id": p.id,
            "label": p.label,
            "title": p.title,
            "authors": list(p.authors),
            "year": p.year,
            "source": p.source,
            "url": p.url,
            "doi": p.doi,
            "score": round(self.score, 6),
            "dense_score": None if self.dense is None else round(self.dense, 6),
            "lexical_score": None if self.lexical is None else round(self.lexical, 6),
            "snippet": self.snippet,
        }


def group_by_paper(chunk_ids: Sequence[str], similarities: Sequence[float]) -> dict[str, float]:
    """Chunk hits -> {paper_id: best chunk similarity}, in order of first appearance."""
    best: dict[str, float] = {}
    for cid, sim in zip(chunk_ids, similarities, strict=True):
        pid = cid.rsplit("#", 1)[0]
        if sim > best.get(pid, -np.inf):
            best[pid] = float(sim)
    return best


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {pid: (s - lo) / (hi - lo) for pid, s in scores.items()}


def fuse_minmax(
    dense: dict[str, float], lexical: dict[str, float], *, alpha: float
) -> list[tuple[str, float]]:
    """``alpha * minmax(dense) + (1 - alpha) * minmax(lexical)``; a paper missing from one
    side gets 0 there. Best first; ties broken by paper id for a stable order."""
    nd, nl = _minmax(dense), _minmax(lexical)
    fused = {
        pid: alpha * nd.get(pid, 0.0) + (1 - alpha) * nl.get(pid, 0.0) for pid in nd.keys() | nl
    }
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


class Retriever:
    """Searches one store. Holds the lexical index in memory, refreshed when the store's
    generation changes (checked at most every ``refresh_seconds``)."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        index_dir: Path,
        params: Bm25Params | None = None,
        pool: int = 200,
        alpha: float = 0.5,
        refresh_seconds: float = 2.0,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.index_dir = index_dir
        self.params = params or Bm25Params()
        self.pool = pool
        self.alpha = alpha
        self.refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        # Hybrid search runs BM25 here while the query is embedded and Chroma searched
        # (both release the GIL), so the two sides cost the slower one, not their sum.
        self._lexical_pool = ThreadPoolExecutor(2, "paperchat-lexical")
        self._index: LexicalIndex | None = None
        self._checked = 0.0

    @classmethod
    def from_settings(cls, settings: Settings, store: Store, embedder: Embedder) -> Retriever:
        return cls(
            store,
            embedder,
            index_dir=lexical_dir(settings, store),
            params=Bm25Params(),
            pool=settings.retrieval_pool,
            alpha=settings.fusion_alpha,
            refresh_seconds=settings.index_refresh_seconds,
        )

    # -- the lexical index and paper catalogue -------------------------------------------

    @property
    def index(self) -> LexicalIndex:
        """The lexical index, current with the store (loaded or rebuilt as needed)."""
        now = time.monotonic()
        if self._index is not None and now - self._checked < self.refresh_seconds:
            return self._index
        return self.refresh(patient=True)

    def refresh(self, *, patient: bool = False) -> LexicalIndex:
        """Bring the lexical index up to date with the store now (e.g. after an ingest).
        ``patient``: a periodic check, which may wait for a lost change-log entry to be
        noted again rather than rebuild (:func:`sync_lexical`)."""
        with self._lock:
            self._index = sync_lexical(
                self.store, self.index_dir, self.params, self._index, patient=patient
            )
            self._checked = time.monotonic()
            return self._index

    # -- search ---------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        filters: Filters | None = None,
        mode: Mode = "hybrid",
        passages: int = 2,
    ) -> list[Hit]:
        """The ``k`` best papers for ``query``, each once, with up to ``passages`` passages."""
        query = " ".join(query.split())
        if not query:
            raise QueryError("the query is empty: type a question or some keywords")
        if mode not in MODES:
            raise QueryError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
        if k < 1:
            raise QueryError("k must be at least 1")
        query = truncate_tokens(query, MAX_QUERY_TOKENS)
        index = self.index
        filters = filters or Filters()
        allowed: set[str] | None = None
        if filters:
            allowed = index.catalogue.select(filters.keeps)
            if not allowed:
                return []
        pool = max(self.pool, k)
        dense: dict[str, float] = {}
        chunk_sims: dict[str, float] = {}
        lexical: dict[str, float] = {}
        side = None
        if mode in ("hybrid", "lexical"):
            mask = index.mask(allowed) if allowed is not None else None
            side = self._lexical_pool.submit(index.search, query, k=pool, allowed=mask)
        if mode in ("hybrid", "dense"):
            vector = self.embedder.embed_query(query)
            dense, chunk_sims = self._dense(vector, pool, filters, allowed)
        if side is not None:
            lexical = dict(side.result())
        if mode == "dense":
            ranked = sorted(dense.items(), key=lambda kv: (-kv[1], kv[0]))
        elif mode == "lexical":
            ranked = sorted(lexical.items(), key=lambda kv: (-kv[1], kv[0]))
        else:
            ranked = fuse_minmax(dense, lexical, alpha=self.alpha)
        catalogue = index.catalogue
        top = list(islice(((pid, s) for pid, s in ranked if pid in catalogue), k))
        rows = {pid: catalogue[pid] for pid, _ in top}
        best = self._passages(rows, query, chunk_sims, passages)
        return [
            Hit(
                paper=rows[pid],
                score=score,
                dense=dense.get(pid),
                lexical=lexical.get(pid),
                passages=best.get(pid, ()),
            )
            for pid, score in top
        ]

    def _dense(
        self, vector: np.ndarray, pool: int, filters: Filters, allowed: set[str] | None
    ) -> tuple[dict[str, float], dict[str, float]]:
        """(paper -> best chunk similarity, chunk id -> similarity) for the dense pool."""
        chunks = self.index.n_chunks
        if chunks == 0:
            return {}, {}
        where = _chroma_where(filters, allowed)
        ids, distances = self.store.query(vector, n=min(pool, chunks), where=where)
        sims = [1.0 - d for d in distances]
        return group_by_paper(ids, sims), dict(zip(ids, sims, strict=True))

    def _passages(
        self, rows: dict[str, PaperRow], query: str, chunk_sims: dict[str, float], n: int
    ) -> dict[str, tuple[Passage, ...]]:
        """Each paper's best ``n`` chunks, best first: ranked by the dense similarities the
        query already produced, else (chunks the dense pool did not reach, lexical mode) by
        how many query terms they contain. One read of the chunk texts needed, by id (a
        paper whose ``n`` best chunks the dense pool ranked needs only those); no
        re-embedding."""
        if not rows or n < 1:
            return {}
        wanted: list[str] = []
        for pid, row in rows.items():
            chunks = [f"{pid}#{i}" for i in range(row.n_chunks)]
            ranked = sorted((c for c in chunks if c in chunk_sims), key=lambda c: -chunk_sims[c])
            # Unranked chunks score below 0 (see below), so they cannot beat these n.
            enough = len(ranked) >= n and chunk_sims[ranked[n - 1]] >= 0
            wanted += ranked[:n] if enough else chunks
        texts = self.store.documents(wanted)
        unranked = [cid for cid in wanted if cid in texts and cid not in chunk_sims]
        below: dict[str, float] = {}  # unranked chunks: -1 + the share of query terms held
        if unranked:
            index = self.index  # one snapshot for both analyses
            terms = set(index.analyze_one(query))
            analysed = index.analyze([texts[c] for c in unranked])
            below = {
                cid: -1.0 + len(terms.intersection(words)) / (len(terms) + 1)
                for cid, words in zip(unranked, analysed, strict=True)
            }
        out: dict[str, list[Passage]] = {}
        for cid in wanted:
            if cid not in texts:
                continue
            pid, _, number = cid.rpartition("#")
            score = chunk_sims[cid] if cid in chunk_sims else below[cid]
            out.setdefault(pid, []).append(Passage(cid, int(number), texts[cid], score))
        return {
            pid: tuple(sorted(ps, key=lambda p: (-p.score, p.index))[:n]) for pid, ps in out.items()
        }


def _chroma_where(filters: Filters, allowed: set[str] | None) -> dict[str, Any] | None:
    """The same predicate as :meth:`Filters.matches`, as a Chroma ``where``. Year is native;
    the rest (substring tests Chroma cannot express; collections, which only a paper's first
    chunk records) go through the allowed ids."""
    if not filters:
        return None
    clauses: list[dict[str, Any]] = []
    if filters.year_from is not None:
        clauses.append({"year": {"$gte": filters.year_from}})
    if filters.year_to is not None:
        clauses.append({"year": {"$lte": filters.year_to}})
    by_id = filters.author or filters.source or filters.collection or filters.paper_ids
    if by_id and allowed is not None:
        clauses.append({"paper_id": {"$in": sorted(allowed)}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
