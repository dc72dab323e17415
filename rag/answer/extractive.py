"""The offline default answerer: no language model writes anything.

The sources' abstracts are split into sentences; each is scored by :mod:`rag.answer.rank`
(similarity, the question's rare words, the paper it names, the kind of sentence the
question asks for, contribution over background). The answer takes the shape of the
question (:mod:`rag.answer.question`): prose from the best sentences, one per part of a
two-part question, for most questions; one line per paper for a list, a comparison or an
author's papers (:mod:`rag.answer.shapes`); who wrote a paper from its metadata; the
library's themes for an overview. Sentences are copied verbatim, each followed by its
paper's marker, under a short note that says the answer is extractive.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import params, rank, shapes
from rag.answer.cite import Source, check_citations, parse_markers
from rag.answer.events import DeltaEvent, Event, FinalEvent, SourcesEvent, refusal
from rag.answer.prompts import EXTRACTIVE_MODE, EXTRACTIVE_NOTE
from rag.answer.question import Question, analyse
from rag.answer.roles import roles
from rag.sentences import split_sentences
from rag.terms import terms

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = [
    "MAX_SENTENCES",
    "MAX_WORDS",
    "extractive_answer",
    "sentence_features",
    "sentence_vectors_for",
    "stored_rows",
]

MAX_WORDS = 150  # a prose answer stops adding sentences past this many words
MAX_SENTENCES = 4
MIN_WORDS = 40  # a shorter answer takes its next best sentence, however it scores
NEAR_DUPLICATE = 0.9  # a sentence this close (cosine) to a picked one is never picked
MIN_SENTENCE_WORDS = 4  # shorter "sentences" are headings or split artefacts
MAX_LINES = 8  # papers in a list, comparison or author answer

PaperVectors = Callable[[Sequence[str]], dict[str, np.ndarray]]


@dataclass(frozen=True, slots=True)
class _Sentence:
    source: Source
    position: int  # index of the sentence in its abstract
    of: int
    text: str
    score: float = 0.0
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    role: str = "background"  # rag.answer.roles


def _sentences(sources: Sequence[Source]) -> list[_Sentence]:
    out = []
    for src in sources:
        sentences = split_sentences(src.abstract)
        parts = roles(sentences)
        for position, text in enumerate(sentences):
            if len(text.split()) >= MIN_SENTENCE_WORDS:
                out.append(_Sentence(src, position, len(sentences), text, role=parts[position]))
    return out


def stored_rows(rows: np.ndarray | None, count: int) -> list[np.ndarray | None]:
    """A paper's stored sentence vectors, one per sentence of its abstract (``count``): None
    where there is none (stored without them, rows that do not match the abstract, a NaN
    row for a sentence no chunk held whole)."""
    if rows is None or len(rows) != count:
        return [None] * count
    return [None if np.isnan(row[0]) else row for row in rows]


def sentence_vectors_for(
    texts: Sequence[str], stored: Sequence[np.ndarray | None], embedder: Embedder
) -> np.ndarray:
    """Each sentence's vector: the one stored at ingest (pooled in the context of its
    abstract) where there is one, else embedded now, all the missing ones in one call."""
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    todo = [i for i, row in enumerate(stored) if row is None]
    for i, row in enumerate(stored):
        if row is not None:
            out[i] = row
    if todo:
        out[todo] = embedder.embed_documents([texts[i] for i in todo])
    return out


def _vectors(sentences: Sequence[_Sentence], embedder: Embedder) -> np.ndarray:
    """The answer's sentence vectors (:func:`sentence_vectors_for` over its sources)."""
    rows = {s.source.paper_id: stored_rows(s.source.sentence_vectors, s.of) for s in sentences}
    stored = [rows[s.source.paper_id][s.position] for s in sentences]
    return sentence_vectors_for([s.text for s in sentences], stored, embedder)


def _features(question: Question, sentences: Sequence[_Sentence], qvec: np.ndarray) -> np.ndarray:
    """The ranker's features of the sentences (vectors already attached)."""
    vectors = np.stack([s.vector for s in sentences])
    candidates = [
        rank.Candidate(
            s.text, s.source.paper_id, s.source.label, s.position, s.of, s.source.n, s.role
        )
        for s in sentences
    ]
    return rank.features(question, candidates, vectors @ qvec)


def _scored(
    question: Question, sentences: Sequence[_Sentence], qvec: np.ndarray
) -> list[_Sentence]:
    """The sentences with rank scores for ``question`` (vectors already attached)."""
    if not sentences:
        return []
    scores = rank.score(_features(question, sentences, qvec))
    return [replace(s, score=float(v)) for s, v in zip(sentences, scores, strict=True)]


def sentence_features(
    question: Question, sources: Sequence[Source], embedder: Embedder, query: str
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Every quotable sentence of the sources as (paper id, text), with its row of
    :data:`rag.answer.rank.FEATURES`, as the prose answer scores them (for fitting the
    ranker: bench/fit_answers.py)."""
    sentences = _sentences(sources)
    if not sentences:
        return [], np.zeros((0, len(rank.FEATURES)), dtype=np.float32)
    vectors = _vectors(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    qvec = np.asarray(embedder.embed_query(query), dtype=np.float32)
    pairs = [(s.source.paper_id, s.text) for s in sentences]
    return pairs, _features(question, sentences, qvec)


def _prose(
    question: Question, scored: list[_Sentence], embed: Callable[[str], np.ndarray]
) -> list[_Sentence]:
    """The sentence spelling out what a definition asks, the best sentence for each part of
    the question, the best of the first source when none is from it, then more while they
    score above the floor (or the answer is under MIN_WORDS) and the answer stays short;
    from the named papers only when the question names any."""
    pool = [s for s in scored if not question.named or s.source.paper_id in question.named]
    pool = pool or scored
    if rank.asks_code(question) and any(rank.gives_code(s.text) for s in pool):
        pool = [s for s in pool if rank.gives_code(s.text)]  # "where is the code?": the link
    elif rank.asks_result(question):
        # A question of what was found or how much is answered by results: a paper's aim or
        # background sentence is not quoted when the paper states results.
        reporting = {s.source.paper_id for s in pool if s.role in ("result", "conclusion")}
        pool = [s for s in pool if s.role not in ("aim", "background")
                or s.source.paper_id not in reporting] or pool  # fmt: skip
    picked: list[_Sentence] = []
    if question.kind == "definition":
        # "What does SHSe mean?": the sentence that spells it out answers it, whatever else
        # scores higher.
        spelled = _best([s for s in pool if rank.spells_out(question, s.text)], picked)
        if spelled is not None:
            picked.append(spelled)
    if len(question.parts) > 1:
        for part in question.parts:
            sub = replace(analyse(part), named=question.named, text=part)
            best = _best(_scored(sub, pool, embed(part)), picked)
            if best is not None:
                picked.append(best)
    best = _best(pool, picked)
    if best is not None and not picked:
        picked.append(best)
    # What retrieval ranked first (or the paper named first) is always quoted: a sentence of
    # another paper may score higher, but the answer must not drop the best paper found.
    lead = min((s.source.n for s in pool), default=0)
    if picked and all(p.source.n != lead for p in picked):
        mine = _best([s for s in pool if s.source.n == lead], picked)
        if mine is not None:
            picked.insert(0, mine)
    floor = params.current().prose["floor"]
    for s in sorted(pool, key=lambda s: -s.score):
        words = sum(len(p.text.split()) for p in picked)
        if len(picked) >= MAX_SENTENCES or (s.score < floor and words >= MIN_WORDS):
            break
        if words + len(s.text.split()) <= MAX_WORDS and _new(s, picked):
            picked.append(s)
    return sorted(picked, key=lambda s: (s.source.n, s.position))


def _best(pool: Sequence[_Sentence], picked: Sequence[_Sentence]) -> _Sentence | None:
    fresh = [s for s in pool if _new(s, picked)]
    return max(fresh, key=lambda s: (s.score, -s.source.n, -s.position), default=None)


def _new(s: _Sentence, picked: Sequence[_Sentence]) -> bool:
    return all(
        s.text != p.text and float(np.dot(s.vector, p.vector)) < NEAR_DUPLICATE for p in picked
    )


def _per_paper(
    question: Question, scored: list[_Sentence], sources: Sequence[Source]
) -> list[_Sentence]:
    """The best sentence of each source, in source order (at most MAX_LINES)."""
    out = []
    for src in sources[:MAX_LINES]:
        mine = [s for s in scored if s.source.paper_id == src.paper_id]
        if mine:
            out.append(max(mine, key=lambda s: (s.score, -s.position)))
    return out


def _compose(
    question: Question,
    sources: Sequence[Source],
    embedder: Embedder,
    qvec: np.ndarray,
    stored: PaperVectors | None = None,
    library: int = 0,
) -> tuple[str, list[_Sentence]]:
    """The answer's body for the question's shape, and the sentences it quotes."""
    sentences = _sentences(sources)
    if question.kind == "overview":  # each paper's first sentence is all a theme needs
        firsts: dict[str, _Sentence] = {}
        for s in sentences:
            firsts.setdefault(s.source.paper_id, s)
        sentences = list(firsts.values())
    if not sentences:
        return "", []
    vectors = _vectors(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    if question.kind == "overview":
        return _overview(sentences, sources, stored, library or len(sources))
    if question.kind in ("list", "comparison", "author"):
        lines_for = replace(question, kind="definition")
        picks = _per_paper(lines_for, _scored(lines_for, sentences, qvec), sources)
        lines = [(p.source, [p.text]) for p in picks]
        if question.kind == "comparison":  # what sets each apart: one more sentence each
            more = _per_paper(
                replace(question, kind="how"),
                [s for s in _scored(replace(question, kind="how"), sentences, qvec)
                 if s.text not in {p.text for p in picks}],
                sources,
            )  # fmt: skip
            extra = {m.source.paper_id: m for m in more}
            lines = [(src, [*texts, *([extra[src.paper_id].text] if src.paper_id in extra else [])])
                     for src, texts in lines]  # fmt: skip
            picks += more
        heading = "" if question.kind != "author" else "Papers in the library by this author:"
        return shapes.paper_lines(lines, heading), picks
    picks = _prose(question, _scored(question, sentences, qvec), embedder.embed_query)
    return " ".join(shapes.cited(p.text, p.source.n) for p in picks), picks


def _overview(
    sentences: list[_Sentence], sources: Sequence[Source], stored: PaperVectors | None, total: int
) -> tuple[str, list[_Sentence]]:
    """The library's themes: papers grouped by their stored vectors (their first sentence's
    when the store gives none), each quoted by its first sentence."""
    first = {s.source.paper_id: s for s in reversed(sentences)}
    picks = [first[src.paper_id] for src in sources if src.paper_id in first]
    papers = [p.source for p in picks]
    known = stored([p.paper_id for p in papers]) if stored else {}
    vectors = np.stack([known.get(p.source.paper_id, p.vector) for p in picks])
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    groups = shapes.overview_themes(papers, vectors)
    return shapes.theme_lines(papers, groups, total), picks


def _quote_chooser(picked: Sequence[_Sentence], query: str) -> Callable[[Source, str], str]:
    """quote_for for check_citations: each paper's picked sentences, verbatim. Adjacent picks
    are quoted as one span; otherwise the pick sharing the most words with the question
    (the earliest on a tie: the same picks always give the same quote, whatever else was
    retrieved with them)."""
    wanted = terms(query)
    by_paper: dict[str, list[_Sentence]] = {}
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
        return max(mine, key=lambda c: (len(wanted & terms(c.text)), -c.position)).text

    return quote_for


def _pieces(text: str, head: int) -> list[str]:
    """The checked answer cut after its first ``head`` characters (the note) and after each
    citation (a sentence with its marker), so it streams as it would be read; the pieces
    join back to exactly the text."""
    cuts = [0, head]
    for _, end, _ in parse_markers(text):
        end += len(text[end:]) - len(re.sub(r"^[.!?\"')\]*]*\s*", "", text[end:]))
        cuts.append(end)
    cuts.append(len(text))
    return [text[a:b] for a, b in itertools.pairwise(sorted(set(cuts))) if b > a]


def extractive_answer(
    query: str,
    sources: Sequence[Source],
    *,
    embedder: Embedder,
    timings: dict[str, float],
    question: Question | None = None,
    fallback_reason: str = "",
    paper_vectors: PaperVectors | None = None,
    library: int = 0,
    unknown: Sequence[str] = (),
) -> Iterator[Event]:
    """The extractive answer to ``question`` (analysed from ``query`` when not given) from
    ``sources`` (numbered 1..k), as events. Refuses when no sentence can be quoted. Adds
    ``select`` to ``timings`` (``total`` is the caller's). ``paper_vectors`` gives the
    papers' stored vectors, which an overview groups into themes, and ``library`` how many
    papers the library holds (an overview reads at most a sample of them). ``unknown``:
    names in the question no paper of the library mentions, which the answer says before
    quoting the closest passages."""
    clock = time.perf_counter()
    question = question or analyse(query)
    if question.asks_author and question.kind != "author" and sources:
        body, picked = _authorship(sources[0])
    else:
        qvec = np.asarray(embedder.embed_query(query), dtype=np.float32)
        body, picked = _compose(question, sources, embedder, qvec, paper_vectors, library)
    timings["select"] = time.perf_counter() - clock
    if not picked:
        yield from refusal(query, timings, answerer=EXTRACTIVE_MODE, reason="nothing to quote")
        return
    if unknown:
        body = f"{shapes.not_mentioned(unknown)}\n\n{body}"
    checked = check_citations(
        f"{EXTRACTIVE_NOTE}\n\n{body}", sources, quote_for=_quote_chooser(picked, query)
    )
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


def _authorship(source: Source) -> tuple[str, list[_Sentence]]:
    """Who wrote the paper, when its metadata says; nothing (a refusal) when it does not."""
    if not source.authors:
        return "", []
    sentences = split_sentences(source.abstract)
    first = _Sentence(source, 0, len(sentences), sentences[0] if sentences else "")
    return shapes.authorship(source), [first]
