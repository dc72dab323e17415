"""JSON Lines (and JSON arrays) of BEIR, generic or arXiv-snapshot records.

The flavour is told per record: BEIR has ``_id`` and ``text``; the arXiv metadata snapshot
has ``authors_parsed``, ``versions`` or ``categories``; anything else is generic (``id``,
``title``, ``authors``, ``year``, ``abstract``/``text``/``summary``, ``url``, ``doi``).
``Paper.position`` is the line number (JSON Lines) or the element number (a JSON array).
A ``.json`` file that starts with ``[`` or with a line holding only ``{`` is one JSON document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from rag.errors import ParseError
from rag.records import Notice, Skipped, normalise_text

from .clean import (
    ABSTRACT_FIELDS,
    Draft,
    clean_doi,
    decode_latex_accents,
    parse_year,
    split_authors,
    text_field,
)
from .files import (
    BOM,
    MAX_RECORD_BYTES,
    decode_utf8,
    iter_raw_lines,
    too_large,
)
from .jsonarray import iter_json_values

__all__ = ["parse_jsonl", "record_to_draft"]

_GENERIC_EXTRA = ("venue", "journal", "keywords", "categories", "comment", "comments")


def parse_jsonl(path: Path) -> Iterator[Draft | Skipped | Notice]:
    source = str(path)
    with path.open("rb") as fh:
        head = fh.read(4096).removeprefix(BOM).lstrip()
    if head.startswith(b"[") or head.split(b"\n", 1)[0].strip() == b"{":
        yield from _parse_document(path, source)
        return
    with path.open("rb") as fh:
        for line in iter_raw_lines(fh):
            if line.oversized:
                yield Skipped(
                    source,
                    line.number,
                    f"line is {too_large(line.size, MAX_RECORD_BYTES)} for one record: "
                    "split or shorten it, or drop it",
                )
                continue
            if not line.data.strip():
                continue
            try:
                text = decode_utf8(line.data, offset=line.offset)
                record = _loads(text, last=not line.terminated)
                yield record_to_draft(record, source=source, position=line.number)
            except ParseError as exc:
                yield Skipped(source, line.number, exc.reason)


def _loads(text: str, *, last: bool) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if last and (exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()) - 1):
            raise ParseError(
                f"truncated JSON: the file ends in the middle of this record ({exc.msg}): "
                "re-export or re-download the file"
            ) from None
        raise ParseError(
            f"invalid JSON ({exc.msg} at column {exc.colno}): fix or remove this line"
        ) from None


def _parse_document(path: Path, source: str) -> Iterator[Draft | Skipped | Notice]:
    """A JSON array (or one object), element by element in bounded memory
    (:mod:`.jsonarray`): an element over the record limit is skipped with its size, a bad
    one with its error, and a file cut off keeps every element before the cut."""
    with path.open("rb") as fh:
        if fh.read(len(BOM)) != BOM:
            fh.seek(0)
        for value in iter_json_values(fh, limit=MAX_RECORD_BYTES):
            number = value.number
            if value.oversized:
                yield Skipped(
                    source,
                    number,
                    f"record {number} is {too_large(value.size, MAX_RECORD_BYTES)} for one "
                    "record: shorten or drop it",
                )
                continue
            try:
                record = _loads(decode_utf8(value.data, offset=0), last=value.truncated)
                yield record_to_draft(
                    record, source=source, position=number, where=f"record {number}"
                )
            except ParseError as exc:
                yield Skipped(source, number, f"record {number}: {exc.reason}")


def record_to_draft(record: object, *, source: str, position: int, where: str = "") -> Draft:
    """Map one decoded JSON object to a :class:`Draft`; :class:`ParseError` if unusable."""
    if not isinstance(record, dict):
        raise ParseError(f"expected a JSON object, got {type(record).__name__}: fix the record")
    if "_id" in record and "text" in record:
        draft = _beir(record, source, position)
    elif "authors_parsed" in record or "versions" in record or "update_date" in record:
        draft = _arxiv(record, source, position)
    else:
        draft = _generic(record, source, position)
    draft.where = where
    return draft


def _abstract(record: Mapping[str, Any], *fields: str) -> str:
    for name in fields:
        value = record.get(name)
        if isinstance(value, str):
            return value
        if value is not None:
            raise ParseError(
                f"field {name!r} should be text, not {type(value).__name__}: fix the record"
            )
    found = ", ".join(sorted(map(str, record))) or "none"
    raise ParseError(
        f"no abstract: expected one of the fields {', '.join(fields)}; found {found}: "
        "add the abstract or drop the record"
    )


def _beir(record: dict[str, Any], source: str, position: int) -> Draft:
    metadata = record.get("metadata")
    meta: Mapping[str, Any] = metadata if isinstance(metadata, dict) else {}
    extra = {"metadata": metadata} if meta else {}
    return Draft(
        source,
        position,
        _abstract(record, "text"),
        id=text_field(record, "_id"),
        title=text_field(record, "title"),
        authors=split_authors(meta.get("authors")),
        year=parse_year(meta.get("year")),
        url=text_field(meta, "url"),
        doi=clean_doi(meta.get("doi")),
        extra=extra,
    )


def _generic(record: dict[str, Any], source: str, position: int) -> Draft:
    extra = {k: record[k] for k in _GENERIC_EXTRA if record.get(k) not in (None, "", [])}
    return Draft(
        source,
        position,
        _abstract(record, *ABSTRACT_FIELDS),
        id=text_field(record, "id", "_id"),
        title=text_field(record, "title"),
        authors=split_authors(record.get("authors", record.get("author"))),
        year=parse_year(record.get("year", record.get("date"))),
        url=text_field(record, "url"),
        doi=clean_doi(record.get("doi")),
        extra=extra,
    )


def _arxiv(record: dict[str, Any], source: str, position: int) -> Draft:
    arxiv_id = text_field(record, "id").strip()
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = tuple(_parsed_name(entry) for entry in parsed if isinstance(entry, list))
    else:
        authors = split_authors(decode_latex_accents(text_field(record, "authors")))
    extra: dict[str, Any] = {}
    categories = text_field(record, "categories").split()
    if categories:
        extra["categories"] = categories
    for key, name in (("comments", "comment"), ("journal-ref", "journal_ref")):
        value = text_field(record, key)
        if value:
            extra[name] = normalise_text(value)
    return Draft(
        source,
        position,
        decode_latex_accents(_abstract(record, "abstract")),
        id=f"arxiv:{arxiv_id}" if arxiv_id else "",
        title=decode_latex_accents(text_field(record, "title")),
        authors=authors,
        year=_arxiv_year(record),
        url=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else "",
        doi=clean_doi(record.get("doi")),
        extra=extra,
    )


def _parsed_name(entry: list[Any]) -> str:
    last, first, suffix = ([str(part) for part in entry] + ["", "", ""])[:3]
    return decode_latex_accents(" ".join(p.strip() for p in (first, last, suffix) if p.strip()))


def _arxiv_year(record: Mapping[str, Any]) -> int | None:
    versions = record.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")
        if isinstance(created, str):
            try:
                return parsedate_to_datetime(created).year
            except (TypeError, ValueError):
                pass
    return parse_year(record.get("update_date"))
