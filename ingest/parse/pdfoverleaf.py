"""An abstract that goes on over a page's foot: past its footnotes, licence and the next
page's running head, to the line in its type where it runs on."""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.roles import ROLES, heading

from .pdflayout import Line

__all__ = ["inline_part", "next_part_overleaf", "runs_on_overleaf"]

_OVERLEAF_LINES = 40  # a page's foot (notes, dates, licence) and the next page's head


def runs_on_overleaf(lines: Sequence[Line], i: int, previous: Line, size: float) -> bool:
    """Whether the unfinished sentence of ``previous`` goes on after the smaller lines from
    ``lines[i]`` (footnotes, a licence, the next page's running head): the next line in the
    abstract's type is on a later page, or at the top of the next column (above it), and
    opens in lower case."""
    for line in lines[i : i + _OVERLEAF_LINES]:
        if abs(line.size - size) <= 0.6:
            later = line.page > previous.page or line.y0 > previous.y1
            return later and line.text.lstrip()[:1].islower()
    return False


def next_part_overleaf(
    lines: Sequence[Line],
    i: int,
    previous: Line,
    size: float,
    part: int,
) -> int:
    """Where a structured abstract whose last part ended at the page's foot goes on: the
    first line in its type on a later page, past the foot's notes and the running head,
    when it opens a later part by its label ("Results: ... procedures." / "*Corresponding
    author: ..." / the next page's head / "Conclusion: When a small ..."); 0 when it does
    not."""
    for j in range(i, min(len(lines), i + _OVERLEAF_LINES)):
        line = lines[j]
        if line.page == previous.page and line.size > size + 0.6 and not line.margin:
            return 0  # a heading under it: the abstract ended there
        if line.page == previous.page or line.margin or abs(line.size - size) > 0.6:
            continue
        later = inline_part(line)
        return j if line.page == previous.page + 1 and later is not None and later > part else 0
    return 0


def inline_part(line: Line) -> int | None:
    """Where a line opening with a part's label run into its text ("Results: The false
    positive rate ...") stands in the parts' order."""
    role, rest = heading(line.text)
    return (
        ROLES.index(role)
        if role and line.text[: len(line.text) - len(rest)].strip().endswith(":")
        else None
    )
