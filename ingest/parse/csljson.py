"""CSL-JSON, as Zotero ("CSL JSON"), Mendeley and citeproc tools export it.

A JSON array of items: ``id``, ``type``, ``title``, ``author`` (``[{family, given}]`` or
``[{literal}]``), ``issued`` (``{"date-parts": [[2024, 6]]}``, or ``raw``/``literal``),
``abstract``, ``DOI``, ``URL``, ``container-title``, ``keyword`` (one string, commas or
semicolons between), and for preprints the arXiv id in ``number``, ``URL`` or ``note``.
Items without an abstract are stored on title and keywords (``has_abstract`` false). The
CSL ``type`` is kept, and the BibTeX type it maps to (``paper-conference`` ->
``inproceedings``) is used when references are exported. ``Paper.position`` is the item's
number in the array.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.errors import ParseError
from rag.records import Notice, Skipped

from .clean import Draft, clean_doi, parse_year, text_field
from .files import BOM, MAX_DOCUMENT_BYTES, decode_utf8, too_large

__all__ = ["BIBTEX_TYPES", "looks_like_csljson", "parse_csljson"]

BIBTEX_TYPES = {
    "article": "article",
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "paper-conference": "inproceedings",
    "book": "book",
    "chapter": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
}
_CSL_TYPE = re.compile(
    r'"type"\s*:\s*"(?:article(?:-journal|-magazine|-newspaper)?|paper-conference|book|'
    r"chapter|thesis|report|manuscript|webpage|post-weblog|dataset|preprint|speech|"
    r'entry-encyclopedia|entry-dictionary|patent|software|standard|document)"'
)
_CSL_KEY = re.compile(r'"(?:issued|container-title|DOI|URL|family|date-parts)"\s*:')
_ARXIV_IN_TEXT = re.compile(r"arxiv[:\s]*([\w./-]+)", re.IGNORECASE)


def looks_like_csljson(text: str) -> bool:
    """True for the head of a CSL-JSON array (a CSL ``type`` and a CSL-only field)."""
    return text.lstrip().startswith("[") and bool(_CSL_TYPE.search(text) and _CSL_KEY.search(text))


def parse_csljson(path: Path) -> Iterator[Draft | Skipped | Notice]:
    source = str(path)
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        reason = f"CSL-JSON file is {too_large(size, MAX_DOCUMENT_BYTES)}: split it"
        yield Skipped(source, None, reason)
        return
    data = path.read_bytes()
    bom = len(BOM) if data.startswith(BOM) else 0
    try:
        document = json.loads(decode_utf8(data[bom:], offset=bom))
    except ParseError as exc:
        yield Skipped(source, None, exc.reason)
        return
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(data[bom:].rstrip()) - 1
        what = "truncated JSON (the file ends early)" if truncated else "invalid JSON"
        yield Skipped(
            source,
            exc.lineno,
            f"{what}: {exc.msg} at line {exc.lineno}, column {exc.colno}: re-export the file "
            "from your reference manager (CSL JSON)",
        )
        return
    if isinstance(document, dict):
        document = document.get("items", [document])
    if not isinstance(document, list):
        yield Skipped(source, None, "not CSL-JSON: expected an array of items")
        return
    for number, item in enumerate(document, start=1):
        if not isinstance(item, dict):
            yield Skipped(source, number, f"item {number} is not a JSON object: fix or remove it")
            continue
        yield _item(item, source, number)


def _item(item: dict[str, Any], source: str, number: int) -> Draft:
    own_id = text_field(item, "id")
    where = f"item {number}" + (f" (id {own_id!r})" if own_id else "")
    csl_type = text_field(item, "type")
    url = text_field(item, "URL", "url").strip()
    extra: dict[str, Any] = {"csl_type": csl_type, "entry_type": BIBTEX_TYPES.get(csl_type, "misc")}
    container = text_field(item, "container-title")
    if container:
        extra["venue"] = container
    if own_id:
        extra["csl_id"] = own_id
    arxiv = ""
    for field in ("number", "URL", "note", "archive_location"):
        value = text_field(item, field)
        if "arxiv" in value.lower():
            found = _ARXIV_IN_TEXT.search(value.replace("arxiv.org/abs/", "arXiv:"))
            arxiv = found.group(1) if found else ""
            if arxiv:
                break
    keyword = text_field(item, "keyword")
    return Draft(
        source,
        number,
        text_field(item, "abstract"),
        where=where,
        title=text_field(item, "title"),
        authors=_authors(item.get("author")),
        year=_year(item.get("issued")),
        url=url,
        doi=clean_doi(text_field(item, "DOI", "doi")),
        extra=extra,
        arxiv_id=arxiv,
        keywords=tuple(k for k in re.split(r"[;,]", keyword) if k.strip()),
        abstract_optional=True,
    )


def _authors(value: object) -> tuple[str, ...]:
    """CSL names: ``{given, non-dropping-particle, family, suffix}`` or ``{literal}``."""
    if not isinstance(value, list):
        return ()
    names = []
    for person in value:
        if isinstance(person, dict):
            keys = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")
            parts = [person.get(k) for k in keys]
            name = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
            names.append(name or str(person.get("literal") or "").strip())
        elif isinstance(person, str):
            names.append(person.strip())
    return tuple(n for n in names if n)


def _year(issued: object) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return parse_year(parts[0][0])
        return parse_year(issued.get("raw") or issued.get("literal") or issued.get("season"))
    return parse_year(issued)
