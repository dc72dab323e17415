"""A PDF page's text as lines in reading order, from PDFium's characters and their boxes.

PDFium gives characters in the order the page draws them, with a box and a font size each.
Runs are cut where PDFium ends a line and where a gap wider than a column gutter opens
(two columns drawn line by line); runs on one visual line are put together left to right
(a line drawn in pieces, its superscripts), but not across a gap that ends at a left edge
many of the page's lines start at (a side column level with the main one). Rotated text (a
margin stamp, an axis label) is left out; an accent drawn as a glyph of its own goes on the
letter under it, and a space drawn inside a ligature's glyph is none. A page whose lines sit
left and right of its middle is read as two columns: lines that cross the middle (a title,
an abstract set across the page, a wide figure) cut the page into bands; in each band the
left column is read before the right, then a running head or foot across the middle.
Margins are marked, so running heads, footers and line numbers can be left out (a
manuscript's line numbers in a column of their own beside the text are marked too, and never
joined to the line level with them); a manuscript's line numbers given with their lines are
dropped.
"""

from __future__ import annotations

import ctypes
import math
import re
from dataclasses import replace
from typing import Any

from .pdfglyphs import close_after, font_name, glyph_char, next_left
from .pdfline import Line
from .pdfline import Run as _Run
from .pdfnumbers import (
    column_edges,
    in_margin,
    is_number,
    line_numbers,
    without_line_numbers,
    without_small_numbers,
)
from .pdforder import reading_order
from .symbolfont import ADVENT_SYMBOLS
from .symbolfont import printed as printed_symbol
from .typeset import (
    ACCENTS,
    HYPHEN_MARK,
    MATH_ITALIC,
    fix_characters,
    lost_ligatures,
)

__all__ = ["Line", "page_lines"]

_MARGIN = 0.065  # the top and bottom share of a page where running heads and footers sit
_GUTTER = 1.2  # a gap wider than this many font sizes inside a line: another column
_WORD_GAP = 3.0  # unless it is at most this wide and not across the page's middle (justified)


def page_lines(pdf: Any, index: int) -> list[Line]:
    """Page ``index``'s lines in reading order (see the module doc)."""
    import pypdfium2.raw as raw

    page = pdf[index]
    textpage = page.get_textpage()
    try:
        width, height = page.get_size()
        handle = textpage.raw
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        matrix = raw.FS_MATRIX()
        runs: list[_Run] = []
        run = _Run([], [], 0)
        last_right: float | None = None
        last_bottom = 0.0
        last_box: tuple[float, float, float, float] | None = None
        # The right edge of a ligature's glyph just read, or of what was read before an
        # accent drawn back over letters: a space drawn left of it is no gap.
        back: float | None = None
        count, low = textpage.count_chars(), False
        rotated = False  # rotated text was left out since the last glyph read
        broken: tuple[_Run, float, float] | None = None  # the run a line break ended
        for i in range(count):
            if low:  # the second half of the character read before
                low = False
                continue
            code = raw.FPDFText_GetUnicode(handle, i)
            if 0xD800 <= code < 0xDC00 and i + 1 < count:
                # A character past U+FFFF ("𝛽", mathematical italic beta) comes as UTF-16's
                # two halves, one character index each: one character, not two U+FFFD.
                second = raw.FPDFText_GetUnicode(handle, i + 1)
                if 0xDC00 <= second < 0xE000:
                    code, low = 0x10000 + ((code - 0xD800) << 10) + (second - 0xDC00), True
            # (no character, or U+FFFD for one PDFium could not map: a lost ligature or none)
            plain = code >= 0x20 and code not in (0xFFFD, 0x21B5)  # (a call per glyph costs)
            char = chr(code) if plain else glyph_char(handle, i, count, code)
            if (
                char == " "
                and back is not None
                and next_left(handle, i, count) - back < 0.2 * (run.sizes[-1] if run.sizes else 0.0)
            ):
                continue  # a space drawn inside a ligature's glyph ("unifi ed") or inside the
                # letters an accent was drawn back over ("Mu¨ ller"), the next letter closer
                # than a space's width ("Özgu¨ r"): none; a word's space after an accent,
                # wherever drawn, is one ("Chloe´ Alle´mann")
            back = None
            if char in ("\n", "\r"):
                if run.sizes and last_right is not None:
                    broken = (run, last_right, last_bottom)
                runs.append(run)
                run, last_right = _Run([], [], 0), None
                continue
            if raw.FPDFText_IsHyphen(handle, i) or char in ("\x02", "\ufffe"):
                char = HYPHEN_MARK
            elif char in MATH_ITALIC and font_name(handle, i).upper().startswith("CMMI"):
                char = MATH_ITALIC[char]  # TeX's math italic with no map to Unicode
            elif char in ADVENT_SYMBOLS and font_name(handle, i).startswith("AdvP"):
                char = ADVENT_SYMBOLS[char]  # "sinð2φÞ": "sin(2φ)"
            elif "\ue000" <= char <= "\uf8ff":
                char = printed_symbol(char, font_name(handle, i))  # Word's Symbol: "\uf061" "α"
            box = None
            size = 0.0
            if not raw.FPDFText_IsGenerated(handle, i) and char.strip():
                raw.FPDFText_GetMatrix(handle, i, matrix)
                if matrix.a <= 0 or abs(matrix.b) > abs(matrix.a) * 0.1:
                    rotated = True
                    continue  # rotated or mirrored: a margin stamp, a figure's axis label
                raw.FPDFText_GetCharBox(handle, i, left, right, bottom, top)
                box = (left.value, bottom.value, right.value, top.value)
                # (:func:`~.pdfglyphs.seen_size` written out: a call per glyph costs 5% of a parse)
                size = float(raw.FPDFText_GetFontSize(handle, i)) * math.hypot(matrix.c, matrix.d)
                if rotated and not run.sizes and broken is not None:
                    # A watermark drawn inside a word ("r", "DRAFT", "espirator"), PDFium
                    # breaking the line before and after it: the word goes on.
                    was, right_edge, bottom_edge = broken
                    near = abs(box[0] - right_edge) < 0.2 * size
                    if near and abs(box[1] - bottom_edge) < 0.3 * size:
                        runs = [r for r in runs if r is not was]
                        run, last_right, last_bottom = was, right_edge, bottom_edge
                        run.unspace()
                rotated, broken = False, None
                if char in ACCENTS and run.sizes and box[0] < run.x1:
                    if close_after(handle, i, count, run.x1, run.sizes[-1]):
                        run.unspace()  # "B", " ", "´" drawn back over "NICOLÁS", "AR": "BAR"
                    back = run.x1  # an accent drawn over a letter already read
                    run.add(char, box, size, False)
                    continue
                # Across a gutter, back to the left, or down a line: another run.
                if (
                    last_right is not None
                    and run.sizes
                    and (
                        box[0] - last_right > _GUTTER * max(size, 1.0)
                        or box[2] < run.x0 - 1.0
                        or (
                            abs(box[1] - last_bottom) > 0.7 * max(size, 1.0)
                            and (box[0] < last_right - size or box[3] < last_bottom)
                        )
                    )
                ):
                    runs.append(run)
                    run = _Run([], [], 0)
                last_right, last_bottom = box[2], box[1]
                # PDFium gives a ligature ("fi") as its letters, each with the glyph's box.
                same = last_box is not None and box[0] == last_box[0] and box[2] == last_box[2]
                back = box[2] if same else None
                last_box = box
            weight = raw.FPDFText_GetFontWeight(handle, i) if box else 0
            run.add(char, box, size, weight >= 600)
        runs.append(run)
    finally:
        textpage.close()
        page.close()
    for run in runs:
        run.place_accents()
    runs = [r for r in runs if r.sizes]
    numbering = without_small_numbers(runs) | line_numbers(runs)
    lines = [
        replace(line, margin=True) if all(id(r) in numbering for r in group) else line
        for group in _assemble(runs, width / 2, numbering)
        for line in (_line(group, index, height),)
    ]
    lines = [line for line in lines if line.text]
    return reading_order(without_line_numbers(lines), width)


def _assemble(runs: list[_Run], middle: float, numbering: set[int]) -> list[list[_Run]]:
    """Runs on one visual line, left to right, top line first: PDFium may draw a line in
    pieces, out of order, with its superscripts apart, a justified line's wide spaces
    splitting it. Two runs are on one line when they overlap by half the smaller one's
    height and the gap between them is narrow, or wider (up to _WORD_GAP font sizes) but
    not across the page's middle, where two columns' gutter is."""
    runs = sorted(runs, key=lambda r: r.y0)
    parent = list(range(len(runs)))
    edges = column_edges(runs)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(runs):
        for j in range(i + 1, len(runs)):
            b = runs[j]
            if b.y0 >= a.y1:
                break  # sorted by bottom: no later run reaches down to a
            overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
            if overlap < 0.5 * min(a.y1 - a.y0, b.y1 - b.y0):
                continue
            gap = max(b.x0 - a.x1, a.x0 - b.x1)
            small, size = sorted((max(a.sizes), max(b.sizes)))
            left, right = (a, b) if a.x0 <= b.x0 else (b, a)
            across = left.x1 < middle < right.x0  # the gap holds the gutter of two columns
            # A line number in the margin stays apart, to be dropped with the page numbers.
            numbered = any(is_number(r) and in_margin(r, middle) for r in (a, b))
            # A side column's line level with the main column's (a sidebar of affiliations,
            # dates and licence beside the abstract): the gap ends at a column's left edge.
            if gap > _GUTTER * small and _opens_column(left, right, edges):
                continue
            if (id(a) in numbering) != (id(b) in numbering):
                continue  # a manuscript's line number, in its column beside the text
            # Type under half the other's, set apart: a side column's line beside a title's
            # (SAGE: "Flexibility in Data Collection" in 18 pt, "sagepub.com/..." in 7 pt);
            # a superscript or a mark sits right against its word.
            if small < 0.5 * size and gap > small:
                continue
            if gap <= _GUTTER * size or (gap <= _WORD_GAP * size and not across and not numbered):
                parent[root(j)] = root(i)
    groups: dict[int, list[_Run]] = {}
    for i, run in enumerate(runs):
        groups.setdefault(root(i), []).append(run)
    lines = sorted(
        (sorted(group, key=lambda r: r.x0) for group in groups.values()),
        key=lambda g: -max(r.y1 for r in g),
    )
    # Lines side by side (two authors' blocks, two columns) left to right: a row is the
    # lines overlapping the first one's height by half.
    ordered: list[list[_Run]] = []
    i = 0
    while i < len(lines):
        top, bottom = _span(lines[i])
        j = i + 1
        while j < len(lines):
            b_top, b_bottom = _span(lines[j])
            if min(top, b_top) - max(bottom, b_bottom) < 0.5 * min(top - bottom, b_top - b_bottom):
                break
            j += 1
        ordered += sorted(lines[i:j], key=lambda g: g[0].x0)
        i = j
    return ordered


_PRIME = re.compile(r"(?<=\w) ([′″‴]+)(?: (?=[-)\],.;:]))?")
_SECTION_NUMBER = re.compile(r"\(?(?:\d+(?:\.\d+)*|[IVXivx]+|[A-Za-z])[.)]?")


def _opens_column(left: _Run, right: _Run, edges: set[int]) -> bool:
    """Whether ``right`` starts at a column's edge, after words of another column."""
    at = round(right.x0 / 2)
    text = "".join(left.chars).strip()
    if not any(c.isalnum() for c in text) or _SECTION_NUMBER.fullmatch(text):
        return False  # a mark, or a heading's number before its name
    return bool({at - 1, at, at + 1} & edges)


def _span(line: list[_Run]) -> tuple[float, float]:
    return max(r.y1 for r in line), min(r.y0 for r in line)


def _line(runs: list[_Run], page: int, height: float) -> Line:
    sizes = sorted(size for r in runs for size in r.sizes)
    size = sizes[len(sizes) // 2]
    text = _text(runs, size)
    x0, x1 = min(r.x0 for r in runs), max(r.x1 for r in runs)
    y0, y1 = min(r.y0 for r in runs), max(r.y1 for r in runs)
    margin = y0 > height * (1 - _MARGIN) or y1 < height * _MARGIN
    bold = sum(r.bold for r in runs) * 2 > len(sizes)
    pieces: list[list[_Run]] = [runs[:1]]
    for run in runs[1:]:
        if run.x0 - pieces[-1][-1].x1 > _GUTTER * size:
            pieces.append([])
        pieces[-1].append(run)
    parts = tuple(_text(p, size) for p in pieces) if len(pieces) > 1 else ()
    mark = _end_mark(runs, size)
    mark = mark if mark and text.endswith(f" {mark}") else ""
    return Line(text, round(size, 1), page, x0, y0, x1, y1, bold, margin, parts, mark)


def _end_mark(runs: list[_Run], size: float) -> str:
    """The raised digits or footnote signs that end the line, after a letter ("data¹",
    "Networks*,†"), else "": the last run's glyphs smaller and set above the rest."""
    last = next((g for r in reversed(runs) for g in reversed(r.glyphs) if g), None)
    if last is None or not _small(last, size):
        return ""  # most lines: their last glyph in the line's type
    base = _baseline(runs, size)
    if base is None:
        return ""
    glyphs = [(c, g) for r in runs for c, g in zip(r.chars, r.glyphs, strict=True) if g]
    tail = []
    for char, glyph in reversed(glyphs):
        if not _raised(glyph, size, base):
            break
        tail.append(char)
    mark = "".join(reversed(tail)).strip()
    before = glyphs[-len(tail) - 1][0] if len(tail) < len(glyphs) else ""
    return mark if re.fullmatch(r"[\d,*∗†‡§¶]+", mark) and before.isalpha() else ""


def _baseline(runs: list[_Run], size: float) -> float | None:
    """The median bottom of the line's glyphs set in its own type; None with none."""
    normal = sorted(b for r in runs for g in r.glyphs if g and g[0] >= 0.9 * size for b in g[1:])
    return normal[len(normal) // 2] if normal else None


def _small(glyph: tuple[float, float], size: float) -> bool:
    return glyph[0] < 0.8 * size + 0.05  # four fifths of the type or less


def _raised(glyph: tuple[float, float] | None, size: float, base: float) -> bool:
    """A glyph set smaller than the line's type and above its baseline: a superscript."""
    return glyph is not None and _small(glyph, size) and glyph[1] > base + 0.25 * size


def _text(runs: list[_Run], size: float) -> str:
    text = " ".join(fix_characters(lost_ligatures(_apart(runs, size))).split())
    return _PRIME.sub(r"\1", text)  # "p ′ -partitions": a prime is part of its symbol


def _apart(runs: list[_Run], size: float) -> str:
    """The runs' text, a superscript set apart by spaces ("Lane a,c" for "Lane" with the
    marks "a,c" raised after it): a mark is no part of the word it follows. Raised numbers
    right after a punctuation mark ("S2ORC,¹ a corpus", "structures.¹² However") are a
    footnote's or a citation's number, not text: they go."""
    base = _baseline(runs, size) or 0.0
    out: list[str] = []
    mark = -1  # where a raised group after a punctuation mark starts in ``out``

    def close() -> None:
        if mark >= 0 and re.fullmatch(r"[\d,–-]+", "".join(out[mark:]).strip()):
            del out[mark:]

    for run in runs:
        raised = False
        for char, glyph in zip(run.chars, run.glyphs, strict=True):
            now = _raised(glyph, size, base)
            if glyph is not None and now != raised:
                if raised:
                    close()
                    mark = -1
                elif "".join(out).rstrip()[-1:] in (",", ".", ";", ":", ")"):
                    mark = len(out)
                out.append(" ")
                raised = now
            out.append(char)
        if raised:
            close()
        mark = -1
        out.append(" ")
    return "".join(out)
