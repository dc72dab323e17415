"""Citation checking: the markers in an answer -> the sources they really point at.

An answerer sees numbered sources [1]..[k] and writes markers into its answer. Models drift
(0-based numbers, [5] of four sources, ranges, duplicates), so an answer is never shown as
written: ``check_citations`` keeps only numbers that point at a source, renumbers the sources
in order of first use, and quotes for each the abstract sentence(s) that best support the
claims citing it. Pure logic: no I/O, no models, fast.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag.answer.quotes import locate, scored_quote, sentence_spans, verify_quote
from rag.records import PaperRow
from rag.terms import terms

if TYPE_CHECKING:
    import numpy as np

    from rag.retrieve import Passage

__all__ = [
    "MARKER",
    "CheckedAnswer",
    "Citation",
    "Source",
    "check_citations",
    "defuse",
    "parse_markers",
    "supports",
    "verify_quote",
]

# A range wider than this ("[1-100]") is prose, not a citation.
MAX_RANGE = 20

_DASHES = "-\u2010\u2011\u2012\u2013\u2014"  # hyphen-minus, hyphens, figure/en/em dash
# Numbers have at most three digits, so years ("[2024]") are never markers.
_ITEM = rf"(?:\d{{1,3}}\s*[{_DASHES}]\s*\d{{1,3}}|[-\u2212]?\d{{1,3}})"
MARKER = re.compile(rf"\[\s*{_ITEM}(?:\s*[,;]\s*{_ITEM})*\s*\]")
_RANGE = re.compile(rf"(\d+)\s*[{_DASHES}]\s*(\d+)")


@dataclass(frozen=True, slots=True)
class Source:
    """One numbered source offered to an answerer: ``n`` (1-based) and the stored paper,
    its whole abstract included (answers quote it verbatim), and for a paper whose full
    text is stored the body passages nearest the question (quoted when the abstract does
    not answer)."""

    n: int
    paper: PaperRow
    # The abstract's sentence vectors stored at ingest (rows in split_sentences order, NaN
    # where none), or None: the extractive answerer then embeds the sentences itself.
    sentence_vectors: np.ndarray | None = field(default=None, compare=False, repr=False)
    passages: tuple[Passage, ...] = field(default=(), compare=False, repr=False)
    # Its retrieval score as a share of the best paper's (1.0 for that one, for a paper the
    # question names, and where no retrieval ranked the papers).
    share: float = field(default=1.0, compare=False, repr=False)

    @classmethod
    def from_paper(cls, n: int, paper: PaperRow) -> Source:
        return cls(n, paper)

    @property
    def paper_id(self) -> str:
        return self.paper.id

    @property
    def label(self) -> str:
        return self.paper.label

    @property
    def title(self) -> str:
        return self.paper.title

    @property
    def name(self) -> str:
        return self.paper.name

    @property
    def authors(self) -> tuple[str, ...]:
        return self.paper.authors

    @property
    def year(self) -> int | None:
        return self.paper.year

    @property
    def source(self) -> str:
        """The file the paper was ingested from."""
        return self.paper.source

    @property
    def abstract(self) -> str:
        return self.paper.abstract

    def to_json(self) -> dict[str, Any]:
        """The wire form: the paper's one JSON shape and ``n`` (no abstract: clients get
        quotes, not whole abstracts)."""
        return {"n": self.n, **self.paper.to_json()}


@dataclass(frozen=True, slots=True)
class Citation:
    """A source the final answer really cites, renumbered ``n`` = 1..m by first use."""

    n: int
    source: Source  # the original source; source.n is its number in the prompt
    quote: str  # verbatim sentence(s) of the abstract or a body passage backing the claims
    passage: Passage | None = None  # the body passage quoted; None: the abstract
    # More verbatim sentences of body passages the answer quotes from this paper, each with
    # its passage (an extractive answer may quote the abstract and the body of one paper).
    body_quotes: tuple[tuple[str, Passage], ...] = ()

    @property
    def where(self) -> str:
        """Page and section of a quote from the body ("p. 5, 3.1 Traces"); "" for one
        from the abstract."""
        return self.passage.where if self.passage is not None else ""

    def quotes(self) -> list[tuple[str, Passage | None]]:
        """Every quote of this citation with its body passage (None: the abstract), the
        main quote first."""
        return [(self.quote, self.passage), *self.body_quotes]

    def to_json(self) -> dict[str, Any]:
        where = (
            {"page": self.passage.page, "section": self.passage.section}
            if self.passage is not None
            else {"page": None, "section": None}
        )
        body = [
            {"quote": quote, "page": passage.page, "section": passage.section}
            for quote, passage in self.body_quotes
        ]
        return (
            self.source.to_json()
            | {"n": self.n, "quote": self.quote}
            | where
            | {"body_quotes": body}
        )


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """The answer with markers renumbered and bad ones removed, and what it cites.

    Every marker in ``text`` is within 1..len(citations), every citation is used, and
    ``citations[i].n == i + 1``. ``dropped`` lists each removed number as ``"[k]"``, once per
    occurrence, in text order.
    """

    text: str
    citations: tuple[Citation, ...]
    dropped: tuple[str, ...]


# -- markers ------------------------------------------------------------------------------


def _numbers(marker: str) -> list[int] | None:
    """The numbers in one MARKER match, ranges expanded; None if it is not a citation."""
    numbers: list[int] = []
    for item in re.split(r"[,;]", marker[1:-1]):
        item = item.strip()
        if span := _RANGE.fullmatch(item):
            lo, hi = int(span[1]), int(span[2])
            if hi < lo or hi - lo + 1 > MAX_RANGE:
                return None
            numbers.extend(range(lo, hi + 1))
        else:
            numbers.append(int(item.replace("\u2212", "-")))
    return numbers


def parse_markers(text: str) -> list[tuple[int, int, list[int]]]:
    """``(start, end, numbers)`` for each citation marker in ``text``, in order.

    Accepts ``[1]``, ``[1, 3]``, ``[1-3]`` / ``[1–3]``, ``[1,2,5-6]``; ``[1][2]`` is two
    markers. Numbers are as written (ranges expanded, duplicates and out-of-range numbers
    kept). Not markers: ``[a]``, ``[1.5]``, ``[2024]`` (over three digits), a range of more
    than ``MAX_RANGE`` numbers or a descending one.
    """
    found = []
    for match in MARKER.finditer(text):
        numbers = _numbers(match.group())
        if numbers is not None:
            found.append((match.start(), match.end(), numbers))
    return found


def defuse(sentence: str) -> str:
    """The sentence with anything that reads as a citation marker ("[9]", "[1-3]") turned into
    parentheses, so copied text can neither add a citation nor shift ours."""
    while MARKER.search(sentence):
        sentence = MARKER.sub(lambda m: "(" + m.group()[1:-1] + ")", sentence)
    return sentence


def _format(numbers: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, sorted(set(numbers)))) + "]"


def _unused_chars(text: str, k: int) -> list[str]:
    """k private-use characters absent from text, to stand in for markers while tidying."""
    found: list[str] = []
    code = 0xE000
    while len(found) < k:
        if chr(code) not in text:
            found.append(chr(code))
        code += 1
    return found


def _tidy(text: str, gap: str, kept: str) -> str:
    """Delete every ``gap`` (a removed marker) so that no "word ." or double space remains.

    ``kept`` stands for a marker that stays: "[1], [5]." -> "[1].", "[5] and [1]" -> "[1]".
    """
    g, k = re.escape(gap), re.escape(kept)
    sep = r"[ \t]*(?:[,;]|,?[ \t]*(?:and|or)\b|&)?[ \t]*"
    text = re.sub(rf"{g}(?:{sep}{g})+", gap, text)
    text = re.sub(rf"\([ \t]*{g}[ \t]*\)", gap, text)
    text = re.sub(rf"{g}{sep}(?={k})", "", text)
    text = re.sub(rf"(?<={k}){sep}{g}", "", text)
    return re.sub(rf"[ \t]*{g}[ \t]*", _close_gap, text)


def _close_gap(match: re.Match[str]) -> str:
    s = match.string
    left = s[match.start() - 1] if match.start() > 0 else "\n"
    right = s[match.end()] if match.end() < len(s) else "\n"
    if left in "\r\n([{" or right in "\r\n.,;:!?)]}":
        return ""
    return " " if len(match.group()) > 1 else ""  # longer than the gap: there was a space


# -- quotes -------------------------------------------------------------------------------


def supports(source: Source, claim: str) -> bool:
    """True if the source can back the claim at all: they share a content word (stemmed,
    stopwords aside) in its abstract, body passages, title, label or authors. A claim with
    no content word
    of its own (a bare "[2]") is not judged. Deliberately lenient: it catches a marker that
    points at the wrong paper, not a weak paraphrase."""
    wanted = terms(claim)
    if not wanted:
        return True
    texts = (source.abstract, *(p.text for p in source.passages), source.title, source.label)
    have = terms(" ".join((*texts, *source.authors)))
    return bool(wanted & have)


def _claims(text: str, markers: Sequence[tuple[int, int, list[int]]]) -> list[str]:
    """For each marker, the answer sentence it supports: the one it sits in, or the one it
    follows ("... holds. [1] Next ..."); markers are blanked out of the claims."""
    chars = list(text)
    for start, end, _ in markers:
        chars[start:end] = " " * (end - start)
    masked = "".join(chars)
    spans = sentence_spans(masked)
    if not spans:
        return ["" for _ in markers]
    starts = [a for a, _ in spans]
    claims = []
    for start, _, _ in markers:
        i = max(bisect_right(starts, start) - 1, 0)
        claim = " ".join(masked[spans[i][0] : spans[i][1]].split())
        claims.append(re.sub(r" (?=[.,;:!?])", "", claim))  # "holds [1]." -> "holds ."
    return claims


def _quote(
    source: Source, claim: str, quote_for: Callable[[Source, str], str] | None
) -> tuple[str, Passage | None]:
    """The quote backing ``claim`` and the body passage it is from (None: the abstract)."""
    if quote_for is not None:
        # A chooser may normalise whitespace; take the exact span from the abstract or a
        # body passage. One that returns text in neither is ignored rather than trusted.
        chosen = quote_for(source, claim)
        span = locate(chosen, source.abstract)
        if span is not None:
            return source.abstract[span[0] : span[1]], None
        for passage in source.passages:
            span = locate(chosen, passage.text)
            if span is not None:
                return passage.text[span[0] : span[1]], passage
    quote, score = scored_quote(source.abstract, claim)
    where: Passage | None = None
    for passage in source.passages:  # a claim the abstract backs less: the body's words
        found, found_score = scored_quote(passage.text, claim)
        if found_score > score:
            quote, score, where = found, found_score, passage
    return quote, where


# -- the check ----------------------------------------------------------------------------


def check_citations(
    text: str,
    sources: Sequence[Source],
    *,
    quote_for: Callable[[Source, str], str] | None = None,
    require_support: bool = False,
) -> CheckedAnswer:
    """Keep the markers of ``text`` that point at one of ``sources``, renumber them by first
    use, and quote each cited abstract.

    ``sources[i].n`` must be ``i + 1``. Numbers outside 1..len(sources) are removed (a marker
    left empty disappears with its stray space or comma) and listed in ``dropped``. A marker
    is rewritten as ``[1, 3]``: sorted, no duplicates, ranges expanded. ``quote_for(source,
    claims)`` may choose each quote (the default picks sentences by shared words); whatever
    it returns, the quote is a verbatim span of ``source.abstract`` or of one of its body
    passages (the citation then names it). With
    ``require_support``, a number whose source shares not one content word with the claim
    citing it (see :func:`supports`) is dropped too: "[3] MNN ..." when MNN is source 1.
    """
    for i, src in enumerate(sources, 1):
        if src.n != i:
            raise ValueError(f"sources must be numbered 1..{len(sources)}: #{i} has n={src.n}")
    markers = parse_markers(text)
    gap, kept = _unused_chars(text, 2)
    renumber: dict[int, int] = {}  # prompt number -> answer number
    rewritten: list[str] = []
    dropped: list[str] = []
    claims: dict[int, list[str]] = {}  # prompt number -> claims citing it, in order
    pieces: list[str] = []
    pos = 0
    for (start, end, numbers), claim in zip(markers, _claims(text, markers), strict=True):
        pieces.append(text[pos:start])
        pos = end
        new: list[int] = []
        for k in numbers:
            if not 1 <= k <= len(sources) or (
                require_support and not supports(sources[k - 1], claim)
            ):
                dropped.append(f"[{k}]")
                continue
            new.append(renumber.setdefault(k, len(renumber) + 1))
            if claim not in claims.setdefault(k, []):
                claims[k].append(claim)
        if new:
            pieces.append(kept)
            rewritten.append(_format(new))
        else:
            pieces.append(gap)
    pieces.append(text[pos:])
    out = _tidy("".join(pieces), gap, kept)
    # Deleting a marker can join its neighbours into a new one ("[[5]1]" -> "[1]"): drop those
    # too, so every marker left is one of ours.
    while spurious := parse_markers(out):
        for start, end, _ in reversed(spurious):
            out = out[:start] + gap + out[end:]
        dropped.extend(f"[{k}]" for _, _, numbers in spurious for k in numbers)
        out = _tidy(out, gap, kept)
    markers_left: Iterator[str] = iter(rewritten)
    out = re.sub(re.escape(kept), lambda _: next(markers_left), out)
    citations = tuple(
        Citation(new, sources[old - 1], *_quote(sources[old - 1], " ".join(claims[old]), quote_for))
        for old, new in renumber.items()
    )
    return CheckedAnswer(text=out, citations=citations, dropped=tuple(dropped))
