"""Looking ahead of one character on a PDFium text page: whether a space PDFium gives is a
word's space or only a jump in the order the page draws its glyphs."""

from __future__ import annotations

import ctypes
from typing import Any

from .typeset import ACCENTS

__all__ = ["next_left", "only_before_an_accent"]


def _left(handle: Any, i: int) -> float | None:
    import pypdfium2.raw as raw

    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    if not raw.FPDFText_GetCharBox(handle, i, left, right, bottom, top):
        return None
    return left.value


def next_left(handle: Any, i: int, count: int) -> float:
    """The left edge of the character after ``i`` when it is a drawn one, else infinity."""
    import pypdfium2.raw as raw

    if i + 1 >= count or raw.FPDFText_IsGenerated(handle, i + 1):
        return float("inf")
    left = _left(handle, i + 1)
    if left is None:
        return float("inf")
    return left if chr(raw.FPDFText_GetUnicode(handle, i + 1)).strip() else float("inf")


def only_before_an_accent(handle: Any, i: int, count: int, right: float, size: float) -> bool:
    """Whether the space at ``i`` stands only before an accent drawn back over letters read
    earlier, the word going on after it: "B", " ", "´" (over "NICOLÁS"), "AR" is "BAR" (the
    next letter after the accent follows ``right``, the word's edge, closer than a space's
    width)."""
    import pypdfium2.raw as raw

    if i + 1 >= count or chr(raw.FPDFText_GetUnicode(handle, i + 1)) not in ACCENTS:
        return False
    accent = _left(handle, i + 1)
    if accent is None or accent >= right:
        return False  # an accent drawn ahead: the next word's
    for j in range(i + 2, min(i + 4, count)):
        if chr(raw.FPDFText_GetUnicode(handle, j)).strip():
            left = _left(handle, j)
            return left is not None and 0 <= left - right < 0.2 * size
    return False
