"""Identifiers -> Drafts: arXiv ids from the arXiv API, DOIs from OpenAlex with Crossref as
the fallback (for DOIs OpenAlex does not know, or knows without an abstract).

Everything is fetched before anything is stored: a source that cannot be reached raises
:class:`rag.errors.SourceError` and the library is left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ingest.parse.ids import arxiv_id, doi
from ingest.sources import arxiv, crossref, openalex
from rag.errors import SourceError
from rag.records import Skipped

if TYPE_CHECKING:
    from ingest.parse.clean import Draft
    from ingest.sources.http import Fetcher
    from rag.settings import Settings

__all__ = ["Resolved", "resolve", "search_arxiv"]

BAD_ID = (
    "not an arXiv id or a DOI: give e.g. 2406.03243, arXiv:2406.03243v2, "
    "https://arxiv.org/abs/2406.03243, 10.1145/3600006.3613165 or https://doi.org/10.1145/..."
)


@dataclass
class Resolved:
    """What the sources gave: drafts in the order asked, and identifiers that failed."""

    drafts: list[Draft] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    found: dict[str, Draft] = field(default_factory=dict)  # identifier as given -> its draft


def resolve(identifiers: Sequence[str], *, settings: Settings, fetcher: Fetcher) -> Resolved:
    """Look up each identifier (arXiv id or DOI, any spelling); one request per batch."""
    wanted: list[tuple[str, str, str]] = []  # (as given, "arxiv" | "doi", normalised)
    out = Resolved()
    seen: set[tuple[str, str]] = set()
    for given in identifiers:
        found_doi = doi(given)
        found_arxiv = arxiv_id(given)
        key = ("arxiv", found_arxiv) if found_arxiv else ("doi", found_doi.lower())
        if not key[1]:
            out.skipped.append(Skipped(given, None, BAD_ID))
        elif key not in seen:
            seen.add(key)
            wanted.append((given, key[0], found_arxiv or found_doi))
        else:  # the same paper asked for twice: one lookup, found under both spellings
            wanted.append((given, key[0], found_arxiv or found_doi))
    ids = [value for _, kind, value in wanted if kind == "arxiv"]
    dois = [value for _, kind, value in wanted if kind == "doi"]
    from_arxiv = (
        arxiv.by_ids(fetcher, settings.arxiv_api_url, ids, spacing=settings.arxiv_delay_seconds)
        if ids
        else {}
    )
    from_dois = _by_dois(fetcher, settings, dois) if dois else {}
    for given, kind, value in wanted:
        draft = from_arxiv.get(value) if kind == "arxiv" else from_dois.get(value.lower())
        if draft is not None:
            out.drafts.append(draft)
            out.found[given] = draft
        elif kind == "arxiv":
            out.skipped.append(Skipped(given, None, "not found on arXiv: check the id"))
        else:
            out.skipped.append(
                Skipped(given, None, "not found on OpenAlex or Crossref: check the DOI")
            )
    return out


def search_arxiv(query: str, limit: int, *, settings: Settings, fetcher: Fetcher) -> Resolved:
    """The first ``limit`` results of an arXiv search."""
    drafts = arxiv.search(
        fetcher,
        settings.arxiv_api_url,
        query,
        limit=limit,
        spacing=settings.arxiv_delay_seconds,
    )
    return Resolved(drafts=drafts)


def _by_dois(fetcher: Fetcher, settings: Settings, dois: list[str]) -> dict[str, Draft]:
    """OpenAlex for all, then Crossref one by one for what OpenAlex lacks (the paper, or its
    abstract). When OpenAlex cannot be reached, Crossref stands in for all of them."""
    try:
        found = openalex.by_dois(fetcher, settings.openalex_api_url, dois)
    except SourceError as exc:
        failed: SourceError | None = exc
        found = {}
    else:
        failed = None
    for value in dois:
        draft = found.get(value.lower())
        if draft is not None and draft.abstract:
            continue
        try:
            fallback = crossref.by_doi(fetcher, settings.crossref_api_url, value)
        except SourceError as exc:
            if failed is not None:
                raise SourceError(f"{failed}; and {exc}") from None
            raise
        if fallback is None:
            continue
        if draft is None:
            found[value.lower()] = fallback
        elif fallback.abstract:
            draft.abstract = fallback.abstract
    return found
