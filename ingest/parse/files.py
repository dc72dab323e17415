"""Reading input bytes safely: bounded lines, UTF-8 decoding with byte offsets, binary sniffing.

Every parser reads through these helpers so that a 50 MB line, a stray PNG or one badly
encoded line costs a Skipped record, never the whole file or the process's memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from rag.errors import ParseError

__all__ = [
    "BOM",
    "MAX_DOCUMENT_BYTES",
    "MAX_RECORD_BYTES",
    "SNIFF_BYTES",
    "RawLine",
    "decode_utf8",
    "iter_raw_lines",
    "read_head",
    "sniff_binary",
    "too_large",
]

MAX_RECORD_BYTES = 1 << 20
"""One record (a JSONL line, a CSV line, a seed block, a BibTeX entry) may be at most 1 MiB."""

MAX_DOCUMENT_BYTES = 256 << 20
"""Formats read whole (a JSON array, a .bib file) may be at most 256 MiB."""

SNIFF_BYTES = 8192
BOM = b"\xef\xbb\xbf"

_DRAIN_CHUNK = 1 << 20
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or .docx/.xlsx)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_FIX_BINARY = (
    "paperchat reads UTF-8 text files (.txt, .jsonl, .json, .csv, .tsv, .bib, .ris): "
    "remove it from the input or export it as text"
)


@dataclass(frozen=True, slots=True)
class RawLine:
    """One physical line of a file, without its line terminator.

    ``offset`` is the file offset of ``data[0]``. An ``oversized`` line was longer than the
    limit: its bytes were read and dropped (``data`` is empty) and ``size`` says how long it was.
    ``terminated`` is False only for a last line that does not end in a newline.
    """

    number: int
    offset: int
    data: bytes
    size: int
    oversized: bool = False
    terminated: bool = True


def read_head(fh: BinaryIO, size: int = SNIFF_BYTES) -> bytes:
    """The first ``size`` bytes, leaving the file positioned at the start."""
    head = fh.read(size)
    fh.seek(0)
    return head


def sniff_binary(head: bytes) -> str | None:
    """If ``head`` is clearly not UTF-8 text, why (a sentence fragment with the fix)."""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return f"looks like {what}, not text: {_FIX_BINARY}"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "is UTF-16 encoded: re-save the file as UTF-8"
    if b"\x00" in head:
        return f"contains NUL bytes, so it is binary data, not text: {_FIX_BINARY}"
    return None


def too_large(size: int, limit: int) -> str:
    return f"{size:,} bytes, over the {limit:,}-byte limit"


def iter_raw_lines(fh: BinaryIO, *, limit: int = MAX_RECORD_BYTES) -> Iterator[RawLine]:
    """Lines of a binary file, each at most ``limit`` bytes held in memory at once.

    A UTF-8 byte-order mark at the start of the file is dropped.
    """
    number = 0
    offset = 0
    while True:
        chunk = fh.readline(limit + 1)
        if not chunk:
            return
        number += 1
        start = offset
        offset += len(chunk)
        if number == 1 and chunk.startswith(BOM):
            chunk = chunk[len(BOM) :]
            start += len(BOM)
        if len(chunk) > limit and not chunk.endswith(b"\n"):
            size = len(chunk)
            terminated = False
            while more := fh.readline(_DRAIN_CHUNK):
                offset += len(more)
                size += len(more)
                if more.endswith(b"\n"):
                    terminated = True
                    size -= 1  # the size of the line's content, as for other lines
                    break
            yield RawLine(number, start, b"", size, oversized=True, terminated=terminated)
            continue
        terminated = chunk.endswith(b"\n")
        data = chunk[:-1] if terminated else chunk
        if data.endswith(b"\r"):
            data = data[:-1]
        yield RawLine(number, start, data, len(data), terminated=terminated)


def decode_utf8(data: bytes, *, offset: int) -> str:
    """Decode ``data`` (found at file ``offset``); :class:`ParseError` names the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"not valid UTF-8 at byte {offset + exc.start}: re-save the file as UTF-8"
        ) from None
