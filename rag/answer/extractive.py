"""The offline default answerer: no language model writes anything.

The top papers' abstracts are split into sentences, each sentence is embedded with the same
embedder as the question, and up to ``max_sentences`` of the most similar ones are picked
with diversity across papers (MMR), then copied verbatim, each followed by its paper's
marker, under a note that says the answer is extractive.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer.cite import Source, check_citations, defuse, parse_markers
from rag.answer.events import DeltaEvent, Event, FinalEvent, SourcesEvent, refusal
from rag.answer.prompts import EXTRACTIVE_MODE, EXTRACTIVE_NOTE
from rag.sentences import split_sentences

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = ["extractive_answer"]

# Sentence selection (MMR): each pick maximises
#   relevance - REDUNDANCY * (max cosine to a picked sentence) - SAME_PAPER * (picks from its paper)
REDUNDANCY = 0.3
SAME_PAPER = 0.08
MAX_PER_PAPER = 2
NEAR_DUPLICATE = 0.9  # a sentence this close to a picked one is never picked
# A sentence must score at least this share of the best one to be picked at all: diversity
# should not pull in a weak sentence just because it comes from another paper.
RELATIVE_FLOOR = 0.75
MIN_SENTENCE_WORDS = 4  # shorter "sentences" are headings or split artefacts


@dataclass(frozen=True, slots=True)
class _Candidate:
    source: Source
    position: int  # index of the sentence in its abstract
    text: str
    score: float = 0.0
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0), compare=False)


def _candidates(sources: Sequence[Source]) -> list[_Candidate]:
    out = []
    for src in sources:
        for position, sentence in enumerate(split_sentences(src.abstract)):
            if len(sentence.split()) >= MIN_SENTENCE_WORDS:
                out.append(_Candidate(src, position, sentence))
    return out


def _select(candidates: Sequence[_Candidate], max_sentences: int, floor: float) -> list[_Candidate]:
    """Up to ``max_sentences`` relevant, non-redundant sentences, spread across papers."""
    pool = [c for c in candidates if c.score >= floor]
    picked: list[_Candidate] = []
    per_paper: dict[str, int] = {}
    while pool and len(picked) < max_sentences:

        def gain(c: _Candidate) -> float:
            redundancy = max((float(c.vector @ p.vector) for p in picked), default=0.0)
            return (
                c.score - REDUNDANCY * redundancy - SAME_PAPER * per_paper.get(c.source.paper_id, 0)
            )

        best = max(pool, key=lambda c: (gain(c), -c.source.n, -c.position))
        picked.append(best)
        per_paper[best.source.paper_id] = per_paper.get(best.source.paper_id, 0) + 1
        pool = [
            c
            for c in pool
            if c is not best
            and per_paper.get(c.source.paper_id, 0) < MAX_PER_PAPER
            and float(c.vector @ best.vector) < NEAR_DUPLICATE
        ]
    # Read in retrieval order, then abstract order: a paper's sentences stay together.
    return sorted(picked, key=lambda c: (c.source.n, c.position))


def _cite(sentence: str, n: int) -> str:
    """ "A holds." -> "A holds [n]." (the marker sits before the closing punctuation)."""
    text = defuse(" ".join(sentence.split()))
    match = re.search(r"[.!?]+[\"')\]]*$", text)
    if match:
        return f"{text[: match.start()]} [{n}]{text[match.start() :]}"
    return f"{text} [{n}]"


def _quote_chooser(picked: Sequence[_Candidate]) -> Callable[[Source, str], str]:
    """quote_for for check_citations: each paper's picked sentences, verbatim. Adjacent picks
    are quoted as one span; otherwise the paper's most relevant pick."""
    by_paper: dict[str, list[_Candidate]] = {}
    for c in picked:
        by_paper.setdefault(c.source.paper_id, []).append(c)

    def quote_for(source: Source, _claims: str) -> str:
        mine = sorted(by_paper.get(source.paper_id, []), key=lambda c: c.position)
        if not mine:
            return ""
        positions = [c.position for c in mine]
        if positions == list(range(positions[0], positions[0] + len(positions))):
            start = source.abstract.find(mine[0].text)
            end = source.abstract.find(mine[-1].text, max(start, 0))
            if 0 <= start <= end:
                return source.abstract[start : end + len(mine[-1].text)]
        return max(mine, key=lambda c: c.score).text

    return quote_for


def _pieces(text: str, head: int) -> list[str]:
    """The checked answer cut after its first ``head`` characters (the note) and after each
    citation (a sentence with its marker), so it streams as it would be read; the pieces
    join back to exactly the text."""
    cuts = [0, head]
    for _, end, _ in parse_markers(text):
        end += len(text[end:]) - len(re.sub(r"^[.!?\"')\]]*\s*", "", text[end:]))
        cuts.append(end)
    cuts.append(len(text))
    return [text[a:b] for a, b in itertools.pairwise(cuts) if b > a]


def extractive_answer(
    query: str,
    sources: Sequence[Source],
    *,
    embedder: Embedder,
    min_relevance: float,
    max_sentences: int,
    timings: dict[str, float],
    fallback_reason: str = "",
) -> Iterator[Event]:
    """The extractive answer to ``query`` from ``sources`` (numbered 1..k), as events.

    Refuses when no sentence is at least ``min_relevance`` similar to the query. Adds
    ``embed`` and ``select`` to ``timings`` (``total`` is the caller's).
    """
    clock = time.perf_counter()
    candidates = _candidates(sources)
    best = -1.0
    if candidates:
        qvec = np.asarray(embedder.embed_query(query), dtype=np.float32)
        vectors = np.asarray(embedder.embed_documents([c.text for c in candidates]))
        scores = vectors @ qvec
        candidates = [
            replace(c, score=float(s), vector=v)
            for c, s, v in zip(candidates, scores, vectors, strict=True)
        ]
        best = max(c.score for c in candidates)
    timings["embed"] = time.perf_counter() - clock
    # Without a dense score (lexical-only hits) the best sentence is the evidence; either
    # way, an answer needs at least one sentence above the threshold.
    if best < min_relevance:
        yield from refusal(query, timings, answerer=EXTRACTIVE_MODE)
        return
    picked = _select(candidates, max_sentences, max(min_relevance, RELATIVE_FLOOR * best))
    cited = " ".join(_cite(c.text, c.source.n) for c in picked)
    checked = check_citations(
        f"{EXTRACTIVE_NOTE}\n\n{cited}", sources, quote_for=_quote_chooser(picked)
    )
    timings["select"] = time.perf_counter() - clock - timings["embed"]
    yield SourcesEvent(sources=tuple(sources))
    for piece in _pieces(checked.text, len(EXTRACTIVE_NOTE) + 2):
        yield DeltaEvent(text=piece)
    yield FinalEvent(
        answer=checked.text,
        citations=checked.citations,
        dropped=checked.dropped,
        answerer=EXTRACTIVE_MODE,
        timings=timings,
        query=query,
        fallback_reason=fallback_reason,
    )
