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
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CHANGES", "OwnEntries", "chain", "changed_since", "linked", "noted"]

CHANGES = "changes"  # the collection metadata key
MAX_IDS = 2000  # paper ids kept in the log (~50 KB read with every generation check)
MAX_ENTRIES = 64


@dataclass(frozen=True, slots=True)
class Entry:
    new: str
    previous: str
    ids: list[str] | None  # None: unknown
    replaced: dict[str, str] = field(default_factory=dict)
    """Generations whose entries another writer's bump replaced, re-noted here: each with
    the generation before it. A reader still at one of them walks back to that one."""

    def to_json(self) -> list[Any]:
        item: list[Any] = [self.new, self.previous, self.ids]
        return [*item, self.replaced] if self.replaced else item  # 3 items: as before


def _entries(metadata: Mapping[str, Any]) -> list[Entry]:
    """The log's entries, oldest first; malformed ones are left out (the chain breaks there
    and readers rebuild). Writers before #17's repair read only 3-item entries."""
    try:
        raw = json.loads(str(metadata.get(CHANGES) or "[]"))
    except json.JSONDecodeError:
        return []
    if not isinstance(raw, list):
        return []
    out: list[Entry] = []
    for item in raw:
        if isinstance(item, list) and len(item) in (3, 4):
            ids = None if item[2] is None else [str(i) for i in item[2]]
            gone = item[3] if len(item) == 4 and isinstance(item[3], dict) else {}
            replaced = {str(k): str(v) for k, v in gone.items()}
            out.append(Entry(str(item[0]), str(item[1]), ids, replaced))
    return out


def noted(
    metadata: Mapping[str, Any],
    generation: str,
    ids: Iterable[str] | None,
    replaced: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``metadata`` with ``generation`` as the new generation and an entry noting that it
    changed ``ids`` (None: unknown, readers rebuild), and re-notes the ``replaced``
    generations ({lost generation: the one before it}). Old entries drop out beyond the
    bounds."""
    previous = str(metadata.get("generation", "0"))
    touched = None if ids is None else sorted(set(ids))
    if touched is not None and len(touched) > MAX_IDS:
        touched = None
    entry = Entry(generation, previous, touched, dict(replaced or {}))
    entries = [*_entries(metadata), entry][-MAX_ENTRIES:]
    while len(entries) > 1 and sum(len(e.ids or ()) for e in entries) > MAX_IDS:
        entries.pop(0)
    log = json.dumps([e.to_json() for e in entries])
    return {**metadata, "generation": generation, CHANGES: log}


def _standing_for(entries: list[Entry], generation: str) -> set[str]:
    """``generation`` and, if its entry was replaced and re-noted, the one before it (and so
    on): a reader at it may walk back to any of them."""
    replaced = {lost: before for e in entries for lost, before in e.replaced.items()}
    targets = {generation}
    while generation in replaced and replaced[generation] not in targets:
        generation = replaced[generation]
        targets.add(generation)
    return targets


def changed_since(metadata: Mapping[str, Any], generation: str) -> set[str] | None:
    """The papers changed between ``generation`` and the metadata's current one, or None
    when the log cannot tell. A ``generation`` whose entry was replaced and re-noted counts
    as the one before it (re-applying its own papers is harmless)."""
    entries = _entries(metadata)
    targets = _standing_for(entries, generation)
    by_new = {e.new: e for e in entries}
    current = str(metadata.get("generation", "0"))
    touched: set[str] = set()
    seen: set[str] = set()
    while current not in targets:
        if current in seen or current not in by_new:
            return None
        seen.add(current)
        entry = by_new[current]
        if entry.ids is None:
            return None
        touched.update(entry.ids)
        current = entry.previous
    return touched


def linked(metadata: Mapping[str, Any], generation: str) -> bool:
    """Whether the log links ``generation`` to the current one (its entries may still say
    "unknown"). Not linked: it fell out of the bounded log, or its entry was lost and its
    writer has not noted it again yet."""
    entries = _entries(metadata)
    targets = _standing_for(entries, generation)
    return bool(targets.intersection(chain(metadata)))


def chain(metadata: Mapping[str, Any]) -> list[str]:
    """The generations reachable from the current one through the entries' previous links,
    newest first (the current one included, even with no entry)."""
    by_new = {e.new: e.previous for e in _entries(metadata)}
    out = [str(metadata.get("generation", "0"))]
    while out[-1] in by_new and by_new[out[-1]] not in out:
        out.append(by_new[out[-1]])
    return out


class OwnEntries:
    """The entries one writer made lately, to note their papers again if another writer's
    bump replaced them (see the module's docstring)."""

    KEEP = 8

    def __init__(self) -> None:
        self._mine: dict[str, Entry] = {}
        self._seen = ""  # the current generation when this writer last looked
        self._others_at = float("-inf")  # when another writer's bump was last seen

    def saw(self, metadata: Mapping[str, Any]) -> None:
        self._seen = str(metadata.get("generation", "0"))

    def made(
        self,
        generation: str,
        previous: str,
        ids: Iterable[str] | None,
        replaced: Mapping[str, str] | None = None,
    ) -> None:
        touched = None if ids is None else sorted(set(ids))
        self._mine[generation] = Entry(generation, previous, touched, dict(replaced or {}))
        self._seen = generation
        while len(self._mine) > self.KEEP:
            del self._mine[next(iter(self._mine))]

    def look(self, metadata: Mapping[str, Any]) -> list[str]:
        """These entries' generations that are no longer on the chain. Notes whether another
        writer bumped since this one last looked; an entry with another on top of it is kept
        by every later write, and forgotten here (the newest is checked again later)."""
        on_chain = chain(metadata)
        if self._seen and on_chain[0] != self._seen:
            self._others_at = time.monotonic()
        self._seen = on_chain[0]
        for generation in [g for g in self._mine if g in on_chain and g != on_chain[0]]:
            del self._mine[generation]
        return [g for g in self._mine if g not in on_chain]

    def lost(self, metadata: Mapping[str, Any]) -> tuple[set[str] | None, dict[str, str]]:
        """(the papers of the entries no longer on the chain, to note again (None: one of
        them noted "unknown", and so must the next); {their generations: the one before
        each, and those they re-noted in turn}), and forgets them: the entry that notes
        them again is the one to watch."""
        again: set[str] | None = set()
        replaced: dict[str, str] = {}
        for generation in self.look(metadata):
            entry = self._mine.pop(generation)
            replaced |= entry.replaced | {generation: entry.previous}
            again = None if entry.ids is None or again is None else again | set(entry.ids)
        return again, replaced

    def unsure(self, seconds: float = 600.0) -> bool:
        """Whether an entry is not yet known to be kept while another writer bumped between
        two reads of this one's, lately."""
        return bool(self._mine) and time.monotonic() - self._others_at < seconds
