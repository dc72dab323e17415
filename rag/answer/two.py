"""The prose answer to a question about two studies it describes rather than names ("How do
the two meta-analyses of X differ in ...?", "What did each propose?";
:attr:`rag.answer.question.Question.about_two`).

Retrieval ranks the two compared papers first and second for most such questions, but a
prose answer quotes the second only when its score comes within a tie of the first's. Here
the two papers retrieval ranks first are quoted alike: each by its best sentence for each
part of the question, then each by its next :data:`NEXT` best, and nothing else. Chosen on the
training-only questions' comparisons (key facts 65 -> 71 of 107 held out; best per part and
the usual filling 67, the two best of each 67): docs/benchmarks.md. Of the 107, 39 key facts
were still missed with both papers quoted, most in a sentence of theirs ranked a little
lower: the next two best of each state 76 (median 147 words against 113), the next three
80 (177 words); two it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rag.answer import candidates as cand
from rag.answer.question import Question

__all__ = ["NEXT", "quoted"]

NEXT = 2  # each paper's sentences quoted after its best for each part of the question


def quoted(
    question: Question,
    pool: Sequence[cand.Sentence],
    lead: int,
    picked: list[cand.Sentence],
    embed: Callable[[str], np.ndarray],
) -> list[cand.Sentence]:
    """``picked`` (what the answer already quotes) and the two papers' sentences: ``lead``
    (the paper number quoted first) and the best-ranked other paper of ``pool``."""
    second = min((s.source.n for s in pool if s.source.n != lead), default=lead)
    pair = tuple(dict.fromkeys((lead, second)))
    parts = question.parts if len(question.parts) > 1 else (question.own or question.text,)
    picked = list(picked)
    own = {n: [s for s in pool if s.source.n == n] for n in pair}
    for n in pair:
        for part in parts:
            if len(parts) == 1:
                best = cand.best(own[n], picked)
            else:
                best = cand.best_for_part(question, part, own[n], embed, picked)
            if best is not None:
                picked.append(best)
    for _ in range(NEXT):
        for n in pair:
            best = cand.best(own[n], picked)
            if best is not None:
                picked.append(best)
    return picked
