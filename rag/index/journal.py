"""The catalogue on disk: a snapshot, and a journal of the changes made since it.

An index that grows and shrinks in place cannot rewrite a 500k-paper catalogue on every
change, so each change is one appended line (the rows added, the ids removed, the store's
generation after it), written and fsynced after the postings are committed. Loading reads
the snapshot and replays the journal; when the journal grows past a share of the snapshot,
the two are folded into a new snapshot (written aside, then renamed over the old one).

Crash safety: a torn last line (a kill mid-append) is not a change: it is ignored, and the
generation stays the previous one, so the next sync applies that change again (applying is
idempotent: a paper's row is replaced, a removal of an absent paper is nothing). Replaying
a journal over a newer snapshot (a kill between the snapshot's rename and the journal's
truncation) gives the same catalogue, because each line sets its papers to a final state.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.index.catalogue import FIELDS, Catalogue, columns_of, compact
from rag.records import PaperRow

__all__ = ["JOURNAL", "SNAPSHOT", "Stamp", "append", "read", "write_snapshot"]

SNAPSHOT = "catalogue.json"
JOURNAL = "journal.jsonl"
# Fold the journal into the snapshot beyond COMPACT_BYTES and COMPACT_SHARE of the snapshot:
# at 525k papers (a 55 MB snapshot) every ~1,500 additions of 100 bench papers (10.6 KB a
# line), each fold ~5 s on the shared bench machine (docs/benchmarks.md).
COMPACT_BYTES = 16_000_000
COMPACT_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class Stamp:
    """What was read from disk: tells whether another process has written since."""

    snapshot: tuple[int, int]  # inode, mtime_ns
    journal_bytes: int


def _stamp(directory: Path, journal_bytes: int) -> Stamp:
    st = (directory / SNAPSHOT).stat()
    return Stamp((st.st_ino, st.st_mtime_ns), journal_bytes)


def current_stamp(directory: Path) -> Stamp | None:
    try:
        size = (directory / JOURNAL).stat().st_size if (directory / JOURNAL).exists() else 0
        return _stamp(directory, size)
    except OSError:
        return None


def read(directory: Path) -> tuple[Catalogue, str, Stamp]:
    """(the catalogue, the store generation it is current with, its stamp). Raises OSError
    or ValueError when the snapshot is missing or damaged."""
    with (directory / SNAPSHOT).open(encoding="utf-8") as fh:
        snapshot = json.load(fh)
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("columns"), dict):
        raise ValueError(f"{directory / SNAPSHOT}: not a catalogue snapshot")
    stamp = _stamp(directory, 0)
    catalogue = Catalogue(compact(snapshot["columns"]))
    return _replay(directory, catalogue, str(snapshot["generation"]), stamp)


def read_tail(
    directory: Path, catalogue: Catalogue, generation: str, stamp: Stamp
) -> tuple[Catalogue, str, Stamp] | None:
    """What :func:`read` would give, from a catalogue read earlier at ``stamp``: only the
    journal lines written since are read. None when the snapshot was replaced since (a
    fold, a rebuild): read it all."""
    current = current_stamp(directory)
    if current is None or current.snapshot != stamp.snapshot:
        return None
    if current.journal_bytes < stamp.journal_bytes:
        return None
    return _replay(directory, catalogue, generation, stamp)


def _replay(
    directory: Path, catalogue: Catalogue, generation: str, stamp: Stamp
) -> tuple[Catalogue, str, Stamp]:
    """The journal's whole lines after ``stamp`` applied to ``catalogue``."""
    final: dict[str, PaperRow | None] = {}
    used = stamp.journal_bytes
    try:
        with (directory / JOURNAL).open("rb") as fh:
            fh.seek(used)
            for line in fh:
                try:
                    entry = json.loads(line)
                    rows = _rows(entry["rows"])
                    removed = [str(pid) for pid in entry["removed"]]
                    entry_generation = str(entry["generation"])
                except (ValueError, KeyError, TypeError):
                    break  # a torn or damaged line ends the journal
                final.update(dict.fromkeys(removed))
                final.update((r.id, r) for r in rows)
                generation = entry_generation
                used += len(line)
    except FileNotFoundError:
        pass
    if final:
        gone = [pid for pid, row in final.items() if row is None]
        catalogue = catalogue.changed([r for r in final.values() if r is not None], gone)
    return catalogue, generation, Stamp(stamp.snapshot, used)


def _rows(columns: dict[str, list[Any]]) -> list[PaperRow]:
    n = len(columns["id"])
    return [PaperRow.from_mapping({f: columns[f][i] for f in FIELDS}) for i in range(n)]


def append(
    directory: Path,
    rows: Sequence[PaperRow],
    removed: Iterable[str],
    generation: str,
    stamp: Stamp,
) -> Stamp:
    """Note a change after the postings hold it; returns the new stamp. ``stamp`` is what
    the caller read (a torn tail beyond it is cut off first, so the line is whole)."""
    entry = {"generation": generation, "removed": sorted(removed), "rows": columns_of(rows)}
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    with (directory / JOURNAL).open("ab") as fh:
        fh.truncate(stamp.journal_bytes)
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())
    return Stamp(stamp.snapshot, stamp.journal_bytes + len(line))


def should_compact(directory: Path, stamp: Stamp) -> bool:
    snapshot_bytes = (directory / SNAPSHOT).stat().st_size
    return stamp.journal_bytes > max(COMPACT_BYTES, COMPACT_SHARE * snapshot_bytes)


def write_snapshot(directory: Path, catalogue: Catalogue, generation: str) -> Stamp:
    """Replace the snapshot with ``catalogue`` and empty the journal (each step atomic)."""
    tmp = directory / (SNAPSHOT + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump({"generation": generation, "columns": catalogue.columns}, fh,
                  ensure_ascii=False, separators=(",", ":"))  # fmt: skip
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, directory / SNAPSHOT)
    empty = directory / (JOURNAL + ".tmp")
    empty.write_bytes(b"")
    os.replace(empty, directory / JOURNAL)
    _fsync_dir(directory)
    return _stamp(directory, 0)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
