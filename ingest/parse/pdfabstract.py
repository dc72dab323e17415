"""Where a PDF paper's abstract starts and ends on its first pages: after an "Abstract"
heading (in English or the paper's language) or, with none, at the first paragraph of prose;
up to a heading, keywords, a rights line, a footnote, the body set far below, or another
page after a finished sentence. What stands beside it (an "article info" column, a side
column of affiliations, dates and licence) is passed over, a structured abstract's part
labels are kept in order, and running heads are passed where a sentence runs on.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from rag.answer.roles import ROLES, heading, inline_heading

from .pdfbody import Captions, is_heading
from .pdfcontents import FOLIO, LEADERS, running_head, toc_entry
from .pdflayout import Line
from .pdfnames import AFFILIATION, line_names
from .pdfoverleaf import inline_part, next_part_overleaf, runs_on_overleaf
from .pdfside import off_side, side_edge
from .typeset import HYPHEN_MARK

__all__ = [
    "ABSTRACT",
    "FOREIGN_ABSTRACT",
    "KEYWORDS_LINE",
    "abstract_end",
    "cut_words",
    "first_prose",
    "introduction_at",
    "with_heading_colons",
]

# An abstract's heading ("Abstract.-"), as English or (_FOREIGN) Romance and German papers print it
_FOREIGN = r"r[ée]sum[ée]|resumen|resumo|riassunto|sommario|zusammenfassung"
ABSTRACT = re.compile(
    rf"^\s*(?:a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|synopsis|{_FOREIGN})\b\s*[-—–:.]{{0,2}}\s*",
    re.I,
)
FOREIGN_ABSTRACT = re.compile(rf"^\s*(?:{_FOREIGN})\b", re.I)
_WORD_COUNT = re.compile(r"\s*\d[\d,]*\s+words\.?\s*$", re.I)
# A labelled link set after the abstract ("Source code: https://github.com/...",
# "Documentation: http://..."): a label of a few words, then the address alone.
_LINK_FIELD = re.compile(r"^\s*[A-Z][\w ]{0,30}:\s*(?:https?://|www\.)\S+\s*$")


def heading_at(lines: Sequence[Line], i: int) -> bool:
    """Whether ``lines[i]`` opens the abstract: an "Abstract" heading, and not the entry of
    a thesis's table of contents that names it (a "Contents" heading above it on its page, or
    dot leaders to its page number), nor the word run on in lowercase without a mark after it
    (a title's "Abstract error analysis for ..."), nor a running head over the heading."""
    line = lines[i]
    found = ABSTRACT.match(line.text)
    if not found or LEADERS.search(line.text):
        return False
    if not re.search(r"[-—–:.]", found[0]) and line.text[found.end() :][:1].islower():
        return False  # a word of a sentence or a title: "Abstract error analysis for ..."
    if _WORD_COUNT.match(line.text[found.end() :]):
        return False  # a manuscript's word count alone: "Abstract: 209 words"
    return not toc_entry(lines, i) and not running_head(lines, i, ABSTRACT)


# A publisher's rights line after the abstract ("© 2005 Elsevier B.V. ..."; some fonts: "q").
_RIGHTS = re.compile(
    # (not a list's third item: "(c) required writing while listening")
    r"^\s*(?:©|\(c\)(?=\s*(?:(?:19|20)\d{2}\b|(?-i:[A-Z])))|copyright\b|q(?=\s*(?:19|20)\d{2}\b))"
    r"|all rights reserved",
    re.I,
)


def abstract_end(
    lines: Sequence[Line],
    body: float,
    *,
    heading: bool = True,
    anchor: Line | None = None,
    names: frozenset[str] = frozenset(),
) -> tuple[list[Line], int]:
    """The lines of the abstract that starts at ``lines[0]``, and where it ends: at a
    heading, keywords or CCS concepts, a margin, a footnote (smaller type), another page,
    (found without a heading) a paragraph break, or after a finished sentence a line naming
    one of the authors (``names``: NBER's addresses under the abstract). A figure's labels
    inside it (a few words in small type) are passed over, and so is what stands beside its
    heading (``anchor``) rather than under it: an "article info" column next to it."""

    def beside(line: Line) -> bool:
        return anchor is not None and not _under(anchor, line)

    skipped = len(list(itertools.takewhile(beside, lines)))  # a column beside its heading
    edge = side_edge(anchor, lines[:skipped])  # its lines read into the abstract's
    lines = lines if edge is None else [off_side(x, edge) for x in lines]
    kept, end = _abstract_lines(lines[skipped:], body, heading, beside, anchor, names, edge)
    end += skipped
    # A structured abstract's parts going on over the page's foot ("Results: ..." / "Conclusion")
    parts = [p for p in map(inline_part, kept) if p is not None]
    if parts and end < len(lines) and kept[-1].text.rstrip().endswith((".", "?", "!")):
        size = sorted(x.size for x in kept)[len(kept) // 2]
        on = next_part_overleaf(lines, end, kept[-1], size, parts[-1])
        if on:
            more, stop = _abstract_lines(lines[on:], body, heading, beside, None, names)
            return kept + more, on + stop
    return kept, end


def _abstract_lines(
    lines: Sequence[Line],
    body: float,
    heading: bool,
    beside: Callable[[Line], bool],
    anchor: Line | None,
    names: frozenset[str],
    edge: float | None = None,
) -> tuple[list[Line], int]:
    if not lines:
        return [], 0
    text_lines = [x for x in lines[:8] if not beside(x) and not is_heading(x, None, body)]
    sizes = sorted(line.size for line in text_lines[:3]) or [lines[0].size]
    size = sizes[len(sizes) // 2]  # the abstract's type
    part = _part(lines[0])
    capital = _capital_part(lines[0])  # "IMPORTANCE Medicare provides ...": JAMA's parts
    kept = [_labelled(lines[0]) if part is not None else lines[0]]
    caption = Captions()
    run_in = anchor is not None and anchor.words > 3  # its label run in: "Abstract For many ..."
    for i, line in enumerate(lines[1:], 1):
        previous = kept[-1]
        following = _part(line)
        if part is not None and following is not None and following >= part:
            part = following  # a structured abstract's next part, its label on its own line
            kept.append(_labelled(line))
            continue
        # Beside the abstract's width: wholly left of it (a side column of affiliations and
        # dates), or far right of it (a justified line's piece is near it).
        block = min(k.x0 for k in kept) - line.size, max(k.x1 for k in kept) + 5 * line.size
        apart = line.x1 < block[0] or line.x0 > min(block[1], edge or block[1])
        if apart and (anchor is None or beside(line)) and _alongside(line, previous, anchor):
            continue
        drop, short = abs(line.y0 - previous.y0), previous.x1 < block[1] - 7 * line.size
        piece = drop < 0.3 * line.size and line.x0 - previous.x1 < 5 * line.size  # of its line
        right = line.page == previous.page and line.x0 > block[1] - 4 * line.size
        if right and drop < 3 * line.size and not (piece and (short or len(kept) < 2)):
            continue  # a side column's lines between its own (JAMA's), not a justified piece
        ended = previous.text.rstrip().endswith((".", "?", "!", ":")) and _part(previous) is None
        if line.margin and not ended:
            continue  # a footer or running head where a sentence runs on to the next page
        if FOLIO.fullmatch(line.text):
            continue  # a page's number, above the margin (a thesis's "ii")
        if not ended and line.size < size - 0.6 and runs_on_overleaf(lines, i, previous, size):
            continue  # a sentence broken by the page's foot: its notes, the next page's head
        if is_heading(line, previous, body) or line.margin or _RIGHTS.search(line.text):
            return kept, i
        if ended and (_LINK_FIELD.match(line.text) or _HISTORY.match(line.text)):
            return kept, i  # a record's field ("Source code: https://...", "Submitted ...")
        if (line.size < size - 0.6 and line.words <= 6) or caption.is_caption(line):
            continue  # a figure's label or caption
        if line.size < size - 0.6 and line.x0 >= max(k.x1 for k in kept) - 1:
            continue  # a side column's note in smaller type, right of the abstract (Lancet's)
        if abs(line.size - size) > 0.6 and (ended or line.size < size):
            return kept, i  # a footnote, a caption, the body set in another size
        if ended and _HEADING_WORDS.fullmatch(line.text.strip()):
            return kept, i  # a heading in the abstract's type ("Types of Aggregations")
        if line.size > 1.25 * size and 2 <= line.words <= 8:
            return kept, i  # a heading in larger type ("Graphical TOC Entry"): no sentence
            # runs on into it, finished or not
        if ended and (line.page != previous.page or line.text.strip() in names):
            return kept, i  # another page, or an author's address block
        pitch = _pitch(kept)  # (or 2.5 of its own lines' drop, once it has some lines)
        far = 2.5 * line.size + max(0.0, pitch - 1.2 * line.size)  # (double spacing)
        far = min(far, 2.5 * pitch - line.size) if len(kept) >= 6 else far
        if ended and line.page == previous.page and previous.y0 - line.y1 > far:
            return kept, i  # far below a finished sentence: a figure between, the body next
        blank = run_in and pitch > 0 and previous.y0 - line.y0 >= 1.9 * pitch  # a line skipped
        if ended and (blank or not heading) and _paragraph_break(previous, line, both=heading):
            later = _capital_part(line)
            if capital is None or later is None or later < capital:
                return kept, i
            capital = later  # a structured abstract's next part, its label in capitals
        kept.append(line)
    return kept, len(lines)


def _pitch(kept: Sequence[Line]) -> float:
    """The abstract's own line pitch so far: the median drop between its lines on a page."""
    drops = sorted(
        a.y0 - b.y0 for a, b in itertools.pairwise(kept) if a.page == b.page and a.y0 > b.y0
    )
    return drops[len(drops) // 2] if drops else 0.0


# The parts a structured abstract may close on after its conclusions.
_CLOSING_PART = re.compile(r"(?:trial|study|systematic review)?\s*registration", re.I)


def _part(line: Line) -> int | None:
    """Where a line that is a structured abstract's part label alone ("Background",
    "Methods and findings:") stands in the parts' order (ROLES, then a registration)."""
    label = line.text.strip().rstrip(":").strip()
    if not label or len(label.split()) > 4:
        return None
    if _CLOSING_PART.fullmatch(label):
        return len(ROLES)
    role, rest = heading(f"{label}: x")
    return ROLES.index(role) if role and rest == "x" else None


def _capital_part(line: Line) -> int | None:
    """Where a line opening with a structured abstract's label in capitals, its text run
    on ("OBJECTIVE To assess ...", "CONCLUSIONS AND RELEVANCE In this ..."), stands in the
    parts' order; each part is a paragraph, so a paragraph break does not end such an
    abstract while its parts go on in order."""
    role, rest = heading(line.text)
    label = line.text[: len(line.text) - len(rest)].strip(" :.")
    return ROLES.index(role) if role and label.isupper() and len(label) > 1 else None


def _labelled(line: Line) -> Line:
    """A part's label line given its colon, so the answerer reads the part's role."""
    return replace(line, text=line.text.strip().rstrip(":").strip() + ":")


def _alongside(line: Line, last: Line, anchor: Line | None) -> bool:
    """Whether ``line`` stands level with the abstract read so far, on its page: below its
    heading and not below its last line (a column beside it, not the page's next one); on
    the next page, a side column left of it (the abstract runs on beside it)."""
    if line.page == last.page + 1:
        return line.x1 < last.x0
    top = anchor.y1 if anchor is not None and anchor.page == last.page else last.y1
    return line.page == last.page and last.y0 - 4 * last.size <= line.y1 <= top + 1


def _under(anchor: Line, line: Line) -> bool:
    """Whether ``line`` shares any of the width of ``anchor`` (a heading above it)."""
    return line.x1 >= anchor.x0 - 2 and line.x0 <= anchor.x1 + 2


def _paragraph_break(previous: Line, line: Line, both: bool = False) -> bool:
    """An indented first line, or a gap wider than the lines' own spacing; ``both``: the
    two, as the body opens under an abstract whose label is run in."""
    indented, gap = line.x0 - previous.x0 > line.size * 0.8, previous.y0 - line.y1
    return (indented and gap > line.size * 0.9) if both else (indented or gap > line.size * 0.9)


# A manuscript's note of where it goes ("Paper submitted for publication in ...") over its abstract
_NOTE = re.compile(
    r"^\W*(?:paper |manuscript |article )?(?:submitted|accepted|under review|under consideration"
    r"|to appear)\b",
    re.I,
)


# The paper's history under its abstract ("Submitted 2014 September 16; accepted 2015 April
# 9.", "Received: 24 February 2023").
_HISTORY = re.compile(
    r"^\W*(?:received|submitted|revised|accepted|published(?:\s+online)?)\b[:\s]+(?:on\s+)?"
    r"(?:(?:\d{1,2}(?:st|nd|rd|th)?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?)"
    r"[\s,]+){0,2}(?:19|20)\d{2}\b",
    re.I,
)
_BLANK = re.compile(r"\bintentionally\s+(?:left\s+)?blank\b", re.I)


def first_prose(lines: Sequence[Line], after: int) -> int:
    """The first line after the title block that reads as prose: mostly lowercase words,
    not an affiliation, a list of names ("Ladislas Nalborczyk, a,b Cédric Batailler, c")
    or a rights and licence paragraph ("Copyright © 2010 ... This is an open access
    article ... properly cited.")."""
    rights = False  # inside a rights paragraph, to its last sentence
    for i in range(after, min(len(lines), after + 60)):
        text = lines[i].text
        if rights or _RIGHTS.search(text):
            rights = not text.rstrip().endswith(".")
            continue
        words = text.split()
        if len(words) < 5 or ((_affiliation(text) or _NOTE.search(text)) and len(words) < 15):
            continue
        if _BLANK.search(text) or KEYWORDS_LINE.match(text):
            continue  # "This page was intentionally left blank."; keywords set above it
        if len(line_names(text) or ()) >= 2:
            continue
        lower = sum(1 for w in words if w[:1].islower())
        if lower / len(words) >= 0.4:
            j = i
            while (
                j > after
                and _continues(lines[j - 1], lines[j])
                and not KEYWORDS_LINE.match(lines[j - 1].text)
            ):
                j -= 1  # the paragraph's first line may hold more capitals
            return j
    return after


# Two to six words, each long one capitalised, no closing stop: a heading's line.
_HEADING_WORDS = re.compile(r"(?:(?:[A-Z][\w’'-]*|[a-z]{1,3})\s+){1,5}[A-Z][\w’'-]*")
KEYWORDS_LINE = re.compile(
    r"^\s*(?:\d{1,4}\s+)?(?:(?:additional|further|other|author)\s+)?(?:key\s?words|index terms)"
    r"\s*[:.—–]",
    re.I,
)  # (CSIRO's "Additional keywords: ...", a manuscript's "29 Keywords: ..." after its number)
_INTRODUCTION = re.compile(r"^\s*(?:(?:\d{1,2}|[IVX]{1,5})\.?\s*)?introduction\s*$", re.I)


def introduction_at(lines: Sequence[Line], after: int, opening: int) -> int | None:
    """Where an "Introduction" heading stands between the title block and the first prose:
    that prose is the introduction's, and the paper has no abstract (a working paper, a
    research letter); None when there is no such heading."""
    return next(
        (
            i
            for i in range(after, opening)
            if _INTRODUCTION.match(lines[i].text) and not toc_entry(lines, i)
        ),
        None,
    )


def _continues(previous: Line, line: Line) -> bool:
    """Whether ``line`` goes on from ``previous`` in one paragraph: the same type, close
    under it, an unfinished sentence of words (or a word broken at its end; a bracket left
    open is unfinished whatever ends the line: "[F. A. Evangelista, ..., J. Phys. Chem.").
    A line of an affiliation's words goes on into ``line`` only when ``line`` opens in
    lowercase, the rest of its sentence ("Presently at the Von Karman Institute for Fluid
    Dynamics (VKI), a comprehensive" / "research investigation is being performed ...")."""
    text = previous.text.rstrip()
    opened = text.count("[") > text.count("]") or text.count("(") > text.count(")")
    return (
        abs(previous.size - line.size) < 0.3
        and (opened or not text.endswith((".", "!", "?")))
        and (previous.words >= 6 or text.endswith(("-", HYPHEN_MARK)))
        and (not _affiliation(previous.text) or line.text[:1].islower())
        and previous.y0 - line.y1 < line.size * 0.9
    )


_CONTACT = re.compile(r"@|e-?mail|https?://|www\.|correspond", re.I)
_JOINING = frozenset("of and for the de des di du la le in at on & und y e".split())  # noqa: SIM905


def _affiliation(text: str) -> bool:
    """An affiliation's words ("Department of Sociology, Harvard University"), not a
    sentence holding one of them ("World polity research argues that modern states are
    ..."): a sentence's words are mostly lowercase, beyond the joining ones."""
    if not AFFILIATION.search(text):
        return False
    if _CONTACT.search(text):
        return True  # "Correspondence should be addressed to K. B. E. (kbe@...)"
    words = [w for w in text.split() if w.casefold() not in _JOINING]
    return sum(1 for w in words if w[:1].islower()) < 0.5 * len(words)


def cut_words(text: str, limit: int) -> str:
    words = text.split()
    if len(words) <= limit:
        return text
    cut = " ".join(words[:limit])
    end = cut.rfind(". ")
    return cut[: end + 1] if end > len(cut) // 2 else cut


def with_heading_colons(lines: Sequence[str]) -> list[str]:
    """An abstract's lines, a manuscript's line numbers before them dropped
    (:func:`_unnumbered`), a structured abstract's headings printed inline with no colon
    ("Aim To test ...", "Methodology A split-tooth model ...") given one ("Aim: To test
    ..."), as the answerer's roles read them. A line opening with a heading's word counts
    only after a sentence's end, and only when two such lines or more name different
    parts in a structured abstract's order (aim, then method, then results ...): running
    text may open a line with "Design Space ..." and another with "Methods A and B ...".
    """
    lines = _unnumbered(lines)
    found = [
        inline_heading(line) if i == 0 or lines[i - 1].rstrip().endswith((".", "!", "?", ")"))
        else ("", "")
        for i, line in enumerate(lines)
    ]  # fmt: skip
    order = [ROLES.index(role) for role, _ in found if role]
    if len(set(order)) < 2 or order != sorted(order):
        return list(lines)
    names = [name for _, name in found]
    return [
        f"{name}: {line.lstrip()[len(name) :].lstrip()}" if name else line
        for line, name in zip(lines, names, strict=True)
    ]


_LINE_NUMBER = re.compile(r"^\s*(\d{1,4})\s+(?=\S)")


def _unnumbered(lines: Sequence[str]) -> list[str]:
    """The lines without a manuscript's line numbers ("15 We speculate that ..." / "16
    responses."): when three lines or more, all but a fifth at most, open on a number and
    the numbers rise from line to line."""
    numbers = [int(m[1]) for line in lines if (m := _LINE_NUMBER.match(line))]
    rising = all(b > a for a, b in itertools.pairwise(numbers))
    if len(numbers) < 3 or len(numbers) < 0.8 * len(lines) or not rising:
        return list(lines)
    return [_LINE_NUMBER.sub("", line, count=1) for line in lines]
