"""The reader's gate: a question the evidence lets through is still refused when no sentence
of its closest papers is read as stating what it asks.

The evidence (:mod:`rag.answer.gather`) weighs what the papers are about; a question of the
library's field that no paper answers ("Which instrument measured the jet's speed?" where no
abstract names one) passes it. The reader (:mod:`rag.answer.reader`) weighs whether one
sentence says it: its best log-odds over the hand ranker's first sentences of the closest
papers (abstracts, and the body passages of a paper whose full text is stored) must reach
``params.reader["gate"]``, fitted leaving fields out (bench/fit_reader.py).

A question naming what no paper of the library holds ("What H-alpha flux did ALMA
measure?" where no abstract mentions ALMA) is held to ``params.reader["gate_absent"]``
instead, fitted the same way on such questions: its closest sentences are about something
else by the question's own words, so only a sentence read as surely stating the answer
lets it through.

When the weights ``params.reader["gate_w_*"]`` are fitted (bench/fit_gate.py, leaving fields
out on the ten fields' training-only questions), the gate weighs the reader with where the
question's words sit instead of the reader alone: a logistic score of the best log-odds,
``local`` (the idf-weighted share of the question's words that two adjacent sentences of its
closest paper hold: a sentence read as stating "the Dice score on ISIC 2018" beside no
sentence naming ISIC is weaker evidence than the same sentence among its words) and whether
the question names what no paper holds; a question is answered when the score is not
negative. Shares, not scores: a share reads alike in every library, where the evidence
model's score runs lower for a library of claims than for one of questions (docs/benchmarks.md).

A question asking for a figure ("How many firms were in the sample?") is answered only by
a sentence stating one: when no sentence of its closest papers holds a figure, in digits
or in words, it is refused whatever the reader says (:func:`lacks_figure`); otherwise only
the read sentences holding a figure count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import candidates as cand
from rag.answer import params
from rag.answer.cite import Source
from rag.answer.quantities import states_figure
from rag.answer.question import Question

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = [
    "GATE_PAPERS",
    "NOT_STATED",
    "NO_FIGURE",
    "best_read_of",
    "closest_sentences",
    "gate_score",
    "gated_out",
    "lacks_figure",
    "read_as_answered",
    "unread",
]

NOT_STATED = "no sentence of the closest papers states what is asked"
NO_FIGURE = "the question asks for a figure and no sentence of the closest papers states one"
GATE_PAPERS = 3  # the papers whose sentences the gate reads


def read_as_answered(
    question: Question,
    query: str,
    sources: Sequence[Source],
    embedder: Embedder,
    *,
    absent: bool = False,
    local: float = 1.0,
    closest: list[cand.Sentence] | None = None,
) -> bool:
    """Whether the reader finds a sentence stating what is asked (module doc); ``absent``:
    the question names what no paper holds; ``local``: the share of its words two adjacent
    sentences of its closest paper hold (:class:`rag.answer.gather.Evidence`); ``closest``:
    the closest papers' sentences when already split (:func:`closest_sentences`). Lists of a
    topic's papers and comparisons ask for papers, not a statement, and pass (a list asking
    for one paper by what it did is a question of fact); so does everything without a reader
    or a fitted gate."""
    fitted = params.current().reader
    gate = fitted.get("gate_absent", fitted.get("gate")) if absent else fitted.get("gate")
    weights = {k.removeprefix("gate_w_"): v for k, v in fitted.items() if k.startswith("gate_w_")}
    if (gate is None and not weights) or gated_out(question) or not sources:
        return True
    best = best_read_of(question, query, sources, embedder, closest)
    if best is None:
        return True
    if weights:
        return gate_score(best, local, absent, weights) >= 0
    return gate is None or best >= gate


def gated_out(question: Question) -> bool:
    """Whether the question passes the gate unread: a list of a topic's papers or a
    comparison (module doc)."""
    return question.kind in ("list", "comparison") and not question.asks_one_paper


def best_read_of(
    question: Question,
    query: str,
    sources: Sequence[Source],
    embedder: Embedder,
    closest: list[cand.Sentence] | None = None,
) -> float | None:
    """The reader's best log-odds over the closest papers' first sentences (of those stating
    a figure, when the question asks for one: minus infinity when none does); None without a
    reader or a sentence."""
    sentences = closest_sentences(sources) if closest is None else closest
    if not sentences:
        return None
    vectors = cand.with_vectors_of(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    qvec = np.asarray(embedder.embed_query(question.own or query), dtype=np.float32)
    keep = (lambda s: states_figure(s.text)) if question.asks_figure else None
    return cand.best_read(question, sentences, qvec, keep)


def gate_score(best: float, local: float, absent: bool, weights: Mapping[str, float]) -> float:
    """The fitted gate's log-odds that a sentence of the closest papers states the answer
    (module doc): answered when not negative."""
    if best == float("-inf"):
        return best
    return (
        weights["bias"]
        + weights["read"] * best
        + weights["local"] * local
        + weights["absent"] * float(absent)
    )


def closest_sentences(sources: Sequence[Source]) -> list[cand.Sentence]:
    """The sentences the gate reads: its closest papers' abstracts' and body passages'."""
    top = sources[:GATE_PAPERS]
    return cand.sentences(top) + cand.sentences(top, body=True)


def lacks_figure(
    question: Question, sources: Sequence[Source], closest: list[cand.Sentence] | None = None
) -> bool:
    """Whether the question asks for a figure and no sentence of its closest papers (those
    the gate reads; ``closest`` when already split) states one; lists and comparisons
    excepted, as from the gate."""
    if not question.asks_figure or question.kind in ("list", "comparison") or not sources:
        return False
    sentences = closest_sentences(sources) if closest is None else closest
    return bool(sentences) and not any(states_figure(s.text) for s in sentences)


def unread(
    question: Question,
    query: str,
    sources: Sequence[Source],
    embedder: Embedder,
    *,
    absent: bool,
    local: float = 1.0,
) -> str:
    """Why no sentence of the closest papers answers the question (:data:`NO_FIGURE`,
    :data:`NOT_STATED`), or "" when one does (:func:`read_as_answered`). The sentences of a
    question asking for a figure, which both read, are split once."""
    closest = closest_sentences(sources) if question.asks_figure else None
    if lacks_figure(question, sources, closest):
        return NO_FIGURE
    answered = read_as_answered(
        question, query, sources, embedder, absent=absent, local=local, closest=closest
    )
    return "" if answered else NOT_STATED
