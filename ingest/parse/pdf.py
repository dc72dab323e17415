"""PDF papers, read with pypdfium2 (PDFium; Apache-2.0/BSD): one Paper per file.

Lines come in reading order, two columns included (:mod:`ingest.parse.pdflayout`), and
typesetting is undone (:mod:`ingest.parse.typeset`: line-end hyphens, ligatures, accents).

- **title**: the largest text in the top half of the article's first page that is not a
  running head, a venue line or a figure's label (a larger block not right above the
  authors' names, a journal's banner, gives way to one that is); the PDF's metadata title
  instead when it is printed there (else only when nothing was found and it is not junk such
  as "Microsoft Word - draft.docx" or "1472-6882-6-3.fm"). The article's first page is page
  1 unless that is a cover sheet (how to cite the article, its terms of use: a repository's
  or publisher's), which is skipped;
- **authors**: the lines set between the title and the abstract on the page, without
  affiliations, addresses, e-mails and footnote marks, a name broken across lines joined
  (:mod:`ingest.parse.pdfnames`); without them, a byline above the title or the document
  information's names, never the journal's name (:mod:`ingest.parse.pdfmeta`);
- **abstract**: from an "Abstract" heading (a line of its own, or "Abstract—", "Abstract:"
  in front of the text) up to the first heading, "Keywords", "CCS Concepts", a footnote or
  a change of type; without one, the first paragraph of prose after the authors, with a
  notice saying so; none when an "Introduction" heading stands before that prose (a working
  paper, a research letter) or the first page is a thesis's title page: the text is stored as
  the body, the paper without an abstract;
- **DOI** and **arXiv id** when printed on the first pages; **year** from the arXiv stamp,
  a citation line ("Journal (2014), 26:1", "2023;53:790"), a copyright, a venue line or a
  dated line ("June 2009") printed outside the abstract's and the body's running text (a
  year there is a cited work's or the study's); none when nothing is printed (a file's
  creation date is not the paper's year);
- **body** (``full_text``, the default): the text after the abstract up to the references,
  as sections split at their headings and page breaks, each with its page
  (:mod:`ingest.parse.pdfbody`); running heads, footers, page and line numbers, captions
  and text set smaller than the body (figures, tables, footnotes) are left out.

A PDF that is encrypted, corrupt, cut short past repair, over :data:`MAX_PDF_BYTES` or
:data:`MAX_PDF_PAGES`, or without a text layer (a scan) is one Skipped naming the fix; one
that takes over :data:`MAX_PDF_SECONDS` to read is kept as far as it was read, with a
notice.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.records import Notice, Skipped

from .clean import Draft
from .files import too_large
from .ids import arxiv_id, printed_arxiv, printed_doi
from .pdfabstract import (
    ABSTRACT,
    FOREIGN_ABSTRACT,
    KEYWORDS_LINE,
    abstract_end,
    cut_words,
    first_prose,
    heading_at,
    introduction_at,
    with_heading_colons,
)
from .pdfbody import FRONT_MATTER_AFTER, body_sections, cap_sections
from .pdfbyline import after_title_again, between, off_title, under_title_again
from .pdfcontents import CONTENTS, contents_entry
from .pdfcover import MAX_COVERS, cover_words, covered_title, stamped
from .pdfheader import find_title
from .pdflayout import Line, page_lines
from .pdfmeta import byline_above, labelled_authors, metadata_authors, not_the_venue, unmangled
from .pdfnames import authors
from .pdfthesis import thesis_author, thesis_cover, thesis_title, thesis_title_page
from .pdftitlelabel import labelled_title, repeated_title
from .pdfyear import find_year, latest_year, printed_apart
from .typeset import HYPHEN_MARK, fix_characters, join_lines, vocabulary

__all__ = [
    "HEAD_PAGES",
    "MAX_BODY_CHARS",
    "MAX_PDF_BYTES",
    "MAX_PDF_PAGES",
    "MAX_PDF_SECONDS",
    "parse_pdf",
]

HEAD_PAGES = 2
MAX_PDF_BYTES = 100 << 20
MAX_PDF_PAGES = 2000
MAX_PDF_SECONDS = 120.0  # reading stops past this (first pages aside): one file, not the run
MAX_BODY_CHARS = 1_000_000  # about 250k tokens: a long thesis; beyond it the body is cut
_MIN_TEXT_CHARS = 40
# A note's mark or page number after the abstract's last sentence ("mission. 2", "values.2")
_TRAILING_MARK = re.compile(r"(?<=[.!?])(?:\s+\d{1,2}|\s*[*∗†‡])$|(?<=[^\W\d_][.!?])\d{1,2}$")
_UNLABELLED = "no 'Abstract' heading found: the first paragraph is stored as the abstract; check it"
_MAX_OPENING_WORDS = 350  # an abstract found without a heading (journals allow up to 350 words)
# A manuscript's "1 Title: ...", a report's kind before its title ("Technical Report: VINS-Mono")
_TITLE_LABEL = re.compile(
    r"^(?:\d{1,3}\s+)?title\s*:\s*|^(?:technical|research|working|discussion)\s+(?:report|paper)"
    r"\s*:\s+(?=\S)"
    # a version's label after it: "... Hamburg Concerto (draft)", "(Preprint)"
    r"|\s+\((?:draft|preprint|working\s+draft|work\s+in\s+progress|under\s+review)\)$"
    r"|[:\s]+\S*/[\w./-]+\.(?:pdf|png|jpe?g|eps|svg)$",  # a missing image's path: "./logo.pdf"
    re.I,
)
# A mark before an abstract's first word (MIT Press's square, read as "&"), or its word count
_OPENING_MARK = re.compile(  # in brackets ("(current: 140 words; max 150 words)"): no word.
    r"^(?:[&■□▪▫◆◇●•]|\((?:current\s*:\s*)?\d[\d,]*\s+words(?:\s*[;,]\s*max\w*\.?\s*:?\s*"
    r"\d[\d,]*\s+words)?\))\s+"
)
_MAX_PARTS_WORDS = 600  # ... or its parts labelled in capitals (JAMA's "IMPORTANCE ...")
_PART_LABELS = re.compile(r"(?:^|(?<=[.!?] ))[A-Z][A-Z ,&]{2,40}: ")


def parse_pdf(path: Path, *, full_text: bool = True) -> Iterator[Draft | Skipped | Notice]:
    """The paper in the PDF at ``path``; ``full_text=False`` reads its first pages only."""
    source = str(path)
    size = path.stat().st_size
    if size > MAX_PDF_BYTES:
        yield Skipped(source, None, f"PDF is {too_large(size, MAX_PDF_BYTES)}: split it")
        return
    import pypdfium2 as pdfium  # lazy: only PDF input needs it

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        yield Skipped(source, None, _open_error(str(exc)))
        return
    try:
        pages = len(pdf)
        if pages > MAX_PDF_PAGES:
            reason = f"PDF has {pages:,} pages, over the {MAX_PDF_PAGES:,}-page limit: split it"
            yield Skipped(source, None, reason)
            return
        if pages == 0:
            yield Skipped(source, None, "PDF has no pages: re-export or re-download it")
            return
        metadata = {k: unmangled(v) for k, v in pdf.get_metadata_dict(skip_empty=True).items()}
        texts: list[str] = []
        covers = 0  # cover sheets before the article's first page
        ahead: str | None = None  # the next page's text, read to tell a cover from a stamp
        while len(texts) < min(pages, HEAD_PAGES + covers):
            texts.append(_page_text(pdf, len(texts)) if ahead is None else ahead)
            ahead = None
            if len(texts) - 1 == covers < MAX_COVERS and pages > covers + 1:
                if len(texts[-1].strip()) < _MIN_TEXT_CHARS:
                    covers += 1  # a cover of images, or a series' name alone ("ISAW Papers 9")
                elif said := cover_words(texts[-1]):
                    ahead = _page_text(pdf, len(texts))
                    if not stamped(said, texts[-1], ahead):
                        covers += 1
        read = pages if full_text else min(pages, HEAD_PAGES + covers)
        stamp = " ".join(texts)
        lines: list[Line] = []
        start = time.perf_counter()
        for i in range(read):
            if i >= HEAD_PAGES and time.perf_counter() - start > MAX_PDF_SECONDS:
                # A content-stream bomb, or a book: what was read is kept.
                stopped = Notice(
                    source,
                    1,
                    f"stopped reading at page {i + 1} of {pages}: the PDF took over "
                    f"{MAX_PDF_SECONDS:g} s to read (a huge or hostile file); split it",
                )
                break
            lines += page_lines(pdf, i)
        else:
            stopped = None
    except pdfium.PdfiumError as exc:
        yield Skipped(source, None, f"PDF could not be read ({exc}): it may be corrupt")
        return
    finally:
        pdf.close()
    if len(stamp.strip()) < _MIN_TEXT_CHARS:
        yield Skipped(
            source,
            None,
            "PDF has no text layer (a scan or images only): run OCR on it first "
            "(e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result",
        )
        return
    if stopped is not None:
        yield stopped
    article = [line for line in lines if line.page >= covers]
    printed = " ".join(texts[covers:])  # the article's own pages
    heads = [line for line in article if line.page < covers + HEAD_PAGES]
    yield from _paper(_without_running_heads(article), stamp, metadata, source, full_text,
                      printed, heads)  # fmt: skip


def _page_text(pdf: Any, index: int) -> str:
    """A page's whole text in PDFium's order, the margins' stamps included."""
    page = pdf[index]
    textpage = page.get_textpage()
    try:
        return fix_characters(textpage.get_text_range()).replace(HYPHEN_MARK, "-")
    finally:
        textpage.close()
        page.close()


def _open_error(message: str) -> str:
    found = re.search(r"PDFium: ([^)]+)", message)
    message = found.group(1).rstrip(".") if found else message
    low = message.lower()
    if "password" in low:
        return "PDF is encrypted (password protected): save an unprotected copy and ingest that"
    if "format" in low or "file" in low:
        return f"not a readable PDF ({message}): it is corrupt or cut short; re-download it"
    return f"PDF could not be opened ({message}): re-download or re-export it"


def _without_running_heads(lines: list[Line]) -> list[Line]:
    """Lines less page numbers, line numbers and running heads or footers (a margin line
    printed on two pages or more, its numbers aside). A number alone is a page or line
    number in a margin or beside the text block; inside it ("3.0" of a justified line set
    apart) it is text."""
    seen = Counter(re.sub(r"\d+", "#", line.text) for line in lines if line.margin)
    edges: dict[int, tuple[list[float], list[float]]] = {}
    for line in lines:
        if line.words >= 4 and not line.margin:
            lefts, rights = edges.setdefault(line.page, ([], []))
            lefts.append(line.x0)
            rights.append(line.x1)
    block = {  # where the text's columns start and end, margin notes aside
        page: (min(_common(lefts)), max(_common(rights))) for page, (lefts, rights) in edges.items()
    }

    def number(line: Line) -> bool:
        if not re.fullmatch(r"[\d\s.,:;–-]*|[ivxlc]{1,6}", line.text, re.I):
            return False
        x0, x1 = block.get(line.page, (line.x1, line.x0))
        return line.margin or line.x1 <= x0 + 1 or line.x0 >= x1 - 1

    return [
        line
        for line in lines
        if not number(line) and not (line.margin and seen[re.sub(r"\d+", "#", line.text)] > 1)
    ]


def _common(xs: list[float]) -> list[float]:
    """The edges (to 5 points) at least a fifth of the lines share: a column's margin."""
    counts = Counter(round(x / 5) for x in xs)
    return [k * 5.0 for k, n in counts.items() if n * 5 >= len(xs)] or [sorted(xs)[len(xs) // 2]]


def _paper(
    lines: list[Line],
    stamp: str,
    metadata: dict[str, str],
    source: str,
    full_text: bool,
    printed: str,
    heads: list[Line],
) -> Iterator[Draft | Notice]:
    body_size = _body_size(lines)
    words = vocabulary(line.text for line in lines)
    opening_page = min((line.page for line in lines), default=0)  # a blank cover aside
    first_page = [line for line in lines if line.page == opening_page]
    title, after = labelled_title(first_page, words)  # "Title- ..."
    title, after = (title, after) if title else find_title(first_page, body_size, metadata, words)
    title, after = (title, after) if title else repeated_title(first_page, lines)
    title, after = covered_title(title, after, first_page, stamp[: len(stamp) - len(printed)])
    title = _TITLE_LABEL.sub("", title)
    title = re.sub(r"(?<=[?!.])\s+[A-Z0-9]$", "", title)  # a mark read as a letter ("error? I")
    introduction = introduction_at(lines, after, len(lines))  # its heading's index, if any
    stop = introduction or len(lines)  # no abstract heading past it: a "Summary" is the body's
    start = next((i for i in range(after, stop) if heading_at(lines, i)), None)
    if start is not None and FOREIGN_ABSTRACT.match(lines[start].text):  # "Résumé", "Abstract"
        english = (i for i in range(start + 1, stop) if heading_at(lines, i))
        start = next((i for i in english if not FOREIGN_ABSTRACT.match(lines[i].text)), start)
    if start is None:  # a heading above the title (rare), or a page-2 abstract
        start = next((i for i in range(stop) if heading_at(lines, i)), None)
    notices: list[Notice] = []
    retitled = " ".join(title.casefold().split())  # the title set again (NBER's page 2)
    thesis = False  # the first page a thesis's title page (no abstract)
    if start is not None:
        first = ABSTRACT.sub("", lines[start].text, count=1)
        head = [_with_text(lines[start], first)] if first else []
        rest = head + lines[start + 1 :]
        rest = rest[after_title_again(rest, retitled) :]  # a thesis's: its title again first
        named = authors(off_title(between(lines, after, start), retitled), words)
        if thesis_title_page(first_page, body_size):  # its author after "by", not its jury
            named = thesis_author(lines[after:start], words) or named
        kept, end = abstract_end(rest, body_size, anchor=lines[start], names=frozenset(named))
        abstract = join_lines(with_heading_colons([line.text for line in kept]), words)
        if not named and retitled:  # a repository's page of the abstract, then the paper's
            named = authors(under_title_again(rest[end:], retitled), words)
        body_lines = rest[end:]
        first_read = start
    else:
        opening = first_prose(lines, after)
        # no abstract: an introduction opens the text, or a thesis's title page stands first
        before = introduction is not None and introduction < opening
        intro = introduction if full_text and before else None
        thesis = intro is None and full_text and thesis_cover(lines, first_page, body_size)
        if intro is None and (thesis or contents_entry(lines, opening)):
            intro = opening
        if thesis:
            title = title or thesis_title(first_page)  # (its lines then no author's)
            retitled = " ".join(title.casefold().split())
        if intro is None:
            kept, end = abstract_end(lines[opening:], body_size, heading=False)
            end += opening
            notices.append(Notice(source, 1, _UNLABELLED))
        else:
            kept, end = [], intro
        abstract = join_lines(with_heading_colons([line.text for line in kept]), words)
        parts = len(_PART_LABELS.findall(abstract)) >= 2
        keyed = end < len(lines) and bool(KEYWORDS_LINE.match(lines[end].text))  # its end found
        if not keyed:
            abstract = cut_words(abstract, _MAX_PARTS_WORDS if parts else _MAX_OPENING_WORDS)
        # (a table of contents' entries are no byline: "2 Particle Accelerators and Storage Rings")
        byline_end = next(
            (i for i in range(after, opening) if CONTENTS.match(lines[i].text)), opening
        )
        named = authors(off_title(lines[after:byline_end], retitled), words)
        body_lines = lines[end:]
        first_read = opening
        if thesis:  # its title page is front matter: its author, its date
            first_read = len(first_page) + lines.index(first_page[0])
            # its author named after "by": the names under its title may be its jury's
            named = thesis_author(lines[after:first_read], words) or named
    abstract = FRONT_MATTER_AFTER.sub("", abstract)  # "... larger. JEL Codes: E30, E44."
    abstract = _TRAILING_MARK.sub("", abstract)
    abstract = _OPENING_MARK.sub("", abstract)
    if not title and thesis_title_page(first_page, body_size):  # a title in the body's type
        title = thesis_title(first_page)
    found_arxiv = printed_arxiv(stamp)
    own_arxiv = printed_arxiv(printed)  # a margin stamp: in the page's text only
    if own_arxiv:
        year = find_year(printed, own_arxiv)
    else:  # the article's own print first: its front matter, heads, feet and notes
        read = {id(line) for line in lines[first_read:]}  # the abstract on
        year = find_year("\n".join(printed_apart(heads, read, body_size)), None)
        if thesis:
            year = latest_year([x.text for x in first_page]) or year
    if year is None and printed != stamp:  # then a cover's citation line or copyright
        year = find_year(stamp[: len(stamp) - len(printed)], found_arxiv)
    arxiv = arxiv_id(found_arxiv.group(1)) if found_arxiv else ""
    doi = printed_doi(stamp)
    extra: dict[str, Any] = {"entry_type": "article" if doi else "misc", "format": "pdf"}
    sections = body_sections(body_lines, body_size, words) if full_text else ()
    total = sum(len(s.text) for s in sections)
    if total > MAX_BODY_CHARS:
        sections = cap_sections(sections, MAX_BODY_CHARS)
        notices.append(
            Notice(source, 1, f"body cut at {MAX_BODY_CHARS:,} characters: split the PDF")
        )
    if sections:
        extra["full_text"] = True  # enrich leaves such papers alone: re-ingest the PDF instead
    yield from notices
    yield Draft(
        source,
        1,
        abstract,
        where=Path(source).name,
        title=title,
        authors=tuple(  # the title set again in a running head is no author's name
            name
            for name in named
            or not_the_venue(byline_above(lines, after, words), metadata, stamp)
            or labelled_authors(first_page)
            or metadata_authors(metadata)
            if name.casefold() != title.casefold()
        ),
        year=year,
        doi=doi,
        arxiv_id=arxiv,
        extra=extra,
        sections=sections,
        fallback_id=f"pdf:{_file_hash(Path(source))}",
        # With a body, a paper printing no abstract, or one too short to be one (a template's
        # "150-250 words" under its heading), is stored on its title and full text.
        abstract_optional=bool(sections),
    )


def _file_hash(path: Path) -> str:
    """The file's own id when it prints no DOI or arXiv id: its bytes', so the same PDF keeps
    its id when a later reader extracts its abstract differently."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _with_text(line: Line, text: str) -> Line:
    return replace(line, text=text, parts=())


def _body_size(lines: Sequence[Line]) -> float:
    """The font size most of the text is set in (weighted by characters)."""
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    return max(weight, key=lambda s: weight[s]) if weight else 10.0
