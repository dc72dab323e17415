"""Filling in what stored papers lack (abstract, title, year, DOI, authors) from the
sources, by the DOI or arXiv id they already carry. A paper keeps its id, its source and
everything it had; only empty fields are filled."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ingest.parse.clean import Draft, build_paper
from rag.records import Paper, PaperRow

__all__ = ["identifier_of", "lacking", "merge", "paper_from_metadata"]


def lacking(row: PaperRow) -> bool:
    """True if the paper misses something the sources could give."""
    return not row.has_abstract or not row.title or row.year is None or not row.doi


def identifier_of(row: PaperRow) -> str:
    """The DOI or arXiv id to look the paper up by; ``""`` if it has neither."""
    if row.doi:
        return row.doi
    for prefix in ("doi:", "arxiv:"):
        if row.id.startswith(prefix):
            return row.id.removeprefix(prefix)
    return ""


def paper_from_metadata(meta: Mapping[str, Any]) -> Paper:
    """A stored paper back from its first chunk's metadata."""
    try:
        extra = json.loads(str(meta.get("extra") or "{}"))
    except json.JSONDecodeError:
        extra = {}
    year = meta.get("year")
    return Paper(
        id=str(meta["paper_id"]),
        abstract=str(meta.get("abstract") or ""),
        source=str(meta.get("source") or ""),
        position=int(meta.get("position") or 0),
        title=str(meta.get("title") or ""),
        label=str(meta.get("label") or ""),
        authors=tuple(str(a) for a in meta.get("authors") or ()),
        year=int(year) if year is not None else None,
        url=str(meta.get("url") or ""),
        doi=str(meta.get("doi") or ""),
        extra=extra if isinstance(extra, dict) else {},
    )


def merge(stored: Paper, draft: Draft) -> Paper:
    """``stored`` with its empty fields filled from ``draft`` (cleaned as any record is)."""
    found, _ = build_paper(draft)
    if not isinstance(found, Paper):
        return stored
    extra = dict(stored.extra)
    for key, value in found.extra.items():
        extra.setdefault(key, value)
    if found.abstract and not stored.abstract:
        extra.pop("has_abstract", None)
    return replace(
        stored,
        abstract=stored.abstract or found.abstract,
        title=stored.title or found.title,
        label=stored.label if stored.title else found.label or stored.label,
        authors=stored.authors or found.authors,
        year=stored.year if stored.year is not None else found.year,
        url=stored.url or found.url,
        doi=stored.doi or found.doi,
        extra=extra,
    )
