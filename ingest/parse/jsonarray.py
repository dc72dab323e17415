"""The elements of a JSON array, one at a time, in bounded memory.

A JSON array (or a single JSON object) is scanned in 64 KiB pieces: only the bytes of the
element being read are held, and at most ``limit`` of them, so a 4 GB array or one
element of 84 MB costs a Skipped record, not the process's memory (``json.loads`` of the
whole file held it all, several times over). Each element's bytes are handed over
undecoded; the caller decodes them with ``json.loads``. A file cut off in the middle keeps
every element before the cut.

The scanner only follows strings and brackets; it does not validate. An element that is
not valid JSON fails in ``json.loads`` on its own, and the next one is read as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["RawValue", "iter_json_values"]

_PIECE = 1 << 16
_STRUCTURE = re.compile(rb'[\[\]{}",]')
_IN_STRING = re.compile(rb'[\\"]')
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")


@dataclass(frozen=True, slots=True)
class RawValue:
    """One element: its number (from 1), its bytes (empty when ``oversized``), its size.
    ``truncated``: the file ended before the element did."""

    number: int
    data: bytes
    size: int
    oversized: bool = False
    truncated: bool = False


class _Scan:
    """The scanner's state between pieces of the file."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0  # 1 = directly inside the top-level array
        self.started = False  # the top-level '[' (or '{') was seen
        self.finished = False
        self.in_string = False
        self.escaped = False
        self.in_value = False
        self.buf = bytearray()
        self.size = 0
        self.number = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size <= self.limit:
            self.buf += piece
        else:
            self.buf.clear()

    def take(self, *, truncated: bool = False) -> RawValue:
        oversized = self.size > self.limit
        value = RawValue(
            self.number, b"" if oversized else bytes(self.buf), self.size, oversized, truncated
        )
        self.buf.clear()
        self.size = 0
        self.in_value = False
        return value


def iter_json_values(fh: BinaryIO, *, limit: int) -> Iterator[RawValue]:
    """Each element of the JSON array in ``fh`` (or the one top-level object), in order.
    ``fh`` is positioned after any byte-order mark."""
    scan = _Scan(limit)
    while not scan.finished and (piece := fh.read(_PIECE)):
        yield from _scan_piece(scan, piece)
    if scan.in_value:
        yield scan.take(truncated=True)


def _scan_piece(scan: _Scan, piece: bytes) -> Iterator[RawValue]:
    i, end = 0, len(piece)
    start = 0  # where the current element's bytes begin in this piece
    while i < end and not scan.finished:
        if scan.in_string:
            if scan.escaped:
                scan.escaped, i = False, i + 1
                continue
            m = _IN_STRING.search(piece, i)
            if m is None:
                i = end
            elif m.group() == b"\\":
                scan.escaped, i = True, m.end()
            else:
                scan.in_string, i = False, m.end()
                if scan.depth == 1 and scan.in_value:  # a string element ends here
                    scan.add(piece[start:i])
                    yield scan.take()
            continue
        if not scan.in_value and scan.depth <= 1:
            m = _NOT_SPACE.search(piece, i)
            if m is None:
                i = end
                continue
            i, c = m.start(), piece[m.start() : m.start() + 1]
            if not scan.started:
                scan.started = True
                if c == b"[":
                    scan.depth, i = 1, i + 1
                    continue
                scan.depth = 1  # one top-level object (or value): an array of one
            if c == b",":
                i += 1
                continue
            if c == b"]":
                scan.finished = True
                break
            scan.number += 1
            scan.in_value, start = True, i
        m = _STRUCTURE.search(piece, i)
        if m is None:
            i = end
            break
        c, j = m.group(), m.start()
        if c == b'"':
            scan.in_string, i = True, j + 1
        elif c in (b"{", b"["):
            scan.depth, i = scan.depth + 1, j + 1
        elif c in (b"}", b"]"):
            if scan.depth == 1:  # the array closes after a number or literal element
                scan.add(piece[start:j])
                yield scan.take()
                scan.finished = True
                break
            scan.depth, i = scan.depth - 1, j + 1
            if scan.depth == 1:  # an object or array element ends here
                scan.add(piece[start:i])
                yield scan.take()
        else:  # a comma
            i = j + 1
            if scan.depth == 1:  # a number or literal element ends here
                scan.add(piece[start:j])
                yield scan.take()
    if scan.in_value:
        scan.add(piece[start:end])
