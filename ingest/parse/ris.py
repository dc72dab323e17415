"""RIS, the export format of every reference manager (Zotero, EndNote, Mendeley, publishers).

Records run from ``TY  - <type>`` to ``ER  -``; each line is ``XX  - value``. Tags used:
``TI``/``T1`` title, ``AU``/``A1`` authors ("Last, First"), ``PY``/``Y1`` year
(``2024/06/01/``), ``AB``/``N2`` abstract, ``DO`` DOI, ``UR`` URL, ``KW`` keywords,
``T2``/``JO``/``JF``/``BT`` venue, ``ID`` the exporter's id. A line without a tag continues
the field before it (wrapped abstracts). Records without an abstract are stored on title and
keywords (``has_abstract`` false). The RIS type is kept and mapped to a BibTeX type
(``CONF`` -> ``inproceedings``) for exported references. ``Paper.position`` is the record's
ordinal in the file; reasons name its line. A record the file ends in before its ``ER`` is
still read, with a notice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.errors import ParseError
from rag.records import Notice, Skipped

from .clean import Draft, clean_doi, parse_year
from .files import MAX_RECORD_BYTES, decode_utf8, iter_raw_lines, too_large

__all__ = ["BIBTEX_TYPES", "looks_like_ris", "parse_ris"]

BIBTEX_TYPES = {
    "JOUR": "article",
    "JFULL": "article",
    "EJOUR": "article",
    "MGZN": "article",
    "NEWS": "article",
    "CONF": "inproceedings",
    "CPAPER": "inproceedings",
    "BOOK": "book",
    "EBOOK": "book",
    "CHAP": "incollection",
    "ECHAP": "incollection",
    "THES": "phdthesis",
    "RPRT": "techreport",
}
_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_ARXIV = re.compile(r"arxiv[:\s]*([\w./-]+)", re.IGNORECASE)


def looks_like_ris(text: str) -> bool:
    """True when the first non-blank line is a RIS ``TY  -`` line."""
    for line in text.splitlines():
        if line.strip():
            return bool(re.match(r"^\s*TY  - ", line.lstrip("\ufeff")))
    return False


@dataclass
class _Record:
    number: int
    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)
    problem: str = ""

    def add(self, tag: str, value: str) -> None:
        self.fields.setdefault(tag, []).append(value.strip())

    def first(self, *tags: str) -> str:
        for tag in tags:
            for value in self.fields.get(tag, []):
                if value:
                    return value
        return ""


def parse_ris(path: Path) -> Iterator[Draft | Skipped | Notice]:
    source = str(path)
    record: _Record | None = None
    last_tag = ""
    ordinal = 0
    with path.open("rb") as fh:
        for raw in iter_raw_lines(fh):
            if raw.oversized:
                problem = f"line {raw.number} is {too_large(raw.size, MAX_RECORD_BYTES)}"
                if record is not None:
                    record.problem = record.problem or problem
                else:
                    yield Skipped(source, None, f"{problem}: shorten it")
                continue
            try:
                text = decode_utf8(raw.data, offset=raw.offset)
            except ParseError as exc:
                if record is not None:
                    record.problem = record.problem or f"line {raw.number}: {exc.reason}"
                else:
                    yield Skipped(source, None, f"line {raw.number}: {exc.reason}")
                continue
            match = _TAG.match(text.rstrip())
            if match is None:
                if not text.strip():
                    continue
                if record is not None and last_tag:  # a wrapped value
                    values = record.fields[last_tag]
                    values[-1] = f"{values[-1]} {text.strip()}".strip()
                else:
                    yield Skipped(
                        source,
                        None,
                        f"line {raw.number} is outside any record (records start with "
                        "'TY  - '): fix or remove it",
                    )
                continue
            tag, value = match.group(1), match.group(2) or ""
            if tag == "TY":
                if record is not None:
                    yield _unclosed(record, source)
                    yield _draft(record, source)
                ordinal += 1
                record = _Record(ordinal, raw.number)
            elif record is None:
                yield Skipped(
                    source, None, f"line {raw.number}: {tag} before any 'TY  - ' line: fix it"
                )
                continue
            if tag == "ER":
                yield _draft(record, source)
                record, last_tag = None, ""
                continue
            record.add(tag, value)
            last_tag = tag
    if record is not None:
        yield _unclosed(record, source)
        yield _draft(record, source)


def _unclosed(record: _Record, source: str) -> Notice:
    return Notice(
        source,
        record.number,
        f"record at line {record.line} has no 'ER  -' line (the file may be cut short); "
        "read what it has",
    )


def _draft(record: _Record, source: str) -> Draft | Skipped:
    where = f"record {record.number} (line {record.line})"
    if record.problem:
        return Skipped(source, record.number, f"{where}: {record.problem}: fix the record")
    ris_type = record.first("TY").upper()
    extra: dict[str, Any] = {"ris_type": ris_type, "entry_type": BIBTEX_TYPES.get(ris_type, "misc")}
    venue = record.first("T2", "JO", "JF", "JA", "BT")
    if venue:
        extra["venue"] = venue
    own_id = record.first("ID")
    if own_id:
        extra["ris_id"] = own_id
    arxiv = ""
    for value in (*record.fields.get("UR", []), *record.fields.get("N1", []), record.first("M1")):
        found = (
            _ARXIV.search(value.replace("arxiv.org/abs/", "arXiv:"))
            if "arxiv" in value.lower()
            else None
        )
        if found:
            arxiv = found.group(1)
            break
    keywords = [k for value in record.fields.get("KW", []) for k in re.split(r"[;,]", value)]
    return Draft(
        source,
        record.number,
        record.first("AB", "N2"),
        where=where,
        title=record.first("TI", "T1", "CT"),
        authors=tuple(
            _name(a) for a in (*record.fields.get("AU", []), *record.fields.get("A1", [])) if a
        ),
        year=parse_year(record.first("PY", "Y1", "DA")),
        url=record.first("UR"),
        doi=clean_doi(record.first("DO")),
        extra=extra,
        arxiv_id=arxiv,
        keywords=tuple(k for k in keywords if k.strip()),
        abstract_optional=True,
    )


def _name(name: str) -> str:
    """``"Last, First"`` -> ``"First Last"``."""
    if "," in name:
        last, _, first = name.partition(",")
        return f"{first.strip()} {last.strip()}".strip()
    return name.strip()
