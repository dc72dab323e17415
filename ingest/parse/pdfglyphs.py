"""Looking ahead of one character on a PDFium text page: whether a space PDFium gives is a
word's space or only a jump in the order the page draws its glyphs."""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["close_after", "next_left"]


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


def close_after(handle: Any, i: int, count: int, right: float, size: float) -> bool:
    """Whether the next letter drawn after the accent at ``i`` (spaces passed over) follows
    ``right``, the edge of the word before it, closer than a space's width: a space PDFium
    gave before an accent drawn back over letters read earlier is then no word's ("B", " ",
    "´" over "NICOLÁS", "AR" is "BAR")."""
    import pypdfium2.raw as raw

    for j in range(i + 1, min(i + 3, count)):
        if chr(raw.FPDFText_GetUnicode(handle, j)).strip():
            left = _left(handle, j)
            return left is not None and 0 <= left - right < 0.2 * size
    return False
