"""Read a Zotero data directory (``zotero.sqlite`` and ``storage/``) where it lives.

Never written to. While Zotero runs it holds the database with an exclusive lock, so the
file is opened read-only and, when that is refused, as ``immutable`` (SQLite then takes no
lock and reads the file as it is on disk: Zotero writes in short transactions with a
rollback journal, so the file between them is whole; one caught mid-write reads as
malformed and is reported, never half-stored). Every query runs in one read transaction.

The tables read are Zotero's own (``resource/schema/userdata.sql`` of Zotero 5 to 7):
``items`` with ``itemTypesCombined``, ``itemData``/``itemDataValues``/``fieldsCombined``,
``itemCreators``/``creators``/``creatorTypes``, ``itemTags``/``tags``, ``collections`` and
``collectionItems``, ``itemAttachments``, ``deletedItems`` (the trash) and, when present,
``deletedCollections``. The user's library and the group libraries it holds are read; a
group's items are in a collection named after the group, its collections under that name.

PDF attachments and Better BibTeX's citation keys are found by :mod:`ingest.zotero.storage`;
a ``Citation Key:`` line in the item's Extra field counts too.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from rag.errors import IngestError

from .records import NOT_ITEMS, Creator, Item, Library, citation_key, with_venue
from .storage import attachments, citation_keys, has_table

__all__ = [
    "DATABASE",
    "NEWEST_SCHEMA",
    "OLDEST_SCHEMA",
    "ZoteroReadError",
    "default_zotero_dir",
    "find_database",
    "read_local",
]

DATABASE = "zotero.sqlite"
OLDEST_SCHEMA = 95
"""``userdata`` schema of Zotero 5.0 (2017), the first with the tables read here."""
NEWEST_SCHEMA = 129
"""The newest ``userdata`` schema seen (zotero/zotero main, 2026); a newer one is read with
a notice, since Zotero adds columns and tables but has kept these."""


class ZoteroReadError(IngestError):
    """The Zotero library cannot be read at all (not a Zotero directory, locked, broken,
    a schema we do not know); nothing is stored."""


def default_zotero_dir() -> Path:
    """Where Zotero keeps its data on every platform unless moved: ``~/Zotero``."""
    return Path.home() / "Zotero"


def find_database(path: Path) -> Path:
    """``zotero.sqlite`` in the directory ``path`` (or ``path`` itself when it is that file);
    :class:`ZoteroReadError` naming what to give instead."""
    candidate = path / DATABASE if path.is_dir() else path
    if candidate.name == DATABASE and candidate.is_file():
        return candidate
    if not path.exists():
        what = f"{path} does not exist"
    elif path.is_dir():
        what = f"{path} is not a Zotero data directory (it has no {DATABASE})"
    else:
        what = f"{path} is not Zotero's database ({DATABASE})"
    raise ZoteroReadError(
        f"{what}: give the folder Zotero shows under Settings > Advanced > Files and Folders "
        "> Data Directory Location (usually ~/Zotero), or set PAPERCHAT_ZOTERO_DIR"
    )


def read_local(path: Path) -> Library:
    """Every regular item of the user's library in the Zotero data directory ``path``,
    with its fields, creators, tags, collections and PDF attachments (found on disk)."""
    database = find_database(path)
    root = database.parent
    library = Library(source=str(database.resolve()), library="users/0")
    with _reading(database) as db:
        _check_schema(db, database, library)
        user = db.execute("SELECT libraryID FROM libraries WHERE type = 'user'").fetchone()
        if user is None:
            raise ZoteroReadError(f"{database} has no user library: is it a Zotero database?")
        libraries = _libraries(db, int(user[0]))
        library.version = _stamp(db)
        trashed = _trashed(db)
        paths: dict[int, str] = {}
        for lib_id, (_, group) in libraries.items():
            paths |= _collection_paths(db, lib_id, group)
        library.collections = sorted({*paths.values(), *(g for _, g in libraries.values() if g)})
        rows = db.execute(
            "SELECT i.itemID, i.key, i.version, i.dateModified, t.typeName, i.libraryID"
            " FROM items i JOIN itemTypesCombined t ON t.itemTypeID = i.itemTypeID"
            f" WHERE t.typeName NOT IN {NOT_ITEMS!r} ORDER BY i.itemID"
        ).fetchall()
        fields = _fields(db)
        creators = _creators(db)
        tags = _tags(db)
        member = _memberships(db, paths)
        files = attachments(db, root, trashed, fields)
        keys = citation_keys(root, int(user[0]))
        for item_id, key, version, modified, type_name, lib_id in rows:
            if lib_id not in libraries:
                continue  # a feed's items
            own, group = libraries[lib_id]
            if item_id in trashed:
                library.trashed.add(str(key))
                continue
            values = with_venue(fields.get(item_id, {}))
            library.items.append(
                Item(
                    key=str(key),
                    item_type=str(type_name),
                    version=f"{version}:{modified}",  # a move between collections changes neither
                    fields=values,
                    creators=tuple(creators.get(item_id, ())),
                    tags=tuple(tags.get(item_id, ())),
                    # A group's items are all in the group's collection too.
                    collections=tuple(
                        sorted({*member.get(item_id, ()), *([group] if group else [])})
                    ),
                    attachments=tuple(files.get(item_id, ())),
                    citation_key=citation_key(values, keys.get(item_id, "")),
                    library=own,
                )
            )
    return library


@contextmanager
def _reading(database: Path) -> Iterator[sqlite3.Connection]:
    """One read transaction over the database, read-only; ``immutable`` when Zotero's lock
    refuses a reader."""
    uri = database.resolve().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=0.5)
        try:
            db.execute("BEGIN")
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            db.close()
            # Locked by Zotero, or a hot journal a read-only reader may not roll back.
            if not any(w in str(exc) for w in ("locked", "busy", "readonly")):
                raise
            db = sqlite3.connect(f"{uri}?immutable=1", uri=True)
            db.execute("BEGIN")
    except sqlite3.DatabaseError as exc:
        raise _unreadable(database, exc) from exc
    try:
        with closing(db):
            yield db
    except sqlite3.DatabaseError as exc:
        raise _unreadable(database, exc) from exc


def _unreadable(database: Path, exc: sqlite3.DatabaseError) -> ZoteroReadError:
    text = str(exc)
    if "malformed" in text or "not a database" in text or "disk image" in text:
        journal = database.with_name(database.name + "-journal")
        if journal.exists() and journal.stat().st_size:
            return ZoteroReadError(
                f"{database} is being written by Zotero (it has an unfinished journal): "
                "sync again in a moment; nothing was changed"
            )
        return ZoteroReadError(
            f"{database} is not a readable SQLite database ({text}): is it truncated or "
            "half-copied? Point at Zotero's own data directory"
        )
    if "no such table" in text or "no such column" in text:
        return ZoteroReadError(
            f"{database} lacks what Zotero 5 to 7 databases hold ({text}): is it a Zotero "
            "database? Open it in Zotero once to upgrade it"
        )
    return ZoteroReadError(f"{database} cannot be read: {text}")


def _check_schema(db: sqlite3.Connection, database: Path, library: Library) -> None:
    try:
        row = db.execute("SELECT version FROM version WHERE schema = 'userdata'").fetchone()
    except sqlite3.OperationalError as exc:
        raise ZoteroReadError(
            f"{database} is not a Zotero database (no schema version: {exc}): point at "
            "Zotero's data directory"
        ) from exc
    version = int(row[0]) if row and str(row[0]).isdigit() else None
    if version is None or version < OLDEST_SCHEMA:
        raise ZoteroReadError(
            f"{database} has Zotero schema version {version}, older than Zotero 5 "
            f"({OLDEST_SCHEMA}): open it in a current Zotero once to upgrade it, then sync"
        )
    if version > NEWEST_SCHEMA:
        library.problems.append(
            (
                str(database),
                f"Zotero schema version {version} is newer than paperchat knows "
                f"({NEWEST_SCHEMA}); read as Zotero 7's",
            )
        )


def _libraries(db: sqlite3.Connection, user: int) -> dict[int, tuple[str, str]]:
    """{libraryID: (Zotero's name for it, the collection its items are in)} for the user's
    library ("users/0", none) and each group library ("groups/ID", the group's name)."""
    out = {user: ("users/0", "")}
    rows = db.execute("SELECT libraryID, groupID, name FROM groups").fetchall()
    for lib_id, group_id, name in rows:
        out[int(lib_id)] = (f"groups/{group_id}", _part(str(name)) or f"Group {group_id}")
    return out


def _part(name: str) -> str:
    """A collection's name as one part of a path: spaces collapsed, "/" made "∕"."""
    return " ".join(name.split()).replace("/", "∕")


def _stamp(db: sqlite3.Connection) -> str:
    row = db.execute("SELECT max(clientDateModified), count(*) FROM items").fetchone()
    return f"{row[0]}:{row[1]}"


def _trashed(db: sqlite3.Connection) -> set[int]:
    return {int(r[0]) for r in db.execute("SELECT itemID FROM deletedItems")}


def _collection_paths(db: sqlite3.Connection, lib_id: int, group: str) -> dict[int, str]:
    """{collectionID: "Parent/Child"} for the library's collections not in the trash; a
    group library's under the group's name ("Lab/Methods")."""
    rows = db.execute(
        "SELECT collectionID, collectionName, parentCollectionID FROM collections"
        " WHERE libraryID = ?",
        (lib_id,),
    ).fetchall()
    gone: set[int] = set()
    if has_table(db, "deletedCollections"):
        gone = {int(r[0]) for r in db.execute("SELECT collectionID FROM deletedCollections")}
    by_id = {int(cid): (_part(str(name)), parent) for cid, name, parent in rows}
    paths: dict[int, str] = {}
    for cid in by_id:
        parts: list[str] = []
        seen: set[int] = set()
        at: int | None = cid
        while at is not None and at in by_id and at not in seen:
            if at in gone:
                break
            seen.add(at)
            name, parent = by_id[at]
            parts.append(name)
            at = int(parent) if parent is not None else None
        else:
            paths[cid] = "/".join([group] * bool(group) + list(reversed(parts)))
    return paths


def _fields(db: sqlite3.Connection) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = defaultdict(dict)
    rows = db.execute(
        "SELECT d.itemID, f.fieldName, v.value FROM itemData d"
        " JOIN fieldsCombined f ON f.fieldID = d.fieldID"
        " JOIN itemDataValues v ON v.valueID = d.valueID"
    )
    for item_id, name, value in rows:
        if value is not None:
            out[int(item_id)][str(name)] = str(value)
    return out


def _creators(db: sqlite3.Connection) -> dict[int, list[Creator]]:
    out: dict[int, list[Creator]] = defaultdict(list)
    rows = db.execute(
        "SELECT ic.itemID, t.creatorType, c.firstName, c.lastName, c.fieldMode"
        " FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID"
        " JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID"
        " ORDER BY ic.itemID, ic.orderIndex"
    )
    for item_id, kind, first, last, mode in rows:
        first, last = (first or "").strip(), (last or "").strip()
        if mode == 1:  # one field: an institution, a mononym
            out[int(item_id)].append(Creator(str(kind), name=last or first))
        else:
            out[int(item_id)].append(Creator(str(kind), last=last, first=first))
    return out


def _tags(db: sqlite3.Connection) -> dict[int, list[str]]:
    out: dict[int, list[str]] = defaultdict(list)
    rows = db.execute(
        "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID"
        " ORDER BY it.itemID, t.name"
    )
    for item_id, name in rows:
        out[int(item_id)].append(str(name))
    return out


def _memberships(db: sqlite3.Connection, paths: dict[int, str]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = defaultdict(set)
    for cid, item_id in db.execute("SELECT collectionID, itemID FROM collectionItems"):
        if int(cid) in paths:
            out[int(item_id)].add(paths[int(cid)])
    return out
