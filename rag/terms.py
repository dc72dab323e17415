"""Content words for matching claims, quotes and questions against abstract sentences:
lowercase words minus English stopwords, in one spelling (:mod:`rag.spelling`), Snowball-
stemmed (PyStemmer, as the BM25 index's analyzer, :mod:`rag.index.lexical`, which keeps its
own stopword list)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Set

from rag.spelling import american, plain_text

__all__ = ["STOPWORDS", "share", "stem", "terms"]

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    however i if in into is it its itself just may me might more most must my myself no nor
    not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those
    through thus to too under until up very was we were what when where which while who
    whom why will with within without would you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads better as prose
)


@functools.lru_cache(maxsize=1)
def _snowball() -> Callable[[str], str]:
    import Stemmer  # PyStemmer: the lexical index's stemmer too

    stemmer: Callable[[str], str] = Stemmer.Stemmer("english").stemWord
    return stemmer


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """English Snowball stem of the word's one spelling: "sensitive" = "sensitivity",
    "models" = "model", "catalogue" = "catalog"."""
    return _snowball()(american(word))


def terms(text: str) -> set[str]:
    """The stemmed content words of ``text`` (stopwords out; numbers kept)."""
    words = re.findall(r"\w+", plain_text(text).casefold())
    return {stem(w) for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())}


def share(weights: Mapping[str, float], have: Set[str]) -> float:
    """The weighted share of the words of ``weights`` (word -> weight, an idf) that ``have``
    holds; 0.0 when there is nothing to hold."""
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in have) / total if total else 0.0
