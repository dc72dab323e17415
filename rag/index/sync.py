"""Where a collection's lexical index lives, and keeping it current with the store.

The BM25 index and catalogue are built from the store's own contents and saved beside it;
the store's *generation* they are current with is saved with them, so any process (one
sharing a Chroma server with other writers too) can tell when to catch up: by applying the
papers the store's change log names since that generation, or, when the log cannot tell,
by rebuilding.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rag.index.lexical import Bm25Params, LexicalIndex
from rag.index.store import DEFAULT_DATABASE

if TYPE_CHECKING:
    from rag.index.store import Store
    from rag.settings import Settings

__all__ = ["lexical_dir", "sync_lexical"]

log = logging.getLogger("paperchat.index")

# Papers read from the store and applied to the index at a time: an ingest of 10k papers
# into a new library took the ingest process from 293 to 475 MB reading them all at once.
APPLY_SLICE = 2000
# Seconds a periodic sync keeps an index whose generation the change log does not link
# before rebuilding: long enough for the writer of a lost entry to note it again (its next
# batch, or Store.confirm_changes within ~2 s of its last).
UNLINKED_PATIENCE = 15.0


def lexical_dir(settings: Settings, store: Store) -> Path:
    """Where this collection's lexical index lives (one per collection, per machine). On a
    server, collections of one name in different tenants or databases are different."""
    if not settings.chroma_host:
        return settings.data_dir / "lexical" / "local" / store.collection_name
    server = settings.chroma_host.replace(":", "_") + f"_{settings.chroma_port}"
    place = (settings.chroma_tenant, settings.chroma_database)
    if place != DEFAULT_DATABASE:
        server += "_" + "_".join(_safe(p) for p in place) + "_" + _digest(place)
    return settings.data_dir / "lexical" / server / store.collection_name


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:40]


def _digest(parts: tuple[str, ...]) -> str:
    """Tells apart names that _safe makes alike ("a/b" and "a-b")."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


def sync_lexical(
    store: Store,
    directory: Path,
    params: Bm25Params,
    current: LexicalIndex | None = None,
    *,
    patient: bool = False,
) -> LexicalIndex:
    """An index matching the store's current generation: ``current`` if it still is; else
    the saved one if it is (another process brought it there); else the saved one with the
    papers changed since its generation applied in place, when the store's change log can
    tell which (:mod:`rag.index.changes`); else rebuilt from the whole store.

    ``patient`` (a periodic check, not a process's own write): when the log does not link
    ``current``'s generation at all, its entry may have been lost to a simultaneous bump
    and its writer is about to note it again, so ``current`` is kept for up to
    ``UNLINKED_PATIENCE`` seconds before a rebuild (minutes at 1M chunks)."""
    generation = store.generation()
    if current is not None and current.generation == generation:
        return current
    # Another process on this machine may have brought the saved index further: read what
    # it wrote (the journal's new lines), or the whole index when this process has none.
    index = current.reloaded() if current is not None else None
    if index is None:
        index = LexicalIndex.load(directory, params=params)
    if index is not None and index.generation == generation:
        if index.consistent:
            return index
        index = None  # current, yet its postings and catalogue disagree: rebuild
    if index is not None:
        generation, touched = store.changes(since=index.generation)
        if touched is None and patient and index is current and _wait_for_log(store, index):
            return index
        if touched is not None:
            start = time.perf_counter()
            applied = _apply(store, index, sorted(touched), generation)
            if applied is not None:
                log.info("lexical index: %d papers changed in place in %.2f s (%d now)",
                         len(touched), time.perf_counter() - start, len(applied))  # fmt: skip
                return applied
    start = time.perf_counter()
    generation = store.generation()  # read before the scan: a change during it shows later
    rows = store.iter_papers(ordered=False)  # streamed: build keeps no abstract
    rebuilt = LexicalIndex.build(rows, params=params, generation=generation, directory=directory)
    log.info(
        "lexical index rebuilt: %d papers in %.1f s (%s)",
        len(rebuilt),
        time.perf_counter() - start,
        ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in rebuilt.timings.items()),
    )
    return rebuilt


def _wait_for_log(store: Store, index: LexicalIndex) -> bool:
    """Whether to keep ``index`` a while longer: its generation is not linked by the log
    and was first found so less than ``UNLINKED_PATIENCE`` seconds ago."""
    if store.linked(index.generation):
        return False  # linked through an entry that says "unknown": rebuild now
    now = time.monotonic()
    if index.unlinked_since is None:
        index.unlinked_since = now
        log.info(
            "lexical index: generation %s not in the change log yet; waiting", index.generation
        )
    return now - index.unlinked_since < UNLINKED_PATIENCE


def _apply(
    store: Store, index: LexicalIndex, touched: list[str], generation: str
) -> LexicalIndex | None:
    """``touched`` applied ``APPLY_SLICE`` papers at a time, each slice read, indexed and
    dropped before the next. The slices before the last are saved under a generation no
    store has ("<old>+<n>"): a process stopped midway leaves an index the next sync
    rebuilds (the change log cannot tell from there), never one that claims to be current."""
    base = index.generation
    for at in range(0, max(len(touched), 1), APPLY_SLICE):
        part = touched[at : at + APPLY_SLICE]
        last = at + APPLY_SLICE >= len(touched)
        label = generation if last else f"{base}+{at + len(part)}"
        applied = index.apply(store.papers(part), part, generation=label)
        if applied is None:
            return None
        index = applied
    return index
