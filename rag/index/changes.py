"""Which papers each recent generation of the store changed, kept in the collection's metadata.

Every writer that bumps the store's generation also notes the paper ids it touched: an entry
``[new generation, previous generation, ids]``. A process whose lexical index is at
generation ``g`` walks back from the current generation through the entries' previous links;
if it reaches ``g``, the papers to bring up to date are the union of the ids on the way
(whatever their state now: present in the store or gone), and nothing else changed. If the
chain breaks (``g`` has fallen out of the bounded log, an entry noted "unknown" as a reset
does, or a writer of an older version bumped without noting), the caller cannot tell what
changed and rebuilds.

Chroma has no compare-and-swap on metadata: two writers that bump at the same instant can
lose one's entry (a write made from metadata read before the other's write replaces it). A
process at the lost generation then rebuilds, and one at an older generation would miss the
lost papers; so each writer remembers its last few entries (:class:`OwnEntries`), reads the
log back right after writing and at its next bump, and notes again any of its entries that
are no longer on the chain. A writer's last bump has no next one: when it has seen another
writer lately, it reads the log back a few more times over ~2 s before it is done
(``Store.confirm_changes``). What stays open: a write made from metadata read before the
last bump and landing after all of that (bench/concurrent_writers.py measures what is left).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["CHANGES", "OwnEntries", "chain", "changed_since", "noted"]

CHANGES = "changes"  # the collection metadata key
MAX_IDS = 2000  # paper ids kept in the log (~50 KB read with every generation check)
MAX_ENTRIES = 64

Entry = tuple[str, str, list[str] | None]


def _entries(metadata: Mapping[str, Any]) -> list[Entry]:
    try:
        raw = json.loads(str(metadata.get(CHANGES) or "[]"))
    except json.JSONDecodeError:
        return []
    if not isinstance(raw, list):
        return []
    out: list[Entry] = []
    for item in raw:
        if isinstance(item, list) and len(item) == 3:
            ids = item[2]
            out.append((str(item[0]), str(item[1]), None if ids is None else [str(i) for i in ids]))
    return out


def noted(
    metadata: Mapping[str, Any], generation: str, ids: Iterable[str] | None
) -> dict[str, Any]:
    """``metadata`` with ``generation`` as the new generation and an entry noting that it
    changed ``ids`` (None: unknown, readers rebuild). Old entries drop out beyond the bounds."""
    previous = str(metadata.get("generation", "0"))
    touched = None if ids is None else sorted(set(ids))
    if touched is not None and len(touched) > MAX_IDS:
        touched = None
    entries = [*_entries(metadata), (generation, previous, touched)][-MAX_ENTRIES:]
    while len(entries) > 1 and sum(len(e[2] or ()) for e in entries) > MAX_IDS:
        entries.pop(0)
    return {**metadata, "generation": generation, CHANGES: json.dumps(entries)}


def changed_since(metadata: Mapping[str, Any], generation: str) -> set[str] | None:
    """The papers changed between ``generation`` and the metadata's current one, or None
    when the log cannot tell."""
    current = str(metadata.get("generation", "0"))
    by_new = {new: (previous, ids) for new, previous, ids in _entries(metadata)}
    touched: set[str] = set()
    seen: set[str] = set()
    while current != generation:
        if current in seen or current not in by_new:
            return None
        seen.add(current)
        previous, ids = by_new[current]
        if ids is None:
            return None
        touched.update(ids)
        current = previous
    return touched


def chain(metadata: Mapping[str, Any]) -> list[str]:
    """The generations reachable from the current one through the entries' previous links,
    newest first (the current one included, even with no entry)."""
    by_new = {new: previous for new, previous, _ in _entries(metadata)}
    out = [str(metadata.get("generation", "0"))]
    while out[-1] in by_new and by_new[out[-1]] not in out:
        out.append(by_new[out[-1]])
    return out


class OwnEntries:
    """The entries one writer made lately, to note their papers again if another writer's
    bump replaced them (see the module's docstring)."""

    KEEP = 8

    def __init__(self) -> None:
        self._mine: dict[str, list[str] | None] = {}
        self._seen = ""  # the current generation when this writer last looked
        self._others_at = float("-inf")  # when another writer's bump was last seen

    def saw(self, metadata: Mapping[str, Any]) -> None:
        self._seen = str(metadata.get("generation", "0"))

    def made(self, generation: str, ids: Iterable[str] | None) -> None:
        self._mine[generation] = None if ids is None else sorted(set(ids))
        self._seen = generation
        while len(self._mine) > self.KEEP:
            del self._mine[next(iter(self._mine))]

    def lost(self, metadata: Mapping[str, Any]) -> set[str] | None:
        """The papers of these entries that are no longer on the chain, to note again (None:
        one of them noted "unknown", and so must the next). An entry with another on top of
        it is kept by every later write, and forgotten here; the newest is checked again."""
        on_chain = chain(metadata)
        if self._seen and on_chain[0] != self._seen:
            self._others_at = time.monotonic()
        self._seen = on_chain[0]
        again: set[str] | None = set()
        for generation, ids in list(self._mine.items()):
            if generation in on_chain:
                if generation != on_chain[0]:
                    del self._mine[generation]
                continue
            del self._mine[generation]
            again = None if ids is None or again is None else again | set(ids)
        return again

    def unsure(self, seconds: float = 600.0) -> bool:
        """Whether an entry is not yet known to be kept while another writer bumped between
        two reads of this one's, lately."""
        return bool(self._mine) and time.monotonic() - self._others_at < seconds
