"""Answer shapes that go paper by paper: a list, a comparison, an author's papers, who wrote
a paper, and an overview of the library's themes. Each line names its paper and cites it;
the text of a line is a sentence of that paper's abstract, verbatim (or its metadata)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from rag.answer.cite import Source, defuse
from rag.records import format_authors
from rag.terms import STOPWORDS

__all__ = [
    "authorship",
    "cited",
    "not_mentioned",
    "overview_themes",
    "paper_lines",
    "theme_lines",
    "theme_words",
    "themes_of",
]

_WORD = re.compile(r"[a-z][a-z-]{3,}")
# Words too common in abstracts to name a theme.
_BLAND = STOPWORDS | frozenset(
    """
    paper papers propose proposed present presents approach approaches method methods based
    using results result show shows work works model models performance existing novel new
    experiments experimental demonstrate different various large large-scale also first
    framework system systems data learning deep state-of-the-art significantly effectively
    however achieve achieves improve improves well training stage release released study
    provide provides which their these those this that such while further tasks task number
    natural compared computation applications resulting thereby
    """.split()  # noqa: SIM905 - a word list reads better as prose
)


def _line(source: Source, sentences: Sequence[str]) -> str:
    return f"- **{source.name}**: " + " ".join(cited(s, source.n) for s in sentences)


def not_mentioned(names: Sequence[str]) -> str:
    """What an answer says first when the question names what no paper mentions."""
    shown = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"No paper in the library mentions {shown}; the closest passages:"


def cited(sentence: str, n: int) -> str:
    """'A holds.' -> 'A holds [n].' (the marker before the closing punctuation)."""
    text = defuse(" ".join(sentence.split()))
    match = re.search(r"[.!?]+[\"')\]]*$", text)
    if match:
        return f"{text[: match.start()]} [{n}]{text[match.start() :]}"
    return f"{text} [{n}]"


def paper_lines(picks: Sequence[tuple[Source, Sequence[str]]], heading: str = "") -> str:
    """One line per paper: its name, then its chosen sentences, each cited."""
    lines = [_line(source, sentences) for source, sentences in picks]
    return "\n".join([heading, *lines] if heading else lines)


def authorship(source: Source) -> str:
    """Who wrote a paper, from its metadata (no abstract sentence says it)."""
    authors = list(source.authors)
    names = ", ".join(authors[:-1]) + f" and {authors[-1]}" if len(authors) > 1 else authors[0]
    if any(a.endswith("et al.") for a in authors) or len(authors) > 6:
        names = format_authors(authors, limit=6)
    year = f" ({source.year})" if source.year else ""
    return f"**{source.name}**{year} is by {names} [{source.n}]."


def theme_words(texts: Sequence[str], cluster: Sequence[int], k: int = 3) -> list[str]:
    """The words that set a cluster's papers apart: the share of its papers that use a word
    minus the share of all papers that do; a word used by more than a third of the library
    (or by one paper of a larger cluster) names no theme."""
    words = [{w for w in _WORD.findall(t.casefold()) if w not in _BLAND} for t in texts]
    inside = Counter(w for i in cluster for w in words[i])
    everywhere = Counter(w for ws in words for w in ws)
    need = 2 if len(cluster) > 1 else 1
    common = max(3, len(texts) / 3)
    lift = {
        w: c / len(cluster) - everywhere[w] / len(texts)
        for w, c in inside.items()
        if c >= need and everywhere[w] <= common
    }
    return [w for w, _ in sorted(lift.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def _agglomerate(vectors: np.ndarray, k: int) -> list[list[int]]:
    """Average-linkage clustering on cosine similarity, merged down to ``k`` groups
    (deterministic; fine for the few dozen papers an overview reads)."""
    groups = [[i] for i in range(len(vectors))]
    sims = vectors @ vectors.T
    while len(groups) > k:
        best, pair = -np.inf, (0, 1)
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                link = float(sims[np.ix_(groups[a], groups[b])].mean())
                if link > best:
                    best, pair = link, (a, b)
        a, b = pair
        groups[a] = sorted(groups[a] + groups[b])
        del groups[b]
    return groups


def overview_themes(sources: Sequence[Source], vectors: np.ndarray) -> list[list[int]]:
    """The sources grouped into themes (indices into ``sources``), largest first."""
    return themes_of(vectors[: len(sources)])


def themes_of(vectors: np.ndarray) -> list[list[int]]:
    """Unit vectors grouped into themes (indices into ``vectors``), largest first: what an
    overview answer and the library's picture show."""
    n = len(vectors)
    if n < 4:
        return [list(range(n))]
    k = min(6, max(2, round(n / 5)))
    groups = _agglomerate(vectors, k)
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def theme_lines(sources: Sequence[Source], groups: Sequence[Sequence[int]], total: int) -> str:
    """'The library holds N papers. Main themes:' and one line per theme, its papers cited."""
    texts = [f"{s.name}. {s.abstract}" for s in sources]
    sample = f" (themes read from {len(sources)} of them)" if total > len(sources) else ""
    lines = [f"The library holds {total} papers{sample}. Main themes:"]
    alone = [g[0] for g in groups if len(g) == 1]
    groups = [g for g in groups if len(g) > 1] + ([alone] if alone else [])
    for group in groups:
        words = theme_words(texts, group) if group is not alone else ["other topics"]
        papers = ", ".join(f"{sources[i].name} [{sources[i].n}]" for i in group)
        count = f"{len(group)} paper{'s' if len(group) > 1 else ''}"
        lines.append(f"- **{', '.join(words) or 'other'}** ({count}): {papers}")
    return "\n".join(lines)
