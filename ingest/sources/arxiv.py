"""The arXiv API (Atom): papers by id, in batches, and search results.

https://info.arxiv.org/help/api/user-manual.html: ``id_list`` takes many ids at once, and
arXiv asks for one request every 3 seconds (the caller's ``spacing``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ingest.parse.clean import Draft, parse_year
from ingest.parse.ids import arxiv_id
from rag.errors import SourceError

if TYPE_CHECKING:
    from ingest.sources.http import Fetcher

__all__ = ["BATCH", "SERVICE", "by_ids", "parse_feed", "search"]

SERVICE = "arXiv"
BATCH = 50  # ids per request
PAGE = 100  # search results per request
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"


def by_ids(
    fetcher: Fetcher, base_url: str, ids: Sequence[str], *, spacing: float
) -> dict[str, Draft]:
    """{arXiv id: Draft} for the ids arXiv knows (the others are left out)."""
    found: dict[str, Draft] = {}
    for start in range(0, len(ids), BATCH):
        batch = list(ids[start : start + BATCH])
        params = {"id_list": ",".join(batch), "max_results": len(batch)}
        response = fetcher.get(SERVICE, base_url, params, spacing=spacing)
        if response is not None:
            for draft in parse_feed(response.text):
                found[draft.arxiv_id] = draft
    return found


def search(
    fetcher: Fetcher, base_url: str, query: str, *, limit: int, spacing: float
) -> list[Draft]:
    """The first ``limit`` results of an arXiv search. A query without a field prefix
    (``ti:``, ``au:``, ``abs:``, ``cat:``, ``all:``) searches all fields for every word."""
    if not re.search(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all):", query):
        query = " AND ".join(f"all:{word}" for word in query.split())
    drafts: list[Draft] = []
    while len(drafts) < limit:
        size = min(PAGE, limit - len(drafts))
        params = {"search_query": query, "start": len(drafts), "max_results": size}
        response = fetcher.get(SERVICE, base_url, params, spacing=spacing)
        page = parse_feed(response.text) if response is not None else []
        drafts.extend(page)
        if len(page) < size:
            break
    return drafts[:limit]


def parse_feed(text: str) -> list[Draft]:
    """The papers of an arXiv Atom feed (error entries left out)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SourceError(
            f"{SERVICE} sent a malformed response (XML: {exc}); try again later"
        ) from None
    if root.tag != f"{_ATOM}feed":
        raise SourceError(f"{SERVICE} sent something other than an Atom feed ({root.tag})")
    drafts = []
    for entry in root.iter(f"{_ATOM}entry"):
        draft = _entry(entry)
        if draft is not None:
            drafts.append(draft)
    return drafts


def _text(node: ET.Element, tag: str) -> str:
    found = node.find(tag)
    return " ".join((found.text or "").split()) if found is not None else ""


def _entry(entry: ET.Element) -> Draft | None:
    found = arxiv_id(_text(entry, f"{_ATOM}id"))
    if not found:  # e.g. <id>http://arxiv.org/api/errors#incorrect_id_format_for_x</id>
        return None
    doi = _text(entry, f"{_ARXIV}doi")
    journal = _text(entry, f"{_ARXIV}journal_ref")
    categories = [c.get("term", "") for c in entry.findall(f"{_ATOM}category")]
    extra: dict[str, Any] = {
        "entry_type": "article" if journal else "misc",
        "categories": [c for c in categories if c],
    }
    if journal:
        extra["venue"] = journal
    comment = _text(entry, f"{_ARXIV}comment")
    if comment:
        extra["comment"] = comment
    return Draft(
        SERVICE,
        1,
        _text(entry, f"{_ATOM}summary"),
        where=f"arXiv:{found}",
        title=_text(entry, f"{_ATOM}title"),
        authors=tuple(_text(a, f"{_ATOM}name") for a in entry.findall(f"{_ATOM}author")),
        year=parse_year(_text(entry, f"{_ATOM}published")),
        url=f"https://arxiv.org/abs/{found}",
        doi=doi,
        arxiv_id=found,
        extra=extra,
        abstract_optional=True,
    )
