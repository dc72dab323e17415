"""A Zotero item -> the record every other input becomes (a :class:`Draft`), its PDF read.

The paper's id follows the rule of every format (:mod:`ingest.parse.clean`): its DOI, else
its arXiv id, so an item already added from a .bib or a PDF is the same paper; else
``zotero:<item key>`` (``zotero:groups/<id>/<key>`` in a group library). Authors are the
creators of the item type's primary kind (author, inventor, presenter, ...); editors are
kept apart. Tags become keywords, the Better BibTeX key the citation key, and the item
links back to Zotero (``zotero://select/...``).

The first PDF attachment that reads gives the full text (and the abstract, title, authors
or year the item lacks, never its id); one that does not read is a notice, and the item is
stored from its metadata.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from ingest.parse.clean import MIN_ABSTRACT_CHARS, Draft, clean_doi, parse_year
from ingest.parse.ids import arxiv_id
from ingest.parse.pdf import parse_pdf
from rag.records import Notice, Skipped

from .records import Item, Library

__all__ = ["BIBTEX_TYPES", "draft_of", "zotero_uri"]

BIBTEX_TYPES = {
    "journalArticle": "article",
    "magazineArticle": "article",
    "newspaperArticle": "article",
    "conferencePaper": "inproceedings",
    "book": "book",
    "bookSection": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
    "preprint": "misc",
    "manuscript": "unpublished",
}
_PRIMARY = {
    "author",
    "inventor",
    "programmer",
    "presenter",
    "director",
    "artist",
    "cartographer",
    "podcaster",
    "interviewee",
    "sponsor",
    "performer",
}
_EDITORS = {"editor", "seriesEditor"}


def zotero_uri(library: str, key: str) -> str:
    """The link that opens the item in Zotero: ``zotero://select/library/items/KEY`` for a
    user's library, ``zotero://select/groups/ID/items/KEY`` for a group's."""
    if library.startswith("groups/"):
        return f"zotero://select/{library}/items/{key}"
    return f"zotero://select/library/items/{key}"


def draft_of(item: Item, library: Library, *, full_text: bool = True) -> Iterator[Draft | Notice]:
    """The item as a :class:`Draft` (with its PDF's body when ``full_text``), preceded by
    a notice for each attachment that could not be read."""
    values = item.fields
    own = item.library or library.library
    title = values.get("title", "")
    where = f"Zotero item {item.key}" + (f" ({title[:60]!r})" if title else "")
    people = [c.full for c in item.creators if c.kind in _PRIMARY and c.full]
    if not people:  # e.g. an edited book: its editors are who it is by
        people = [c.full for c in item.creators if c.full and c.kind not in {"reviewedAuthor"}]
    editors = [c.full for c in item.creators if c.kind in _EDITORS and c.full]
    extra: dict[str, object] = {
        "zotero_key": item.key,
        "zotero_library": own,
        "zotero_uri": zotero_uri(own, item.key),
        "zotero_type": item.item_type,
        "entry_type": BIBTEX_TYPES.get(item.item_type, "misc"),
    }
    if values.get("venue"):
        extra["venue"] = values["venue"]
    if editors and editors != people:
        extra["editors"] = editors
    if item.citation_key:
        extra["bibtex_key"] = item.citation_key
    where_arxiv = ("archiveID", "url", "DOI", "extra", "number")
    words = " ".join(values.get(f, "") for f in where_arxiv).replace("arXiv:", " arXiv:").split()
    arxiv = next((found for word in words if (found := arxiv_id(word))), "")
    fallback = f"zotero:{own}/{item.key}" if own.startswith("groups/") else f"zotero:{item.key}"
    draft = Draft(
        library.source,
        0,
        values.get("abstractNote", ""),
        where=where,
        title=title,
        authors=tuple(people),
        year=parse_year(values.get("date", "")),
        url=values.get("url", ""),
        doi=clean_doi(values.get("DOI", "")) or _doi_in_extra(values.get("extra", "")),
        extra=extra,
        arxiv_id=arxiv,
        fallback_id=fallback,
        keywords=item.tags,
        abstract_optional=True,
    )
    for attachment in item.attachments:
        if attachment.path is None:
            yield draft.notice(f"PDF attachment {attachment.key}: {attachment.problem}")
            continue
        read = _read_pdf(attachment.path, full_text=full_text)
        if isinstance(read, str):
            yield draft.notice(
                f"PDF attachment {attachment.key} ({attachment.path.name}): {read}; "
                "stored from its metadata"
            )
            continue
        draft = _with_pdf(draft, read)
        break
    yield draft


def _read_pdf(path: Path, *, full_text: bool) -> Draft | str:
    """The PDF's draft, or why it could not be read."""
    try:
        found = list(parse_pdf(path, full_text=full_text))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    drafts = [x for x in found if isinstance(x, Draft)]
    if drafts:
        return drafts[0]
    reasons = [x.reason for x in found if isinstance(x, Skipped)]
    return reasons[0] if reasons else "no text found"


def _with_pdf(draft: Draft, pdf: Draft) -> Draft:
    """The item's draft with what its PDF adds: the body always; the abstract, title,
    authors and year only where the item has none. Never its DOI or arXiv id: those name
    the paper, Zotero's metadata is the user's, and a DOI on a PDF's first pages may be one
    it cites (an item without one keeps its Zotero key as its id)."""
    has_abstract = len(draft.abstract.strip()) >= MIN_ABSTRACT_CHARS
    extra = dict(draft.extra)
    if pdf.sections:
        extra["full_text"] = True
    return replace(
        draft,
        abstract=draft.abstract if has_abstract else pdf.abstract,
        title=draft.title or pdf.title,
        authors=draft.authors or pdf.authors,
        year=draft.year if draft.year is not None else pdf.year,
        sections=pdf.sections,
        extra=extra,
    )


def _doi_in_extra(extra: str) -> str:
    """A ``DOI: 10...`` line in Extra (Zotero's place for a DOI on types without the field)."""
    for line in extra.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "doi":
            return clean_doi(value.strip())
    return ""
