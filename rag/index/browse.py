"""The catalogue browsed by column: a case-insensitive search, masks for filters, and pages
in any sort order, none of which makes a row. At 500k papers a first page in any order
takes 20-160 ms (bench/library_paging.py, README "The faces").

What is worth keeping (the search text, the year column as numbers, a full sort order once
a deep page needed it) is kept on the catalogue object (:meth:`Catalogue.memo`): a change of
the library makes a new catalogue, so nothing kept goes stale.
"""

from __future__ import annotations

import heapq
import itertools
import operator
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from rag.index.catalogue import Catalogue

__all__ = [
    "SORTS",
    "Hay",
    "by_author",
    "collate",
    "collated",
    "from_source",
    "in_collection",
    "in_years",
    "matching",
    "order",
    "ordered",
    "shown_source",
    "sort_keys",
    "warm",
    "with_abstract",
]

# What the library can be sorted by ("" is source order, the catalogue's own).
SORTS = ("", "title", "authors", "year", "collections", "has_abstract", "source", "id")
_LAST = "\U0010ffff"  # sorts after any text: what a paper lacks goes last
_NO_YEAR = np.iinfo(np.int32).min
_HEAP = 5_000  # pages ending before this are picked by a heap, not a full sort
_QUOTES = str.maketrans(
    dict.fromkeys("\u2018\u2019\u201a\u201b\u2039\u203a", "'")
    | dict.fromkeys("\u201c\u201d\u201e\u201f\u00ab\u00bb", '"')
)
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SLICE = 25_000  # papers' search text made at once
_SEARCHED = ("title", "label", "authors", "year", "source", "zotero_uri", "id")
WARM_FROM = 20_000  # papers: a smaller library is browsed fast without anything kept
_LATER = 0.3  # seconds before a background sort starts
_FIELDS = {"title": ("title", "label"), "source": ("source", "zotero_uri")}  # a sort reads


def collated(text: str) -> str:
    """Text as the library sorts it: case-insensitive, accents aside ("Émile" among the
    e's), typographic quotes as plain ones."""
    return collate([text])[0]


def collate(texts: Sequence[str]) -> list[str]:
    """:func:`collated` of each text. Plain ASCII (most titles and names) only has its case
    folded, which is done for the lot at C speed: 0.1 s for 500k titles."""
    keys = list(map(str.casefold, texts))
    for i in itertools.compress(range(len(keys)), map(operator.not_, map(str.isascii, keys))):
        keys[i] = _MARKS.sub("", unicodedata.normalize("NFKD", keys[i]).translate(_QUOTES))
    return keys


def shown_source(source: str, zotero_uri: str) -> str:
    """Where a paper came from, as people read it: its file's name, or "Zotero"."""
    return "Zotero" if zotero_uri else PurePath(source).name


# -- masks --------------------------------------------------------------------------------------


def matching(catalogue: Catalogue, needle: str) -> np.ndarray:
    """A mask of the papers whose title, label, authors, year, source (as shown) or id holds
    ``needle``, case-insensitively (whitespace collapsed). The text searched is made on the
    first search and kept (:class:`Hay`)."""
    wanted = " ".join(needle.split()).casefold().encode()
    keep = np.zeros(len(catalogue), dtype=bool)
    if not wanted:
        keep[:] = True
        return keep
    hay = catalogue.memo("browse:hay", lambda: Hay.of(catalogue))
    # The rest of the line is matched too, so each paper is found once, however often the
    # needle is in it ("a" is in nearly every paper, many times).
    found = re.compile(re.escape(wanted) + b"[^\n]*").finditer(hay.text)
    at = np.fromiter((m.start() for m in found), dtype=np.int64)
    keep[np.searchsorted(hay.starts, at, side="right") - 1] = True
    return keep


class Hay(NamedTuple):
    """The searched fields of every paper, case folded, as UTF-8: one line a paper (the
    fields apart by 0x1f), and where each line starts. One bytes object, not a string a
    paper: 190 bytes a paper where strings took 320 (most lines hold a name with an accent,
    which makes a Python string 2 bytes a character); made in 1 s at 500k papers."""

    text: bytes
    starts: np.ndarray  # paper i is text[starts[i] : starts[i + 1] - 1]

    @classmethod
    def of(cls, catalogue: Catalogue) -> Hay:
        """Made by maps of C functions over the columns, a slice at a time (each holds the
        interpreter for a moment only, which matters in a background thread: :func:`warm`)."""
        c = catalogue.columns
        years = {y: "" if y is None else str(y) for y in set(c["year"])}
        shown = {k: shown_source(*k) for k in set(zip(c["source"], c["zotero_uri"], strict=True))}
        parts: list[bytes] = []
        lengths: list[int] = []
        for at in range(0, len(catalogue), _SLICE):
            part = {f: c[f][at : at + _SLICE] for f in _SEARCHED}
            fields = zip(
                part["title"], part["label"], map("; ".join, part["authors"]),
                map(years.__getitem__, part["year"]),
                map(shown.__getitem__, zip(part["source"], part["zotero_uri"], strict=True)),
                part["id"], strict=True,
            )  # fmt: skip
            lines = list(map(str.encode, map(str.casefold, map("\x1f".join, fields))))
            joined = b"\n".join(lines)
            if joined.count(b"\n") != len(lines) - 1:  # a line break in a field
                lines = [line.replace(b"\n", b" ") for line in lines]
                joined = b"\n".join(lines)
            parts.append(joined)
            lengths += map(len, lines)
        starts = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(np.asarray(lengths, dtype=np.int64) + 1, out=starts[1:])
        return cls(b"\n".join(parts), starts)

    def line(self, i: int) -> bytes:
        return self.text[self.starts[i] : self.starts[i + 1] - 1]


def warm(catalogue: Catalogue) -> None:
    """Make in a background thread, once for this catalogue, what its first search and
    its pages by title would otherwise wait for: the search text, the title order (for
    a library of :data:`WARM_FROM` papers or more; a smaller one is quick anyway)."""

    def run() -> None:
        matching(catalogue, "-")
        order(catalogue, "title")

    _in_background(catalogue, "browse:warm", run)


def _in_background(catalogue: Catalogue, name: Any, run: Callable[[], object]) -> None:
    """``run`` in a thread of its own, once for this catalogue, when it is a large one; a
    moment later, so the page that asked for it is sent first (a sort holds the
    interpreter while it runs)."""

    def start() -> None:
        if len(catalogue) >= WARM_FROM:
            later = threading.Timer(_LATER, run)
            later.daemon, later.name = True, "paperchat-browse"
            later.start()

    catalogue.memo(name, start)


def in_years(catalogue: Catalogue, year_from: int | None, year_to: int | None) -> np.ndarray:
    """A mask of the papers dated within the range (inclusive; an undated paper is out when
    either end is given)."""
    if year_from is None and year_to is None:
        return np.ones(len(catalogue), dtype=bool)
    years = catalogue.memo("browse:years", lambda: np.fromiter(
        (_NO_YEAR if y is None else y for y in catalogue.columns["year"]), dtype=np.int32,
        count=len(catalogue)))  # fmt: skip
    keep: np.ndarray = years != _NO_YEAR
    if year_from is not None:
        keep &= years >= year_from
    if year_to is not None:
        keep &= years <= year_to
    return keep


def in_collection(catalogue: Catalogue, name: str) -> np.ndarray:
    """A mask of the papers in the collection ``name`` (exactly)."""
    column = catalogue.columns["collections"]
    return np.fromiter((name in cs for cs in column), dtype=bool, count=len(column))


def by_author(catalogue: Catalogue, needle: str) -> np.ndarray:
    """A mask of the papers with an author whose name holds ``needle`` (any case). The
    search text narrows them first; then only its matches' authors are read."""
    needle = " ".join(needle.split()).casefold()
    keep = matching(catalogue, needle)
    if not needle:
        return keep
    hay = catalogue.memo("browse:hay", lambda: Hay.of(catalogue))
    wanted, authors = needle.encode(), catalogue.columns["authors"]
    for i in np.flatnonzero(keep).tolist():
        if "; " in needle:  # it may span two names as the search text joins them
            keep[i] = any(needle in a.casefold() for a in authors[i])
        else:
            keep[i] = wanted in hay.line(i).split(b"\x1f", 3)[2]
    return keep


def from_source(catalogue: Catalogue, needle: str) -> np.ndarray:
    """A mask of the papers whose source path holds ``needle`` (any case)."""
    needle = needle.casefold()
    column = catalogue.columns["source"]
    holds = {s: needle in s.casefold() for s in set(column)}  # a few files, many papers
    return np.fromiter((holds[s] for s in column), dtype=bool, count=len(column))


def with_abstract(catalogue: Catalogue) -> np.ndarray:
    """A mask of the papers that have an abstract."""
    return np.asarray(catalogue.columns["has_abstract"], dtype=bool)


# -- sorted pages -------------------------------------------------------------------------------


def ordered(
    catalogue: Catalogue, by: str, *, descending: bool = False,
    keep: np.ndarray | None = None, offset: int = 0, limit: int = 50,
) -> tuple[int, list[int]]:  # fmt: skip
    """(how many papers ``keep`` holds, the positions of ``limit`` of them from ``offset``
    sorted ``by`` one of :data:`SORTS`). Ties keep source order in either direction; what
    a paper lacks (a year, authors, a collection) goes last in either. A page near the top
    is picked by a heap over the sort keys (no full sort); a deeper one sorts everything
    once and the catalogue keeps that order."""
    if by not in SORTS:
        raise ValueError(f"unknown sort {by!r}: one of {', '.join(s for s in SORTS if s)}")
    offset, limit = max(0, offset), max(0, limit)
    n = len(catalogue)
    chosen: Sequence[int] = range(n) if keep is None else np.flatnonzero(keep).tolist()
    total, end = len(chosen), offset + limit
    if not by:
        return total, list(chosen[offset:end])
    if offset >= total or not limit:
        return total, []
    if catalogue.kept(("browse:order", by, descending)) is None and (
        end <= _HEAP or total < n // 4
    ):  # a page near the top, or few papers: no full sort
        subset = total < n // 8  # then only their keys are made
        if not subset and by == "title" and end <= _HEAP:
            few = _title_leads(catalogue, keep, end, descending=descending)
            if few is not None:  # only the papers whose title begins as the first do
                chosen, subset = few, True
        keys = sort_keys(catalogue, by, descending=descending, rows=chosen if subset else None)
        pool = range(len(chosen)) if subset else chosen
        if end <= _HEAP and total > 2 * end:
            pick = heapq.nlargest if descending else heapq.nsmallest
            top = pick(end, pool, key=keys.__getitem__)[offset:]
            # The next page will likely want this order too: it is made meanwhile.
            _in_background(catalogue, ("browse:warm", by, descending),
                           lambda: order(catalogue, by, descending=descending))  # fmt: skip
        else:
            top = sorted(pool, key=keys.__getitem__, reverse=descending)[offset:end]
        return total, [chosen[i] for i in top] if subset else list(top)
    everything = order(catalogue, by, descending=descending)
    if keep is not None:
        everything = everything[keep[everything]]
    return total, everything[offset:end].tolist()


def _title_leads(
    catalogue: Catalogue, keep: np.ndarray | None, end: int, *, descending: bool
) -> list[int] | None:
    """The papers (of ``keep``) among which the first ``end`` by title are, found without
    collating every title: those whose title's first letter, collated, comes first ("a" for
    "A", "Á" and "a"; 0.1 s at 500k papers where collating all takes 0.25 s). None when that
    would not leave a quarter of them or less."""
    c = catalogue.columns
    first = operator.itemgetter(slice(0, 1))  # one character: a string Python has made
    leads = list(map(first, c["title"]))
    for i in itertools.compress(range(len(leads)), map(operator.not_, leads)):
        leads[i] = first(c["label"][i])  # an untitled paper sorts by its label
    counts = Counter(leads if keep is None else itertools.compress(leads, keep))
    sure: dict[str, int] = {}  # a collated first letter -> how many papers begin with it
    unsure: set[str] = set()  # letters whose collated form may not begin the title's
    keys = {lead: collated(lead) for lead in counts}
    for lead, count in counts.items():
        key = keys[lead]
        if (lead and not key) or any(map(unicodedata.combining, key)):
            unsure.add(lead)  # a mark, dropped or moved: these papers are always read
        elif key:  # (a paper without a title or label to sort by goes last either way)
            sure[key[0]] = sure.get(key[0], 0) + count
    taken, seen = set(), 0
    for key in sorted(sure, reverse=descending):
        if seen >= end:
            break
        taken.add(key)
        seen += sure[key]
    total = len(leads) if keep is None else int(np.count_nonzero(keep))
    if seen < end or 4 * (seen + sum(counts[u] for u in unsure)) > total:
        return None
    wanted = unsure | {lead for lead, key in keys.items() if key[:1] in taken}
    rows = map(wanted.__contains__, leads)
    if keep is not None:
        rows = map(operator.and_, rows, keep.tolist())
    return list(itertools.compress(range(len(leads)), rows))


def order(catalogue: Catalogue, by: str, *, descending: bool = False) -> np.ndarray:
    """Every paper's position sorted ``by`` (as :func:`ordered` sorts), kept on the
    catalogue: about 0.5 s for a text column at 500k papers, then 4 MB."""

    def make() -> np.ndarray:
        keys = sort_keys(catalogue, by, descending=descending)
        ranked = sorted(range(len(catalogue)), key=keys.__getitem__, reverse=descending)
        return np.asarray(ranked, dtype=np.int64)

    return catalogue.memo(("browse:order", by, descending), make)


def sort_keys(
    catalogue: Catalogue, by: str, *, descending: bool = False, rows: Sequence[int] | None = None
) -> list[Any]:
    """The sort keys of these papers (None: all), in their order. What a paper lacks gets
    the key that sorts last in the direction asked."""
    c = catalogue.columns
    cols: dict[str, list[Any]] = {f: c[f] if rows is None else [c[f][i] for i in rows]
                                  for f in _FIELDS.get(by, (by,))}  # fmt: skip
    missing: Any = "" if descending else _LAST
    if by == "title":
        titles = cols["title"]
        if all(titles):
            return collate(titles)
        named = [t or lb for t, lb in zip(titles, cols["label"], strict=True)]  # or its label
        return [k or missing for k in collate(named)]
    if by == "year":
        none = -1 if descending else 1 << 31
        return [none if y is None else y for y in cols["year"]]
    if by == "has_abstract":
        return [bool(h) for h in cols["has_abstract"]]
    if by == "id":
        return list(map(str.casefold, cols["id"]))
    seen: dict[Any, str] = {}  # names, files, collections recur: each is collated once
    if by == "authors":
        return [seen.get(a[0]) or seen.setdefault(a[0], collated(a[0])) if a else missing
                for a in cols["authors"]]  # fmt: skip
    if by == "collections":
        return [seen.get(k) or seen.setdefault(k, collated(", ".join(cs)) or missing)
                for cs in cols["collections"] if (k := tuple(cs)) or True]  # fmt: skip
    names = {s: collated(shown_source(s, "")) for s in set(cols["source"])}
    keys = list(map(names.__getitem__, cols["source"]))
    for i in itertools.compress(range(len(keys)), cols["zotero_uri"]):
        keys[i] = "zotero"
    return keys
