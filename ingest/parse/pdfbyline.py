"""Where a PDF's first page prints its byline: the lines set between the title and the
abstract's heading, by their place on the page, less those that repeat the title."""

from __future__ import annotations

from .pdfheader import beside
from .pdflayout import Line

__all__ = ["between", "off_title", "under_title_again"]


def off_title(lines: list[Line], title: str) -> list[Line]:
    """The lines but those of two words or more that are a piece of the (casefolded) title."""
    pieces = (_piece(x.text) for x in lines)
    return [x for x, p in zip(lines, pieces, strict=True) if len(p.split()) < 2 or p not in title]


def between(lines: list[Line], after: int, start: int) -> list[Line]:
    """The lines set between the title (ending before ``lines[after]``) and the abstract's
    heading (``lines[start]``): by their place on the page, so an author block beside the
    abstract's column (two columns) is not read after it."""
    if start < after:
        return []
    heading = lines[start]
    title = lines[after - 1] if after else None
    while title is not None and after > 1 and _aside(title, lines[after - 2]):
        after -= 1  # a query's or a note's mark in the margin beside the title ("Q1")
        title = lines[after - 1]
    if title is None or title.page != heading.page:
        return lines[after:start]
    return [
        line
        for line in lines
        if line.page == heading.page
        and line is not heading
        and line.y1 <= title.y0 + 1.0
        and line.y0 >= heading.y1 - 1.0
    ]


def _aside(line: Line, above: Line) -> bool:
    """Whether ``line`` is set in smaller type beside the line before it, sharing none of
    its width (a proof's "Q1" in the margin by a title's last line)."""
    return line.size < above.size and beside(line, above)


def under_title_again(lines: list[Line], title: str) -> list[Line]:
    """The few lines under the (casefolded) title where the next page sets it again on a
    line or two of its own, not in a margin (the paper's own title page, after a
    repository's page of its abstract); [] where it does not."""
    first = lines[0].page if lines else 0
    for i, line in enumerate(lines):
        if line.page > first + 1:
            break
        for n in (1, 2):
            piece = _piece(" ".join(x.text for x in lines[i : i + n]))
            if not line.margin and piece == title:
                return lines[i + n : i + n + 4]
    return []


def after_title_again(lines: list[Line], title: str) -> int:
    """Where an abstract starts under its heading when it sets the (casefolded) title again
    first, its author, degree and year on short lines under it (a thesis's abstract page):
    at the first line of seven words or more after them; 0 where the title is not set again."""
    for n in (1, 2, 3):
        if len(lines) > n and _piece(" ".join(x.text for x in lines[:n])) == title:
            return next((i for i in range(n, min(len(lines), n + 9)) if lines[i].words >= 7), 0)
    return 0


def _piece(text: str) -> str:
    """A line's text as the casefolded title is compared with: spaces as one, the title's
    marks off its ends."""
    return " ".join(text.casefold().split()).strip(" *∗†‡")
