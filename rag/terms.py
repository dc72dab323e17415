"""Content words for matching claims, quotes and questions against abstract sentences:
lowercase words minus English stopwords, crudely stemmed. Cheap and dependency-free; the
BM25 index has its own analyzer (:mod:`rag.index.lexical`)."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "stem", "terms"]

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


def stem(word: str) -> str:
    """A deliberately crude stemmer: "models" = "model", "increases" = "increasing"."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: -len(suffix)] + repl
            break
    return word[:-1] if len(word) >= 5 and word.endswith("e") else word


def terms(text: str) -> set[str]:
    """The stemmed content words of ``text`` (stopwords out; numbers kept)."""
    words = re.findall(r"\w+", text.casefold())
    return {stem(w) for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())}
