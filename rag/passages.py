"""The body passages of full-text papers nearest a question: what an answer may quote when
an abstract does not say it. Each passage is ranked by its stored vector's cosine to the
question plus :data:`PASSAGE_WORDS` times the share of the question's words it holds (its
section heading included), each word weighted by its idf among the paper's own passages;
the words naming the paper (:func:`naming_terms`) are left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.retrieve import Passage
from rag.terms import terms

if TYPE_CHECKING:
    from rag.index.embed import Embedder
    from rag.index.store import Store
    from rag.records import PaperRow

__all__ = ["PASSAGE_WORDS", "body_passages", "naming_terms"]

# A body passage's rank: its cosine to the question plus this times the share of the
# question's words it holds (chosen on the body questions of half the real PDFs and
# reported on the other half: bench/pdf_answers.py, docs/benchmarks.md).
PASSAGE_WORDS = 1.0
# Words a question uses to say which paper it asks about ("in the paper by Dutot et al."),
# besides the paper's own title and authors.
_SELF_WORDS = frozenset(terms("paper study work article author et al"))


def naming_terms(title: str, authors: Sequence[str]) -> set[str]:
    """The words that say which paper a question is about (its title, its authors' names,
    "the paper by ... et al."): within that paper they are no clue to where the answer is."""
    return terms(f"{title} {' '.join(authors)}") | _SELF_WORDS


def body_passages(
    store: Store, embedder: Embedder, query: str, rows: Sequence[PaperRow], n: int = 5
) -> dict[str, tuple[Passage, ...]]:
    """Each full-text paper's ``n`` body passages nearest to ``query`` (by the stored chunk
    vectors, best first): what an answer may quote when the abstract does not answer."""
    ids = [f"{r.id}#{i}" for r in rows for i in range(1, r.n_chunks)]
    if not ids or n < 1:
        return {}
    chunks = store.body_chunks(ids)
    if not chunks:
        return {}
    vector = np.asarray(embedder.embed_query(query), dtype=np.float32)
    asked = terms(query)
    wanted = {r.id: asked - naming_terms(r.title, r.authors) for r in rows}
    held = [
        wanted[cid.rpartition("#")[0]] & terms(f"{meta.get('section') or ''} {text}")
        for cid, text, meta, _ in chunks
    ]
    weight = _within_paper_idf(chunks, held)
    totals = {pid: sum(w.values()) for pid, w in weight.items()}
    by_paper: dict[str, list[Passage]] = {}
    for (cid, text, meta, chunk_vector), words in zip(chunks, held, strict=True):
        pid, _, number = cid.rpartition("#")
        # Similar in meaning, and holding the question's words that are rare in the paper:
        # a number asked about sits in a passage that names what it measures.
        total = totals[pid]
        share = sum(weight[pid][t] for t in words) / total if total else 0.0
        score = float(chunk_vector @ vector) + PASSAGE_WORDS * share
        passage = Passage(cid, int(number), text, score,
                          str(meta.get("section") or ""), int(meta["page"]))  # fmt: skip
        by_paper.setdefault(pid, []).append(passage)
    return {
        pid: tuple(sorted(ps, key=lambda p: (-p.score, p.index))[:n])
        for pid, ps in by_paper.items()
    }


def _within_paper_idf(
    chunks: Sequence[tuple[str, str, dict[str, Any], np.ndarray]], held: Sequence[set[str]]
) -> dict[str, dict[str, float]]:
    """Per paper, the idf among its own body chunks of each question word they hold: a
    word in every chunk (the paper's topic) says little about where the answer is."""
    counts: dict[str, dict[str, int]] = {}
    sizes: dict[str, int] = {}
    for (cid, *_), words in zip(chunks, held, strict=True):
        pid = cid.rpartition("#")[0]
        sizes[pid] = sizes.get(pid, 0) + 1
        mine = counts.setdefault(pid, {})
        for t in words:
            mine[t] = mine.get(t, 0) + 1
    return {
        pid: {t: math.log(1 + sizes[pid] / c) for t, c in mine.items()}
        for pid, mine in counts.items()
    }
