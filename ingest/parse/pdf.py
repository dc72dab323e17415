"""PDF papers, read with pypdfium2 (PDFium; Apache-2.0/BSD): one Paper per file.

Only the first pages are read (:data:`HEAD_PAGES`): what a paper says about itself is there.
With ``full_text``, every page is read and the body (after the abstract, up to the
references) becomes ``Paper.body``: further chunks of the same paper (see
:mod:`ingest.chunk`); the abstract stays what answers quote.

- **title**: the PDF's metadata title when it looks like one (not "Untitled", not a file
  name such as "Microsoft Word - draft.docx"), else the largest text near the top of page 1;
- **authors**: the lines between the title and the abstract, without affiliations, e-mail
  addresses and footnote marks;
- **abstract**: from an "Abstract" heading (a line of its own, or "Abstract—", "Abstract:"
  and "Abstract." in front of the text) up to the first heading ("1 Introduction",
  "I. INTRODUCTION", "Keywords", "Index Terms", ...); without one, the opening text up to
  :data:`OPENING_TOKENS` tokens, with a notice saying so;
- **DOI** and **arXiv id** when printed on the first pages; **year** from the arXiv stamp
  (``arXiv:2406.03243v2 [cs.CL] 5 Jun 2024``), a copyright line or a venue line
  ("Proceedings of ... 2023"); none when nothing is printed (a file's creation date is not
  the paper's year).

A PDF that is encrypted, corrupt, cut short past repair, over :data:`MAX_PDF_BYTES` or
:data:`MAX_PDF_PAGES`, or without a text layer (a scan) is one Skipped naming the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.records import Notice, Skipped, normalise_text
from rag.tokens import truncate_tokens

from .clean import Draft
from .files import too_large
from .ids import arxiv_id

__all__ = [
    "HEAD_PAGES",
    "MAX_BODY_CHARS",
    "MAX_PDF_BYTES",
    "MAX_PDF_PAGES",
    "OPENING_TOKENS",
    "parse_pdf",
]

HEAD_PAGES = 2
MAX_PDF_BYTES = 100 << 20
MAX_PDF_PAGES = 2000
MAX_BODY_CHARS = 1_000_000  # about 250k tokens: a long thesis; beyond it the body is cut
OPENING_TOKENS = 224  # the default chunk budget (PAPERCHAT_CHUNK_TOKENS): one chunk's worth
_MIN_TEXT_CHARS = 40

_ABSTRACT = re.compile(r"^\s*(?:a\s*b\s*s\s*t\s*r\s*a\s*c\s*t|summary)\b\s*[-—–:.]?\s*", re.I)
_NAMED_HEADING = re.compile(
    r"^\s*(?:(?:\d{1,2}|[IVX]{1,5})\.?\s*)?(?:introduction|background|related work|references"
    r"|acknowledge?ments?|motivation|overview|preliminaries)\s*$"
    r"|^\s*(?:keywords?|index terms|ccs concepts|acm reference format|general terms)\s*[:—–.-]",
    re.I,
)
_NUMBERED_HEADING = re.compile(
    r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+[A-Z][\w ,:&/-]{0,50}$"
)
_REFERENCES = re.compile(r"^\s*(?:\d{1,2}\.?\s*)?(?:references|bibliography)\s*$", re.I)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
_ARXIV_STAMP = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?", re.I)
_STAMP_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_COPYRIGHT = re.compile(r"(?:©|\(c\)|copyright)\s*(?:\D{0,20})?((?:19|20)\d{2})", re.I)
_AFFILIATION = re.compile(
    r"@|universit|institut|department|dept\.|laborator|school|college|academy|inc\.|"
    r"corporation|research|google|microsoft|meta|\bemail\b|https?://|\d{5}",
    re.I,
)
_MARKS = re.compile(r"[*†‡§¶∗⋆]|\d+(?=\s*(?:,|$))|(?<=[a-z])\d+")
_JUNK_TITLE = re.compile(
    r"^(?:untitled|microsoft word|title|document\d*)\b|\.(?:docx?|pdf|tex|dvi)$", re.I
)
_VENUE_YEAR = re.compile(
    r"(?:conference|proceedings|workshop|symposium|journal|transactions)[^\n]{0,80}?"
    r"\b((?:19|20)\d{2})\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class _Line:
    text: str
    size: float
    page: int


def parse_pdf(path: Path, *, full_text: bool = False) -> Iterator[Draft | Skipped | Notice]:
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
        metadata = pdf.get_metadata_dict(skip_empty=True)
        read = pages if full_text else min(pages, HEAD_PAGES)
        lines = [line for i in range(read) for line in _lines(pdf, i)]
    except pdfium.PdfiumError as exc:
        yield Skipped(source, None, f"PDF could not be read ({exc}): it may be corrupt")
        return
    finally:
        pdf.close()
    # What the paper says about itself (DOI, year) is on its first pages; a reference's DOI
    # further on is not its own.
    text = " ".join(line.text for line in lines if line.page < HEAD_PAGES)
    if len(text.strip()) < _MIN_TEXT_CHARS:
        yield Skipped(
            source,
            None,
            "PDF has no text layer (a scan or images only): run OCR on it first "
            "(e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result",
        )
        return
    yield from _paper(lines, text, metadata, source, full_text=full_text)


def _open_error(message: str) -> str:
    found = re.search(r"PDFium: ([^)]+)", message)
    message = found.group(1).rstrip(".") if found else message
    low = message.lower()
    if "password" in low:
        return "PDF is encrypted (password protected): save an unprotected copy and ingest that"
    if "format" in low or "file" in low:
        return f"not a readable PDF ({message}): it is corrupt or cut short; re-download it"
    return f"PDF could not be opened ({message}): re-download or re-export it"


def _lines(pdf: Any, index: int) -> list[_Line]:
    """The page's text lines, each with its median font size."""
    import pypdfium2.raw as raw

    page = pdf[index]
    textpage = page.get_textpage()
    try:
        handle = textpage.raw
        lines: list[_Line] = []
        chars: list[str] = []
        sizes: list[float] = []
        for i in range(textpage.count_chars()):
            code = raw.FPDFText_GetUnicode(handle, i)
            char = chr(code) if code else ""
            if char in ("\n", "\r"):
                if char == "\n":
                    _flush(lines, chars, sizes, index)
                continue
            if raw.FPDFText_IsHyphen(handle, i) or char in ("\x02", "\xad"):
                char = "\x02"  # a hyphen at a line end: joined or kept when lines meet
            chars.append(char)
            if char.strip():
                sizes.append(float(raw.FPDFText_GetFontSize(handle, i)))
        _flush(lines, chars, sizes, index)
        return lines
    finally:
        textpage.close()
        page.close()


def _flush(lines: list[_Line], chars: list[str], sizes: list[float], page: int) -> None:
    text = "".join(chars).strip()
    if text and sizes:
        lines.append(_Line(text, round(sorted(sizes)[len(sizes) // 2], 1), page))
    chars.clear()
    sizes.clear()


def _join(lines: list[_Line]) -> str:
    """Lines into running text: a word hyphenated across a line end is joined."""
    out = ""
    for line in lines:
        text = line.text
        if out.endswith(("\x02", "-")) and text[:1].islower():
            out = out[:-1] + text
        else:
            out = f"{out.rstrip(chr(2))} {text}" if out else text
    return normalise_text(out.replace("\x02", "-"))


def _paper(
    lines: list[_Line], text: str, metadata: dict[str, str], source: str, *, full_text: bool
) -> Iterator[Draft | Notice]:
    body = _body_size(lines)
    title, after = _title(lines, body, metadata)
    start = next((i for i, line in enumerate(lines) if _ABSTRACT.match(line.text)), None)
    notices: list[Notice] = []
    if start is not None:
        first = _ABSTRACT.sub("", lines[start].text, count=1)
        rest = lines[start + 1 :]
        end = next(
            (
                i
                for i, line in enumerate(rest)
                if _is_heading(line, rest[i - 1] if i else None, body)
            ),
            len(rest),
        )
        head = [_Line(first, lines[start].size, lines[start].page)] if first else []
        abstract = _join(head + rest[:end])
        author_lines = lines[after:start]
        body_lines = rest[end:]
    else:
        header = after
        while header < len(lines) and lines[header].size != body and lines[header].page == 0:
            header += 1  # authors, affiliations, venue: set apart from the body by size
        author_lines = lines[after:header]
        body_lines = lines[header:]
        opening = [
            line
            for i, line in enumerate(lines[header:], header)
            if not _is_heading(line, lines[i - 1], body)
        ]
        abstract = truncate_tokens(_join(opening), OPENING_TOKENS)
        cut = abstract.rfind(". ")
        abstract = abstract[: cut + 1] if cut > len(abstract) // 2 else abstract
        notices.append(
            Notice(
                source,
                1,
                "no 'Abstract' heading found: the opening text (up to "
                f"{OPENING_TOKENS} tokens) is stored as the abstract; check it",
            )
        )
    found_arxiv = _ARXIV_STAMP.search(text)
    arxiv = arxiv_id(found_arxiv.group(1)) if found_arxiv else ""
    doi = next((d.rstrip(".,;)]") for d in _DOI.findall(text) if "arxiv" not in d.lower()), "")
    extra: dict[str, Any] = {"entry_type": "article" if doi else "misc", "format": "pdf"}
    full = _body(body_lines) if full_text else ""
    if full:
        extra["full_text"] = True  # enrich leaves such papers alone: re-ingest the PDF instead
    if len(full) > MAX_BODY_CHARS:
        full = full[:MAX_BODY_CHARS].rsplit(" ", 1)[0]
        notices.append(
            Notice(source, 1, f"body cut at {MAX_BODY_CHARS:,} characters: split the PDF")
        )
    yield from notices
    yield Draft(
        source,
        1,
        abstract,
        where=Path(source).name,
        title=title,
        authors=_authors(author_lines),
        year=_year(text, found_arxiv),
        doi=doi,
        arxiv_id=arxiv,
        extra=extra,
        body=full,
    )


def _body(lines: list[_Line]) -> str:
    """The running text up to the (last) "References" heading."""
    end = len(lines)
    for i, line in enumerate(lines):
        if _REFERENCES.match(line.text):
            end = i
    return _join(lines[:end])


def _body_size(lines: list[_Line]) -> float:
    """The font size most of the text is set in (weighted by characters)."""
    weight: dict[float, int] = {}
    for line in lines:
        weight[line.size] = weight.get(line.size, 0) + len(line.text)
    return max(weight, key=lambda s: weight[s])


def _title(lines: list[_Line], body: float, metadata: dict[str, str]) -> tuple[str, int]:
    """(title, index of the first line after it on page 1)."""
    top = [line for line in lines[:30] if line.page == 0]
    biggest = max((line.size for line in top), default=body)
    after = 0
    found = ""
    if biggest >= body * 1.15:
        first = next(i for i, line in enumerate(top) if line.size == biggest)
        end = first
        while end < len(top) and top[end].size == biggest:
            end += 1
        found, after = _join(top[first:end]), end
    meta = normalise_text(metadata.get("Title", ""))
    if meta and len(meta.split()) >= 2 and not _JUNK_TITLE.search(meta):
        if not found:
            for i, line in enumerate(top):  # skip the title lines the metadata repeats
                if normalise_text(line.text).casefold() in meta.casefold():
                    after = i + 1
        return meta, after
    return found, after


def _is_heading(line: _Line, previous: _Line | None, body: float) -> bool:
    """A section heading: a known name ("Introduction", "Keywords:"), or a short numbered
    line ("2.1 Method") set larger than the body or after a finished sentence (so a wrapped
    line starting "3.0 Titan ..." in an abstract is not one)."""
    text = line.text.replace("\x02", "-")
    if len(text) > 70:
        return False
    if _NAMED_HEADING.match(text):
        return True
    if not _NUMBERED_HEADING.match(text):
        return False
    ended = previous is None or previous.text.rstrip().endswith((".", ":", "?", "!"))
    return line.size >= body * 1.05 or ended


def _authors(lines: list[_Line]) -> tuple[str, ...]:
    """Names from the lines under the title: affiliations, addresses and marks left out."""
    names: list[str] = []
    for line in lines:
        text = line.text.replace("\x02", "-")
        if _AFFILIATION.search(text) or len(text) > 200:
            continue
        text = _MARKS.sub("", text)
        for part in re.split(r",|\band\b|;|·|\s{3,}", text):
            name = normalise_text(part)
            words = name.split()
            if 2 <= len(words) <= 4 and all(w[:1].isupper() for w in words):
                names.append(name)
    return tuple(dict.fromkeys(names))


def _year(text: str, arxiv: re.Match[str] | None) -> int | None:
    if arxiv:
        stamp = _STAMP_YEAR.findall(text[arxiv.end() : arxiv.end() + 40])
        if stamp:
            return int(stamp[0])
        new = re.match(r"(\d{2})\d{2}\.", arxiv.group(1))
        if new:
            return 2000 + int(new.group(1))
    found = _COPYRIGHT.search(text) or _VENUE_YEAR.search(text)
    return int(found.group(1)) if found else None
