"""Answer shapes that go paper by paper: a list, a comparison, an author's papers, who wrote
a paper, and an overview of the library's themes. Each line names its paper and cites it;
the text of a line is a sentence of that paper's abstract, verbatim (or its metadata)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rag.answer.cite import Source, defuse
from rag.answer.themes import theme_names, themes_of
from rag.records import format_authors

__all__ = [
    "authorship",
    "cited",
    "not_mentioned",
    "overview_themes",
    "paper_lines",
    "theme_lines",
]


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


def overview_themes(sources: Sequence[Source], vectors: np.ndarray) -> list[list[int]]:
    """The sources grouped into themes (indices into ``sources``), largest first."""
    return themes_of(vectors[: len(sources)])


def theme_lines(sources: Sequence[Source], groups: Sequence[Sequence[int]], total: int) -> str:
    """'The library holds N papers. Main themes:' and one line per theme, its papers cited."""
    texts = [f"{s.name}. {s.abstract}" for s in sources]
    sample = f" (themes read from {len(sources)} of them)" if total > len(sources) else ""
    lines = [f"The library holds {total} papers{sample}. Main themes:"]
    alone = [g[0] for g in groups if len(g) == 1]
    groups = [g for g in groups if len(g) > 1]
    names = theme_names(texts, groups)
    if alone:
        groups, names = [*groups, alone], [*names, ["other topics"]]
    for group, words in zip(groups, names, strict=True):
        papers = ", ".join(f"{sources[i].name} [{sources[i].n}]" for i in group)
        count = f"{len(group)} paper{'s' if len(group) > 1 else ''}"
        lines.append(f"- **{', '.join(words) or 'other'}** ({count}): {papers}")
    return "\n".join(lines)
