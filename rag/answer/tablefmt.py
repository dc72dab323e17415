"""A review table written out: Markdown (row by row, so a long table streams), CSV, and the
BibTeX entries of its papers."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from rag.answer.cite import Citation, Source
from rag.answer.references import format_references
from rag.answer.table import Cell, Row
from rag.records import PaperRow

__all__ = ["bibtex", "cell_text", "csv_header", "csv_row", "csv_text", "markdown",
           "markdown_header", "markdown_row"]  # fmt: skip


def cell_text(cell: Cell) -> str:
    """What a cell shows, with where a body quote is ("... (p. 7, Results)")."""
    where = ", ".join(x for x in (f"p. {cell.page}" if cell.page else "", cell.section) if x)
    return f"{cell.shown} ({where})" if cell.stated and where else cell.shown


def _md(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def _paper(row: Row) -> str:
    year = f" ({row.year})" if row.year else ""
    return f"{row.label or row.title}{year}"


def markdown_header(columns: Sequence[str]) -> str:
    heads = ["Paper", *columns]
    return "\n".join(["| " + " | ".join(_md(h) for h in heads) + " |",
                      "|" + "---|" * len(heads)])  # fmt: skip


def markdown_row(row: Row) -> str:
    return "| " + " | ".join(_md(x) for x in [_paper(row), *map(cell_text, row.cells)]) + " |"


def markdown(columns: Sequence[str], rows: Sequence[Row]) -> str:
    return "\n".join([markdown_header(columns), *map(markdown_row, rows)]) + "\n"


def csv_header(columns: Sequence[str]) -> str:
    return _csv(["paper_id", "paper", "title", "year", *columns])


def csv_row(row: Row) -> str:
    return _csv([row.paper_id, row.label, row.title, row.year or "", *map(cell_text, row.cells)])


def csv_text(columns: Sequence[str], rows: Sequence[Row]) -> str:
    return csv_header(columns) + "".join(map(csv_row, rows))


def _csv(values: Sequence[object]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(values)
    return out.getvalue()


def bibtex(papers: Sequence[PaperRow]) -> str:
    """The papers' BibTeX entries (their own entry type and key when their metadata has
    them), as answers' references are written."""
    cited = [Citation(n, Source.from_paper(n, p), "") for n, p in enumerate(papers, 1)]
    return format_references(cited, "bibtex")
