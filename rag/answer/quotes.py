"""Quotes: the sentence (or two adjacent ones) of a text that best backs a claim, and the
check that a quote is verbatim. Pure logic, shared by the citation check (:mod:`rag.answer.cite`)
and whoever verifies answers.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from rag.sentences import split_sentences
from rag.terms import terms

__all__ = ["locate", "scored_quote", "sentence_spans", "verify_quote"]

# A pair of adjacent abstract sentences is quoted together when the weaker one scores at
# least this share of the stronger one and adds claim words the stronger one lacks.
_CLOSE = 0.8


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The exact (start, end) of each sentence of text."""
    spans = []
    pos = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, pos)
        if start < 0:  # split_sentences returns slices of its input; this cannot happen
            raise AssertionError(f"sentence not found in text: {sentence!r}")
        pos = start + len(sentence)
        spans.append((start, pos))
    return spans


def scored_quote(abstract: str, claim: str) -> tuple[str, float]:
    """The sentence of ``abstract`` (or two adjacent ones) sharing the most claim words, each
    word weighted by how rare it is among its sentences (else the first sentence), and that
    weight."""
    spans = sentence_spans(abstract)
    if not spans:
        return "", 0.0
    wanted = terms(claim)
    found = [terms(abstract[a:b]) & wanted for a, b in spans]
    df = Counter(t for ts in found for t in ts)
    weight = {t: math.log(1 + len(spans) / df[t]) for t in df}
    scores = [sum(weight[t] for t in ts) for ts in found]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    if scores[best] <= 0:
        return abstract[spans[0][0] : spans[0][1]], 0.0
    first = last = best
    neighbours = [i for i in (best - 1, best + 1) if 0 <= i < len(spans)]
    if neighbours:
        other = max(neighbours, key=lambda i: (scores[i], -i))
        if scores[other] >= _CLOSE * scores[best] and found[other] - found[best]:
            first, last = min(best, other), max(best, other)
    return abstract[spans[first][0] : spans[last][1]], scores[best]


def locate(quote: str, abstract: str) -> tuple[int, int] | None:
    words = quote.split()
    if not words:
        return None
    match = re.search(r"\s+".join(map(re.escape, words)), abstract)
    return match.span() if match else None


def verify_quote(quote: str, abstract: str) -> bool:
    """True if quote occurs verbatim in abstract; a run of whitespace in the quote matches
    any run of whitespace. An empty quote is valid only for an empty abstract."""
    if not quote.strip():
        return not abstract.strip()
    return locate(quote, abstract) is not None
