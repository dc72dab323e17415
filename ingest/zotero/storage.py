"""Where a local Zotero library keeps what is not in ``zotero.sqlite``'s item rows: the
files of PDF attachments and Better BibTeX's citation keys.

A stored file (link modes 0 and 1) has the ``path`` ``storage:<name>``, under
``storage/<attachment key>/``; a linked file (mode 2) an absolute path, or
``attachments:<relative>`` under a base directory kept in Zotero's preferences (prefs.js),
which is not read here. Links to URLs (3) and embedded images (4) are not files of papers.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from contextlib import closing
from pathlib import Path

from .records import Attachment

__all__ = ["attachments", "citation_keys", "has_table"]

_LINKED_FILE = 2
_STORED = (0, 1)  # imported_file, imported_url


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """Whether the database has a table (or index, view) of that name."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return found is not None


def attachments(
    db: sqlite3.Connection, root: Path, trashed: set[int], fields: dict[int, dict[str, str]]
) -> dict[int, list[Attachment]]:
    """{parent itemID: its PDF attachments, oldest first}, each found on disk or with the
    reason it is not."""
    out: dict[int, list[Attachment]] = defaultdict(list)
    rows = db.execute(
        "SELECT a.itemID, a.parentItemID, a.linkMode, a.contentType, a.path, i.key"
        " FROM itemAttachments a JOIN items i ON i.itemID = a.itemID"
        " WHERE a.parentItemID IS NOT NULL ORDER BY a.parentItemID, a.itemID"
    )
    storage = (root / "storage").resolve()
    for item_id, parent, mode, content_type, stored, key in rows:
        stored = str(stored or "")
        pdf = content_type == "application/pdf" or stored.lower().endswith(".pdf")
        if item_id in trashed or not pdf or mode not in (*_STORED, _LINKED_FILE):
            continue
        title = fields.get(int(item_id), {}).get("title", "")
        out[int(parent)].append(_attachment(str(key), int(mode), stored, title, storage))
    return out


def _attachment(key: str, mode: int, stored: str, title: str, storage: Path) -> Attachment:
    if mode in _STORED:
        if not stored.startswith("storage:"):
            return Attachment(key, title, problem=f"stored file has no path ({stored!r})")
        folder = storage / key
        path = (folder / stored.removeprefix("storage:")).resolve()
        if not path.is_relative_to(folder.resolve()):
            return Attachment(
                key, title, problem=f"path {stored!r} leaves Zotero's storage folder: not read"
            )
    elif stored.startswith("attachments:"):
        return Attachment(
            key,
            title,
            linked=True,
            problem=f"linked relative to Zotero's base directory ({stored}), which paperchat "
            "does not know: link it by its full path in Zotero",
        )
    else:
        path = Path(stored)
        if not path.is_absolute():
            return Attachment(
                key, title, linked=True, problem=f"linked path {stored!r} is not absolute"
            )
    try:
        st = path.stat()
    except OSError:
        return Attachment(key, title, path=None, linked=mode == _LINKED_FILE,
                          problem=f"file missing: {path}")  # fmt: skip
    if not path.is_file():
        return Attachment(key, title, linked=mode == _LINKED_FILE, problem=f"not a file: {path}")
    return Attachment(
        key,
        title,
        path=path,
        linked=mode == _LINKED_FILE,
        signature=f"{st.st_size}:{st.st_mtime_ns}",
    )


def citation_keys(root: Path, lib_id: int) -> dict[int, str]:
    """{itemID: Better BibTeX's citation key} from ``better-bibtex.sqlite`` (BBT 6.7.133 on
    and 7: table ``citationkey``; before: the JSON row ``better-bibtex.citekey``), when it is
    there; {} otherwise (BBT 9 keeps keys in Zotero's own ``citationKey`` field)."""
    bbt = root / "better-bibtex.sqlite"
    if not bbt.is_file():
        return {}
    try:
        with closing(sqlite3.connect(f"{bbt.resolve().as_uri()}?immutable=1", uri=True)) as con:
            if has_table(con, "citationkey"):
                rows = con.execute(
                    "SELECT itemID, citationKey FROM citationkey WHERE libraryID = ?", (lib_id,)
                ).fetchall()
                return {int(item_id): str(cite) for item_id, cite in rows if cite}
            found = con.execute(
                "SELECT data FROM \"better-bibtex\" WHERE name = 'better-bibtex.citekey'"
            ).fetchone()
    except sqlite3.DatabaseError:
        return {}  # a broken file: the Extra line still counts
    try:
        entries = json.loads(found[0]).get("data", []) if found else []
    except (ValueError, AttributeError):
        return {}
    return {
        int(e["itemID"]): str(e["citekey"])
        for e in entries
        if isinstance(e, dict) and e.get("libraryID") == lib_id and e.get("citekey")
    }
