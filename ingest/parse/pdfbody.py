"""A PDF paper's body: the text after its abstract up to the references, as sections split at
their headings and at page breaks, each with the page it is printed on. Running heads are
gone already; captions, text set smaller than the body (figures, tables, footnotes) and
keywords lines are left out, and so are lines set a little smaller than the body away from
every column's left edge (a table's cells, a figure's labels) and contact lines (an e-mail
address and the address lines with it).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from rag.records import Section

from .pdflayout import Line
from .pdfnames import AFFILIATION, EMAIL
from .typeset import join_lines

__all__ = [
    "FRONT_MATTER",
    "FRONT_MATTER_AFTER",
    "Captions",
    "body_sections",
    "cap_sections",
    "is_heading",
]

_FRONT_MATTER_LINES = 16  # keywords and CCS concepts take a few lines, never a page
COLUMN_SLACK = 7.0  # points: lines of one column start this close to its left edge
CONTACT_WORDS = 12  # a line of a contact footnote or an author's address, at most

_NAMED_HEADING = re.compile(
    r"^\s*(?:(?:\d{1,2}|[IVX]{1,5})\.?\s*)?(?:introduction|background|related work|references"
    r"|acknowledge?ments?|motivation|overview|preliminaries|conclusions?|discussion|results"
    r"|methods|materials and methods|experiments?|evaluation|bibliography|main)\s*$",
    re.I,
)
# Unnumbered headings a paper that numbers its sections still has.
_BACK_MATTER = re.compile(
    r"^\s*(?:appendi(?:x|ces)|acknowledge?ments?|supplementary|funding|data availability"
    r"|author contributions|competing interests|conflicts? of interest)\b",
    re.I,
)
# What follows an abstract on a title page, whatever its length (keywords also as CSIRO's
# "Additional keywords" and as French, Spanish, Portuguese, Italian and German papers label
# them; subject classifications).
FRONT_MATTER = re.compile(
    r"^\s*(?:(?:additional|further|other|author)\s+key\s?words?|keywords?|key\s?words"
    r"|index terms|ccs concepts|acm reference format|general terms"
    r"|categories and subject descriptors|pacs\b|jel\b|msc\b|(?:ams\s+)?(?:\d{4}\s+)?"
    r"mathematics subject classification|ams subject classification|subject areas?"
    r"|(?:\d{4}\s+)?acm subject classification|acm computing classification"
    r"|(?:verification|replication) materials?\s*:|data availability(?: statement)?\s*:"
    r"|arxiv e-?print|mots[- ]cl[ée]s|palabras? clave|palavras?[- ]chave|parole chiave"
    r"|schl[üu]sselw[öo]rter"
    # how to cite the paper, printed under its abstract (the IMF's, PLOS's, Frontiers')
    r"|(?:recommended|suggested|please)\s+citation|how to cite|cite this (?:article|paper)"
    r"|citation\s*:|supervisors?\s*:)",  # (a student paper's supervisor under its abstract)
    re.I,
)
# A copyright with its year ("© 2007", "Copyright 2010"): the paper's own print.
# "© 2007", "Copyright © 2023", "Crown Copyright © 2023", "Copyright r 2010" (Wiley's font
# gives its © as "r")
_COPYRIGHT_YEAR = r"(?:crown\s+)?(?:©|\(c\)|copyright)\s*(?:(?:©|r)\s*)?(?:19|20)\d{2}\b"
COPYRIGHT = re.compile(_COPYRIGHT_YEAR, re.I)
# The same labels run on after an abstract's last sentence, on its last line ("... can be
# larger. JEL Codes: E30, E44."): only with the punctuation a label takes; and a rights
# line run on the same way ("... is studied. © 2007 American Institute of Physics.").
FRONT_MATTER_AFTER = re.compile(
    r"(?<=[.!?])\s+(?:(?:keywords?|key\s?words|index terms"
    r"|jel(?:\s+(?:codes?|classification))?"
    r"|(?:msc|ams)(?:\s*\(?\d{4}\)?)?(?:\s+subject classifications?)?"
    r"|pacs(?:\s+(?:numbers?|codes?))?"
    r"|(?:\d{4}\s+)?mathematics subject classification(?:\s*\(\d{4}\))?)\s*[:.—–]\s"
    rf"|{_COPYRIGHT_YEAR}).*$"
    # the JEL codes in brackets (AEA, JEEA), a last "Funding" part (The Lancet's), a note
    # that supplementary material is online (IOP's; not a part so labelled, OUP's
    # "Supplementary information: Supplementary data are available at ..."); AIP's
    # "Published by AIP Publishing. https://doi.org/..."
    r"|(?<=[.!?])\s*\(JEL:?\s[^)]*\).*$"  # (what runs on after them is the body's)
    r"|(?<=[.!?])\s+(?:supplementary|supporting)\s+(?:materials?|information|data)\b(?!\s*:)[^.]{0,80}"
    r"\bavailable\b[^.]*\.?\s*$"
    r"|(?<=[.!?])\s+(?-i:Funding:?\s+(?:(?:[A-Z(][\w'’&@()-]*|\d[\w-]*|of|and|the|for|on|in|&)[\s,;]*)+)"
    r"\.?\s*$"
    # AIP's rights line run on after the last sentence, with the paper's DOI
    r"|(?<=[.!?])\s+(?-i:Published by [A-Z][\w ]{0,40}(?:Publishing|B\.V|Ltd|Inc|LLC|Limited)\.)"
    r"(?:\s+\[?https?://\S+)?\s*$"  # (and Elsevier's "Published by Elsevier B.V.")
    # the paper's own citation set after it, NLM's way ("(JMIR Mhealth Uhealth 2025;13:e67117)
    # doi: 10.2196/67117")
    r"|(?<=[.!?])\s+\((?-i:[A-Z])[^()]{1,80}?\b(?:19|20)\d{2}\s*;\s*\d{1,4}(?:\(\d{1,4}\))?"
    r"\s*:\s*[a-z]?\d+\)(?:\s*doi:?\s*10\.\S+)?\s*$"
    # a rights line whose © the font lost ("... reduce bias. 2012 The Wildlife Society.")
    r"|(?<=[.!?])\s+(?-i:(?:19|20)\d{2}\s+(?:The\s+)?(?:[A-Z][\w&.-]*\s+){0,5}"
    r"(?:Society|Association|Authors?|Publishers?|Press|Inc|Ltd|LLC)\b)\.?\s*$"
    # its own citation in a journal's short form ("... height growth. FOR. SCI. 53(4):486-492.")
    r"|(?<=[.!?])\s+(?-i:[A-Z][A-Z.]*(?:\s?[A-Z][A-Z.]*){0,5})\s+\d{1,4}\s*\(\d{1,3}\)\s*:"
    r"\s*\d{1,5}\s*[-–]\s*\d{1,5}\.?\s*$"
    # a manuscript's word count ("... category-specific. (174 words).", "Words: 233/250") or a
    # rule drawn in underscores after the last sentence
    r"|(?<=[.!?])\s+\(\d[\d,]*\s+words\)\.?\s*$|(?<=[.!?])\s+_{5,}\s*$"
    r"|(?<=[.!?])\s+(?:word\s+count|words)\s*:\s*\d[\d,]*(?:\s*/\s*\d[\d,]*)?\.?\s*$"
    # a note on the authors run on after it ("... case studies. SRB and MT contributed
    # equally to this work.")
    r"|(?<=[.!?])\s+[^.]{1,80}\bcontributed\s+equally\b[^.]{0,40}\.?\s*$"
    # AIP's rights line, its sign read as "VC" ("VC 2022 Acoustical Society of America."), or
    # the manuscript's history in brackets ("(Received 23 October 2021; ... published online
    # 16 February 2022) [Editor: Sunil Puria]")
    r"|(?<=[.!?])\s+(?-i:VC)\s+(?:19|20)\d{2}\b.*$"
    r"|(?<=[.!?])\s+copyright\s+(?:©|c\s)?\s*0000\b.*$"  # a template's: "Copyright c 0000 John ..."
    r"|(?<=[.!?])\s+\((?:received|submitted)\b[^()]{0,200}\)(?:\s*\[[^\]]{0,80}\])?\s*$",
    re.I | re.S,
)
_NUMBERED_HEADING = re.compile(
    r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-H]\.)\s+[A-Z][\w ,:&/()'’-]{1,70}$"
)
_REFERENCES = re.compile(
    r"^\s*(?:\d{1,2}\.?|[IVX]{1,5}\.)?\s*(?:references|bibliography|literature cited"
    r"|references and notes)\s*$",
    re.I,
)
_CAPTION = re.compile(
    r"^\s*(?:fig(?:ure)?|table|tab|scheme|chart)\.?\s*[\dIVX]+[a-z]?\s*[.:—–-]", re.I
)


class Captions:
    """Tells a figure's or table's caption from running text, line by line: from a line
    opening "Figure 1:", "Fig. 2." or "Table 3" to the line that ends its sentence."""

    def __init__(self) -> None:
        self._open = False

    def is_caption(self, line: Line) -> bool:
        if not self._open and not _CAPTION.match(line.text):
            return False
        self._open = not line.text.rstrip().endswith(".")
        return True


NUMBERED_SECTIONS = 3  # distinct numbered headings that make a paper's headings numbered


def is_heading(line: Line, previous: Line | None, body: float) -> bool:
    """A section heading: a known name ("Introduction", "Keywords:"), or a short numbered
    line ("2.1 Method") set larger or bolder than the body or after a finished sentence (so
    a wrapped line starting "3.0 Titan ..." in an abstract is not one)."""
    text = line.text
    if FRONT_MATTER.match(text):
        return True
    if len(text) > 80:
        return False
    if _NAMED_HEADING.match(text):
        return True
    if not _NUMBERED_HEADING.match(text) or text.rstrip().endswith((",", ";")):
        return False
    ended = previous is None or previous.text.rstrip().endswith((".", ":", "?", "!"))
    return line.size >= body * 1.05 or line.bold or ended


def body_sections(lines: Sequence[Line], body: float, words: frozenset[str]) -> tuple[Section, ...]:
    """The body up to the (last) "References" heading, as sections split at headings (and
    at the first sentence begun on each new page, so every part is on one page)."""
    end = len(lines)
    for i, line in enumerate(lines):
        if _REFERENCES.match(line.text):
            end = i
    start = _after_front_matter(lines, body)
    captions = Captions()
    starts = _column_starts(lines)
    kept = [
        line
        for line in lines[start:end]
        if not line.margin
        and body * 0.88 <= line.size <= body * 2.5
        and not captions.is_caption(line)
        and not FRONT_MATTER.match(line.text)  # keywords, CCS concepts: not the body
        and not _set_apart(line, body, starts.get(line.page, ()))
    ]
    kept = _without_contacts(kept)
    widths = sorted(line.x1 - line.x0 for line in kept)
    column = widths[len(widths) * 3 // 4] if widths else 0.0  # a full line's width
    # A paper that numbers its sections numbers them all: there a short bold line without
    # a number is an algorithm's "Input:", a table's row or a figure's label, not a heading
    # (a named one, "References", "Appendix A. Proofs" or "Acknowledgement", is still one).
    heads = [is_heading(line, kept[i - 1] if i else None, body) for i, line in enumerate(kept)]
    numbered = {
        line.text.split()[0]
        for line, head in zip(kept, heads, strict=True)
        if head and _NUMBERED_HEADING.match(line.text)
    }
    unnumbered = len(numbered) < NUMBERED_SECTIONS
    sections: list[Section] = []
    texts: list[str] = []
    title, page = "", kept[0].page + 1 if kept else 1
    for line, head in zip(kept, heads, strict=True):
        if head or (
            (unnumbered or _BACK_MATTER.match(line.text)) and _bold_heading(line, body, column)
        ):
            if texts:
                sections.append(Section(title, page, join_lines(texts, words)))
            title, page, texts = join_lines([line.text], words), line.page + 1, []
            continue
        if texts and line.page + 1 != page and texts[-1].rstrip().endswith((".", "?", "!")):
            # A section running onto the next page goes on as a part of its own from the
            # first sentence begun there: a passage names the page it is printed on.
            sections.append(Section(title, page, join_lines(texts, words)))
            texts = []
        if not texts:
            page = line.page + 1
        texts.append(line.text)
    if texts:
        sections.append(Section(title, page, join_lines(texts, words)))
    return tuple(s for s in sections if len(s.text.split()) >= 8)


def _column_starts(lines: Sequence[Line]) -> dict[int, tuple[float, ...]]:
    """Per page, where its columns' lines start: the left edges (to COLUMN_SLACK points)
    shared by many lines of prose (four words or more)."""
    by_page: dict[int, Counter[int]] = {}
    counts: Counter[int] = Counter()
    for line in lines:
        counts[line.page] += 1
        if line.words >= 4:
            edge = round(line.x0 / COLUMN_SLACK)
            by_page.setdefault(line.page, Counter())[edge] += 1
    return {
        page: tuple(
            edge * COLUMN_SLACK for edge, n in edges.items() if n >= max(5, 0.1 * counts[page])
        )
        for page, edges in by_page.items()
    }


def _set_apart(line: Line, body: float, starts: Sequence[float]) -> bool:
    """A line set smaller than the body and away from every column's left edge: a table's
    cell, a figure's label, a caption's centred second line; not a section heading (some
    styles centre theirs, in small capitals)."""
    if line.size >= body * 0.98 or is_heading(line, None, body):
        return False
    return all(abs(line.x0 - x) > 2 * COLUMN_SLACK for x in starts)


def _without_contacts(lines: list[Line]) -> list[Line]:
    """The body without its contact lines: a short line holding an e-mail address (a
    corresponding author's footnote, an author block read after the abstract) and the
    short address lines run together with it; an address inside a longer line (a footnote
    merged into a line of text) is taken out of it."""
    drop: set[int] = set()
    for i, line in enumerate(lines):
        if not EMAIL.search(line.text) or line.words > CONTACT_WORDS:
            continue
        drop.add(i)
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(lines) and j not in drop and _address(lines[j], line.page):
                drop.add(j)
                j += step
    return [
        replace(line, text=" ".join(EMAIL.sub(" ", line.text).split()))
        if EMAIL.search(line.text)
        else line
        for i, line in enumerate(lines)
        if i not in drop
    ]


def _address(line: Line, page: int) -> bool:
    """A short line of an address or affiliation on ``page``: no sentence, nor a line of
    one ("perception entirely shifting the paradigm of research and" goes on a sentence)."""
    text = line.text.strip()
    return (
        line.page == page
        and line.words <= CONTACT_WORDS
        and AFFILIATION.search(text) is not None
        and not text.endswith(".")
        and not text[:1].islower()
    )


def _after_front_matter(lines: Sequence[Line], body: float) -> int:
    """Where the body starts when keywords, CCS concepts or general terms follow the
    abstract: at the first heading after them (a few lines on), not inside them."""
    if not lines or not FRONT_MATTER.match(lines[0].text):
        return 0
    for i in range(1, min(len(lines), _FRONT_MATTER_LINES)):
        line = lines[i]
        if not FRONT_MATTER.match(line.text) and is_heading(line, lines[i - 1], body):
            return i
    return 1


def _bold_heading(line: Line, body: float, column: float) -> bool:
    """An unnumbered heading: a short bold line at the body's size or larger, no sentence
    (not a paragraph's run-in bold opening, which fills the line)."""
    letters = sum(c.isalpha() for c in line.text)
    return (
        line.bold
        and letters >= 0.7 * len(line.text.replace(" ", ""))
        and not line.text.rstrip().endswith(":")
        and line.x1 - line.x0 < column * 0.7
        and line.size >= body * 0.98
        and 1 <= line.words <= 8
        and line.text[:1].isupper()
        and not line.text.rstrip().endswith((".", ",", ";"))
    )


def cap_sections(sections: tuple[Section, ...], limit: int) -> tuple[Section, ...]:
    out, used = [], 0
    for section in sections:
        if used + len(section.text) > limit:
            room = limit - used
            if room > 0:
                out.append(
                    Section(section.title, section.page, section.text[:room].rsplit(" ", 1)[0])
                )
            break
        out.append(section)
        used += len(section.text)
    return tuple(out)
