"""An answer's sentences and the figures they state: what attribution reads and returns.

:func:`segments` cuts an answer into its sentences (a list line is one), each with the
markers that belong to it; :func:`answer_sentences` gives them in the contract's form
(``{"text", "citations", "supported"}``, every face's ``sentences``); :func:`figures` reads
the numbers a text states as quantities, :func:`flat` the text as an answer would write it
(TeX and Unicode forms folded); :data:`DISCOURSE` and :data:`ABOUT` are the words an answer
uses to speak of the papers and of itself. Pure logic: no models, no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rag.answer.cite import parse_markers
from rag.answer.quotes import sentence_spans
from rag.spelling import plain_text
from rag.terms import stem

__all__ = [
    "ABOUT",
    "DISCOURSE",
    "NAME_NUMBER",
    "PROPER",
    "AnswerSentence",
    "Figure",
    "Segment",
    "answer_sentences",
    "apart",
    "figures",
    "flat",
    "held",
    "plain",
    "segments",
    "strip_markers",
]

# A figure: a number standing as a quantity, not inside a name (GPT-4, CO2, ResNet-50).
_FIGURE = re.compile(r"(?<![A-Za-z\d.,])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")
# A figure of two numbers ("3x3", "2 × 2", "3:1"): held only as a whole.
_PAIRED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([x×:])\s*(\d+(?:\.\d+)?)(?![\w.^-])")
NAME_NUMBER = re.compile(r"\b[A-Za-z][A-Za-z]*-?\d[\w.-]*")
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
_TEENS = "fifteen sixteen seventeen eighteen nineteen twenty"
_TENS = "_ _ _ thirty forty fifty sixty seventy eighty ninety"
_WORD_NUMBERS = {w: i for i, w in enumerate(f"{_UNITS} {_TEENS}".split())} | {
    w: 10 * i for i, w in enumerate(_TENS.split()) if i >= 3
}
_PER_CENT = re.compile(
    rf"\b({'|'.join(_WORD_NUMBERS)})(?:[- ]({'|'.join(_WORD_NUMBERS)}))?\s+per\s?cent\b", re.I
)
_SPELLED = re.compile(rf"\b({'|'.join(w for w in _WORD_NUMBERS if w not in ('zero', 'one'))})\b",
                      re.I)  # fmt: skip


# Words an answer uses to speak about papers, not about what they found: never evidence.
DISCOURSE = frozenset(
    stem(w)
    for w in """
    paper papers study studies article articles work works author authors research
    researcher researchers report reports reported find finds found finding findings
    show shows showed shown suggest suggests suggested propose proposes proposed present
    presents presented describe describes described note notes noted according source
    sources result results conclude concludes concluded conclusion overall summary short
    summarise summarize answer question provided provide provides information context
    based discuss discusses discussed addresses address examine examines examined
    explore explores explored investigate investigates investigated look looks looked
    aspect aspects approach approaches differ differently different similar similarly
    various several both together also however additionally furthermore moreover while
    whereas first second finally one another other others here given text abstract
    abstracts literature evidence say says said supplied retrieved relevant let go below
    above brief briefly picture give gives cover covers point points worth noting
    remaining material relate relates relation offer offers beyond follow following key
    main mention mentions mentioned highlight highlights available regarding topic
    topics thing things way ways lot few many ask asks asked asking
    """.split()  # noqa: SIM905 - a word list reads better as prose
)

# Nouns an answer uses for the papers and itself: a sentence framing the answer has one.
ABOUT = frozenset(
    stem(w)
    for w in """paper study article work author research source answer question summary
    text abstract literature evidence information context point topic material picture
    comparison""".split()  # noqa: SIM905 - a word list reads better as prose
)

PROPER = re.compile(r"(?<=[a-z,;:] )[A-Z][\w-]*")  # a capitalised word inside a sentence


_TEX_TIMES = re.compile(r"\\times\b")


def flat(text: str) -> str:
    """The text as an answer would write it: TeX's "\\times" as "×", then as words are
    matched (:func:`rag.spelling.plain_text`: Unicode folded, "Sr$_{2}$" glued as "Sr2",
    the rest of TeX's markup read as words)."""
    return plain_text(_TEX_TIMES.sub("×", text))


Figure = float | str  # a number, or two as one ("3x3", "3:1")


def figures(text: str, *, spelled: bool = False) -> set[Figure]:
    """The figures ``text`` states, as numbers ("1,024" = 1024, "40 %" = 40, "forty per cent"
    = 40), and pairs as written ("3 × 3" = "3x3"); with ``spelled``, small numbers written
    as words too ("two arms" = 2)."""
    text = strip_markers(text)
    found: set[Figure] = {
        float(m[1].replace(",", "") + (m[2] or "")) for m in _FIGURE.finditer(text)
    }
    for m in _PAIRED.finditer(text):
        found.add(f"{float(m[1]):g}{'x' if m[2] in 'x×' else ':'}{float(m[3]):g}")
    for m in _PER_CENT.finditer(text):
        found.add(float(_WORD_NUMBERS[m[1].lower()] + _WORD_NUMBERS.get((m[2] or "").lower(), 0)))
    if spelled:
        found |= {float(_WORD_NUMBERS[m[1].lower()]) for m in _SPELLED.finditer(text)}
    return found


def _decimals(x: float) -> int:
    s = repr(x)
    return len(s.split(".")[1].rstrip("0")) if "." in s else 0


def held(figure: Figure, have: set[Figure]) -> bool:
    """The figure is among ``have``, as written or rounded from one ("41%" for "40.6%")."""
    if isinstance(figure, str):
        return figure in have
    places = _decimals(figure)
    return any(isinstance(h, float) and (h == figure or round(h, places) == figure) for h in have)


def strip_markers(text: str) -> str:
    out, pos = [], 0
    for start, end, _ in parse_markers(text):
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


# -- the answer's sentences ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Segment:
    """One sentence of an answer: its span (markers that belong to it included), the
    sentence without markers, and the numbers its markers give, in order."""

    start: int
    end: int
    text: str
    numbers: tuple[int, ...]
    # A sentence with a marker inside it ("A holds [1] and B holds [2].") in clauses, each
    # with the marker that closes it; one clause otherwise.
    clauses: tuple[tuple[str, tuple[int, ...]], ...] = ()


def plain(text: str) -> str:
    """A sentence without its markers, its spacing normalised ("holds [1] ." -> "holds.")."""
    text = " ".join(strip_markers(text).split())
    return re.sub(r" (?=[.,;:!?])", "", text)


def segments(text: str) -> list[Segment]:
    """The answer's sentences, line by line (a list line is one), each with its markers: a
    marker after a sentence's end belongs to it ("... holds. [2]"), unless the next
    sentence opens with it ("[2] shows that ...")."""
    markers = parse_markers(text)
    masked = list(text)
    for start, end, _ in markers:
        # A marker opening a sentence ("... holds. [2] shows ...") stands as its first
        # letter, so the sentence is split before it.
        opens = re.search(r"[.!?][\"')\]]*\s+$", text[:start]) and text[end:].lstrip()[:1].islower()
        masked[start:end] = ("X" if opens else " ") + " " * (end - start - 1)
    flat = "".join(masked)
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in flat.split("\n"):
        spans += [(pos + a, pos + b) for a, b in sentence_spans(line)]
        pos += len(line) + 1
    if not spans:
        return []
    bounds = [[a, b] for a, b in spans]
    owner: list[list[int]] = [[] for _ in spans]
    inner: list[list[tuple[int, int, list[int]]]] = [[] for _ in spans]
    starts = [a for a, _ in spans]
    for start, end, numbers in markers:
        i = bisect_right(starts, start) - 1
        after = text[end:].lstrip(" \t")
        opens_next = (
            i + 1 < len(spans)
            and text[end : spans[i + 1][0]].strip() == ""
            and after[:1].islower()
            and (i < 0 or start >= spans[i][1])
        )
        if i < 0 or opens_next:
            i += 1
        owner[i].extend(numbers)
        inner[i].append((start, end, numbers))
        bounds[i][0] = min(bounds[i][0], start)
        bounds[i][1] = max(bounds[i][1], end)
    out = []
    for (a, b), nums, marks in zip(bounds, owner, inner, strict=True):
        cuts = [(s, e, n) for s, e, n in marks if re.search(r"\w", text[e:b]) and s > a]
        clauses: list[tuple[str, tuple[int, ...]]] = []
        at = a
        for _, e, n in cuts:
            clauses.append((plain(text[at:e]), tuple(n)))
            at = e
        if clauses:
            rest = [n for s, _, ns in marks if s >= at for n in ns]
            clauses.append((plain(text[at:b]), tuple(rest)))
        out.append(Segment(a, b, plain(text[a:b]), tuple(nums), tuple(clauses)))
    return out


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """One sentence of a final answer as the contract gives it: its text without markers,
    the answer's citation numbers backing it, and whether any source supports it."""

    text: str
    citations: tuple[int, ...] = ()
    supported: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": list(self.citations), "supported": self.supported}


def answer_sentences(
    text: str, supported: Sequence[bool] | None = None
) -> tuple[AnswerSentence, ...]:
    """The contract's sentences of a checked answer: each sentence without its markers, its
    citation numbers, and ``supported`` (given in order, one per sentence; all supported
    when not given: an extractive answer quotes, a refusal claims nothing)."""
    segs = segments(text)
    flags = list(supported) if supported is not None and len(supported) == len(segs) else None
    return tuple(
        AnswerSentence(
            seg.text, tuple(dict.fromkeys(seg.numbers)), flags[i] if flags is not None else True
        )
        for i, seg in enumerate(segs)
    )


def apart(answer: str, sentences: Sequence[AnswerSentence]) -> list[tuple[str, bool]]:
    """The answer in pieces, each ``(text, unsupported)``, joining back to exactly the
    answer: how a face shows the sentences no source supports apart from the cited ones."""
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for s in sentences:
        if s.supported or not s.text:
            continue
        found = re.compile(r"\s+".join(map(re.escape, s.text.split()))).search(answer, pos)
        if found is None:
            continue
        pieces += [(answer[pos : found.start()], False), (found.group(), True)]
        pos = found.end()
    pieces.append((answer[pos:], False))
    return [(text, flag) for text, flag in pieces if text]
