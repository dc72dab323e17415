"""Which paper a prose answer leads with: the paper the question's names point at.

Retrieval may rank a paper on the topic in general above the one the question is about
("How fast is the outflow of HH 212 in the ALMA images?" brings a paper on outflows first,
and the one on HH 212 second). When the first paper holds none of the question's names and
another holds some, that one leads: it is always quoted, and first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer import candidates as cand
from rag.answer.question import Question
from rag.terms import terms
from rag.words import distinctive_word

__all__ = ["about", "is_name"]

_NAME_WORD = re.compile(r"[\w][\w.+-]*[\w]|\w")


def about(question: Question, pool: Sequence[cand.Sentence]) -> int | None:
    """The source the question's names point at ("HH 212", "ALMA", "GW170817": a word with
    a digit or two capitals, :func:`rag.words.distinctive_word`), when the first source
    holds none of them and another holds some (the one holding most; the better ranked on
    a tie); None otherwise, or when the question names papers of the library."""
    if question.named or not pool:
        return None
    words = {w for w in _NAME_WORD.findall(question.own or question.text) if is_name(w)}
    keys = [k for w in words if (k := terms(w))]
    if not keys:
        return None
    held: dict[int, set[str]] = {}
    for s in pool:
        held.setdefault(s.source.n, set()).update(terms(s.text))
    counts = {n: sum(k <= have for k in keys) for n, have in held.items()}
    first = min(counts)
    best = max(counts, key=lambda n: (counts[n], -n))
    return best if counts[first] == 0 and counts[best] > 0 else None


def is_name(word: str) -> bool:
    """A name's form: a distinctive word with a digit or two capitals ("HH", "212" beside
    letters, "ALMA", "TGF-beta1"), not a rare lower-case word ("outflow")."""
    return distinctive_word(word) and (
        any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 2
    )
