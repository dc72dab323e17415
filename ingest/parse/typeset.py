"""Undo typesetting in text read from PDFs: words broken at line ends, ligatures, accents set
as separate characters.

- **Line-end hyphens.** PDFium marks a hyphen that ends a line (U+FFFE or U+0002, or a plain
  "-"). The two halves are joined when the joined word is a word (it occurs elsewhere in the
  paper, or is an ordinary English word: :func:`rag.words.common_words`) or the second half
  is none ("biochem-ical"); a hyphen between two words stays ("blood-brain",
  "state-of-the-art"). A soft hyphen (U+00AD) is never printed text and always goes.
- **Lost ligatures.** A font without a map to Unicode for its ligatures gives PDFium the
  line-end hyphen's U+FFFE for them, or no character at all, inside a line ("e\ufffeects").
  Drawn as wide as two letters or more (a hyphen is a third of the type) it is marked
  (:func:`ligature_mark`) and spelled as the ligature (ff, fi, fl, ffi, ffl; the wider
  ones first for a wider glyph) that makes an ordinary English word of its word
  (:func:`lost_ligatures`).
- **Control characters** a font maps its marks to (U+008E) become spaces.
- **Ligatures and presentation forms** (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ, full-width letters) become their
  letters (NFKC for those characters only: "²", "µ" and "½" keep their meaning).
- **Symbol-font characters** left in the private use area by some producers (U+F06E for
  a nu) become the Greek letters and signs they show.
- **TeX's math italic** (Computer Modern's CMMI fonts) embedded without a map to Unicode:
  its "\u2113" (ℓ, as in "ℓ2-gain") comes as "`" and its Greek letters as control
  characters; read from such a font they are the letters it shows (:data:`MATH_ITALIC`).
- **Spacing accents** that TeX fonts set beside the letter ("Gr´egory", "Franc¸ois") are
  put on it ("Grégory", "François").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from rag.records import normalise_text
from rag.words import common_words

__all__ = [
    "ACCENTS",
    "HYPHEN_MARK",
    "LIGATURE_MARK",
    "MATH_ITALIC",
    "fix_characters",
    "join_lines",
    "ligature_mark",
    "lost_ligatures",
    "place_accents",
    "squash",
    "vocabulary",
]

HYPHEN_MARK = "\x02"  # what a line-end hyphen is read as, until lines are joined
LIGATURE_MARK = "\x03"  # a ligature the font gave no letters for, until its word is read
_DOUBLE_MARK, _TRIPLE_MARK = "\x04", "\x05"  # the same, drawn as wide as ff, or ffi
# The ligatures each mark is tried as, in turn.
_TRIED = {
    LIGATURE_MARK: ("fi", "fl", "ff", "ffi", "ffl"),
    _DOUBLE_MARK: ("ff", "fi", "fl", "ffi", "ffl"),
    _TRIPLE_MARK: ("ffi", "ffl", "ff", "fi", "fl"),
}
_LOST = re.compile(rf"([^\W\d_]*)([{''.join(_TRIED)}])([^\W\d_]*)")
_ENDINGS = ("", "s", "es", "ed", "ly", "ing", "al")

# TeX's math italic encoding (OML) where it differs from ASCII's printable letters: its
# Greek letters at the control characters' codes (0x0D, a gamma, is read as a line's end
# and cannot be told), and the script l at the grave accent's.
MATH_ITALIC = {
    chr(code): letter
    for code, letter in zip(
        [0x0B, 0x0C, *range(0x0E, 0x20)],
        "αβδϵζηθικλμνξπρστυϕχ",
        strict=True,
    )
} | {"`": "\u2113"}

# Accents above the letter come before it in TeX's output; a cedilla or ogonek after it.
# Only the spacing forms: "^", "~" and "`" are ordinary characters of code and prose.
_ACCENT_BEFORE = {
    "\u00b4": "\u0301",  # ´ acute
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02dc": "\u0303",  # ˜ tilde
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02da": "\u030a",  # ˚ ring
    "\u02dd": "\u030b",  # ˝ double acute
    "\u00af": "\u0304",  # ¯ macron
}
_ACCENT_AFTER = {"\u00b8": "\u0327", "\u02db": "\u0328"}  # ¸ cedilla, ˛ ogonek
_BEFORE = re.compile("([" + re.escape("".join(_ACCENT_BEFORE)) + r"])\s?([A-Za-zıȷ])")
_AFTER = re.compile(r"([A-Za-z])\s?([" + re.escape("".join(_ACCENT_AFTER)) + "])")
_SPACING = re.compile("[" + re.escape("".join(_ACCENT_BEFORE) + "".join(_ACCENT_AFTER)) + "]")
# The Symbol font's characters in the private use area, as Word's PDFs leave them
# (U+F06E is Symbol's "n", a nu): its Greek letters and common signs.
_GREEK = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ"
_SYMBOL = (
    {0xF000 + c: chr(c) for c in range(0x20, 0x7F)}
    | {0xF061 + i: g for i, g in enumerate(_GREEK)}
    | {0xF041 + i: g for i, g in enumerate("ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ")}
    | dict(zip(range(0xF0A3, 0xF0BC), "≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈", strict=False))
    # Adobe's Symbol encoding of the pieces of large brackets and braces (TeX's \left( ...
    # \right) over several lines), and its sans-serif signs: their Unicode characters.
    | dict(zip(range(0xF8E6, 0xF8FF), "⏐⎯®©™⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪⎮⎞⎟⎠⎤⎥⎦⎫⎬⎭", strict=True))
)
_COMPAT = re.compile("[\ufb00-\ufb06\ufb13-\ufb17\uff01-\uff5e]")
_DROP = str.maketrans(
    {"\u00ad": None, "\ufffe": HYPHEN_MARK, "\ufeff": None, "\u200b": None}
    # Unicode's hyphen and non-breaking hyphen (Springer's and Wiley's "loss‑of‑function"):
    # the hyphen every keyboard types, so a title reads and matches as the user writes it.
    | {0x2010: "-", 0x2011: "-"}
    # Control characters a font maps its marks to (U+008E for a dagger): a space.
    | {c: " " for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r\x02"}
)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_DIGIT_HYPHEN = re.compile(r"\d[-\x02]$")  # a compound's hyphen after a number, never a break
_COMPOUND_GOES_ON = re.compile(r"(?!(?:and|or|to|and/or)\b)[^\W\d_]")  # "methyl", "fold"
_POSSESSIVE_GAP = re.compile(r"(?<=[^\W\d_]) (?=[’']s\b)")
_TAIL = re.compile(r"([^\W\d_]+)[-\x02]$")
_HEAD = re.compile(r"^([^\W\d_]+)")


def fix_characters(text: str) -> str:
    """Ligatures and presentation forms as letters, spacing accents on their letters, a
    letter and its combining mark as one character ("u" + U+0308 as "ü": NFC), soft hyphens
    and zero-width characters gone, a double quote set as two single ones one; a PDFium
    line-end hyphen becomes :data:`HYPHEN_MARK` for :func:`join_lines` to decide."""
    text = text.translate(_DROP).translate(_SYMBOL)
    text = _COMPAT.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    if _SPACING.search(text):
        text = _BEFORE.sub(lambda m: _on_letter(m.group(2), _ACCENT_BEFORE[m.group(1)]), text)
        text = _AFTER.sub(lambda m: _on_letter(m.group(1), _ACCENT_AFTER[m.group(2)]), text)
    if "‘‘" in text or "’’" in text:  # a double quote set as two single ones
        text = text.replace("‘‘", "“").replace("’’", "”")
    return unicodedata.normalize("NFC", text) if not text.isascii() else text


# Marks read as accents only where drawn over a letter (their glyph boxes): TeX's grave
# ("HOANG `" drawn back over the A), and the diaeresis a font maps to "€" (Taylor &
# Francis's "Huseyin €"); elsewhere they are a quote and a currency.
_DRAWN_ONLY = {"`": "\u0300", "\u02cb": "\u0300", "€": "\u0308"}
ACCENTS = {**_ACCENT_BEFORE, **_ACCENT_AFTER, **_DRAWN_ONLY}  # spacing accents, their marks


def place_accents(chars: list[str], spans: Sequence[tuple[float, float] | None]) -> set[int]:
    """Accents drawn as glyphs of their own set on the letter they are drawn over, by the
    glyphs' boxes (``spans``: each character's left and right edge): "Mu¨ller" drawn with
    the diaeresis over the "u" after it, or over an "o" four characters back ("Nordstrom,
    ¨"). ``chars`` is changed in place; the indices of the accents so placed come back, to
    be dropped."""
    placed: set[int] = set()
    for i, char in enumerate(chars):
        mark = ACCENTS.get(char) or (char if len(char) == 1 and unicodedata.combining(char) else "")
        if not mark or spans[i] is None:
            continue
        left, right = spans[i]  # type: ignore[misc]
        middle = (left + right) / 2
        # The glyphs of one line do not overlap: one letter at most lies under the accent.
        for j in (*range(i - 1, -1, -1), *range(i + 1, min(i + 4, len(chars)))):
            span = spans[j]
            if span and span[0] - 0.5 <= middle <= span[1] + 0.5 and chars[j].isalpha():
                chars[j] = _on_letter(chars[j], mark)
                placed.add(i)
                before = spans[i - 2] if i >= 2 and chars[i - 1] == " " else None
                if j > i and before and span[0] - before[1] < 0.3 * (span[1] - span[0]):
                    placed.add(i - 1)  # "L ¨ojtnant": the space before the accent is none
                break
    return placed


def _on_letter(letter: str, mark: str) -> str:
    letter = {"ı": "i", "ȷ": "j"}.get(letter, letter)  # a dotless i carries TeX's accents
    return unicodedata.normalize("NFC", letter + mark)


def vocabulary(lines: Iterable[str]) -> frozenset[str]:
    """The lowercase words of a paper's lines, to tell a word broken at a line end ("predic-
    tions") from a compound ("blood-brain"); the piece a line starts with after a broken
    word ("tions") is no word of the paper."""
    out: set[str] = set()
    broken = False
    for line in lines:
        found = _WORD.findall(line)
        if broken and found:
            found = found[1:]
        out.update(w.casefold() for w in found)
        broken = line.rstrip().endswith(("-", HYPHEN_MARK))
    return frozenset(out)


# A web address broken at a line end after a dot, a slash or a hyphen, and the line that
# goes on with the rest of it (a host or path's next part, no space in it before a dot,
# slash or the line's end).
_URL_BROKEN = re.compile(r"(?:https?://|www\.)(?:[^\s]*[./-])?$")  # "https://" alone too
_URL_GOES_ON = re.compile(r"[a-z0-9][\w-]*(?:[./][\w./#?=&%~-]*)?(?=[\s.,;)]|$)")
# A scheme alone at a line end ("... obtained from https:" "//github.com/thunlp/NRE.").
_SCHEME_BROKEN = re.compile(r"\bhttps?:$", re.I)
_SLASHES_GO_ON = re.compile(r"//[a-z0-9]", re.I)
# A space a justified line put inside an address's scheme ("https:// pyblp.readthedocs.io",
# "https: //github.com"): no address has one there.
_SCHEME_GAP = re.compile(r"\b(https?):(?: +//|// +)(?=[a-z0-9])", re.I)


def join_lines(lines: Sequence[str], words: frozenset[str] = frozenset()) -> str:
    """Lines into running text. A word broken by a hyphen at a line end is joined when the
    joined word is known (``words``: the paper's own, else ordinary English) or what
    follows the hyphen is no word of its own ("biochem-" "ical"); a hyphen between two
    words stays ("blood-" "brain", "zebroid-" "allocator"). The result is
    whitespace-normalised."""
    pieces: list[str] = []  # the text so far, its last piece ending the last line
    for line in lines:
        line = line.strip()
        if not line:
            continue
        tail = _TAIL.search(pieces[-1][-64:]) if pieces else None
        head = _HEAD.match(line)
        if tail and head:
            joined = (tail.group(1) + head.group(1)).casefold()
            common = common_words()
            second = head.group(1).casefold()
            broken = (
                joined in words
                or joined in common
                or (second not in common and second not in words)
            )
            if head.group(1)[:1].islower() and broken:
                pieces[-1] = pieces[-1][:-1] + line
                continue
            pieces[-1] = pieces[-1][:-1] + "-" + line
            continue
        if tail and line[:1].isdigit():
            pieces[-1] = pieces[-1][:-1] + "-" + line  # "COVID-" "19": a name's number
            continue
        if pieces and _DIGIT_HYPHEN.search(pieces[-1]) and _COMPOUND_GOES_ON.match(line):
            pieces[-1] = pieces[-1][:-1] + "-" + line  # "9,10-epoxy-8-hydroxy-9-" "methyl"
            continue
        if pieces and pieces[-1].endswith(("—", "–")) and pieces[-1][-2:-1].isalpha():
            pieces[-1] += line  # "globalisation—" "The Tulsi case": a closed dash
            continue
        if pieces and _URL_BROKEN.search(pieces[-1]) and _URL_GOES_ON.match(line):
            pieces[-1] += line  # "http://ad.informatik." "uni-freiburg.de/": one address
            continue
        if pieces and _SCHEME_BROKEN.search(pieces[-1]) and _SLASHES_GO_ON.match(line):
            pieces[-1] += line  # "https:" "//github.com/thunlp/NRE."
            continue
        pieces.append(line)
    text = _SCHEME_GAP.sub(r"\1://", normalise_text(" ".join(pieces).replace(HYPHEN_MARK, "-")))
    return _POSSESSIVE_GAP.sub("", text)  # "Středa ’s Formula": the gap an accent left


def squash(text: str) -> str:
    """``text`` without spaces and punctuation, casefolded: the same words however a page,
    a cover or the metadata space, hyphenate or quote them."""
    return re.sub(r"\W+", "", text).casefold()


def ligature_mark(width: float) -> str:
    """The mark of a lost ligature whose glyph is ``width`` ems wide (its letters unknown):
    :data:`LIGATURE_MARK` for two letters' width, one of its wider kin for ff or three."""
    return _TRIPLE_MARK if width >= 0.85 else _DOUBLE_MARK if width >= 0.7 else LIGATURE_MARK


def lost_ligatures(text: str) -> str:
    """Each lost ligature's mark (:func:`ligature_mark`) spelled as the ligature that makes
    its word an ordinary English word ("e\x04ects": "effects"; "Scienti\x03c":
    "Scientific"), an ending aside; the ligatures are tried the wider first for a wider
    glyph, and the first tried stands when none makes a word."""
    if not any(mark in text for mark in _TRIED):
        return text  # (most lines: no word scanned)
    common = common_words()

    def known(word: str) -> bool:
        word = word.casefold()
        return any(word.endswith(e) and word[: len(word) - len(e)] in common for e in _ENDINGS)

    def spell(m: re.Match[str]) -> str:
        head, mark, tail = m.groups()
        words = [head + f + tail for f in _TRIED[mark]]
        return next((w for w in words if known(w)), words[0])

    return _LOST.sub(spell, text)
