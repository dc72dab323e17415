"""The library as people browse it: pages of papers searched, filtered and sorted by the
catalogue's columns (a row is made only for the papers on the page), one paper in full
(its abstract, venue and the sections of its stored full text), and a picture of the
whole library (papers per year, and the themes an overview answer finds).

The engine has them as methods (:class:`Browsing`, which :class:`rag.engine.Engine`
inherits), over its catalogue and store; what they compute is kept on the catalogue object,
one per version of the library.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from rag.answer.themes import theme_names, themes_of
from rag.errors import QueryError
from rag.index import browse
from rag.index.browse import SORTS, shown_source

if TYPE_CHECKING:
    from rag.index.catalogue import Catalogue
    from rag.index.store import Store
    from rag.records import PaperRow
    from rag.retrieve import Filters, Retriever

__all__ = [
    "SORTS",
    "Browsing",
    "PaperDetails",
    "Picture",
    "SectionPages",
    "StoredText",
    "Theme",
    "library_page",
    "library_picture",
    "paper_details",
    "shown_source",
]

MAX_PAGE = 1000  # papers in one page at most
# Papers whose vectors place the library's papers among the themes (an even sample of
# a larger library: the counts are then estimates, scaled to the whole).
THEME_COUNTED = 2000
PICTURE_PAPERS = 400  # the picture's themes are found in an even sample of this many


class Browsing:
    """The engine's door to the library as browsed: these functions over its catalogue
    (the current version of the library) and its store."""

    store: Store
    retriever: Retriever

    def library_page(
        self, search: str = "", *, sort: str = "title", descending: bool = False,
        offset: int = 0, limit: int = 50, filters: Filters | None = None,
        has_abstract: bool | None = None,
    ) -> tuple[int, list[PaperRow]]:  # fmt: skip
        """(how many papers match, a page of them): searched, filtered and sorted by the
        catalogue's columns, rows made for the page only (:func:`library_page`). The first
        page of a version of the library starts making its search text and title order in
        the background (:func:`rag.index.browse.warm`)."""
        catalogue = self.retriever.index.catalogue
        browse.warm(catalogue)
        return library_page(
            catalogue, search=search, sort=sort, descending=descending,
            offset=offset, limit=limit, filters=filters, has_abstract=has_abstract,
        )  # fmt: skip

    def warm_library(self) -> None:
        """Sort the library by title now (0.35 s at 500k papers), so that the library tab
        opens at once on its first page (:meth:`rag.engine.Engine.warm_up`)."""
        browse.order(self.retriever.index.catalogue, "title")

    def paper_details(self, paper_id: str, *, text: bool = False) -> PaperDetails | None:
        """One paper in full: its abstract, venue, and its full text's sections and pages
        (with ``text``, the full text as stored, chunk by chunk with page and section)."""
        return paper_details(self.store, self.retriever.index.catalogue, paper_id, text=text)

    def library_picture(self, *, themes: bool = True) -> Picture:
        """Papers per year and the overview's themes (:func:`library_picture`), made once
        per version of the library; ``themes=False`` reads no vector."""
        return library_picture(self.retriever.index.catalogue, self.store, themes=themes)


def library_page(
    catalogue: Catalogue,
    *,
    search: str = "",
    sort: str = "title",
    descending: bool = False,
    offset: int = 0,
    limit: int = 50,
    filters: Filters | None = None,
    has_abstract: bool | None = None,
) -> tuple[int, list[PaperRow]]:
    """(how many papers match, the ``limit`` of them from ``offset`` in the order asked).
    ``search`` is looked for in the title, label, authors, year, source and id; ``sort`` is
    one of :data:`SORTS` ("" for source order); ``has_abstract`` keeps only the papers with
    (True) or without (False) one."""
    if sort not in SORTS:
        raise QueryError(f"unknown sort {sort!r}: choose one of {', '.join(s for s in SORTS if s)}")
    if not 0 <= limit <= MAX_PAGE:
        raise QueryError(f"a page holds 0 to {MAX_PAGE} papers, not {limit}")
    if offset < 0:
        raise QueryError(f"a page starts at 0 or later, not {offset}")
    keep = _mask(catalogue, search, filters, has_abstract)
    total, positions = browse.ordered(
        catalogue, sort, descending=descending, keep=keep, offset=offset, limit=limit
    )
    return total, [catalogue.row(i) for i in positions]


def _mask(
    catalogue: Catalogue, search: str, filters: Filters | None, has_abstract: bool | None
) -> np.ndarray | None:
    """The papers to keep (None: all of them), column by column."""
    masks = []
    if search.strip():
        masks.append(browse.matching(catalogue, search))
    if has_abstract is not None:
        masks.append(browse.with_abstract(catalogue) == has_abstract)
    if filters:
        if filters.year_from is not None or filters.year_to is not None:
            masks.append(browse.in_years(catalogue, filters.year_from, filters.year_to))
        if filters.collection:
            masks.append(browse.in_collection(catalogue, filters.collection))
        if filters.paper_ids:
            ids = np.zeros(len(catalogue), dtype=bool)
            ids[[p for pid in filters.paper_ids if (p := catalogue.position(pid)) is not None]] = 1
            masks.append(ids)
        if filters.author:
            masks.append(browse.by_author(catalogue, filters.author))
        if filters.source:
            masks.append(browse.from_source(catalogue, filters.source))
    if not masks:
        return None
    keep = masks[0].copy()
    for mask in masks[1:]:
        keep &= mask
    return keep


# -- one paper ----------------------------------------------------------------------------------


class SectionPages(NamedTuple):
    """A section of a stored full text: its heading ("" for the text before the first one)
    and the pages it is printed on."""

    heading: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class StoredText:
    """One stored chunk of a paper's full text: the page it starts on, its section, and its
    text exactly as stored (what answers quote from)."""

    page: int
    section: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"page": self.page, "section": self.section, "text": self.text}


@dataclass(frozen=True, slots=True)
class PaperDetails:
    """One paper as its view shows it: the row with its whole abstract, the venue its
    metadata names, and the sections of its full text when that is stored."""

    paper: PaperRow
    venue: str = ""
    sections: tuple[SectionPages, ...] = ()
    text: tuple[StoredText, ...] = ()  # its full text as stored, when asked for

    def to_json(self) -> dict[str, Any]:
        """The paper's one JSON shape, with its whole abstract, venue and sections."""
        return self.paper.to_json() | {
            "abstract": self.paper.abstract,
            "venue": self.venue,
            "sections": [
                {"heading": s.heading, "first_page": s.first, "last_page": s.last}
                for s in self.sections
            ],
        }


def paper_details(
    store: Store, catalogue: Catalogue, paper_id: str, *, text: bool = False
) -> PaperDetails | None:
    """The paper ``paper_id`` in full (with ``text``, its full text as stored too), or None
    when it is not stored."""
    if paper_id not in catalogue:
        return None
    row = catalogue[paper_id]
    meta = store.first_chunks([paper_id]).get(paper_id)
    if meta is None:  # removed since the catalogue was read
        return None
    extra = _extra(meta.get("extra"))
    venue = str(extra.get("venue") or extra.get("journal") or "").strip()
    parts: list[SectionPages] = []
    stored: list[StoredText] = []
    if row.n_chunks > 1:
        chunks = store.body_chunks([f"{paper_id}#{i}" for i in range(1, row.n_chunks)])
        for _, body, chunk, _ in chunks:
            heading, page = str(chunk.get("section") or ""), int(chunk["page"])
            if parts and parts[-1].heading == heading:
                parts[-1] = parts[-1]._replace(last=max(parts[-1].last, page))
            else:
                parts.append(SectionPages(heading, page, page))
            if text:
                stored.append(StoredText(page, heading, body))
    abstract = str(meta.get("abstract") or "")
    paper = dataclasses.replace(row, abstract=abstract)
    return PaperDetails(paper, venue, tuple(parts), tuple(stored))


def _extra(value: Any) -> dict[str, Any]:
    try:
        extra = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        return {}
    return extra if isinstance(extra, dict) else {}


# -- the picture ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Theme:
    """A theme of the library: the words that name it, how many papers are in it (an
    estimate when the library is larger than :data:`THEME_COUNTED`), a few of its papers."""

    words: tuple[str, ...]
    papers: int
    examples: tuple[str, ...]

    @property
    def name(self) -> str:
        return ", ".join(self.words) or "other topics"


@dataclass(frozen=True, slots=True)
class Picture:
    """The library at a glance: papers per year (oldest first), undated papers, papers per
    collection (by name), and its themes, largest first (read from ``sampled`` papers, as
    an overview answer reads them)."""

    papers: int
    years: tuple[tuple[int, int], ...]
    undated: int
    collections: tuple[tuple[str, int], ...] = ()
    themes: tuple[Theme, ...] = ()
    sampled: int = 0
    estimated: bool = False


def library_picture(catalogue: Catalogue, store: Store, *, themes: bool = True) -> Picture:
    """The picture of the library the catalogue holds (kept on the catalogue: made once
    per version of the library). ``themes=False``: the years and collections only, without
    reading a vector."""
    by_year = catalogue.memo("picture:years", lambda: _years(catalogue))
    if not themes:
        return by_year
    return catalogue.memo("picture", lambda: _with_themes(by_year, catalogue, store))


def _years(catalogue: Catalogue) -> Picture:
    counts = Counter(catalogue.columns["year"])
    undated = counts.pop(None, 0)
    named = Counter(name for names in catalogue.columns["collections"] for name in names)
    return Picture(len(catalogue), tuple(sorted(counts.items())), undated,
                   tuple(sorted(named.items())))  # fmt: skip


def _with_themes(picture: Picture, catalogue: Catalogue, store: Store) -> Picture:
    """The picture with the library's themes (:func:`sampled_themes`); then an even sample
    of the library placed at the nearest theme, to say how many papers each holds."""
    found = sampled_themes(catalogue, store)
    if found is None:
        return picture
    known = dict(zip(found.ids, found.unit, strict=True))
    counts = _placed(catalogue, store, found.unit, found.groups, known)
    themes = [Theme(tuple(words), n, tuple(found.names[i] for i in g[:3]))
              for g, words, n in zip(found.groups, found.words, counts, strict=True)
              if len(g) > 1]  # fmt: skip
    themes.sort(key=lambda t: -t.papers)
    alone = [(g[0], n) for g, n in zip(found.groups, counts, strict=True) if len(g) == 1]
    if alone:
        examples = tuple(found.names[i] for i, _ in alone[:3])
        themes.append(Theme((), sum(n for _, n in alone), examples))
    return dataclasses.replace(picture, themes=tuple(themes), sampled=len(found.ids),
                               estimated=len(catalogue.ids) > THEME_COUNTED)  # fmt: skip


class Sampled(NamedTuple):
    """The themes of an even sample of the library (:func:`sampled_themes`)."""

    ids: list[str]  # the sampled papers
    names: list[str]  # their names, as shown
    texts: list[str]  # their names and abstracts, which the themes are named from
    unit: np.ndarray  # their stored vectors, of unit length
    groups: list[list[int]]  # the themes, as indices into ids, largest first
    words: list[list[str]]  # each theme's name (none for a paper alone in its group)


def sampled_themes(catalogue: Catalogue, store: Store) -> Sampled | None:
    """The library's themes as an overview answer finds them (:mod:`rag.answer.themes`),
    in an even sample of it (every n-th paper, at most :data:`PICTURE_PAPERS`): clustered by
    their stored vectors and named by the words that set a cluster apart (a paper alone in
    its cluster names nothing: "other topics"). None for a library without vectors."""
    ids = catalogue.ids
    step = max(1, len(ids) // PICTURE_PAPERS)
    sample = list(ids[::step][:PICTURE_PAPERS])
    rows = {r.id: r for r in store.papers(sample)}
    vectors = store.paper_vectors(sample)
    sample = [pid for pid in sample if pid in rows and pid in vectors]
    if not sample:
        return None
    unit = _unit(np.stack([vectors[pid] for pid in sample]))
    groups = themes_of(unit)
    texts = [f"{rows[pid].name}. {rows[pid].abstract}" for pid in sample]
    words = theme_names(texts, groups)
    return Sampled(sample, [rows[pid].name for pid in sample], texts, unit, groups, words)


def _placed(
    catalogue: Catalogue,
    store: Store,
    unit: np.ndarray,
    groups: list[list[int]],
    known: dict[str, np.ndarray],
) -> list[int]:
    """How many of the library's papers each group holds: each counted paper (all of a
    library up to :data:`THEME_COUNTED`, else an even sample) goes to the group whose centre
    is nearest; the counts are scaled to the whole library when sampled."""
    ids = catalogue.ids
    step = max(1, -(-len(ids) // THEME_COUNTED))
    counted = list(ids[::step])
    wanted = [pid for pid in counted if pid not in known]
    vectors = dict(known)
    for start in range(0, len(wanted), 500):
        vectors |= store.paper_vectors(wanted[start : start + 500])
    found = [vectors[pid] for pid in counted if pid in vectors]
    if not found:
        return [len(g) for g in groups]
    centres = _unit(np.stack([unit[g].mean(axis=0) for g in groups]))
    nearest = np.argmax(_unit(np.stack(found)) @ centres.T, axis=1)
    counts = np.bincount(nearest, minlength=len(groups))
    scale = len(ids) / len(found)
    return [round(int(c) * scale) for c in counts]


def _unit(vectors: np.ndarray) -> np.ndarray:
    out: np.ndarray = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return out
