"""CSV and TSV files with a header row of generic columns.

Column names are matched case-insensitively: ``abstract`` (or ``text``/``summary``) is
required; ``id``, ``title``, ``authors``/``author``, ``year``, ``url`` and ``doi`` are used
when present. Authors are split on ``;`` and `` and `` (commas may sit inside a name).
``Paper.position`` is the line on which the data row starts (the header is line 1).
The delimiter is a tab for ``.tsv`` and otherwise whichever of tab/comma the header uses more.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from rag.errors import ParseError
from rag.records import Notice, Skipped

from .clean import ABSTRACT_FIELDS, Draft, clean_doi, parse_year, split_authors
from .files import MAX_RECORD_BYTES, decode_utf8, iter_raw_lines, too_large

__all__ = ["parse_tabular"]


class _Lines:
    """Decoded lines for :mod:`csv`, remembering which physical lines each row used."""

    def __init__(self, path: Path, source: str) -> None:
        self._fh = path.open("rb")
        self._raw = iter_raw_lines(self._fh)
        self.source = source
        self.used: list[int] = []
        self.problems: list[Skipped] = []

    def __iter__(self) -> Iterator[str]:
        for line in self._raw:
            if line.oversized:
                reason = f"line is {too_large(line.size, MAX_RECORD_BYTES)} for one row: drop it"
                self.problems.append(Skipped(self.source, line.number, reason))
                continue
            try:
                text = decode_utf8(line.data, offset=line.offset)
            except ParseError as exc:
                self.problems.append(Skipped(self.source, line.number, exc.reason))
                continue
            self.used.append(line.number)
            yield text + "\n"

    def close(self) -> None:
        self._fh.close()


def parse_tabular(path: Path) -> Iterator[Draft | Skipped | Notice]:
    source = str(path)
    lines = _Lines(path, source)
    try:
        yield from _rows(path, source, lines)
    finally:
        lines.close()


def _rows(path: Path, source: str, lines: _Lines) -> Iterator[Draft | Skipped | Notice]:
    rows = iter(lines)
    first = next(rows, None)
    yield from _drain(lines)
    if first is None:
        return
    delimiter = _delimiter(path, first)
    header = [name.strip().lower() for name in next(csv.reader([first], delimiter=delimiter))]
    column = {name: i for i, name in reversed(list(enumerate(header))) if name}
    abstract_col = next((column[name] for name in ABSTRACT_FIELDS if name in column), None)
    if abstract_col is None:
        found = ", ".join(repr(name) for name in header if name) or "none"
        yield Skipped(
            source,
            1,
            f"no 'abstract' column (also accepted: 'text', 'summary'); columns found: {found}: "
            "add an abstract column to the header row",
        )
        return
    reader = csv.reader(rows, delimiter=delimiter, strict=True)
    while True:
        lines.used.clear()
        try:
            row = next(reader, None)
        except csv.Error as exc:
            yield from _drain(lines)
            start = lines.used[0] if lines.used else None
            yield Skipped(
                source, start, f"unreadable row ({exc}): check for an unclosed or stray quote"
            )
            continue
        yield from _drain(lines)
        if row is None:
            return
        if not any(cell.strip() for cell in row):
            continue

        def cell(*names: str, row: list[str] = row) -> str:
            for name in names:
                i = column.get(name)
                if i is not None and i < len(row):
                    return row[i]
            return ""

        yield Draft(
            source,
            lines.used[0],
            row[abstract_col] if abstract_col < len(row) else "",
            id=cell("id"),
            title=cell("title"),
            authors=split_authors(cell("authors", "author"), commas=False),
            year=parse_year(cell("year")),
            url=cell("url"),
            doi=clean_doi(cell("doi")),
        )


def _drain(lines: _Lines) -> Iterator[Skipped]:
    yield from lines.problems
    lines.problems.clear()


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    return "\t" if header.count("\t") > header.count(",") else ","
