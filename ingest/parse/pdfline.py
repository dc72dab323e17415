"""A PDF page's line of text (:class:`Line`) and the run of characters it is built from
(:class:`Run`), as :mod:`ingest.parse.pdflayout` reads them from PDFium."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .typeset import ACCENTS, place_accents

__all__ = ["Line", "Run"]

_ACCENT = re.compile("[" + "".join(ACCENTS) + "\u0300-\u036f]")


@dataclass(frozen=True, slots=True)
class Line:
    """One line of text: its box (PDF points, origin bottom left), median font size, whether
    it is mostly bold, and whether it sits in the page's top or bottom margin; ``parts``, the
    pieces of a line set apart by gaps wider than a word space (authors in a row, "Sergey
    Levine   Pieter Abbeel"), when there are two or more; ``mark``, a raised group of digits
    or footnote signs that ends the line ("... experimental data¹"), as its text ends."""

    text: str
    size: float
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    bold: bool = False
    margin: bool = False
    parts: tuple[str, ...] = ()
    mark: str = ""

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(slots=True)
class Run:
    chars: list[str]
    sizes: list[float]
    bold: int
    x0: float = float("inf")
    y0: float = float("inf")
    x1: float = float("-inf")
    y1: float = float("-inf")
    # Per character: its size and bottom, and its left and right edge; None for a space or
    # a generated character.
    glyphs: list[tuple[float, float] | None] = field(default_factory=list)
    spans: list[tuple[float, float] | None] = field(default_factory=list)

    def add(
        self, char: str, box: tuple[float, float, float, float] | None, size: float, bold: bool
    ) -> None:
        self.chars.append(char)
        if box is not None and char.strip():
            left, bottom, right, top = box
            self.x0, self.y0 = min(self.x0, left), min(self.y0, bottom)
            self.x1, self.y1 = max(self.x1, right), max(self.y1, top)
            self.sizes.append(size)
            self.bold += bold
            self.glyphs.append((size, bottom))
            self.spans.append((left, right))
        else:
            self.glyphs.append(None)
            self.spans.append(None)

    def small_number(self) -> int:
        """How many characters open the run as a number in type under three quarters of the
        run's largest, with the spaces after it ("8 Abstract A critical ...", its "8" in 5
        points before 9-point text); 0 when it does not so open."""
        top = max(self.sizes, default=0.0)
        i = 0
        while i < len(self.chars) and self.chars[i].isdigit():
            glyph = self.glyphs[i]
            if glyph is None or glyph[0] >= 0.75 * top:
                return 0
            i += 1
        j = i
        while j < len(self.chars) and self.chars[j] == " ":
            j += 1
        return j if 0 < i < j < len(self.chars) else 0

    def drop(self, n: int) -> None:
        """Without its first ``n`` characters (its left edge moved to the next glyph's)."""
        glyphs = sum(1 for g in self.glyphs[:n] if g is not None)
        del self.chars[:n], self.glyphs[:n], self.spans[:n], self.sizes[:glyphs]
        self.x0 = next((span[0] for span in self.spans if span is not None), self.x0)

    def unspace(self) -> None:
        """Without the spaces that end it."""
        while self.chars and self.chars[-1] == " " and self.glyphs[-1] is None:
            del self.chars[-1], self.glyphs[-1], self.spans[-1]

    def place_accents(self) -> None:
        """Accents drawn as glyphs of their own onto the letters under them."""
        if not _ACCENT.search("".join(self.chars)):
            return
        placed = place_accents(self.chars, self.spans)
        if placed:
            keep = [i for i in range(len(self.chars)) if i not in placed]
            self.chars = [self.chars[i] for i in keep]
            self.glyphs = [self.glyphs[i] for i in keep]
            self.spans = [self.spans[i] for i in keep]
