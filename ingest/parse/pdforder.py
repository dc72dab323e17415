"""A page's lines in reading order: two columns read left then right, within bands cut by
the lines that cross the page's middle."""

from __future__ import annotations

from typing import Protocol, TypeVar

__all__ = ["reading_order"]


class _Placed(Protocol):
    """A line's place on the page (:class:`ingest.parse.pdflayout.Line`)."""

    @property
    def x0(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def margin(self) -> bool: ...
    @property
    def words(self) -> int: ...


Line = TypeVar("Line", bound=_Placed)


def reading_order(lines: list[Line], width: float) -> list[Line]:
    """Two columns read left then right within bands cut by lines crossing the middle; a
    page of one column top to bottom."""
    middle = width / 2
    slack = width * 0.02

    def side(line: Line) -> int:
        if line.x1 <= middle + slack:
            return 0
        if line.x0 >= middle - slack:
            return 1
        return 2

    sides = [side(line) for line in lines]
    full = [line for line, s in zip(lines, sides, strict=True) if s < 2 and line.words >= 4]
    left = sum(1 for line in full if side(line) == 0)
    right = len(full) - left
    if left < 5 or right < 5:
        return lines  # already top to bottom
    ordered: list[Line] = []
    band: list[tuple[int, Line]] = []
    feet: list[Line] = []  # a running head or foot across the middle, below a band's start
    by_height = list(zip(sides, lines, strict=True))  # top to bottom, rows left to right

    def flush() -> None:
        ordered.extend(line for s, line in band if s == 0)
        ordered.extend(line for s, line in band if s == 1)
        ordered.extend(feet)
        band.clear()
        feet.clear()

    for s, line in by_height:
        if s == 2 and not line.margin:
            flush()
            ordered.append(line)
        elif s == 2:
            (feet if band else ordered).append(line)
        else:
            band.append((s, line))
    flush()
    return ordered
