"""``parse_file``: the one entry point that turns a file into Papers, Skipped and Notices."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from rag.errors import IngestError
from rag.records import Notice, Paper, Skipped

from .bibtex import parse_bibtex
from .clean import Draft, build_paper
from .csljson import parse_csljson
from .detect import FORMATS, detect_format
from .files import BOM, read_head, sniff_binary
from .jsonl import parse_jsonl
from .pdf import parse_pdf
from .ris import parse_ris
from .seeds import parse_seeds
from .tabular import parse_tabular

__all__ = ["parse_file"]

_PARSERS: dict[str, Callable[[Path], Iterator[Draft | Skipped | Notice]]] = {
    "seed": parse_seeds,
    "jsonl": parse_jsonl,
    "csv": parse_tabular,
    "bibtex": parse_bibtex,
    "csljson": parse_csljson,
    "ris": parse_ris,
    "pdf": parse_pdf,
}


def parse_file(
    path: Path, *, format: str | None = None, abstract_only: bool = False
) -> Iterator[Paper | Skipped | Notice]:
    """Papers from one file, with a Skipped for each unusable record and Notices.

    ``format=None`` detects the format (see :func:`detect_format`). Bad content never raises:
    an empty, binary or unreadable file gives one Skipped; a bad record gives one Skipped
    naming its position; a duplicate id keeps the first record. An unknown ``format`` or an
    undetectable one raises :class:`IngestError`. A PDF's body is read too, unless
    ``abstract_only``.
    """
    source = str(path)
    if format is not None and format not in FORMATS:
        raise IngestError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")
    try:
        with path.open("rb") as fh:
            head = read_head(fh)
    except OSError as exc:
        yield Skipped(source, None, f"cannot read the file ({exc.strerror}): check the path")
        return
    if not head.removeprefix(BOM).strip():
        yield Skipped(source, None, "file is empty: add abstracts or remove it from the input")
        return
    pdf = path.suffix.lower() == ".pdf" or head.lstrip().startswith(b"%PDF-")
    if format == "pdf" or (format is None and pdf):
        fmt = "pdf"  # binary by nature: the PDF parser says what is wrong with it
    elif binary := sniff_binary(head):
        yield Skipped(source, None, f"file {binary}")
        return
    else:
        fmt = format or detect_format(path)

    first_position: dict[str, int] = {}
    records = 0
    items = parse_pdf(path, full_text=not abstract_only) if fmt == "pdf" else _PARSERS[fmt](path)
    for item in items:
        if not isinstance(item, Draft):
            records += isinstance(item, Skipped)
            yield item
            continue
        records += 1
        paper, notices = build_paper(item)
        if isinstance(paper, Paper):
            first = first_position.setdefault(paper.id, paper.position)
            if first != paper.position:
                yield item.skip(
                    f"duplicate id {paper.id!r}: record {first} in this file has the same id; "
                    "kept the first, remove or re-id this one"
                )
                continue
        yield from notices
        yield paper
    if not records:
        yield Skipped(
            source, None, f"no records found (read as {fmt}): check the file's content and format"
        )
