"""A manuscript's line numbers, and the left edges of a page's columns they stand beside.

A manuscript numbers its lines in a column of their own beside the text (PDFium gives each
number as a run of its own: :func:`line_numbers` finds them, so that they are never joined
to the line level with them), in smaller type in such a column, alone or in one run with
its line (:func:`without_small_numbers`), or in one piece with its line
(:func:`without_line_numbers` drops them from the line's text).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pdfline import Line, Run

__all__ = ["EDGE_LINES", "column_edges", "in_margin", "is_number", "line_numbers",
           "without_line_numbers", "without_small_numbers"]  # fmt: skip

EDGE_LINES = 6  # runs of words starting at one x (to 2 points) that make a column's edge


_LINE_NUMBER = re.compile(r"(\d{1,4})\s+(?=\S)")


def without_line_numbers(lines: list[Line]) -> list[Line]:
    """A manuscript's lines without the line numbers printed at their start, when PDFium
    gives each number in one piece with its line: most of the page's lines open on a
    number, counting up by one line after line, at one left edge; or the line starts where a
    column of line numbers stands (marked as margins: :func:`line_numbers`), its number
    given with it."""
    at = Counter(round(line.x0 / 2) for line in lines if line.margin and line.text.isdigit())
    columns = {x for x, n in at.items() if n >= 5}
    lines = [
        _unnumbered(line)
        if not line.margin
        and {round(line.x0 / 2) - 1, round(line.x0 / 2), round(line.x0 / 2) + 1} & columns
        and _LINE_NUMBER.match(line.text)
        else line
        for line in lines
    ]
    numbered = [(line, _LINE_NUMBER.match(line.text)) for line in lines if not line.margin]
    found = [(line, int(m.group(1))) for line, m in numbered if m]
    # the numbers of blank lines, each alone, count too ("2 AND SYNTHETIC" / "3" / "4")
    alone = {id(line) for line, _ in numbered if line.text.isdigit() and len(line.text) <= 4}
    if len(found) < 8 or 2 * (len(found) + len(alone)) < len(numbered):
        return lines
    seq = [int(m.group(1) if m else line.text) for line, m in numbered if m or id(line) in alone]
    steps = sum(1 for a, b in itertools.pairwise(seq) if b == a + 1)
    edges = sorted(line.x0 for line, _ in found)
    if steps < 0.7 * (len(seq) - 1) or edges[-1] - edges[0] > 12:
        return lines
    cut = {id(line) for line, _ in found}
    return [
        _unnumbered(line) if id(line) in cut else line for line in lines if id(line) not in alone
    ]


def _unnumbered(line: Line) -> Line:
    """The line without the number its text opens on."""
    return replace(line, text=_LINE_NUMBER.sub("", line.text, count=1), parts=())


def without_small_numbers(runs: list[Run]) -> set[int]:
    """A manuscript's line numbers set smaller than its text (under three quarters of the
    common size of its runs of words), in a column: five or more alone in their runs at one
    left edge (to 2 points). Those PDFium gives in one run with a line ("4 Running Title", "8
    Abstract A critical ...": a 5-point number before 9-point text), opening it within 4
    points of the column's edge (numbers set flush right), are taken off the run. Returns the
    ids of the runs that are such numbers alone, line numbers as :func:`line_numbers`
    finds them (an author's mark raised in small type is not, standing nowhere in a column)."""
    prose = sorted(max(r.sizes) for r in runs if r.sizes and len("".join(r.chars).split()) >= 3)
    common = prose[len(prose) // 2] if prose else 0.0
    alone = [r for r in runs if is_number(r) and max(r.sizes, default=0.0) < 0.75 * common]
    at = Counter(round(r.x0 / 2) for r in alone)
    columns = {x for x, n in at.items() if n >= 5}
    if not columns:
        return set()
    for run in runs:
        n = run.small_number()
        if n and columns & set(range(round(run.x0 / 2) - 2, round(run.x0 / 2) + 3)):
            run.drop(n)
    return {id(r) for r in alone if round(r.x0 / 2) in columns}


def column_edges(runs: list[Run]) -> set[int]:
    """The x (in 2-point steps) where at least EDGE_LINES runs of three words or more start:
    the left edges of the page's columns and indents."""
    starts = Counter(round(r.x0 / 2) for r in runs if len("".join(r.chars).split()) >= 3)
    return {x for x, n in starts.items() if n >= EDGE_LINES}


def is_number(run: Run) -> bool:
    return "".join(run.chars).strip().isdigit()


def line_numbers(runs: list[Run]) -> set[int]:
    """The runs (by id) that are a manuscript's line numbers in a column of their own: a
    number, at a left edge (to 2 points) that five numbers or more share, left of the page's
    leftmost column edge or right of where its lines of words mostly end ("1 PUBLIC GOODS,
    ... 1" is a title between two such numbers, not a title holding them)."""
    numbers = [r for r in runs if is_number(r)]
    # runs of words, less those PDFium gave with their line's number ("10 chine learning")
    words = [
        r for r in runs if len(text := "".join(r.chars).split()) >= 3 and not text[0].isdigit()
    ]
    if len(numbers) < 5 or not words:
        return set()
    lefts = column_edges(words)
    ends = Counter(round(r.x1 / 2) for r in words)
    rights = [x for x, n in ends.items() if n >= EDGE_LINES]
    start = 2 * min(lefts) if lefts else min(r.x0 for r in words)
    end = 2 * max(rights) if rights else max(r.x1 for r in words)
    at = Counter(round(r.x0 / 2) for r in numbers)
    return {
        id(r)
        for r in numbers
        if at[round(r.x0 / 2)] >= 5 and (r.x1 <= start + 1 or r.x0 >= end - 1)
    }


def in_margin(run: Run, middle: float) -> bool:
    """In the outer eighth of the page, where line numbers are printed."""
    return run.x1 < middle * 0.25 or run.x0 > middle * 1.75
