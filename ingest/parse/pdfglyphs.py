"""One character of a PDFium text page: what a glyph with no character, or with a TeX
ligature's code, stands for; its font's name; and looking ahead of it, whether a space PDFium
gives is a word's space or only a jump in the order the page draws its glyphs."""

from __future__ import annotations

import ctypes
import math
import re
from typing import Any

from .typeset import ligature_mark

__all__ = ["close_after", "font_name", "glyph_char", "next_left", "seen_size"]


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


def glyph_char(handle: Any, i: int, count: int, code: int) -> str:
    """The text character ``i`` (its Unicode ``code`` as PDFium gives it) stands for: a lost
    ligature's mark for no character (code 0, U+FFFD) or a TeX ligature's code, "ff" for the
    carriage return's arrow TeX's ff glyph is given ("Cli↵ord", "e↵ect"), else the character."""
    import pypdfium2.raw as raw

    char = chr(code) if code not in (0, 0xFFFD) else _lost_ligature(handle, i, count)
    if code in _TEX_LIGATURES and not font_name(handle, i).upper().startswith("CMMI"):
        return _lost_ligature(handle, i, count) or char  # "De\x1cance": "Defiance"
    if code == 0x21B5 and i + 1 < count and chr(raw.FPDFText_GetUnicode(handle, i + 1)).isalpha():
        return "ff"
    return char


# The codes TeX's text fonts set their ligatures at (OT1's ff fi fl ffi ffl at 0x0B-0x0F, T1's
# at 0x1B-0x1F; 0x0D is read as a line's end), left as they are by a font with no map to
# Unicode: a lost ligature's, with a letter after it.
_TEX_LIGATURES = frozenset([0x0B, 0x0C, 0x0E, 0x0F, *range(0x1B, 0x20)])


def _lost_ligature(handle: Any, i: int, count: int) -> str:
    """The mark of a glyph PDFium has no character for (code 0) when it is a ligature the
    font gave no letters for (:func:`~.typeset.lost_ligatures`): drawn wider than a hyphen
    (0.45 of its type or more: "ﬁ" is about half, "-" a third) with a letter after it;
    else "" (nothing)."""
    import pypdfium2.raw as raw

    if i + 1 >= count or not chr(raw.FPDFText_GetUnicode(handle, i + 1) or 32).isalpha():
        return ""
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    raw.FPDFText_GetCharBox(handle, i, left, right, bottom, top)
    matrix = raw.FS_MATRIX()
    raw.FPDFText_GetMatrix(handle, i, matrix)
    size = seen_size(handle, i, matrix)
    em = (right.value - left.value) / size if size > 0 else 0.0
    return ligature_mark(em) if em >= 0.45 else ""


def seen_size(handle: Any, i: int, matrix: Any) -> float:
    """Character ``i``'s type size as seen: its font's size times the vertical scale of its
    text ``matrix`` (already read for it)."""
    import pypdfium2.raw as raw

    return float(raw.FPDFText_GetFontSize(handle, i)) * math.hypot(matrix.c, matrix.d)


def font_name(handle: Any, i: int) -> str:
    """The name of the font character ``i`` is drawn in, without a subset's prefix."""
    import pypdfium2.raw as raw

    name = ctypes.create_string_buffer(128)
    raw.FPDFText_GetFontInfo(handle, i, name, len(name), None)
    return re.sub(r"^[A-Z]{6}\+", "", name.value.decode("latin-1"))  # not "AdvOTd3e08a55+e0"
