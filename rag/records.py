"""The records that flow through ingest and retrieval: papers, chunks, stored paper rows,
skipped input; and the one way a paper's authors are written for people."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Chunk",
    "Notice",
    "Paper",
    "PaperRow",
    "Section",
    "Skipped",
    "content_id",
    "format_authors",
    "normalise_text",
]

_WS = re.compile(r"\s+")
# Never printed text: soft hyphens, PDFium's line-end hyphen marks, zero-width characters;
# and ligatures, which are two or three letters.
_ARTEFACTS = str.maketrans(
    {"\u00ad": None, "\ufffe": None, "\x02": None, "\u200b": None, "\ufeff": None}
    | {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
)


def normalise_text(text: str) -> str:
    """NFC-normalise, drop soft hyphens and zero-width characters, spell ligatures out and
    collapse whitespace; the form ids and hashes are computed on."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text.translate(_ARTEFACTS))).strip()


def format_authors(authors: Sequence[str], *, limit: int = 3) -> str:
    """'A, B, C et al.': the first ``limit`` authors, for people to read."""
    shown = ", ".join(authors[:limit])
    return shown + (" et al." if len(authors) > limit else "")


def content_id(text: str, *, prefix: str = "h") -> str:
    """A stable id from normalised text: same abstract, same id, on every machine."""
    digest = hashlib.sha256(normalise_text(text).casefold().encode("utf-8")).hexdigest()
    return f"{prefix}:{digest[:16]}"


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a paper's full text: its heading as printed ("3.2 Training"; "" for text
    before the first heading), the 1-based page it starts on, and its text."""

    title: str
    page: int
    text: str


@dataclass(frozen=True, slots=True)
class Paper:
    """One abstract and what we know about it.

    ``id`` is stable: the source's own id (DOI, arXiv id, BEIR ``_id``) when it has one,
    else :func:`content_id` of the abstract. ``label`` is what users see when there is no
    title (e.g. the system name an abstract introduces). ``source`` is the file it came
    from and ``position`` its 1-based record number (or line) in that file.
    """

    id: str
    abstract: str
    source: str
    position: int
    title: str = ""
    label: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    url: str = ""
    doi: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    sections: tuple[Section, ...] = ()  # a PDF's full text beyond the abstract: more chunks

    @property
    def body(self) -> str:
        """The full text beyond the abstract, its sections run together."""
        return " ".join(section.text for section in self.sections)

    @property
    def has_abstract(self) -> bool:
        """False for a reference stored on its title and keywords (no abstract known)."""
        return bool(self.abstract)

    def content_hash(self) -> str:
        """Hash of everything that is stored for this paper; a change means re-embedding."""
        parts = [
            self.id,
            normalise_text(self.title),
            normalise_text(self.label),
            "; ".join(self.authors),
            str(self.year or ""),
            normalise_text(self.abstract),
            self.url,
            self.doi,
            self.source,
            str(self.position),
            repr(sorted(self.extra.items())),
        ]
        if self.sections:  # only then: the hash of a paper without a body stays as it was
            parts += [f"{s.title}\x1e{s.page}\x1e{normalise_text(s.text)}" for s in self.sections]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True, kw_only=True)
class PaperRow:
    """A stored paper as the index knows it (what lists, filters, hits and sources show).

    Made in one place, :meth:`from_mapping`, from the store's metadata or the catalogue's
    columns; written in one JSON shape, :meth:`to_json`, by every face.
    """

    id: str
    label: str
    title: str
    authors: tuple[str, ...]
    year: int | None
    source: str
    position: int
    n_chunks: int
    abstract: str = ""
    url: str = ""
    doi: str = ""
    has_abstract: bool = True
    keywords: tuple[str, ...] = ()
    entry_type: str = ""  # the BibTeX entry type it came as (or maps to), e.g. "inproceedings"
    cite_key: str = ""  # its BibTeX key, when it came from a .bib
    collections: tuple[str, ...] = ()  # named collections it was added to (--collection)
    zotero_uri: str = ""  # zotero://select/... when it came from a Zotero library
    # Names its abstract gives it (rag.aliases, filled where the catalogue is made): the name
    # it introduces for its own work, and the acronyms it defines.
    coined: str = ""
    acronyms: tuple[str, ...] = ()
    # A PDF's full text beyond the abstract, as read from the store for the lexical index;
    # the catalogue does not keep it.
    body: str = field(default="", repr=False, compare=False)

    @property
    def name(self) -> str:
        """What people call the paper: its title, else its label."""
        return self.title or self.label

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> PaperRow:
        """From a mapping with the fields' names (``paper_id`` is read as ``id``)."""
        year = data.get("year")
        extra = data.get("extra")
        if isinstance(extra, str):  # the store keeps a paper's extra metadata as JSON
            try:
                extra = json.loads(extra)
            except json.JSONDecodeError:
                extra = None
        extra = extra if isinstance(extra, dict) else {}
        return cls(
            id=str(data["id"] if "id" in data else data["paper_id"]),
            label=str(data.get("label") or ""),
            title=str(data.get("title") or ""),
            authors=tuple(data.get("authors") or ()),
            year=int(year) if year is not None else None,
            source=str(data.get("source") or ""),
            position=int(data.get("position") or 0),
            n_chunks=int(data.get("n_chunks") or 1),
            abstract=str(data.get("abstract") or ""),
            url=str(data.get("url") or ""),
            doi=str(data.get("doi") or ""),
            has_abstract=bool(data.get("has_abstract", True)),
            keywords=tuple(data.get("keywords") or extra.get("keywords") or ()),
            entry_type=str(data.get("entry_type") or extra.get("entry_type") or ""),
            cite_key=str(data.get("cite_key") or extra.get("bibtex_key") or ""),
            collections=tuple(data.get("collections") or ()),
            zotero_uri=str(data.get("zotero_uri") or extra.get("zotero_uri") or ""),
            coined=str(data.get("coined") or ""),
            acronyms=tuple(data.get("acronyms") or ()),
            body=str(data.get("body") or ""),
        )

    def to_json(self) -> dict[str, Any]:
        """The one JSON shape of a paper (no abstract: it can be long; ask for it)."""
        return {
            "paper_id": self.id,
            "label": self.label,
            "title": self.title,
            "authors": list(self.authors),
            "year": self.year,
            "source": self.source,
            "position": self.position,
            "n_chunks": self.n_chunks,
            "url": self.url,
            "doi": self.doi,
            "has_abstract": self.has_abstract,
            "collections": list(self.collections),
            "zotero_uri": self.zotero_uri,
        }


@dataclass(frozen=True, slots=True)
class Chunk:
    """A token window of one paper's abstract. ``id`` is ``f"{paper_id}#{index}"``.

    ``n_tokens`` counts :attr:`embed_text` in tiktoken tokens.
    """

    id: str
    paper_id: str
    index: int
    text: str
    n_tokens: int
    heading: str = ""
    section: str = ""  # a body passage's section heading ("" for the abstract's chunks)
    page: int | None = None  # a body passage's page (1-based); None for the abstract's

    @property
    def embed_text(self) -> str:
        """What gets embedded: the paper's title or label, a body passage's section heading,
        then the passage."""
        lead = "\n".join(x for x in (self.heading, self.section) if x)
        return f"{lead}\n{self.text}" if lead else self.text


@dataclass(frozen=True, slots=True)
class Skipped:
    """An input record we could not use, with where it was and what to do about it."""

    source: str
    position: int | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.position}" if self.position is not None else self.source
        return f"{where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth telling about a record that was still stored (e.g. HTML removed)."""

    source: str
    position: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.position}" if self.position is not None else self.source
        return f"{where}: {self.message}"
