"""Characters PDFium gives for the glyphs of symbol fonts, read as the characters they
print.

A font without a map to Unicode that declares itself symbolic (Word's "Symbol" and "SymbolMT"
in equations) comes out of PDFium at U+F020-U+F0FF, its byte code plus 0xF000: read through
the Symbol encoding (Unicode's SYMBOL.TXT), "\\uf028" is "(", "\\uf061" "α", "\\uf0e5" "∑".
Adobe's own private-use codes for the pieces of tall brackets and braces (U+F8E5-U+F8FE, as
Euclid's and other math fonts give them) are Unicode's bracket pieces, and those of its serif
copyright, registered and trademark signs (U+F6D9-U+F6DB) the signs; Advent 3B2's text fonts'
and Linux Libertine's ligatures and em dash are spelled out, STIX's calligraphic capitals
are Unicode's script capitals, and Advent's symbol fonts'
Latin-1 letters standing for signs (:data:`ADVENT_SYMBOLS`, "sinð2φÞ") read as the signs. An
icon font's glyphs (Font Awesome's GitHub logo) are no text and are dropped; any other
private-use character is left as it is (a font's own ligature or variant may sit there).
"""

from __future__ import annotations

import string
import unicodedata

__all__ = ["ADVENT_SYMBOLS", "SYMBOL", "printed"]

# The Symbol encoding's bytes 0x20-0xFE where they differ from ASCII (Greek at the Latin
# letters' codes, logic and set signs at some punctuation's), from Unicode's SYMBOL.TXT.
_GREEK = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ", strict=True)) | dict(
    zip("abcdefghijklmnopqrstuvwxyz", "αβχδεφγηιϕκλμνοπθρστυϖωξψζ", strict=True)
)
_LOW = {
    '"': "∀",
    "$": "∃",
    "'": "∋",
    "*": "∗",
    "-": "−",
    "@": "≅",
    "\\": "∴",
    "^": "⊥",
    "`": "",  # (0x60: the radical's extender, no character)
    "~": "∼",
}
_HIGH = (
    "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓"
    "◊〈®©™∑⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪\x00〉∫⌠⎮⌡⎞⎟⎠⎤⎥⎦⎫⎬⎭"
)  # 0xA0-0xFE (0xF0 is unused)
SYMBOL: dict[int, str] = (
    {c: chr(c) for c in range(0x20, 0x7F)}
    | {ord(k): v for k, v in (_GREEK | _LOW).items()}
    | {0xA0 + i: ch for i, ch in enumerate(_HIGH) if ch != "\x00"}
)
# Adobe's private-use codes of the Symbol font's extenders and pieces, U+F8E5-U+F8FE.
_ADOBE = dict(zip(range(0xF8E6, 0xF8FF), "⏐⎯®©™⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪⎮⎞⎟⎠⎤⎥⎦⎫⎬⎭", strict=True))
_ADOBE[0xF8E5] = ""  # the radical's extender: no character
# The serif forms of the Symbol font's signs at Adobe's corporate-use codes (the Adobe Glyph
# List's copyrightserif, registerserif, trademarkserif): "Copyright \uf6d9 2002 Wiley".
_ADOBE |= {0xF6D9: "©", 0xF6DA: "®", 0xF6DB: "™"}
# The symbol fonts of Advent 3B2, which typesets APS and some Elsevier journals ("AdvP4C4E74"),
# map their parentheses, equals and plus to Latin-1 letters: "sinð2φÞ" is "sin(2φ)".
ADVENT_SYMBOLS = {"ð": "(", "Þ": ")", "¼": "=", "þ": "+"}
# Advent 3B2's OpenType text fonts ("AdvOT" + a hash, as ACS and RSC PDFs embed them) put
# ligatures and the em dash at private-use codes: "bene\ue103ts" is "benefits".
_ADVENT_OT = {0xE09D: "ft", 0xE103: "fi", 0xE104: "fl", 0xE0D5: "—"}
# Linux Libertine's ligatures at private-use codes, when a PDF gives no map to Unicode
# (LaTeX's libertine package, as ACM's template sets it): "a\ue03cempts" is "attempts",
# "\ue049is" "This", "a\ue039er" "after".
_LIBERTINE = {0xE03C: "tt", 0xE049: "Th", 0xE039: "ft"}
_ICONS = ("fontawesome", "wingdings", "webdings", "dingbats", "materialicons")
# STIX's calligraphic capitals (STIXMathCalligraphy, as Wiley sets equations) at U+E22D-U+E246,
# A to Z (seen rendered: U+E231 "ℰ", U+E23F "𝒮"): Unicode's script capitals, some of them in
# the Letterlike Symbols block ("ℬ", "ℰ", "ℱ", "ℋ", "ℐ", "ℒ", "ℳ", "ℛ").
_LETTERLIKE = "BEFHILMR"
_STIX_SCRIPT = {
    0xE22D + i: unicodedata.lookup(
        f"SCRIPT CAPITAL {c}" if c in _LETTERLIKE else f"MATHEMATICAL SCRIPT CAPITAL {c}"
    )
    for i, c in enumerate(string.ascii_uppercase)
}


def printed(char: str, font: str) -> str:
    """What a private-use ``char`` drawn in ``font`` (its name, no subset prefix) prints:
    its Symbol encoding's character in a symbol font, a bracket's piece, nothing for an
    icon, else ``char`` itself."""
    code = ord(char)
    name = font.casefold().replace(" ", "")
    if 0xF020 <= code <= 0xF0FF and "symbol" in name:
        return SYMBOL.get(code - 0xF000, char)
    if name.startswith("advot") and code in _ADVENT_OT:
        return _ADVENT_OT[code]
    if name.startswith("linlibertine") and code in _LIBERTINE:
        return _LIBERTINE[code]
    if name.startswith("stixmathcalligraphy") and code in _STIX_SCRIPT:
        return _STIX_SCRIPT[code]
    if code in _ADOBE:
        return _ADOBE[code]
    if code == 0xF8FF or any(icon in name for icon in _ICONS):
        return ""  # (U+F8FF: Apple's logo in Adobe's list; in a TeX font, no character)
    return char
