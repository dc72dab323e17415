"""A column of record details beside an abstract (Taylor & Francis's "ARTICLE HISTORY",
"KEYWORDS"): its label stands level with the abstract's heading, right of it, and where one
of its lines shares a baseline with a line of the abstract the two are read as one line,
the column's piece last ("... the way readers" + "Received 25 May 2017")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .pdflayout import Line

__all__ = ["off_side", "side_edge"]


def side_edge(anchor: Line | None, beside: Sequence[Line]) -> float | None:
    """The left edge of such a column: a label of a few words among the lines set beside
    the abstract's heading (``anchor``), level with it and well right of it; None when
    there is none."""
    if anchor is None:
        return None
    for line in beside:
        level = line.page == anchor.page and abs(line.y0 - anchor.y0) < 1
        if level and line.x0 > anchor.x1 + 4 * anchor.size and line.words <= 4:
            return line.x0 - 2
    return None


def off_side(line: Line, edge: float) -> Line:
    """``line`` without the column's piece when it runs from left of ``edge`` into it, set
    apart by a gap (its last part)."""
    if line.x0 >= edge or line.x1 <= edge or len(line.parts) < 2:
        return line
    parts = line.parts[:-1]
    return replace(line, text=" ".join(parts), x1=edge, parts=parts if len(parts) > 1 else ())
