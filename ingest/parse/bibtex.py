"""BibTeX files, read with bibtexparser v2.

Fields used: ``title``, ``author`` ("A and B", "Last, First" allowed), ``year`` (or biblatex
``date``), ``abstract``, ``doi``, ``url``, ``keywords``, ``eprint`` (with ``archivePrefix =
arXiv``) or ``arxiv``. The id is ``doi:<doi>`` when there is a DOI, else ``arxiv:<id>``, else
``bib:<key>``. Every entry type is kept (``extra["entry_type"]``, with the key as
``extra["bibtex_key"]``), so exported references keep ``@inproceedings``. An entry without
an abstract is stored on its title and keywords (``has_abstract`` false), with a notice.
``Paper.position`` is the entry's ordinal in the file; reasons name its line.
Entries are decoded one by one, so one entry with bad UTF-8 does not lose the others.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from rag.errors import ParseError
from rag.records import Notice, Skipped

from .clean import Draft, clean_doi, decode_latex_accents, latex_to_text, parse_year
from .files import BOM, MAX_DOCUMENT_BYTES, MAX_RECORD_BYTES, decode_utf8, too_large

__all__ = ["parse_bibtex"]

_ENTRY_START = re.compile(rb"^[ \t]*@", re.MULTILINE)
_NON_ENTRY = re.compile(rb"^[ \t]*@\s*(?:string|comment|preamble)\b", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_BRACES = re.compile(r"(?<!\\)[{}]")


def parse_bibtex(path: Path) -> Iterator[Draft | Skipped | Notice]:
    import bibtexparser  # lazy: only BibTeX input needs it
    from bibtexparser import model

    source = str(path)
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        reason = (
            f"BibTeX file is {too_large(size, MAX_DOCUMENT_BYTES)}: split it into smaller files"
        )
        yield Skipped(source, None, reason)
        return
    data = path.read_bytes()
    bom = len(BOM) if data.startswith(BOM) else 0
    text_parts: list[str] = []
    ordinals: dict[int, int] = {}  # 1-based line of an entry's "@" -> ordinal
    line = 1
    ordinal = 0
    for start, chunk in _chunks(data, bom):
        is_entry = _ENTRY_START.match(chunk) is not None and not _NON_ENTRY.match(chunk)
        if is_entry:
            ordinal += 1
            ordinals[line] = ordinal
        newlines = chunk.count(b"\n")
        problem = ""
        if len(chunk) > MAX_RECORD_BYTES:
            problem = f"entry is {too_large(len(chunk), MAX_RECORD_BYTES)}: shorten or drop it"
        else:
            try:
                text_parts.append(decode_utf8(chunk, offset=start))
            except ParseError as exc:
                problem = exc.reason
        if problem:
            # keep line numbers of later entries right
            text_parts.append("\n" * newlines)
            number = ordinal if is_entry else None
            yield Skipped(source, number, f"entry at line {line}: {problem}")
        line += newlines

    library = bibtexparser.parse_string("".join(text_parts))  # type: ignore[attr-defined]
    seen = len(ordinals)
    for block in library.blocks:
        if not isinstance(block, model.Entry | model.ParsingFailedBlock):
            continue
        at_line = (block.start_line or 0) + 1
        number = ordinals.get(at_line)
        if number is None:
            seen += 1
            number = seen
        if isinstance(block, model.DuplicateBlockKeyBlock):
            yield Skipped(
                source,
                number,
                f"entry {block.key!r} (line {at_line}) repeats a key used earlier in the file: "
                "rename or remove one of them",
            )
        elif isinstance(block, model.ParsingFailedBlock):
            error = _first_line(getattr(block.error, "abort_reason", "") or str(block.error))
            yield Skipped(
                source,
                number,
                f"entry at line {at_line} could not be parsed ({error}): fix its BibTeX syntax",
            )
        else:
            yield _entry(block, source, number, at_line)


def _chunks(data: bytes, bom: int) -> Iterator[tuple[int, bytes]]:
    """``(file offset, bytes)`` pieces, each starting at a line that begins with ``@``."""
    starts = [m.start() for m in _ENTRY_START.finditer(data, bom)]
    bounds = [bom, *[s for s in starts if s > bom], len(data)]
    for begin, end in itertools.pairwise(bounds):
        if end > begin:
            yield begin, data[begin:end]


def _entry(entry: object, source: str, number: int, at_line: int) -> Draft | Skipped:
    key: str = getattr(entry, "key", "")
    fields = {
        name.lower(): str(field.value) for name, field in getattr(entry, "fields_dict", {}).items()
    }
    where = f"entry {key!r} (line {at_line})"
    abstract = fields.get("abstract", "")
    doi = clean_doi(fields.get("doi", ""))
    eprint = (
        fields.get("eprint", "") if "arxiv" in fields.get("archiveprefix", "arXiv").lower() else ""
    )
    keywords = tuple(
        k for k in re.split(r"[;,]", latex_to_text(fields.get("keywords", ""))) if k.strip()
    )
    authors = tuple(
        _name(latex_to_text(name)) for name in _AND.split(fields.get("author", "")) if name.strip()
    )
    return Draft(
        source,
        number,
        _BRACES.sub("", decode_latex_accents(abstract)),
        where=where,
        fallback_id=f"bib:{key}",
        arxiv_id=fields.get("arxiv", "") or eprint,
        keywords=keywords,
        abstract_optional=True,
        title=latex_to_text(fields.get("title", "")),
        authors=authors,
        year=parse_year(fields.get("year") or fields.get("date")),
        url=fields.get("url", "").strip(),
        doi=doi,
        extra={"bibtex_key": key, "entry_type": getattr(entry, "entry_type", "")},
    )


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[0].rstrip(".") if lines else "syntax error"


def _name(name: str) -> str:
    """``"Last, First"`` -> ``"First Last"``."""
    if "," in name:
        last, _, first = name.partition(",")
        return f"{first.strip()} {last.strip()}".strip()
    return name.strip()
