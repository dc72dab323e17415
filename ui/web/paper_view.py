"""What the library tab shows, built from the engine's answers: the table's rows, one
paper's view, and the data of the library's picture. Pure functions (no gradio import),
escaped so that paper text is only ever text; the only links are the paper's own DOI,
arXiv, web and Zotero addresses (:func:`ui.web.render.paper_links`)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from rag.library import shown_source
from rag.records import PaperRow, format_authors
from ui.web.render import md_escape, paper_links

if TYPE_CHECKING:
    from rag.library import PaperDetails, Picture

__all__ = [
    "LIBRARY_HEADERS",
    "library_rows",
    "paper_html",
    "themes_frame",
    "themes_markdown",
    "years_frame",
]

LIBRARY_HEADERS = ["Title", "Authors", "Year", "Collections", "Abstract", "Source", "Id"]
AUTHORS_SHOWN = 3  # in the table: the first three, then "et al."
AUTHORS_VIEWED = 12  # in the paper's view
YEARS_SHOWN = 16  # bars of single years in the picture at most


def library_rows(rows: Sequence[PaperRow]) -> list[list[str]]:
    """The table: title, authors, year, collections, abstract (yes/no), source, id."""
    return [
        [
            r.name,
            format_authors(r.authors, limit=AUTHORS_SHOWN),
            str(r.year or ""),
            ", ".join(r.collections),
            "yes" if r.has_abstract else "no",
            shown_source(r.source, r.zotero_uri),
            r.id,
        ]
        for r in rows
    ]


def paper_html(details: PaperDetails | None) -> str:
    """One paper: its title, authors, year, venue and collections, links, abstract, and
    the sections of its full text with their pages when it is stored."""
    if details is None:
        return '<p class="pc-empty">This paper is no longer in the library.</p>'
    p = details.paper
    e = html.escape
    meta = [str(p.year or ""), details.venue, shown_source(p.source, p.zotero_uri)]
    links = " ".join(
        f'<a href="{e(href)}" target="_blank" rel="noopener noreferrer">{e(label)}</a>'
        for label, href in paper_links(p)
    )
    parts = [
        f"<h3>{e(p.name)}</h3>",
        f'<div class="pc-meta">{e(format_authors(p.authors, limit=AUTHORS_VIEWED))}</div>'
        if p.authors
        else "",
        f'<div class="pc-meta">{e(" · ".join(x for x in meta if x))}</div>',
        f'<div class="pc-meta">Collections: {e(", ".join(p.collections))}</div>'
        if p.collections
        else "",
        f'<div class="pc-links">{links}</div>' if links else "",
        f'<p class="pc-abstract">{e(p.abstract)}</p>'
        if p.abstract
        else '<p class="pc-abstract"><i>No abstract.</i></p>',
    ]
    if details.sections:
        items = "".join(
            f"<li>{e(s.heading or '(before the first heading)')} "
            f'<span class="pc-meta">{_pages(s.first, s.last)}</span></li>'
            for s in details.sections
        )
        count = len(details.sections)
        parts.append(
            f"<details open><summary>Full text: {count} section{'s' * (count != 1)}"
            f'</summary><ul class="pc-sections">{items}</ul></details>'
        )
    parts.append(f'<div class="pc-meta">Id: <code>{e(p.id)}</code></div>')
    return f'<div class="pc-paper">{"".join(x for x in parts if x)}</div>'


def _pages(first: int, last: int) -> str:
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


# -- the picture --------------------------------------------------------------------------------


def years_frame(picture: Picture) -> pd.DataFrame:
    """Papers per year, every year from the first to the last (a year without papers is a
    gap a reader should see, not a bar left out); over a span longer than
    :data:`YEARS_SHOWN` years, per five years ("1990–94"), or per decade over a century."""
    counts = dict(picture.years)
    if not counts:
        return pd.DataFrame({"year": pd.Series([], dtype=str), "papers": []})
    first, last = min(counts), max(counts)
    step = 1 if last - first < YEARS_SHOWN else 5 if last - first < 5 * YEARS_SHOWN else 10
    starts = range(first - first % step, last + 1, step)
    labels = [str(y) if step == 1 else f"{y}–{str(y + step - 1)[-2:]}" for y in starts]
    papers = [sum(counts.get(y, 0) for y in range(s, s + step)) for s in starts]
    return pd.DataFrame({"year": labels, "papers": papers})


def themes_frame(picture: Picture) -> pd.DataFrame:
    """Papers per theme, largest first, each named by its words."""
    return pd.DataFrame(
        {"theme": [t.name for t in picture.themes], "papers": [t.papers for t in picture.themes]}
    )


def themes_markdown(picture: Picture) -> str:
    """What the charts cannot say: how the themes were read, papers without a year, and
    a few papers of each theme."""
    if not picture.papers:
        return "The library is empty: add papers below."
    lines = []
    if picture.undated:
        lines.append(f"{picture.undated} of {picture.papers} papers have no year.")
    if picture.themes:
        approx = "about " if picture.estimated else ""
        lines.append(
            f"Themes read from {picture.sampled} papers as an overview answer reads them; "
            f"each paper of the library counted at the nearest theme ({approx}"
            f"{sum(t.papers for t in picture.themes)} papers)."
        )
        for t in picture.themes:
            examples = "; ".join(t.examples)
            lines.append(f"- **{md_escape(t.name)}** ({approx}{t.papers}): {md_escape(examples)}")
    return "\n".join(lines)
