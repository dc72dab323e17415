"""What a Zotero library holds, as both readers give it (:mod:`ingest.zotero.local` from
``zotero.sqlite``, :mod:`ingest.zotero.web` from Zotero's web API), before it becomes papers.

Only what paperchat uses is kept: regular items (not notes, attachments or annotations)
with their fields by Zotero's own names (``title``, ``abstractNote``, ``DOI``, ...), their
PDF attachments, their collections' paths, and the library's trashed item keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "NOT_ITEMS",
    "VENUE_FIELDS",
    "Attachment",
    "Creator",
    "Item",
    "Library",
    "citation_key",
    "with_venue",
]

NOT_ITEMS = ("note", "attachment", "annotation")
"""Item types that are not papers (both readers skip them)."""
VENUE_FIELDS = (
    "publicationTitle",
    "proceedingsTitle",
    "bookTitle",
    "conferenceName",
    "websiteTitle",
    "blogTitle",
    "forumTitle",
    "encyclopediaTitle",
    "dictionaryTitle",
    "programTitle",
    "repository",
    "university",
    "institution",
)
"""Where an item was published: the first of these it has (publicationTitle's kin, by the
names Zotero stores them under for each item type)."""
_CITATION_KEY = re.compile(r"^\s*Citation Key\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)


def with_venue(fields: dict[str, str]) -> dict[str, str]:
    """``fields`` with ``venue`` set to the first non-empty of :data:`VENUE_FIELDS`."""
    venue = next((fields[f] for f in VENUE_FIELDS if fields.get(f)), "")
    return fields | {"venue": venue} if venue else fields


def citation_key(fields: dict[str, str], stored: str = "") -> str:
    """The item's citation key: ``stored`` (Better BibTeX's database), else Zotero's own
    ``citationKey`` field, else a ``Citation Key:`` line in Extra (BBT's convention)."""
    if stored or fields.get("citationKey", "").strip():
        return stored or fields["citationKey"].strip()
    found = _CITATION_KEY.search(fields.get("extra", ""))
    return found.group(1) if found else ""


@dataclass(frozen=True, slots=True)
class Creator:
    """One creator as Zotero stores it: ``first``/``last``, or ``name`` alone (one field,
    e.g. an institution), and its type (``author``, ``editor``, ...)."""

    kind: str
    last: str = ""
    first: str = ""
    name: str = ""

    @property
    def full(self) -> str:
        """The name as people write it: "Ada Lovelace", or the one-field name."""
        return self.name or " ".join(p for p in (self.first, self.last) if p)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A PDF attached to an item. ``path`` is where the file should be on this machine
    (None when it cannot be: a link relative to a base directory we do not know, or a web
    file not downloaded); ``problem`` says why, for the one line the user sees.
    ``signature`` changes whenever the file does (size and modification time, or the web
    API's md5), so a re-sync reads a PDF again only when it changed."""

    key: str
    title: str = ""
    path: Path | None = None
    linked: bool = False
    signature: str = ""
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    """A regular Zotero item. ``fields`` maps Zotero's field names to their values (base
    names: ``publicationTitle`` for a journal, ``proceedingsTitle`` for a conference paper,
    both also under ``venue``). ``version`` changes with every edit of the item (Zotero's
    ``version`` and ``dateModified``)."""

    key: str
    item_type: str
    version: str
    fields: dict[str, str] = field(default_factory=dict)
    creators: tuple[Creator, ...] = ()
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()  # their paths, "Parent/Child"
    attachments: tuple[Attachment, ...] = ()
    citation_key: str = ""  # Better BibTeX's, or a "Citation Key:" line in Extra
    library: str = ""  # its library ("groups/ID") when not the one read (a local group's)


@dataclass(slots=True)
class Library:
    """One Zotero library as read: ``source`` names it for people and for the papers'
    ``source`` ("/home/ada/Zotero/zotero.sqlite", "zotero.org/users/123"); ``library``
    is Zotero's own name for it ("users/0" local, "users/123", "groups/456"), used in
    ``zotero://select`` links and in the ids of items without a DOI or arXiv id.
    ``collections`` are every collection's path; ``problems`` are (where, what) lines for
    things skipped while reading (an unknown field, a broken row)."""

    source: str
    library: str
    items: list[Item] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    trashed: set[str] = field(default_factory=set)
    problems: list[tuple[str, str]] = field(default_factory=list)
    version: str = ""  # the library's version (web API) or the database's modification stamp
