"""The sentences an extractive answer may quote: each abstract's (and, for a paper whose full
text is stored, its body passages'), with their vectors (stored at ingest where there are,
else embedded now) and their scores: the hand ranker's (:mod:`rag.answer.rank`), and for
the sentences it puts first, the reader's (:mod:`rag.answer.reader`) blended in with the
weights fitted beside it (``params.reader``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import params, rank
from rag.answer import reader as reader_module
from rag.answer.cite import Source
from rag.answer.question import Question, analyse
from rag.answer.roles import roles, structured
from rag.sentences import split_sentences

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = [
    "MIN_SENTENCE_WORDS",
    "NEAR_DUPLICATE",
    "Sentence",
    "best",
    "best_read",
    "enumerated",
    "features_of",
    "is_new",
    "scored",
    "sentence_vectors_for",
    "sentences",
    "stored_rows",
    "with_vectors_of",
]

NEAR_DUPLICATE = 0.9  # a sentence this close (cosine) to a picked one is never picked
MIN_SENTENCE_WORDS = 4  # shorter "sentences" are headings or split artefacts
# A sentence opening with an ordinal: "First, we ...", "Secondly, ...", "The second stage,
# Scale-Out, ...", "Finally, ..." (not "First-line therapy", "Firstborn").
_ORDINAL = re.compile(
    r"^(?:(?:the|a|in the|at the|during the)\s+)?"
    r"(first|second|third|fourth|fifth|sixth|finally|lastly)(?:ly)?(?![\w-])",
    re.IGNORECASE,
)
_NEXT = {"second": "third", "third": "fourth", "fourth": "fifth", "fifth": "sixth"}


@dataclass(frozen=True, slots=True)
class Sentence:
    source: Source
    position: int  # index of the sentence in its abstract (or in its body passage)
    of: int
    text: str
    score: float = 0.0
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    role: str = "background"  # rag.answer.roles
    passage: int = -1  # which of the source's body passages it is from; -1: the abstract
    labelled: bool = False  # its role printed (a structured abstract's heading), not guessed


def sentences(sources: Sequence[Source], *, body: bool = False) -> list[Sentence]:
    """The quotable sentences of the sources' abstracts, or with ``body`` of their body
    passages."""
    out = []
    for src in sources:
        texts = [p.text for p in src.passages] if body else [src.abstract]
        for k, text in enumerate(texts):
            sentences = split_sentences(text)
            parts, labelled = roles(sentences), structured(tuple(sentences))
            out += [
                Sentence(
                    src,
                    i,
                    len(sentences),
                    s,
                    role=parts[i],
                    passage=k if body else -1,
                    labelled=labelled,
                )
                for i, s in enumerate(sentences)
                if len(s.split()) >= MIN_SENTENCE_WORDS
            ]
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


def with_vectors_of(sentences: Sequence[Sentence], embedder: Embedder) -> np.ndarray:
    """The answer's sentence vectors (:func:`sentence_vectors_for` over its sources)."""
    rows = {
        s.source.paper_id: stored_rows(s.source.sentence_vectors, s.of)
        for s in sentences
        if s.passage < 0
    }
    stored = [rows[s.source.paper_id][s.position] if s.passage < 0 else None for s in sentences]
    return sentence_vectors_for([s.text for s in sentences], stored, embedder)


def features_of(question: Question, sentences: Sequence[Sentence], qvec: np.ndarray) -> np.ndarray:
    """The ranker's features of the sentences (vectors already attached)."""
    vectors = np.stack([s.vector for s in sentences])
    candidates = [
        rank.Candidate(
            s.text, s.source.paper_id, s.source.label, s.position, s.of, s.source.n, s.role
        )
        for s in sentences
    ]
    return rank.features(question, candidates, vectors @ qvec)


def scored(question: Question, sentences: Sequence[Sentence], qvec: np.ndarray) -> list[Sentence]:
    """The sentences with their scores for ``question`` (vectors already attached): the
    hand ranker's, with the reader's read into those it puts first."""
    if not sentences:
        return []
    hand = rank.score(features_of(question, sentences, qvec))
    scores = _with_reader(question, sentences, hand)
    return [replace(s, score=float(v)) for s, v in zip(sentences, scores, strict=True)]


def _read_first(
    question: Question, sentences: Sequence[Sentence], hand: np.ndarray, top_key: str = "top"
) -> tuple[np.ndarray, np.ndarray] | None:
    """(the positions of the sentences the ranker scores highest, as many as
    ``params.reader[top_key]`` says, the reader's log-odds for each), or None without a
    reader or its weights. A question naming papers
    is answered from their sentences only (:mod:`rag.answer.extractive`): the reader reads
    theirs, not another paper's that cannot be quoted ("Which languages was it trained on?"
    about PLATO-XL lost its answer, ninth by the ranker, to three of other papers)."""
    weights = params.current().reader
    reader = reader_module.shipped()
    if reader is None or not weights or not len(hand):
        return None
    quotable = np.asarray([s.source.paper_id in question.named for s in sentences])
    if not quotable.any():
        quotable[:] = True
    order = np.argsort(-np.where(quotable, hand, -np.inf), kind="stable")
    top = order[: min(int(weights.get(top_key, weights.get("top", 12))), int(quotable.sum()))]
    asked = question.own or question.text
    read = reader.score(asked, [(sentences[i].source.name, sentences[i].text) for i in top])
    return top, read


def _with_reader(question: Question, sentences: Sequence[Sentence], hand: np.ndarray) -> np.ndarray:
    """The ranker's scores with the reader's log-odds blended in (a logistic model of
    both, ``params.reader``): read for the ranker's first sentences, the others taken as no
    better than the worst of those. The hand scores alone without a reader."""
    w = params.current().reader
    if not w.get("reader"):  # the reader gates answers only: the ranker chooses sentences
        return hand
    read = _read_first(question, sentences, hand)
    if read is None:
        return hand
    top, logits = read
    out = w["bias"] + w["hand"] * hand + w["reader"] * float(logits.min())
    out[top] = w["bias"] + w["hand"] * hand[top] + w["reader"] * logits
    return np.asarray(out, dtype=np.float32)


def best_read(
    question: Question,
    sentences: Sequence[Sentence],
    qvec: np.ndarray,
    keep: Callable[[Sentence], bool] | None = None,
) -> float | None:
    """The reader's highest log-odds over the sentences the ranker puts first (vectors
    attached; as many as ``params.reader["gate_top"]`` says, the gate's own reading, else
    as many as an answer reads): how surely any of them states what is asked; over those
    ``keep`` accepts only, when given (minus infinity when it accepts none). None without a
    reader."""
    if not sentences:
        return None
    hand = rank.score(features_of(question, sentences, qvec))
    read = _read_first(question, sentences, hand, "gate_top")
    if read is None:
        return None
    kept = [float(r) for i, r in zip(*read, strict=True) if keep is None or keep(sentences[i])]
    return max(kept, default=float("-inf"))


def enumerated(s: Sentence, pool: Sequence[Sentence]) -> list[Sentence]:
    """``s`` with the sentences that go on with the enumeration it opens ("The first stage,
    termed Scale-Up, ..." then "The second stage, Scale-Out, ..."): the next ones of the
    same text, while each names the next ordinal (or "finally"); ``s`` alone otherwise. Half
    an enumeration answers half the question ("What are the two stages ...?")."""
    group = [s]
    opened = _ORDINAL.match(s.text)
    if not opened or opened[1].casefold() != "first":
        return group
    after = {(p.passage, p.position): p for p in pool if p.source.paper_id == s.source.paper_id}
    expected = "second"
    while (nxt := after.get((s.passage, group[-1].position + 1))) is not None:
        said = _ORDINAL.match(nxt.text)
        ordinal = said[1].casefold() if said else ""
        if not ordinal or ordinal not in (expected, "finally", "lastly"):
            break
        group.append(nxt)
        expected = _NEXT.get(ordinal, "")
    return group


def best(pool: Sequence[Sentence], picked: Sequence[Sentence]) -> Sentence | None:
    fresh = [s for s in pool if is_new(s, picked)]
    return max(fresh, key=lambda s: (s.score, -s.source.n, -s.position), default=None)


def best_for_part(
    question: Question,
    part: str,
    pool: Sequence[Sentence],
    embed: Callable[[str], np.ndarray],
    picked: Sequence[Sentence],
) -> Sentence | None:
    """The best sentence of ``pool`` not yet ``picked`` for one part of a two-part question
    ("What is X and how much does it save?"), scored as that part alone (the papers the
    question names kept)."""
    sub = replace(analyse(part), named=question.named, text=part)
    return best(scored(sub, pool, embed(part)), picked)


def is_new(s: Sentence, picked: Sequence[Sentence]) -> bool:
    """Not a picked sentence again, nor one of another paper this close to it (where both
    have vectors: the same finding in a preprint and its published version). Within one
    paper only the text counts: the vectors stored at ingest are read in the context of
    the whole abstract, so neighbouring sentences come out close ("We propose KCache ..."
    and "KCache can be used without any training ... by 40%": 0.91, 0.71 embedded apart),
    and the one holding the answer was skipped as a repeat of the one before it."""
    return all(
        s.text != p.text
        and (
            s.source.paper_id == p.source.paper_id
            or s.vector.shape != p.vector.shape
            or float(np.dot(s.vector, p.vector)) < NEAR_DUPLICATE
        )
        for p in picked
    )
