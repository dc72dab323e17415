"""The catalogue: every stored paper's metadata (not its abstract), kept by column.

It is what filters, hits and the paper list read, and it loads at every start, so it is
stored and held as columns: one JSON document of lists, not one object per paper. A
``PaperRow`` is made only for a paper someone asks for. It loads in 0.055 s for 52k
papers where a JSON line per paper, each made into a row, took 0.31 s, and in 1.1 s for
526k papers against 3.3 s (bench/startup.py, docs/benchmarks.md). What is worked out from
it and worth keeping (the library panel's sort orders and search text: rag.index.browse) is
kept on the object (:meth:`Catalogue.memo`); a change of the library makes a new one.
"""

from __future__ import annotations

import bisect
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rag.records import PaperRow

__all__ = [
    "FIELDS",
    "Catalogue",
    "add_row",
    "columns_of",
    "compact",
    "empty_columns",
    "in_source_order",
]

# PaperRow's fields, in its order, but the abstract: that stays in the store.
FIELDS = (
    "id", "label", "title", "authors", "year", "source", "position", "n_chunks", "url", "doi",
    "has_abstract", "entry_type", "cite_key", "collections", "zotero_uri", "coined", "acronyms",
)  # fmt: skip

T = TypeVar("T")


class Catalogue(Mapping[str, PaperRow]):
    """Paper id -> :class:`PaperRow`, in the order given (the store's source order).
    ``position(pid)`` is the paper's index, which is its BM25 document number."""

    def __init__(self, columns: Mapping[str, list[Any]]) -> None:
        missing = [f for f in FIELDS if f not in columns]
        if missing:
            raise ValueError(f"catalogue columns missing: {', '.join(missing)}")
        n = len(columns["id"])
        if any(len(columns[f]) != n for f in FIELDS):
            raise ValueError("catalogue columns differ in length")
        self._cols = {f: columns[f] for f in FIELDS}
        self.ids: list[str] = self._cols["id"]
        self._index = dict(zip(self.ids, range(n), strict=True))
        if len(self._index) != n:
            raise ValueError("catalogue has a paper id twice")
        self.n_chunks = sum(self._cols["n_chunks"])
        self._memo: dict[Any, Any] = {}
        self._memo_lock = threading.Lock()
        self._memo_locks: dict[Any, threading.Lock] = {}

    @classmethod
    def from_rows(cls, rows: Iterable[PaperRow]) -> Catalogue:
        return cls(columns_of(rows))

    @property
    def columns(self) -> Mapping[str, list[Any]]:
        return self._cols

    def changed(self, rows: Iterable[PaperRow], removed: Iterable[str] = ()) -> Catalogue:
        """A new catalogue: the ``removed`` papers out, ``rows`` in (a paper already here is
        replaced), each at its place in source order. Columns are copied by slices, so a
        change of a few papers costs a copy of each column (0.1 s at 525k papers), not a
        row-by-row rebuild."""
        new = sorted(rows, key=lambda r: (r.source, r.position, r.id))
        gone = (set(removed) | {r.id for r in new}) & self._index.keys()
        drops = sorted(self._index[pid] for pid in gone)
        cols = {f: _spliced(c, [(d, d + 1, None) for d in drops]) for f, c in self._cols.items()}
        source, position, ids = cols["source"], cols["position"], cols["id"]
        everything = range(len(ids))
        at = [
            bisect.bisect_right(everything, (r.source, r.position, r.id),
                                key=lambda i: (source[i], position[i], ids[i]))
            for r in new
        ]  # fmt: skip
        added = columns_of(new)
        return Catalogue({
            f: _spliced(c, [(p, p, v) for p, v in zip(at, added[f], strict=True)])
            for f, c in cols.items()
        })  # fmt: skip

    # -- the mapping ------------------------------------------------------------------------

    def __getitem__(self, pid: str) -> PaperRow:
        return self.row(self._index[pid])

    def __contains__(self, pid: object) -> bool:
        return pid in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, i: int) -> PaperRow:
        return PaperRow.from_mapping({f: column[i] for f, column in self._cols.items()})

    def page(self, offset: int, limit: int) -> list[PaperRow]:
        """Papers ``offset`` to ``offset + limit`` (fewer at the end), in order."""
        return [self.row(i) for i in range(offset, min(offset + limit, len(self)))]

    def position(self, pid: str) -> int | None:
        return self._index.get(pid)

    def select(
        self, keep: Callable[[int | None, Sequence[str], str, Sequence[str], str], bool]
    ) -> set[str]:
        """Ids of the papers for which ``keep(year, authors, source, collections, id)``
        holds; no rows made."""
        c = self._cols
        columns = zip(self.ids, c["year"], c["authors"], c["source"], c["collections"], strict=True)
        return {pid for pid, y, a, s, cs in columns if keep(y, a, s, cs, pid)}

    # -- kept for this catalogue ---------------------------------------------------------------

    def memo(self, name: Any, make: Callable[[], T]) -> T:
        """``make()``, made once for this catalogue (a catalogue never changes: a change of
        the library makes a new one, so nothing kept here goes stale)."""
        with self._memo_lock:  # one lock a name: a slow one does not hold up the rest
            lock = self._memo_locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._memo:
                self._memo[name] = make()
            return self._memo[name]  # type: ignore[no-any-return]

    def kept(self, name: Any) -> Any:
        """What :meth:`memo` keeps under ``name``, or None (nothing is made)."""
        return self._memo.get(name)

    # -- persistence ------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as fh:
            json.dump(self._cols, fh, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def load(cls, path: Path) -> Catalogue:
        """Raises OSError or ValueError if the file is missing, damaged or not a catalogue."""
        with path.open(encoding="utf-8") as fh:
            columns = json.load(fh)
        if not isinstance(columns, dict):
            raise ValueError(f"{path}: not a catalogue")
        return cls(columns)


def empty_columns() -> dict[str, list[Any]]:
    return {f: [] for f in FIELDS}


def add_row(columns: dict[str, list[Any]], row: PaperRow) -> None:
    """Append ``row``'s fields to ``columns`` (made by :func:`empty_columns`)."""
    for f in FIELDS:
        value = getattr(row, f)
        columns[f].append(tuple(value) if f in _LISTS else value)


_LISTS = ("authors", "collections", "acronyms")
_REPEATED = ("source", "year", "entry_type", "coined")  # few distinct values among many papers


def compact(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """``columns`` (as read from JSON or the store) holding one object per distinct value
    where values repeat: a file's path, a year, an entry type, an author's name, the empty
    list; the lists become tuples. At 30k SciFact papers: 649 -> 470 bytes a paper (one
    list and one path string per paper were most of it); it is what every process holds."""
    for f in _REPEATED:
        one: dict[Any, Any] = {}
        columns[f] = list(map(one.setdefault, columns[f], columns[f]))
    names: dict[str, str] = {}
    single: dict[str, tuple[str]] = {}
    for f in _LISTS:
        columns[f] = [
            ()
            if not value
            else single.setdefault(value[0], (names.setdefault(value[0], value[0]),))
            if len(value) == 1
            else tuple(map(names.setdefault, value, value))
            for value in columns[f]
        ]
    return columns


def columns_of(rows: Iterable[PaperRow]) -> dict[str, list[Any]]:
    """The catalogue's columns for these rows, in their order."""
    cols = empty_columns()
    for r in rows:
        add_row(cols, r)
    return cols


def in_source_order(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """``columns`` with their rows sorted as a catalogue keeps them: by (source, position,
    id). The lists are emptied as their sorted copies are made."""
    source, position, ids = columns["source"], columns["position"], columns["id"]
    order = sorted(range(len(ids)), key=lambda i: (source[i], position[i], ids[i]))
    out: dict[str, list[Any]] = {}
    for f in FIELDS:
        column = columns[f]
        out[f] = [column[i] for i in order]
        column.clear()
    return out


def _spliced(column: list[Any], edits: list[tuple[int, int, Any]]) -> list[Any]:
    """``column`` with the ``(start, end, value)`` edits, in order: an insertion of ``value``
    before ``start`` when ``start == end``, else the removal of ``column[start:end]``."""
    if not edits:
        return list(column)
    out: list[Any] = []
    previous = 0
    for start, end, value in edits:
        out += column[previous:start]
        if end == start:
            out.append(value)
        previous = end
    out += column[previous:]
    return out
