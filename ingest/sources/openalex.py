"""OpenAlex: papers by DOI, many per request, abstracts rebuilt from the inverted index.

https://docs.openalex.org/api-entities/works: ``/works?filter=doi:A|B`` (up to 50 DOIs),
``mailto=`` puts requests in the polite pool; ``abstract_inverted_index`` maps each word to
its positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ingest.parse.clean import Draft, parse_year
from ingest.parse.ids import doi as bare_doi
from rag.errors import SourceError

if TYPE_CHECKING:
    from ingest.sources.http import Fetcher

__all__ = ["SERVICE", "abstract_from_index", "by_dois"]

SERVICE = "OpenAlex"
BATCH = 50
TYPES = {
    "article": "article",
    "review": "article",
    "letter": "article",
    "book-chapter": "incollection",
    "book": "book",
    "dissertation": "phdthesis",
    "report": "techreport",
}


def by_dois(fetcher: Fetcher, base_url: str, dois: Sequence[str]) -> dict[str, Draft]:
    """{lowercased DOI: Draft} for the DOIs OpenAlex knows (the others are left out)."""
    found: dict[str, Draft] = {}
    for start in range(0, len(dois), BATCH):
        batch = list(dois[start : start + BATCH])
        params: dict[str, Any] = {"filter": "doi:" + "|".join(batch), "per-page": len(batch)}
        if fetcher.contact:
            params["mailto"] = fetcher.contact
        response = fetcher.get(SERVICE, f"{base_url.rstrip('/')}/works", params)
        if response is None:
            continue
        try:
            results = response.json()["results"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceError(
                f"{SERVICE} sent a malformed response ({type(exc).__name__}: {exc}); "
                "try again later"
            ) from None
        for work in results if isinstance(results, list) else []:
            try:
                draft = _work(work) if isinstance(work, dict) else None
            except (AttributeError, TypeError, ValueError) as exc:
                raise SourceError(f"{SERVICE} sent a malformed record ({exc})") from None
            if draft is not None:
                found[draft.doi.lower()] = draft
    return found


def abstract_from_index(index: object) -> str:
    """The abstract text from OpenAlex's ``{word: [positions]}``."""
    if not isinstance(index, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in index.items():
        for position in positions if isinstance(positions, list) else []:
            if isinstance(position, int):
                placed[position] = str(word)
    return " ".join(placed[i] for i in sorted(placed))


def _work(work: dict[str, Any]) -> Draft | None:
    doi = bare_doi(str(work.get("doi") or ""))
    if not doi:
        return None
    location = work.get("primary_location") or {}
    venue = ((location.get("source") or {}) if isinstance(location, dict) else {}).get(
        "display_name"
    )
    kind = str(work.get("type") or "")
    extra: dict[str, Any] = {"entry_type": TYPES.get(kind, "misc"), "openalex_id": work.get("id")}
    if venue:
        extra["venue"] = str(venue)
    authors = tuple(
        str((a.get("author") or {}).get("display_name") or "")
        for a in work.get("authorships") or []
        if isinstance(a, dict)
    )
    url = location.get("landing_page_url") if isinstance(location, dict) else None
    return Draft(
        SERVICE,
        1,
        abstract_from_index(work.get("abstract_inverted_index")),
        where=f"doi:{doi}",
        title=str(work.get("title") or work.get("display_name") or ""),
        authors=tuple(a for a in authors if a),
        year=parse_year(work.get("publication_year")),
        url=str(url or f"https://doi.org/{doi}"),
        doi=doi,
        extra=extra,
        abstract_optional=True,
    )
