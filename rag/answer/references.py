"""The cited papers of an answer as Markdown or BibTeX, for export."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from rag.answer.cite import Citation, Source
from rag.errors import QueryError

__all__ = ["Exchange", "conversation_bibtex", "conversation_markdown", "format_references"]


def _bib_escape(text: str) -> str:
    """A BibTeX field value that always parses: braces and backslashes become LaTeX commands
    (BibTeX counts a backslash-escaped brace too, so ``\\{`` alone could unbalance it)."""
    swap = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
    return re.sub(r"[\\{}]", lambda m: swap[m.group()], " ".join(text.split()))


def _bib_key(source: Source, taken: set[str]) -> str:
    own = re.sub(r"[^A-Za-z0-9_:.+/-]+", "", source.paper.cite_key)
    if own and own not in taken:  # the key the user's own .bib gave it
        taken.add(own)
        return own
    surname = source.authors[0].split()[-1] if source.authors else ""
    label = re.sub(r"[^a-z0-9]+", "", (source.label or source.title).casefold())[:24]
    base = "".join(
        re.sub(r"[^a-z0-9]+", "", part.casefold()) for part in (surname, str(source.year or ""))
    )
    base = (base + label) or re.sub(r"[^a-z0-9]+", "", source.paper_id.casefold()) or "paper"
    key, i = base, 1
    while key in taken:
        i += 1
        key = f"{base}{chr(ord('a') + i - 2)}" if i <= 27 else f"{base}{i}"
    taken.add(key)
    return key


def format_references(citations: Sequence[Citation], style: Literal["markdown", "bibtex"]) -> str:
    """The cited papers as a numbered Markdown list (with quotes, a quote from the full text
    followed by its page and section, and the DOI or URL link when known) or BibTeX entries
    (the pages quoted in the note): the
    entry type the paper came as (``@inproceedings`` stays so; ``@misc`` when unknown) and its
    own BibTeX key, else one from first author's surname, year and label (``he2024kcache``)."""
    if style == "markdown":
        lines = []
        for c in citations:
            s = c.source
            authors = ", ".join(s.authors) or "unknown authors"
            year = f" ({s.year})" if s.year else ""
            link = f"https://doi.org/{s.paper.doi}" if s.paper.doi else s.paper.url
            where = f"<{link}>" if link else f"`{s.source}`"
            quoted = "\n".join(
                f"   > {' '.join(quote.split())}" + (f" ({passage.where})" if passage else "")
                for quote, passage in c.quotes()
            )
            lines.append(f"{c.n}. **{s.name}**. {authors}{year}. {where}.\n{quoted}")
        return "\n".join(lines)
    if style != "bibtex":
        raise QueryError(f"unknown reference style {style!r}: choose markdown or bibtex")
    taken: set[str] = set()
    entries = []
    for c in citations:
        s = c.source
        fields = [("title", s.name)]
        if s.authors:
            fields.append(("author", " and ".join(s.authors)))
        if s.year:
            fields.append(("year", str(s.year)))
        if s.paper.doi:
            fields.append(("doi", s.paper.doi))
        if s.paper.url:
            fields.append(("url", s.paper.url))
        pages = ", ".join(p.where for _, p in c.quotes() if p is not None)
        quoted = f"; quoted from {pages}" if pages else ""
        fields.append(("note", f"paperchat {s.paper_id}; source {s.source}{quoted}"))
        body = ",\n".join(f"  {name} = {{{_bib_escape(value)}}}" for name, value in fields)
        kind = re.sub(r"[^a-z]+", "", s.paper.entry_type.casefold()) or "misc"
        entries.append(f"@{kind}{{{_bib_key(s, taken)},\n{body}\n}}")
    return "\n\n".join(entries)


Exchange = tuple[str, str, Sequence[Citation]]  # question, answer, its citations


def conversation_markdown(title: str, exchanges: Sequence[Exchange]) -> str:
    """A conversation as Markdown: its title, then each question as a heading, its answer
    and the papers that answer cited (:func:`format_references`)."""
    parts = [f"# {' '.join(title.split()) or 'paperchat conversation'}\n"]
    for question, answer, cites in exchanges:
        parts.append(f"## {' '.join(question.split())}\n\n{answer}\n")
        if cites:
            parts.append("References\n\n" + format_references(cites, "markdown") + "\n")
    return "\n".join(parts)


def conversation_bibtex(exchanges: Sequence[Exchange]) -> str:
    """BibTeX entries of every paper a conversation cited, once each ("" when none)."""
    seen: dict[str, Citation] = {}
    for _, _, cites in exchanges:
        for c in cites:
            seen.setdefault(c.source.paper_id, c)
    return format_references(list(seen.values()), "bibtex") if seen else ""
