"""Crossref: one DOI at a time, the fallback when OpenAlex does not know a DOI (or has no
abstract for it). Abstracts come as JATS XML and are reduced to text.

https://api.crossref.org/swagger-ui/index.html: ``/works/{doi}``; ``mailto=`` is polite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ingest.parse.clean import Draft, parse_year, strip_html
from ingest.parse.ids import doi as bare_doi
from rag.errors import SourceError

if TYPE_CHECKING:
    from ingest.sources.http import Fetcher

__all__ = ["SERVICE", "by_doi"]

SERVICE = "Crossref"
TYPES = {
    "journal-article": "article",
    "proceedings-article": "inproceedings",
    "book-chapter": "incollection",
    "book": "book",
    "monograph": "book",
    "dissertation": "phdthesis",
    "report": "techreport",
}


def by_doi(fetcher: Fetcher, base_url: str, doi: str) -> Draft | None:
    """The paper with this DOI, or None if Crossref does not know it."""
    params = {"mailto": fetcher.contact} if fetcher.contact else None
    url = f"{base_url.rstrip('/')}/works/{quote(doi, safe='/')}"
    response = fetcher.get(SERVICE, url, params)
    if response is None:
        return None
    try:
        message = response.json()["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(
            f"{SERVICE} sent a malformed response ({type(exc).__name__}: {exc}); try again later"
        ) from None
    try:
        return _work(message, doi)
    except (AttributeError, TypeError, IndexError, ValueError) as exc:
        raise SourceError(f"{SERVICE} sent a malformed record for {doi} ({exc})") from None


def _first(value: object) -> str:
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value or "")


def _work(work: dict[str, Any], asked: str) -> Draft:
    doi = bare_doi(str(work.get("DOI") or "")) or asked
    kind = str(work.get("type") or "")
    extra: dict[str, Any] = {"entry_type": TYPES.get(kind, "misc")}
    venue = _first(work.get("container-title"))
    if venue:
        extra["venue"] = venue
    authors = []
    for person in work.get("author") or []:
        if isinstance(person, dict):
            parts = (person.get("given"), person.get("family"))
            name = " ".join(str(p) for p in parts if p) or str(person.get("name") or "")
            authors.append(name)
    issued = (work.get("issued") or work.get("published") or {}).get("date-parts") or [[None]]
    return Draft(
        SERVICE,
        1,
        strip_html(str(work.get("abstract") or "")).removeprefix("Abstract").strip(),
        where=f"doi:{doi}",
        title=_first(work.get("title")),
        authors=tuple(a for a in authors if a),
        year=parse_year(issued[0][0] if issued and issued[0] else None),
        url=str(work.get("URL") or f"https://doi.org/{doi}"),
        doi=doi,
        extra=extra,
        abstract_optional=True,
    )
