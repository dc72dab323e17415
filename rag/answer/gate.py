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

A question asking for a figure ("How many firms were in the sample?") is answered only by
a sentence stating one: when no sentence of its closest papers holds a figure, in digits
or in words, it is refused whatever the reader says (:func:`lacks_figure`); otherwise only
the read sentences holding a figure count.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    "closest_sentences",
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
    closest: list[cand.Sentence] | None = None,
) -> bool:
    """Whether the reader finds a sentence stating what is asked (module doc); ``absent``:
    the question names what no paper holds; ``closest``: the closest papers' sentences when
    already split (:func:`closest_sentences`). Lists of a topic's papers and comparisons ask
    for papers, not a statement, and pass (a list asking for one paper by what it did is a
    question of fact); so does everything without a reader or a fitted gate."""
    fitted = params.current().reader
    gate = fitted.get("gate_absent", fitted.get("gate")) if absent else fitted.get("gate")
    ungated = question.kind in ("list", "comparison") and not question.asks_one_paper
    if gate is None or ungated or not sources:
        return True
    sentences = closest_sentences(sources) if closest is None else closest
    if not sentences:
        return True
    vectors = cand.with_vectors_of(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    qvec = np.asarray(embedder.embed_query(question.own or query), dtype=np.float32)
    keep = (lambda s: states_figure(s.text)) if question.asks_figure else None
    best = cand.best_read(question, sentences, qvec, keep)
    return best is None or best >= gate


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
    question: Question, query: str, sources: Sequence[Source], embedder: Embedder, *, absent: bool
) -> str:
    """Why no sentence of the closest papers answers the question (:data:`NO_FIGURE`,
    :data:`NOT_STATED`), or "" when one does (:func:`read_as_answered`). The sentences of a
    question asking for a figure, which both read, are split once."""
    closest = closest_sentences(sources) if question.asks_figure else None
    if lacks_figure(question, sources, closest):
        return NO_FIGURE
    answered = read_as_answered(question, query, sources, embedder, absent=absent, closest=closest)
    return "" if answered else NOT_STATED
