"""What a PDF paper's first page says about its title (its year: :mod:`ingest.parse.pdfyear`;
where its abstract starts and ends: :mod:`ingest.parse.pdfabstract`).
"""

from __future__ import annotations

import itertools
import re

from rag.records import normalise_text
from rag.words import common_words

from . import pdfmeta
from .pdfabstract import heading_at
from .pdfaffiliation import DEGREE, INSTITUTION, INSTITUTION_NAME, byline_text
from .pdflayout import Line
from .pdfmeta import TITLE_MARKS, after_lines_of, as_printed, interleaved, junk_title, unspaced
from .pdfnames import VENUE, full_name, line_names
from .pdfyear import MONTH_YEAR
from .typeset import fix_characters, join_lines, squash

__all__ = ["beside", "byline", "find_title"]


def find_title(
    page: list[Line], body: float, metadata: dict[str, str], words: frozenset[str]
) -> tuple[str, int]:
    """(title, index of the first line after it; 0 when none was found)."""
    top = page[:40]
    height = max((line.y1 for line in page), default=0.0)
    lowest = min((line.y0 for line in page), default=0.0)
    half = lowest + (height - lowest) * 0.45
    candidates = [
        i
        for i, line in enumerate(top)
        if not line.margin
        and line.y0 >= half
        and sum(c.isalpha() for c in line.text) >= 3
        and not VENUE.search(line.text)
        and not heading_at(top, i)
        and not _KICKER.fullmatch(line.text.strip())
        and not _KICKER.fullmatch("".join(line.text.split()))  # spaced out: "Master’s Thes is"
    ]
    found, after = "", 0
    blocks = _type_blocks(top, candidates, body * 1.15, words)
    # The largest such block, unless a smaller one stands right above the authors' names
    # and it does not: a journal's banner ("Alternative Medicine") is set larger than the
    # title under it; but a larger block right on top of that one, no line between, is the
    # title and the smaller its subtitle ("Pedicle screw versus ... scoliosis" / "A
    # systematic review and meta-analysis ...").
    above = [b for b in blocks if _names_at(top, b[1])]
    if blocks:
        found, after, _ = above[0] if above and not _names_at(top, blocks[0][1]) else blocks[0]
        # (not a journal's one-word banner over it: "BIOINFORMATICS")
        if (
            above
            and above[0] is not blocks[0]
            and blocks[0][1] == above[0][2]
            and " " in blocks[0][0]
        ):
            # (no colon after "IŻ SWÓJ JĘZYK MAJĄ!", nor before words running on: "Weed Seed
            # Movement" / "via Combines: 2019-2020 Case Study")
            main, sub = blocks[0][0].rstrip(":"), above[0][0]
            joined = main[-1:] in "!?" or sub[:1].islower()
            found = f"{main} {sub}" if joined else f"{main}: {sub}"
            found = main if pdfmeta.foreign(sub) else found  # (a translation of it is none of it)
    # A title set in the body's size, right above the authors: tried from each line at the
    # top in turn (a journal's line in small type may come first), never in smaller type
    # but in small capitals, drawn as smaller capitals ("THE LONG-RUN EFFECTS OF ...").
    for first in candidates if not found else ():
        if top[first].size >= body - 0.3 or top[first].text.isupper():  # (or small capitals)
            found, after = _title_above_names(top, first, words, body)
            if found:
                break
    if not found:  # no byline under it (the author's set over it): bold a point over the
        # body's type ("LINGUISTIC DATING OF BIBLICAL HEBREW TEXTS:" in 16-point bold over a
        # 14-point body, the rest of it in 14-point bold)
        bold = [i for i in candidates if top[i].bold and not _names_at(top, i)]  # (its byline's)
        blocks = _type_blocks(top, bold, body + 1, words)
        found, after = blocks[0][:2] if blocks else ("", 0)
    meta = normalise_text(fix_characters(metadata.get("Title", "")))
    junk = len(meta.split()) < 2 or junk_title(meta)
    printed = squash(meta) in squash(" ".join(line.text for line in top)) if meta else False
    if meta and not junk and found and not printed:
        names = next((i for i in range(after, len(top)) if _names_at(top, i)), len(top))
        printed = interleaved(meta, found, top[:names])  # above the byline, not the body
    rest = squash(found)[len(squash(meta)) :] if meta else ""
    if printed and found and squash(found).startswith(squash(meta)) and _alpha(rest):
        return found, after  # the metadata keeps the printed title's start only (cut short)
    if meta and not junk and (printed or not found):
        if squash(found) != squash(meta):  # the title's place is where its lines are
            after = after_lines_of(meta, top) or after
        elif unspaced(found) == unspaced(meta) and len(found.split()) >= len(meta.split()):
            # The quotes and spaces as printed ("The ASA’s", "restoration of Shank3"), not as
            # typed into the metadata ("ASA's", "restoration ofShank3").
            return found, after
        return as_printed(meta, top, words), after
    return found, after


def _type_blocks(
    top: list[Line], candidates: list[int], floor: float, words: frozenset[str]
) -> list[tuple[str, int, int]]:
    """The blocks of lines set in a type at least ``floor`` points, the larger first: (text,
    the line after it, its first line) of each that reads as a title (not a byline, an
    institution, a degree or a banner)."""
    blocks: list[tuple[str, int, int]] = []  # (text, the line after it, its first line)
    starts: set[int] = set()
    for size in sorted({top[i].size for i in candidates}, reverse=True):
        if size < floor:
            break
        # One type within half a point ("16.0" and "16.3" of one title's lines).
        group = [i for i in candidates if abs(top[i].size - size) < 0.5]
        first = group[0]
        while first >= 0 and first not in starts:
            starts.add(first)
            members = _title_lines(top, first)
            if first != group[0]:  # read on past an institution: up to another weight or names
                weight = top[first].bold
                members = [i for k, i in enumerate(members) if k == 0 or top[i].bold == weight]
                members = [i for k, i in enumerate(members) if k == 0 or not _names_at(top, i)]
            if len(members) > 1 and _label_over(top[members[0]], top[members[1]]):
                members = members[1:]  # a feature's name over the title ("Retrospectives")
            while members[0] > 0 and _spills(top[members[0] - 1], top[members[0]]):
                members.insert(0, members[0] - 1)  # its first line set up in the page's margin
            while len(members) > 1 and _institution_after(top[members[-2]], top[members[-1]]):
                members.pop()  # a thesis page's university in the title's type, under it
            end = members[-1] + 1
            # A title never ends on "the", "and" or "of": a line that does runs on into the
            # next, whatever its type ("CREDIT CRISES, PRECAUTIONARY SAVINGS, AND THE" /
            # "LIQUIDITY TRAP" set in smaller capitals).
            while end < len(top) and end - first < 5 and _runs_on(top[end - 1].text):
                members.append(end)
                end += 1
            last = top[members[-1]]
            while end < len(top) and beside(top[end], top[first]) and top[end].y1 >= last.y0 - size:
                end += 1  # a side column's lines level with the title: the byline is under it
            text = _title_text([top[i] for i in members], words)
            # "M. S. Hagger,* N. L. D. Chatzisarantis,* ..."; not when a line of the block reads
            # as no names ("Jobless Unemployed Workers and Temporary Layoff" / "Workers on Search
            # and Not on Search for a New Job in the"): a byline does not run on into prose.
            bylined = byline(top[first].text) and all(line_names(top[i].text) for i in members)
            # (an institution's name alone is the author's, never a title: "Johns Hopkins
            # University" set under the title, over the author)
            wordy = len(text.split()) >= 2 or len(text) >= 12
            institution = all(INSTITUTION_NAME.match(top[i].text.strip()) for i in members)
            institution = institution or bool(INSTITUTION_NAME.match(text))
            dated = first != group[0] and bool(MONTH_YEAR.fullmatch(text.strip()))
            institution = institution or dated  # (read on past an institution: "May 2009" too)
            named = institution or bool(DEGREE.search(text))  # or a thesis's degree
            named = named or _banner([top[i] for i in members])
            if wordy and not bylined and not named:
                blocks.append((text, end, first))
            # An institution over the title in its type ("École polytechnique fédérale de
            # Lausanne" / ... / "Turbulent heated jet: ..."): that type's next lines are read.
            first = next((i for i in group if i >= end), -1) if institution else -1
    return blocks


def _title_text(lines: list[Line], words: frozenset[str]) -> str:
    """A title's lines as one text: without the footnote's number raised after the last
    ("... data¹"; not a power, "... on S² × S²": a title's first note is numbered 1), a
    manuscript's line numbers or the marks set after it."""
    texts, mark = [x.text for x in lines], lines[-1].mark
    if mark and not (mark.isdigit() and mark != "1"):
        texts[-1] = texts[-1][: -len(mark)]
    text = join_lines(_unnumbered(texts), words).strip(TITLE_MARKS)
    half = text[: len(text) // 2].strip()
    # (set twice over itself, a hidden layer's copy under the visible one: IntechOpen's)
    return half if len(half.split()) >= 2 and text == f"{half} {half}" else text


# A draft's status set under its title in the title's type ("Preliminary and Incomplete. Do
# Not Cite.", "Very Preliminary Draft", "Comments Welcome"): no words of the title.
_STATUS_WORDS = (
    r"(?:very\s+)?(?:preliminary|incomplete|draft|work(?:ing)?\s+in\s+progress)(?:\s+(?:and|&)"
    r"\s+incomplete|\s+draft|\s+version)?|comments?\s+(?:are\s+)?welcome"
    r"|(?:please\s+)?do\s+not\s+(?:cite|circulate|quote|distribute)(?:\s+without\s+permission)?"
)
_STATUS = re.compile(rf"(?:{_STATUS_WORDS})(?:[\s.,;:!-]+(?:{_STATUS_WORDS}))*[\s.!]*", re.I)


def _unnumbered(texts: list[str]) -> list[str]:
    """A title's lines without a manuscript's line numbers before each ("1 A Goldilocks ..."
    / "2 Matters ...") or a date or a draft's status set under them in their type ("November
    2022", "26 June 2020", "Preliminary and Incomplete. Do Not Cite.")."""
    while len(texts) > 1 and (
        MONTH_YEAR.fullmatch(re.sub(r"^\d{1,2}\s+", "", texts[-1].strip()))
        or _STATUS.fullmatch(texts[-1].strip(TITLE_MARKS))
    ):
        texts = texts[:-1]
    numbers = [int(m[1]) for t in texts if (m := re.match(r"(\d{1,3}) (?=\S)", t))]
    run = list(range(numbers[0], numbers[0] + len(texts))) if numbers else []
    if len(texts) < 2 or numbers != run:
        return texts
    return [re.sub(r"^\d{1,3} ", "", t) for t in texts]


def _label_over(line: Line, below: Line) -> bool:
    """Whether ``line``, one word in the title's type, is a feature's name over the title
    ("Retrospectives"): a title's first line is never one short word over a line twice as
    wide (its lines break where the column ends), unless a colon or dash ends it ("BERT:")."""
    text = line.text.strip()
    return (
        len(text.split()) == 1
        and not text.endswith((":", "-", "–", "—", "?", "!"))
        and (line.x1 - line.x0) * 2 < below.x1 - below.x0
    )


def _title_lines(top: list[Line], first: int) -> list[int]:
    """The lines of the title opening at ``top[first]``: up to eight in its type, one under
    the other, passing over lines of another type set beside them (a side column's
    copyright lines between a title's two lines, as Science Advances prints them)."""
    size, head = top[first].size, top[first]
    members = [first]
    for j in range(first + 1, len(top)):
        line = top[j]
        last = top[members[-1]]
        under = line.page == last.page and last.y0 - line.y1 < 2 * size
        if abs(line.size - size) < 0.5 and len(members) < 8 and under:
            if "," in line.text and byline(line.text):
                break  # the byline in the title's type ("Markus J. Bröcker, Simone Virus, ...")
            bold = len(members) > 1 and all(top[m].bold for m in members)  # (a label aside)
            if bold and not line.bold:
                break  # a bold title's lines are all bold: "Michael Lipschultz*" under it
            members.append(j)
        elif not beside(line, head):
            break  # another type under the title: its end
    return members


def byline(text: str) -> bool:
    """Whether a line in the title's type is a byline: two names or more, one of them a
    person's by an initial or a word no English list holds ("Karrie E. Godwin"), not a
    title's pairs of capitalised words ("Visual Environment, Attention Allocation,")."""
    named = [n for n in line_names(text) or () if full_name(n)]
    return len(named) >= 2 and any(
        re.search(r"\b[A-Z]\.", n) or any(t.casefold() not in common_words() for t in n.split())
        for n in named
    )


def _banner(lines: list[Line]) -> bool:
    """Whether a block of lines in the title's type is a banner's pieces, set apart on one
    line ("Bank of Israel   Research Department", "IRSTI 06.61.53   https://doi.org/..."),
    not a title, whose lines are one run of words each."""
    pairs = itertools.pairwise(lines)
    apart = any(x.parts and not _justified(x, lines) for x in lines)
    return apart or any(beside(b, a) and b.y1 > a.y0 for a, b in pairs)


def _justified(line: Line, block: list[Line]) -> bool:
    """Whether ``line``'s words stand apart only because it is justified: every word a piece,
    its edges those of another line of its block set in one piece ("Simplified   Transfer
    Function" over "Damping Characteristics for Accurate", both 117 to 476 points)."""
    return len(line.parts) == len(line.text.split()) and any(
        abs(o.x0 - line.x0) < 2 and abs(o.x1 - line.x1) < 2 for o in block if not o.parts
    )


def beside(line: Line, title: Line) -> bool:
    """Whether ``line`` is set beside ``title`` (the title's line, or any line above it),
    sharing none of its width."""
    return line.x0 >= title.x1 - 2 or line.x1 <= title.x0 + 2


# The article's type printed above its title in the title's type ("Research Article",
# "Review"), a thesis's ("Master Thesis"), a named lecture's: a label, not part of the title.
_KICKER = re.compile(
    r"(?:(?:original|research|review|short|brief|invited|regular|full|technical|clinical|"
    r"case|rapid|special|working|discussion|conference|position|white)\s*)?"
    r"(?:article|paper|report|review|communication|letter|note|"
    r"editorial|perspective|commentary|contribution|study)(?:\s+type)?"  # "ARTICLE TYPE"
    r"|(?:(?:master|bachelor|doctoral|diploma|honou?rs|senior|ph\.?\s?d\.?)(?:['’]?s)?\s*)?"
    r"(?:thesis|dissertation)"
    r"|(?:(?:19|20)\d{2}\s+)?(?:[A-Z][\w'’.-]*\s+){0,2}(?:lecture|address)",  # "1999 REITZ LECTURE"
    re.I,
)


_RUNS_ON = frozenset(
    "the an and or of for to in on with from by at via under over between among across into".split()  # noqa: SIM905
)
_NO_BYLINE_END = _RUNS_ON - {"and", "or"}  # a byline broken after "and" goes on too


def _runs_on(text: str) -> bool:
    """Whether a title's line ends on a word no title ends on (an article, a preposition, a
    conjunction) or a colon ("Voting for Violence:"): the title goes on in the next line."""
    words = text.split()
    return bool(words) and (words[-1].casefold() in _RUNS_ON or text.rstrip().endswith(":"))


def _opens_on(text: str) -> bool:
    """Whether a line opens on a word no name does (an article, a preposition; not "by",
    a byline's, nor "an", a given name)."""
    words = text.split()
    return bool(words) and words[0].casefold() in _RUNS_ON - {"by", "an"}


def _names_at(top: list[Line], at: int) -> bool:
    """The line at ``at`` is a line of authors' names (not one running on past its last
    word: "Depicting Germanness and Combating Foreigners in" is a subtitle's)."""
    last = top[at].text.split()[-1:] if at < len(top) else []
    if not last or last[0].casefold() in _NO_BYLINE_END or last[0].endswith(":"):
        return False  # (a byline broken after "and" goes on too: "Yifan Zhang and"; a
        # title's first line closing on a colon goes on: "Binary Interval Search (BITS):")
    names = line_names(top[at].text, first=True)
    return bool(names) and any(full_name(n) for n in names or ())


def _title_above_names(
    top: list[Line], first: int, words: frozenset[str], body: float
) -> tuple[str, int]:
    """A title set near the body's size: the lines at the top, in one type, right above a
    line of authors' names; ("", 0) when no names follow. A title set larger than the body
    has its byline in another type: a line in its own type that reads as names ("Horbat
    Menorim (El-Manara), Lower Galilee") is the title's."""
    end = first
    own = top[first].size > body + 0.3
    while end < len(top) and end - first < 4:
        line = top[end]
        if re.search(r"https?://|\bdoi\.org/", line.text):
            break  # an address is no title's ("IRSTI 06.61.53   https://doi.org/...")
        # Under the title in smaller type, common words in capitals are a byline too
        # ("q-BIC FORMS" / "RAYMOND CHENG", as the AMS prints them).
        smaller = end > first and line.size < top[first].size - 0.5
        names = line_names(byline_text(line.text), byline=smaller)
        same = (line.size, line.bold, line.text.isupper()) == (
            top[first].size,
            top[first].bold,
            top[first].text.isupper(),
        )
        # Names right under a line ending "... AND THE" are the title's ("LIQUIDITY TRAP").
        # and so are names opening on a word no name opens on ("OVER GENERAL TRIANGULAR")
        runs_on = end > first and (_runs_on(top[end - 1].text) or _opens_on(line.text))
        runs_on = runs_on or (end > first and same and _wraps(top[end - 1], line))
        byline = names and any(full_name(n) for n in names) and not (own and same)
        if end > first and byline and not runs_on:
            return _title_text(top[first:end], words), end
        if line.size != top[first].size or line.bold != top[first].bold:
            break
        if end > first and re.fullmatch(r"\s*by\s*:?\s*", line.text, re.I):  # "by" / "Jason V
            title = _title_text(top[first:end], words)  # Poulos", the "by" close or set apart
            if not _PRESENTED.search(title) and len(title.split()) >= 3:
                return title, end  # (not "An Honors Thesis Presented" / "By", nor "May 2009")
        if end > first and top[end - 1].y0 - line.y1 > 3 * line.size:
            break  # a title's lines stand close: not "May 2009" far above it
        end += 1
    return "", 0


def _wraps(above: Line, line: Line) -> bool:
    """Whether ``line`` is the rest of a title's line ``above`` wrapped: close under it (at
    most 1.75 of the type's size from baseline to baseline), at most half its width, and
    ``above`` ends on no sentence's mark ("... Parameter for" / "Interest Rate Models")."""
    close = above.y0 - line.y0 <= 1.75 * line.size
    narrow = (line.x1 - line.x0) * 2 <= above.x1 - above.x0
    return close and narrow and not above.text.rstrip().endswith((".", ":", "?", "!", ","))


_PRESENTED = re.compile(r"\b(?:thesis|dissertation|presented|submitted)\b", re.I)


def _alpha(text: str) -> bool:
    """Words, not a footnote's number set after a title ("World Polity 1")."""
    return any(c.isalpha() for c in text)


def _spills(above: Line, line: Line) -> bool:
    """Whether ``above``, in the page's top margin, is the title's first line: in its type,
    right over it (a running head is set smaller and apart)."""
    return (
        above.margin
        and abs(above.size - line.size) < 0.5
        and 0 <= above.y0 - line.y1 < line.size
        and not VENUE.search(above.text)
    )


def _institution_after(line: Line, below: Line) -> bool:
    """Whether ``below`` is an institution's name set after a finished title line ("...
    in Southern Sweden" / "Swedish University of Agricultural Sciences")."""
    return not _runs_on(line.text) and bool(INSTITUTION.search(below.text))
