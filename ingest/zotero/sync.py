"""Keep the index in step with a Zotero library: add new items, update changed ones, remove
deleted or trashed ones, and move collection membership; touch nothing else.

What was synced is remembered per library and index in ``<data_dir>/zotero/``: each item's
paper id, a signature of what it was read from (Zotero's version and modification time,
its PDFs' size and time or md5, its citation key) and its Zotero collections. An item whose
signature is unchanged and whose paper is still stored is not read again (its PDF is not
parsed, nothing is embedded); a changed one goes through the same checks as any record, and
is re-embedded only if what is stored changes. A paper is removed only when the item it came
from left the library and the paper's source is still this library. Collections: a paper's
Zotero collections are replaced by the item's current ones, collections the user added in
paperchat are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.collection import MAX_NAME, set_collections
from ingest.feed import ingest_records
from ingest.parse.clean import Draft, build_paper
from ingest.pipeline import IngestReport
from rag.records import Notice, Paper, Skipped

from .local import ZoteroReadError
from .papers import draft_of
from .records import Item, Library

if TYPE_CHECKING:
    from ingest.chunk import Chunker
    from rag.engine import Engine

__all__ = ["STATE_FORMAT", "SyncProgress", "SyncReport", "sync_library"]

STATE_FORMAT = 1
PDF_BATCH_PAPERS = 8
"""Papers per stored batch when items bring PDFs (each tens of chunks): progress and memory
move per few papers, as for a folder of PDFs."""


@dataclass(frozen=True, slots=True)
class SyncProgress:
    """Sent as each changed item has been read: how many of how many, and which."""

    done: int
    total: int
    item: str


@dataclass
class SyncReport:
    """What a sync did. ``ingest`` counts the items read again (added, updated, unchanged
    after all, skipped, notices); ``unchanged`` the items not read again at all."""

    source: str
    items: int = 0
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    moved: int = 0
    trashed: int = 0
    collections: int = 0
    unread: int = 0  # PDF attachments that could not be read (their items stored all the same)
    ingest: IngestReport = field(default_factory=IngestReport)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every item was stored and every PDF attachment read."""
        return self.ingest.ok and not self.unread

    def to_json(self) -> dict[str, Any]:
        report = self.ingest.to_json()
        return {
            "source": self.source,
            "items": self.items,
            "added": report["added"],
            "updated": report["updated"],
            "unchanged": self.unchanged + report["unchanged"],
            "removed": list(self.removed),
            "moved": self.moved,
            "trashed": self.trashed,
            "collections": self.collections,
            "attachments_unread": self.unread,
            "chunks_written": report["chunks_written"],
            "skipped": report["skipped"],
            "notices": report["notices"],
            "skipped_count": report["skipped_count"],
            "notices_count": report["notices_count"],
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
        }


def sync_library(
    library: Library,
    engine: Engine,
    chunker: Chunker,
    *,
    collection: str = "",
    full_text: bool = True,
    on_progress: Callable[[SyncProgress], None] | None = None,
) -> SyncReport:
    """Bring ``engine``'s index in step with ``library`` (only the ``collection`` subtree,
    a path such as "Thesis/Chapter 2", when one is named). The caller holds the writer lock."""
    t0 = time.perf_counter()
    report = SyncReport(source=library.source, trashed=len(library.trashed))
    items = _subtree(library, collection)
    report.items = len(items)
    report.collections = len(library.collections)
    state = _State.load(engine, library)
    catalogue = engine.retriever.index.catalogue
    signatures = {_id(item): _signature(item, full_text) for item in items}
    todo: list[Item] = []
    papers: dict[str, str] = {}  # item key -> paper id, for every item of this run
    for item in items:
        before = state.items.get(_id(item))
        pid = before.get("paper", "") if before else ""
        if before and before.get("sig") == signatures[_id(item)] and _ours(catalogue, pid, library):
            papers[_id(item)] = pid
            report.unchanged += 1
        else:
            todo.append(item)

    report.ingest = ingest_records(
        _records(todo, library, full_text, papers, report, on_progress),
        store=engine.store,
        embedder=engine.embedder,
        chunker=chunker,
        batch_papers=PDF_BATCH_PAPERS if any(i.attachments for i in todo) else 128,
    )
    engine.refresh()
    catalogue = engine.retriever.index.catalogue

    # Items that left the library (deleted, or in the trash): their papers, if still ours.
    present = {_id(item) for item in library.items}
    kept = {pid for key, pid in papers.items()} | {
        str(v.get("paper")) for k, v in state.items.items() if k in present
    }
    gone = {
        str(v.get("paper"))
        for key, v in state.items.items()
        if key not in present and str(v.get("paper")) not in kept
    }
    stale = sorted(pid for pid in gone if _ours(catalogue, pid, library))
    if stale:
        report.removed = engine.remove(stale)
        catalogue = engine.retriever.index.catalogue

    report.moved = _move(engine, catalogue, items, papers, state)
    engine.refresh()  # new papers' collections too

    stored = {pid for pid in papers.values() if pid in catalogue}
    state.items = {k: v for k, v in state.items.items() if k in present and k not in papers}
    for item in items:
        pid = papers.get(_id(item), "")
        if pid in stored:
            state.items[_id(item)] = {
                "paper": pid,
                "sig": signatures[_id(item)],
                "collections": [_name(c) for c in item.collections],
            }
    state.save()
    report.seconds = time.perf_counter() - t0
    return report


def _id(item: Item) -> str:
    """The item's key, with its library when it is a group's read from the local database
    (keys are unique within a library only)."""
    return f"{item.library}/{item.key}" if item.library.startswith("groups/") else item.key


def _subtree(library: Library, collection: str) -> list[Item]:
    if not collection:
        return list(library.items)
    name = "/".join(part.strip() for part in collection.strip().strip("/").split("/"))
    if name not in library.collections:
        shown = ", ".join(library.collections[:10]) or "none"
        raise ZoteroReadError(
            f"no collection {collection!r} in {library.source}: give its path as Zotero shows "
            f"it, parent first (e.g. 'Thesis/Chapter 2'); its collections: {shown}"
        )
    return [
        item
        for item in library.items
        if any(c == name or c.startswith(name + "/") for c in item.collections)
    ]


def _signature(item: Item, full_text: bool) -> str:
    """Changes whenever what the item's paper is made of changes; collections apart."""
    parts = [
        item.version,
        item.citation_key,
        "body" if full_text else "abstract",
        *(f"{a.key}={a.signature or a.problem}" for a in item.attachments),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:20]


def _ours(catalogue: Any, pid: str, library: Library) -> bool:
    return bool(pid) and pid in catalogue and catalogue[pid].source == library.source


def _records(
    todo: list[Item],
    library: Library,
    full_text: bool,
    papers: dict[str, str],
    report: SyncReport,
    on_progress: Callable[[SyncProgress], None] | None,
) -> Iterator[Paper | Notice | Skipped]:
    """The changed items as papers (their PDFs read one at a time), noting each paper id."""
    for done, item in enumerate(todo, start=1):
        for record in draft_of(item, library, full_text=full_text):
            if isinstance(record, Draft):
                built, notices = build_paper(record)
                if isinstance(built, Paper):
                    papers[_id(item)] = built.id
                    yield from notices
                yield built
            else:
                report.unread += 1  # draft_of's notices: a PDF attachment not read
                yield record
        if on_progress is not None:
            on_progress(SyncProgress(done, len(todo), item.fields.get("title", item.key)))


def _name(path: str) -> str:
    """A Zotero collection path as a paperchat collection name (at most MAX_NAME
    characters: a deep path keeps its end, the collection itself)."""
    clean = " ".join(path.split())
    return clean if len(clean) <= MAX_NAME else "…" + clean[-(MAX_NAME - 1) :]


def _move(
    engine: Engine,
    catalogue: Any,
    items: list[Item],
    papers: dict[str, str],
    state: _State,
) -> int:
    """Give each synced paper its items' current Zotero collections, keeping the ones the
    user added in paperchat; how many papers synced before moved."""
    zotero: dict[str, list[str]] = {}
    before: dict[str, set[str]] = {}
    for item in items:
        pid = papers.get(_id(item), "")
        if pid not in catalogue:
            continue
        zotero.setdefault(pid, []).extend(_name(c) for c in item.collections)
        before.setdefault(pid, set()).update(state.items.get(_id(item), {}).get("collections", []))
    changes: dict[str, list[str]] = {}
    for pid, names in zotero.items():
        current = list(catalogue[pid].collections)
        wanted = [c for c in current if c not in before[pid]]
        wanted += [n for n in dict.fromkeys(names) if n not in wanted]
        if wanted != current:
            changes[pid] = wanted
    if changes:
        set_collections(engine.store, changes)
    synced_before = {str(v.get("paper")) for v in state.items.values()}
    return sum(1 for pid in changes if pid in synced_before)  # new papers did not move


class _State:
    """What was synced from one library into one index, in ``<data_dir>/zotero/``."""

    def __init__(self, path: Path, head: dict[str, Any], items: dict[str, dict[str, Any]]):
        self.path, self.head, self.items = path, head, items

    @classmethod
    def load(cls, engine: Engine, library: Library) -> _State:
        index = engine.store.collection_name
        name = hashlib.sha256(f"{index}\x1f{library.source}".encode()).hexdigest()[:16]
        path = engine.settings.data_dir / "zotero" / f"{name}.json"
        head = {"format": STATE_FORMAT, "source": library.source, "index": index}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
                raise ValueError("another format")
            items = data["items"]
            if not isinstance(items, dict):
                raise ValueError("no items")
        except FileNotFoundError:
            items = {}
        except (OSError, ValueError, KeyError):
            # Unreadable: every item is read again (unchanged papers embed nothing).
            path.replace(path.with_suffix(".corrupt"))
            items = {}
        return cls(path, head, items)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(f".tmp{os.getpid()}")
        temp.write_text(json.dumps(self.head | {"items": self.items}), encoding="utf-8")
        os.replace(temp, self.path)
