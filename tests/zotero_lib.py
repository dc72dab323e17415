"""Real Zotero data directories for tests: ``zotero.sqlite`` plus ``storage/``.

The database is built the way Zotero 6.0.30 and 7.0.9 build a new one, from their own files
(vendored in ``tests/data/zotero``, see ``SOURCES.md`` there):

* ``Zotero.Schema._initializeSchema`` (``chrome/content/zotero/xpcom/schema.js``): the pragmas
  ``page_size=4096``, ``encoding='UTF-8'``, ``auto_vacuum=1``; ``system.sql``, ``userdata.sql``
  and ``triggers.sql`` run through a port of ``Zotero.DBConnection.parseSQLFile`` (so
  ``sqlite_master`` holds the statements exactly as Zotero stores them; nothing is skipped);
  the global schema (``schema.json`` of the zotero/zotero-schema commit each release bundles as
  ``resource/schema/global``) applied by a port of ``_updateGlobalSchema`` and
  ``_updateCustomTables`` (IDs handed out in Zotero's order, the ``*Combined`` tables filled);
  the ``version`` rows (``globalSchema``, ``system``, ``userdata``, ``triggers``,
  ``compatibility``), library 1 (``'user'``) and the ``settings`` rows (``client``
  ``lastVersion``/``lastCompatibleVersion``, ``globalSchema`` ``data``: the schema without its
  item types, zlib-deflated as pako does, and ``account`` ``localUserKey`` written by
  ``Zotero.Users.init`` on first start).
* Objects are written as ``Zotero.Item``/``Zotero.Collection`` ``save()`` writes them: fields
  through deduplicated ``itemDataValues``, ``date`` fields as multipart dates, timestamps in UTC
  ``'YYYY-MM-DD HH:MM:SS'``, ``version`` 0 and ``synced`` 0 (a library that never synced).

Not written: translators/styles/repository ``version`` rows (they come from bundled files),
full-text index rows and ``.zotero-ft-cache`` files, ISBN hyphenation, relations.
"""

from __future__ import annotations

import contextlib
import gzip
import html
import json
import random
import re
import shutil
import sqlite3
import string
import unicodedata
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

DATA = Path(__file__).resolve().parent / "data" / "zotero"

#: ``Zotero.Utilities.generateObjectKey``'s alphabet: no 0, 1, O (8 characters are drawn).
KEY_CHARS = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"

#: ``Zotero.Attachments.LINK_MODE_*`` (the same numbers in Zotero 6 and 7).
LINK_MODE_IMPORTED_FILE = 0
LINK_MODE_IMPORTED_URL = 1
LINK_MODE_LINKED_FILE = 2
LINK_MODE_LINKED_URL = 3
LINK_MODE_EMBEDDED_IMAGE = 4

#: ``syncObjectTypes`` row of items (``system.sql``), used in ``syncDeleteLog``.
SYNC_OBJECT_ITEM = 3

#: ``Zotero.ItemTypes.customIDOffset``: custom types/fields are numbered from here.
CUSTOM_ID_OFFSET = 10000

#: ``_maxCompatibility`` in schema.js (7 in both 6.0.30 and 7.0.9).
MAX_COMPATIBILITY = 7

#: ``Zotero.Notes.notePrefix``/``noteSuffix``; ``Zotero.Item._saveData`` wraps a note in them
#: unless it already matches ``_NOTE_WRAPPED``.
NOTE_PREFIX = '<div class="zotero-note znv1">'
NOTE_SUFFIX = "</div>"
_NOTE_WRAPPED = re.compile(r'^<div class="zotero-note znv[0-9]+">[\s\S]*</div>$')

#: ``Zotero.ItemFields.isMultiline``: other fields have their newlines replaced by a space.
MULTILINE_FIELDS = frozenset({"abstractNote", "extra", "address"})


@dataclass(frozen=True)
class Release:
    """One Zotero release whose new-database layout the helper reproduces."""

    client: str  #: ``Zotero.version``, written to ``settings`` (``client``/``lastVersion``)
    userdata: int  #: first line of its ``userdata.sql``
    schema_file: str  #: the global schema it bundles, under ``tests/data/zotero``

    @property
    def userdata_sql(self) -> Path:
        return DATA / f"userdata-{self.client}.sql"

    @property
    def system_sql(self) -> Path:
        return DATA / f"system-{self.client}.sql"

    @property
    def triggers_sql(self) -> Path:
        return DATA / "triggers.sql"  # identical in both tags


RELEASES: dict[str, Release] = {
    "6": Release(client="6.0.30", userdata=121, schema_file="schema-28.json.gz"),
    "7": Release(client="7.0.9", userdata=123, schema_file="schema-32.json.gz"),
}

#: A creator: ``(creatorType, firstName, lastName)`` (two-field name, ``fieldMode`` 0) or
#: ``(creatorType, name)`` (single-field name such as an institution: ``fieldMode`` 1,
#: ``firstName`` ``''``, the name in ``lastName``).
Creator = tuple[str, str, str] | tuple[str, str]
#: A tag: its name (a manual tag, ``type`` 0) or ``(name, type)`` with type 1 for automatic tags.
Tag = str | tuple[str, int]


# --------------------------------------------------------------------------------------------
# Ports of Zotero functions
# --------------------------------------------------------------------------------------------


def parse_sql_file(sql: str) -> list[str]:
    """Split a schema file into statements as ``Zotero.DBConnection.parseSQLFile`` does.

    Comment lines (starting with ``-``) and blank lines are dropped, trailing ``--`` comments
    cut, the lines joined with no separator, and the result split on ``;`` (``;---`` marks a
    semicolon inside a trigger body). ``executeSQLFile`` stops at the first empty statement.
    """
    sql = sql.strip().replace(";---", "TEMPSEMI")
    lines = [line for line in sql.split("\n") if re.match(r"^[^-]", line)]
    joined = "".join(re.match(r"^(.*?)(?:--.+)?$", line).group(1) for line in lines)  # type: ignore[union-attr]
    if joined.endswith(";"):
        joined = joined[:-1]
    statements: list[str] = []
    for statement in joined.split(";"):
        if not statement:
            break
        statements.append(statement.replace("TEMPSEMI", ";"))
    return statements


_SLASH_RE = re.compile(
    r"^(.*?)\b([0-9]{1,4})(?:([\-/.\u5e74])([0-9]{1,2}))?(?:([\-/.\u6708])([0-9]{1,4}))?"
    r"((?:\b|[^0-9]).*?)$",
    re.ASCII,
)
_YEAR_RE = re.compile(
    r"^(.*?)\b((?:circa |around |about |c\.? ?)?[0-9]{1,4}"
    r"(?: ?B\.? ?C\.?(?: ?E\.?)?| ?C\.? ?E\.?| ?A\.? ?D\.?)|[0-9]{3,4})\b(.*?)$",
    re.ASCII | re.IGNORECASE,
)
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH_RE = re.compile(
    r"^(.*)\b(" + "|".join(_MONTHS) + r")[^ ]*(?: (.*)$|$)", re.ASCII | re.IGNORECASE
)
_DAY_RE = re.compile(r"\b([0-9]{1,2})(?:st|nd|rd|th)?\b(.*)", re.ASCII | re.IGNORECASE)
_MULTIPART_RE = re.compile(r"^[0-9]{4}-(0[0-9]|10|11|12)-(0[0-9]|[1-2][0-9]|30|31) ")
_SQL_DATE_RE = re.compile(r"^-?[0-9]{4}-(0[1-9]|10|11|12)-(0[1-9]|[1-2][0-9]|30|31)$")
_SQL_DATETIME_RE = re.compile(
    r"^-?[0-9]{4}-(0[1-9]|10|11|12)-(0[1-9]|[1-2][0-9]|30|31) "
    r"([0-1][0-9]|[2][0-3]):([0-5][0-9]):([0-5][0-9])$"
)


def _str_to_date(text: str) -> tuple[Any, Any, Any]:
    """``Zotero.Date.strToDate`` (en-US locale): ``(year, month from 0, day)``, None if absent.

    Values keep the JavaScript types (a year may be an int or a string such as ``'300 BC'``)
    because ``strToMultipart`` depends on them.
    """
    year: Any = None
    month: Any = None
    day: Any = None
    if not text:
        return year, month, day
    lower = text.lower()
    today = datetime.now()
    if lower in ("yesterday", "today", "tomorrow"):
        shift = {"yesterday": -1, "today": 0, "tomorrow": 1}[lower]
        text = (today + timedelta(days=shift)).strftime("%Y-%m-%d")
    else:
        text = re.sub(r"\s+", " ", re.sub(r"^\s+|\s+$", "", text), count=1)

    parts: list[str | None] = []
    m = _SLASH_RE.match(text)
    if (
        m
        and ((not m[5] or not m[3]) or m[3] == m[5] or (m[3] == "\u5e74" and m[5] == "\u6708"))
        and ((m[2] and m[4] and m[6]) or (not m[1] and not m[7]))
    ):
        if len(m[2]) in (3, 4) or m[3] == "\u5e74":  # ISO 8601 style (big endian)
            y, mo, d = m[2], m[4], m[6]
        elif m[2] and not m[4] and m[6]:
            y, mo, d = m[6], m[2], None
        else:  # en-US: middle endian
            y, mo, d = m[6], m[2], m[4]
        year = int(y) if y else y
        day = int(d) if d else d
        month = mo
        if month:
            month = int(month)
            if month > 12:
                day, month = month, day
        if (not month or month <= 12) and (not day or day <= 31):
            if year and year < 100:  # two-digit year: this century unless that is in the future
                two_digit = today.year % 100
                century = today.year - two_digit
                year = century + year if year <= two_digit else century - 100 + year
            if month:
                month -= 1
            parts += [m[1], m[7]]
        else:
            year = month = day = None
            parts.append(text)
    else:
        parts.append(text)

    if not year:
        for i, part in enumerate(parts):
            ym = _YEAR_RE.match(part) if part is not None else None
            if ym:
                year = ym[2]
                parts[i : i + 1] = [ym[1], ym[3]]
                break
    if not month:
        for i, part in enumerate(parts):
            mm = _MONTH_RE.match(part) if part is not None else None
            if mm:
                month = _MONTHS.index(mm[2].lower()) % 12
                parts[i : i + 1] = [mm[1], mm[3]]
                break
    if not day:
        for i, part in enumerate(parts):
            dm = _DAY_RE.search(part) if part is not None else None
            if dm and int(dm[1]) <= 31:
                day = int(dm[1])
                parts[i : i + 1] = [dm.string[: dm.start()] + (" " + dm[2] if dm[2] else "")]
                break
    return year, month, day


def is_multipart(value: str) -> bool:
    """``Zotero.Date.isMultipart``: ``'2019-03-00 2019-03'`` yes, ``'2019-03-01 12:00:00'`` no."""
    return not _SQL_DATETIME_RE.match(value) and bool(_MULTIPART_RE.match(value))


def str_to_multipart(value: str) -> str:
    """``Zotero.Date.strToMultipart``: ``'2019-03'`` → ``'2019-03-00 2019-03'``.

    The SQL-sortable part (zeros for what is unknown), a space, then the text as typed.
    """
    if not value:
        return ""
    year, month, day = _str_to_date(value)
    if year and not re.fullmatch(r"[0-9]{1,4}", str(year)):
        year = None
    month_part = str(month + 1) if month is not None else ""
    return (
        (str(year).rjust(4, "0") if year else "0000")
        + "-"
        + month_part.rjust(2, "0")
        + "-"
        + (str(day).rjust(2, "0") if day else "00")
        + " "
        + value
    )


def multipart_to_sql(value: str) -> str:
    """``Zotero.Date.multipartToSQL``: ``'2019-03-00 2019-03'`` → ``'2019-03-00'``."""
    if not value:
        return ""
    return value[:10] if is_multipart(value) else "0000-00-00"


def note_to_title(text: str) -> str:
    """``Zotero.Utilities.Item.noteToTitle``: the first line of the note, at most 120 characters.

    ``unescapeHTML`` (an HTML-to-text conversion in Zotero) is approximated by dropping tags and
    decoding entities.
    """
    original = text
    text = text.strip()
    text = re.sub(r"(</(h\d|p|div)+>)", r"\1\n", text)
    text = re.sub(r"<br\s*/?>", " ", text)
    text = html.unescape(re.sub(r"<[^>]*>", "", text))
    if re.match(r"^<[^>\n]+[^/]>\n", original):
        text = text.strip()
    title = text[:120]
    newline = title.find("\n")
    return title[:newline] if newline > -1 else title


def _sql_datetime(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _parse_sql_datetime(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)


def _normalize(value: str) -> str:
    return unicodedata.normalize("NFC", value.strip())


# --------------------------------------------------------------------------------------------
# The data directory
# --------------------------------------------------------------------------------------------


class ZoteroLib:
    """A Zotero data directory under ``root``: ``root/zotero.sqlite`` and ``root/storage/``.

    Creating it builds a new database as the chosen Zotero release would (``version`` ``"6"``:
    6.0.30, userdata 121; ``"7"``: 7.0.9, userdata 123); an existing ``zotero.sqlite`` of the
    same release is opened instead. Every method is one write transaction on a fresh connection
    (none is held between calls), except inside :meth:`lock`, where the locking connection
    writes, as Zotero's own connection would while it runs.

    Objects are named by their keys (8 characters of :data:`KEY_CHARS`), unique per library; a
    key used in two libraries must not be passed to methods that look items up.
    """

    def __init__(
        self, root: Path, version: Literal["6", "7"] = "7", *, seed: int | None = None
    ) -> None:
        if version not in RELEASES:
            raise ValueError(f"unknown Zotero version {version!r}: one of {sorted(RELEASES)}")
        self.root = Path(root)
        self.version = version
        self.release = RELEASES[version]
        self.db_path = self.root / "zotero.sqlite"
        self.storage = self.root / "storage"
        self.bbt_path = self.root / "better-bibtex.sqlite"
        self._rng = random.Random(seed)
        self._lock_con: sqlite3.Connection | None = None
        self.root.mkdir(parents=True, exist_ok=True)
        self.storage.mkdir(exist_ok=True)
        if self.db_path.exists():
            with contextlib.closing(self._connect()) as con:
                row = con.execute("SELECT version FROM version WHERE schema='userdata'").fetchone()
            if not row or row[0] != self.release.userdata:
                raise ValueError(f"{self.db_path} is not a Zotero {version} database ({row})")
        else:
            self._initialize()
        self._load_schema()

    # -- creation ------------------------------------------------------------------------

    def _initialize(self) -> None:
        con = sqlite3.connect(self.db_path, isolation_level=None)
        try:
            # schema.js runs these first in the same transaction; SQLite applies them when it
            # creates the file, which is what matters.
            con.execute("PRAGMA page_size = 4096")
            con.execute("PRAGMA encoding = 'UTF-8'")
            con.execute("PRAGMA auto_vacuum = 1")
            con.execute("PRAGMA foreign_keys = true")  # Zotero's connection has them on
            con.execute("BEGIN")
            sql_files = {
                "system": self.release.system_sql,
                "userdata": self.release.userdata_sql,
                "triggers": self.release.triggers_sql,
            }
            for path in sql_files.values():
                for statement in parse_sql_file(path.read_text(encoding="utf-8")):
                    con.execute(statement)
            schema = json.loads(gzip.decompress((DATA / self.release.schema_file).read_bytes()))
            _update_global_schema(con, schema)
            for name, path in sql_files.items():
                first = path.read_text(encoding="utf-8").split("\n", 1)[0]
                number = int(re.match(r"^-- ([0-9]+)", first).group(1))  # type: ignore[union-attr]
                con.execute("REPLACE INTO version (schema,version) VALUES (?,?)", (name, number))
            con.execute(
                "INSERT INTO libraries (libraryID, type, editable, filesEditable) "
                "VALUES (?, 'user', 1, 1)",
                (1,),
            )
            con.execute(
                "REPLACE INTO settings (setting, key, value) VALUES ('client', 'lastVersion', ?)",
                (self.release.client,),
            )
            con.execute(
                "REPLACE INTO settings VALUES ('client', 'lastCompatibleVersion', ?)",
                (self.release.client,),
            )
            con.execute(
                "REPLACE INTO version (schema,version) VALUES ('compatibility', ?)",
                (MAX_COMPATIBILITY,),
            )
            # First start: Zotero.Users.init() makes the local user key. (The 'migrateExtra'
            # flag _updateGlobalSchema sets is removed again by migrateExtraFields at startup.)
            alphabet = string.ascii_letters + string.digits
            con.execute(
                "INSERT INTO settings VALUES ('account', 'localUserKey', ?)",
                ("".join(self._rng.choice(alphabet) for _ in range(8)),),
            )
            con.execute("COMMIT")
        except BaseException:
            con.close()
            self.db_path.unlink(missing_ok=True)
            raise
        con.close()

    def _load_schema(self) -> None:
        with contextlib.closing(self._connect()) as con:
            self.item_types: dict[str, int] = dict(
                con.execute("SELECT typeName, itemTypeID FROM itemTypesCombined")
            )
            self.fields: dict[str, int] = dict(
                con.execute("SELECT fieldName, fieldID FROM fieldsCombined")
            )
            self.creator_types: dict[str, int] = dict(
                con.execute("SELECT creatorType, creatorTypeID FROM creatorTypes")
            )
            self._type_fields = set(
                con.execute("SELECT itemTypeID, fieldID FROM itemTypeFieldsCombined")
            )
            self._base_fields: dict[tuple[int, int], int] = {
                (t, b): f
                for t, b, f in con.execute(
                    "SELECT itemTypeID, baseFieldID, fieldID FROM baseFieldMappingsCombined"
                )
            }
            self._type_creators = set(
                con.execute("SELECT itemTypeID, creatorTypeID FROM itemTypeCreatorTypes")
            )
            blob = con.execute(
                "SELECT value FROM settings WHERE setting='globalSchema' AND key='data'"
            ).fetchone()[0]
        meta = json.loads(zlib.decompress(blob))["meta"]["fields"]
        date_ids = {self.fields[name] for name, info in meta.items() if info.get("type") == "date"}
        # Zotero.ItemFields.isDate: 'date' itself, the fields mapped to it, and meta date fields
        date_ids |= {f for (_, b), f in self._base_fields.items() if b == self.fields["date"]}
        self._date_fields = frozenset(date_ids)
        self._names = {i: n for n, i in self.fields.items()}

    # -- connections -----------------------------------------------------------------------

    def _connect(self, timeout: float = 5.0) -> sqlite3.Connection:
        con = sqlite3.connect(self.db_path, isolation_level=None, timeout=timeout)
        con.execute("PRAGMA foreign_keys = true")
        return con

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        own = self._lock_con is None
        con = self._connect() if self._lock_con is None else self._lock_con
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
        finally:
            if own:
                con.close()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the database the way a running Zotero does, for the duration of the block.

        Zotero's ``Zotero.DBConnection._getConnectionAsync`` (db.js) runs
        ``PRAGMA main.locking_mode=EXCLUSIVE`` on its connection; SQLite then keeps the
        EXCLUSIVE lock from the first write until the connection closes. Here the write is an
        empty ``BEGIN EXCLUSIVE``/``COMMIT`` (the file is unchanged). While it is held, any
        other connection gets ``database is locked``, for reading too, except one opened with
        ``?immutable=1``, which takes no locks. The helper's own methods keep working inside
        the block: they write through the locking connection, as Zotero's writes would (a
        ``zotero.sqlite-journal`` file then stays beside the database, as with Zotero).
        """
        if self._lock_con is not None:
            raise RuntimeError("already locked")
        con = self._connect()
        try:
            con.execute("PRAGMA main.locking_mode=EXCLUSIVE")
            con.execute("BEGIN EXCLUSIVE")
            con.execute("COMMIT")
            self._lock_con = con
            yield
        finally:
            self._lock_con = None
            con.close()

    # -- lookups -----------------------------------------------------------------------------

    def item_id(self, key: str) -> int:
        """``items.itemID`` of the item with this key (ValueError if none or ambiguous)."""
        with contextlib.closing(self._connect()) as con:
            return self._item_row(con, key)[0]

    def _item_row(self, con: sqlite3.Connection, key: str) -> tuple[int, int, int]:
        rows = con.execute(
            "SELECT itemID, libraryID, itemTypeID FROM items WHERE key=?", (key,)
        ).fetchall()
        if len(rows) != 1:
            raise ValueError(f"{len(rows)} items have the key {key!r}")
        item_id, library_id, type_id = rows[0]
        return int(item_id), int(library_id), int(type_id)

    def _collection_id(self, con: sqlite3.Connection, key: str) -> int:
        rows = con.execute("SELECT collectionID FROM collections WHERE key=?", (key,)).fetchall()
        if len(rows) != 1:
            raise ValueError(f"{len(rows)} collections have the key {key!r}")
        return int(rows[0][0])

    def _new_key(self, con: sqlite3.Connection, table: str, library_id: int) -> str:
        while True:
            key = "".join(self._rng.choice(KEY_CHARS) for _ in range(8))
            sql = f"SELECT 1 FROM {table} WHERE libraryID=? AND key=?"
            if not con.execute(sql, (library_id, key)).fetchone():
                return key

    @staticmethod
    def _next_id(con: sqlite3.Connection, table: str, column: str) -> int:
        """``Zotero.ID.get``: ``MAX(id) + 1``."""
        return int(con.execute(f"SELECT COALESCE(MAX({column}) + 1, 1) FROM {table}").fetchone()[0])

    @staticmethod
    def _now() -> str:
        return _sql_datetime(datetime.now(UTC))

    @staticmethod
    def _later(*previous: str) -> str:
        """Now, or one second after the latest of ``previous`` if that is not earlier.

        Zotero writes the transaction's time; bumping it keeps a change visible to a reader
        comparing timestamps even when the test runs within one second.
        """
        now = datetime.now(UTC).replace(microsecond=0)
        latest = max((_parse_sql_datetime(p) for p in previous if p), default=None)
        if latest is not None and latest >= now:
            now = latest + timedelta(seconds=1)
        return _sql_datetime(now)

    # -- collections and libraries ---------------------------------------------------------

    def add_group_library(
        self,
        name: str,
        group_id: int | None = None,
        *,
        editable: bool = True,
        files_editable: bool = True,
    ) -> int:
        """Add a group library (``libraries`` type ``'group'`` plus its ``groups`` row).

        Returns its ``libraryID``, to pass as ``library_id`` to :meth:`add_item` and
        :meth:`add_collection`. Its stored files share ``root/storage/`` with the user library.
        """
        with self._tx() as con:
            library_id = self._next_id(con, "libraries", "libraryID")
            if group_id is None:
                group_id = 1000000 + library_id
            con.execute(
                "INSERT INTO libraries (libraryID, type, editable, filesEditable) "
                "VALUES (?, 'group', ?, ?)",
                (library_id, int(editable), int(files_editable)),
            )
            con.execute(
                "INSERT INTO groups (groupID, libraryID, name, description, version) "
                "VALUES (?, ?, ?, '', 0)",
                (group_id, library_id, name),
            )
        return library_id

    def add_collection(
        self, name: str, parent: str | None = None, *, key: str | None = None, library_id: int = 1
    ) -> str:
        """Add a collection (a sub-collection of the collection keyed ``parent`` if given).

        Returns its key.
        """
        with self._tx() as con:
            parent_id = self._collection_id(con, parent) if parent is not None else None
            key = key or self._new_key(con, "collections", library_id)
            con.execute(
                "INSERT INTO collections (collectionID, collectionName, parentCollectionID, "
                "libraryID, key, clientDateModified) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    self._next_id(con, "collections", "collectionID"),
                    name,
                    parent_id,
                    library_id,
                    key,
                    self._now(),
                ),
            )
        return key

    def trash_collection(self, key: str) -> None:
        """Put a collection in the trash, as Zotero 7 does (``deletedCollections``).

        Its items stay in ``collectionItems`` and are not trashed themselves.
        """
        with self._tx() as con:
            collection_id = self._collection_id(con, key)
            con.execute(
                "UPDATE collections SET synced=0, clientDateModified=? WHERE collectionID=?",
                (self._now(), collection_id),
            )
            con.execute(
                "INSERT OR IGNORE INTO deletedCollections (collectionID) VALUES (?)",
                (collection_id,),
            )

    # -- items -----------------------------------------------------------------------------

    def add_item(
        self,
        item_type: str = "journalArticle",
        *,
        fields: Mapping[str, str] | None = None,
        creators: Sequence[Creator] = (),
        tags: Sequence[Tag] = (),
        collections: Sequence[str] = (),
        key: str | None = None,
        date_added: str | None = None,
        date_modified: str | None = None,
        library_id: int = 1,
    ) -> str:
        """Add a regular item and return its key.

        ``fields`` are Zotero field names; a base field (``publicationTitle``) is stored under
        the type's own field (``proceedingsTitle`` for a ``conferencePaper``), as
        ``Zotero.Item.setField`` does. A field the type does not have raises ValueError, so do
        an unknown item or creator type. ``date`` (and the fields based on it) is stored as a
        multipart date: ``'2019-03'`` becomes ``'2019-03-00 2019-03'``. ``date_added`` and
        ``date_modified`` (``'YYYY-MM-DD HH:MM:SS'`` UTC) default to now.
        """
        if item_type in ("note", "attachment", "annotation"):
            raise ValueError(f"{item_type!r} items are made by add_note/attach_pdf")
        type_id = self._type_id(item_type)
        values = self._field_values(type_id, fields or {})
        creator_rows = self._creator_rows(type_id, creators)
        with self._tx() as con:
            item_id, key = self._insert_item(
                con, type_id, library_id, key, date_added, date_modified
            )
            self._write_fields(con, item_id, values)
            self._write_creators(con, item_id, creator_rows)
            self._write_tags(con, item_id, tags)
            self._add_to_collections(con, item_id, collections)
        return key

    def attach_pdf(
        self,
        parent_key: str | None,
        pdf: Path,
        *,
        linked: bool = False,
        title: str = "Full Text PDF",
        filename: str | None = None,
        url: str | None = None,
        base_dir: Path | None = None,
        content_type: str = "application/pdf",
        key: str | None = None,
        collections: Sequence[str] = (),
        date_modified: str | None = None,
    ) -> str:
        """Attach a file to the item keyed ``parent_key`` (None: a standalone attachment).

        * stored (default): ``linkMode`` 0 (``imported_file``), or 1 (``imported_url``, with the
          ``url`` and ``accessDate`` fields) when ``url`` is given. The file is copied to
          ``storage/<attachment key>/<filename>`` and ``path`` is ``'storage:<filename>'``.
        * ``linked=True``: ``linkMode`` 2 (``linked_file``); nothing is copied and ``path`` is the
          absolute path of ``pdf``, or ``'attachments:<path relative to base_dir>'`` (with
          ``/``) when Zotero's "Linked Attachment Base Directory" ``base_dir`` is given.

        ``contentType`` is ``content_type``, ``charsetID`` NULL, ``syncState`` 0. Returns the
        attachment's key.
        """
        pdf = Path(pdf)
        if linked and url is not None:
            raise ValueError("a linked file has no url (that would be linkMode 3, a link)")
        type_id = self.item_types["attachment"]
        field_values: dict[str, str] = {"title": title}
        if url is not None:
            field_values |= {"url": url, "accessDate": "CURRENT_TIMESTAMP"}
        with self._tx() as con:
            parent_id, library_id = None, 1
            if parent_key is not None:
                parent_id, library_id, parent_type = self._item_row(con, parent_key)
                if parent_type in (self.item_types["note"], self.item_types["attachment"]):
                    raise ValueError("an attachment's parent must be a regular item")
            if linked:
                sql = "SELECT type FROM libraries WHERE libraryID=?"
                if con.execute(sql, (library_id,)).fetchone()[0] != "user":
                    raise ValueError("Linked files can only be added to user library")
                mode = LINK_MODE_LINKED_FILE
                if base_dir is not None:
                    relative = pdf.resolve().relative_to(Path(base_dir).resolve())
                    path = "attachments:" + relative.as_posix()
                else:
                    path = str(pdf.resolve())
            else:
                mode = LINK_MODE_IMPORTED_URL if url is not None else LINK_MODE_IMPORTED_FILE
                path = "storage:" + (filename or pdf.name)
            now = self._now()
            values = self._field_values(type_id, field_values, now=now)
            item_id, key = self._insert_item(con, type_id, library_id, key, None, date_modified)
            self._write_fields(con, item_id, values)
            con.execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, "
                "charsetID, path, syncState, storageModTime, storageHash, "
                "lastProcessedModificationTime) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (item_id, parent_id, mode, content_type, None, path, 0, None, None, None),
            )
            self._add_to_collections(con, item_id, collections)
            if not linked:
                folder = self.storage / key
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(pdf, folder / (filename or pdf.name))
        return key

    def add_note(
        self,
        parent_key: str | None,
        html_text: str,
        *,
        key: str | None = None,
        collections: Sequence[str] = (),
        tags: Sequence[Tag] = (),
        date_modified: str | None = None,
    ) -> str:
        """Add a note (a child of ``parent_key``, or standalone if None) and return its key.

        The HTML is stored in ``itemNotes.note`` wrapped in ``<div class="zotero-note znv1">``
        unless already so wrapped; ``itemNotes.title`` is its first line. A note has no
        ``itemData``.
        """
        text = re.sub(r"[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]", "", html_text).strip()
        title = note_to_title(text)
        if not _NOTE_WRAPPED.match(text):
            text = NOTE_PREFIX + text + NOTE_SUFFIX
        with self._tx() as con:
            parent_id, library_id = None, 1
            if parent_key is not None:
                parent_id, library_id, parent_type = self._item_row(con, parent_key)
                if parent_type in (self.item_types["note"], self.item_types["attachment"]):
                    raise ValueError("a note's parent must be a regular item")
            item_id, key = self._insert_item(
                con, self.item_types["note"], library_id, key, None, date_modified
            )
            con.execute(
                "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?,?,?,?)",
                (item_id, parent_id, text, title),
            )
            self._add_to_collections(con, item_id, collections)
            self._write_tags(con, item_id, tags)
        return key

    def update_item(
        self,
        key: str,
        *,
        fields: Mapping[str, str] | None = None,
        tags: Sequence[Tag] | None = None,
        collections: Sequence[str] | None = None,
        creators: Sequence[Creator] | None = None,
        date_modified: str | None = None,
    ) -> None:
        """Change an item as an edit in Zotero does, then ``save()``.

        ``fields`` are set (``''`` removes one) and the others kept; ``tags``, ``collections``
        and ``creators``, when given, replace the item's. ``dateModified`` and
        ``clientDateModified`` become ``date_modified`` or now (strictly later than before),
        ``synced`` 0; ``version`` stays 0 (only a sync sets it). Changing ``collections`` here
        is an item save, so it moves ``dateModified`` too, unlike :meth:`move`.
        """
        with self._tx() as con:
            item_id, _, type_id = self._item_row(con, key)
            values = self._field_values(type_id, fields or {}, now=self._now())
            creator_rows = self._creator_rows(type_id, creators) if creators is not None else None
            before = con.execute(
                "SELECT dateModified, clientDateModified FROM items WHERE itemID=?", (item_id,)
            ).fetchone()
            stamp = date_modified or self._later(*before)
            con.execute(
                "UPDATE items SET dateModified=?, synced=0, clientDateModified=? WHERE itemID=?",
                (stamp, self._later(before[1]) if date_modified else stamp, item_id),
            )
            self._write_fields(con, item_id, values)
            if creator_rows is not None:
                con.execute("DELETE FROM itemCreators WHERE itemID=?", (item_id,))
                self._write_creators(con, item_id, creator_rows)
            if collections is not None:
                self._set_collections(con, item_id, collections)
            if tags is not None:
                con.execute("DELETE FROM itemTags WHERE itemID=?", (item_id,))
                self._write_tags(con, item_id, tags)

    def set_field_raw(self, key: str, field: str, value: str | None) -> None:
        """Write ``itemData`` directly: no validation, no date conversion, no timestamp change.

        For values Zotero itself would not write now (a field the type lacks, a plain date)
        but that old databases or syncs can hold. ``None`` removes the field.
        """
        with self._tx() as con:
            item_id = self._item_row(con, key)[0]
            if field not in self.fields:
                raise ValueError(f"no field {field!r}")
            self._write_fields(con, item_id, {self.fields[field]: value or ""})

    def move(self, key: str, collections: Sequence[str]) -> None:
        """Set the item's collections as dragging it in Zotero does (``Collection.addItems``).

        Collection changes are saved with ``skipDateModifiedUpdate``: ``dateModified`` stays,
        ``clientDateModified`` changes and ``synced`` becomes 0.
        """
        with self._tx() as con:
            item_id = self._item_row(con, key)[0]
            before = con.execute(
                "SELECT clientDateModified FROM items WHERE itemID=?", (item_id,)
            ).fetchone()[0]
            self._set_collections(con, item_id, collections)
            con.execute(
                "UPDATE items SET synced=0, clientDateModified=? WHERE itemID=?",
                (self._later(before), item_id),
            )

    def trash(self, key: str) -> None:
        """Move an item to the trash (``Zotero.Items.trash``): a ``deletedItems`` row.

        ``dateModified`` is unchanged, ``clientDateModified`` changes, ``synced`` becomes 0.
        Its child notes and attachments get no ``deletedItems`` row of their own.
        """
        with self._tx() as con:
            item_id = self._item_row(con, key)[0]
            before = con.execute(
                "SELECT clientDateModified FROM items WHERE itemID=?", (item_id,)
            ).fetchone()[0]
            con.execute(
                "UPDATE items SET synced=0, clientDateModified=? WHERE itemID=?",
                (self._later(before), item_id),
            )
            con.execute("INSERT OR IGNORE INTO deletedItems (itemID) VALUES (?)", (item_id,))

    def restore(self, key: str) -> None:
        """Take an item out of the trash (``item.deleted = false; item.save()``)."""
        with self._tx() as con:
            item_id = self._item_row(con, key)[0]
            before = con.execute(
                "SELECT dateModified, clientDateModified FROM items WHERE itemID=?", (item_id,)
            ).fetchone()
            stamp = self._later(*before)
            con.execute(
                "UPDATE items SET dateModified=?, synced=0, clientDateModified=? WHERE itemID=?",
                (stamp, stamp, item_id),
            )
            con.execute("DELETE FROM deletedItems WHERE itemID=?", (item_id,))

    def delete(self, key: str) -> None:
        """Erase an item as emptying the trash does (``Zotero.Item._eraseData``).

        Its child notes and attachments are erased first; each erased item's row goes (its
        ``itemData``, creators, tags, collection and trash rows with it, by ``ON DELETE
        CASCADE``), a ``syncDeleteLog`` row (``syncObjectTypeID`` 3, library, key) is written,
        and an attachment's ``storage/<key>/`` folder is removed (a linked file itself stays).
        ``itemDataValues``, ``creators`` and ``tags`` rows no longer used stay, until Zotero's
        purge would remove them.
        """
        folders: list[Path] = []
        with self._tx() as con:
            self._erase(con, self._item_row(con, key)[0], folders)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    def _erase(self, con: sqlite3.Connection, item_id: int, folders: list[Path]) -> None:
        children = [
            row[0]
            for row in con.execute(
                "SELECT itemID FROM itemNotes WHERE parentItemID=?1 UNION "
                "SELECT itemID FROM itemAttachments WHERE parentItemID=?1 UNION "
                "SELECT itemID FROM itemAnnotations WHERE parentItemID=?1",
                (item_id,),
            )
        ]
        for child in children:
            self._erase(con, child, folders)
        library_id, key = con.execute(
            "SELECT libraryID, key FROM items WHERE itemID=?", (item_id,)
        ).fetchone()
        mode = con.execute(
            "SELECT linkMode FROM itemAttachments WHERE itemID=?", (item_id,)
        ).fetchone()
        if mode is not None and mode[0] != LINK_MODE_LINKED_URL:
            folders.append(self.storage / key)
        con.execute("DELETE FROM items WHERE itemID=?", (item_id,))
        con.execute(
            "REPLACE INTO syncDeleteLog (syncObjectTypeID, libraryID, key) VALUES (?, ?, ?)",
            (SYNC_OBJECT_ITEM, library_id, key),
        )

    # -- Better BibTeX ---------------------------------------------------------------------

    def write_bbt_citekeys(
        self,
        keys: Mapping[str, str],
        *,
        pinned: bool = False,
        layout: Literal["citationkey", "loki"] = "citationkey",
    ) -> Path:
        """Store Better BibTeX citation keys (item key → citation key) in ``better-bibtex.sqlite``.

        ``"citationkey"`` (BBT 6.7.133 and later, BBT 7 for Zotero 7): the table
        ``citationkey (itemID, itemKey, libraryID, citationKey, pinned)`` from BBT v7.0.77's
        ``content/db/citation-key.sql``, created as BBT does: the file ``ATTACH``-ed as
        ``betterbibtex``. ``"loki"`` (older BBT 6): table ``"better-bibtex" (name, data)`` whose
        row ``'better-bibtex.citekey'`` holds a LokiJS collection as JSON, the keys in
        ``data[*]`` as ``{itemID, itemKey, libraryID, citekey, pinned}``. Returns the path.
        """
        with contextlib.closing(self._connect()) as con:
            rows = []
            for item_key, citation_key in keys.items():
                item_id, library_id, _ = self._item_row(con, item_key)
                rows.append((item_id, item_key, library_id, citation_key, int(pinned)))
        bbt = sqlite3.connect(":memory:", isolation_level=None)
        try:
            bbt.execute("ATTACH DATABASE ? AS betterbibtex", (str(self.bbt_path),))
            if layout == "citationkey":
                bbt.executescript((DATA / "bbt-citation-key.sql").read_text(encoding="utf-8"))
                bbt.execute("BEGIN")
                bbt.executemany(
                    "REPLACE INTO betterbibtex.citationkey "
                    "(itemID, itemKey, libraryID, citationKey, pinned) VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
                bbt.execute("COMMIT")
            elif layout == "loki":
                self._write_loki(bbt, rows)
            else:
                raise ValueError(f"unknown layout {layout!r}")
        finally:
            bbt.close()
        return self.bbt_path

    @staticmethod
    def _write_loki(bbt: sqlite3.Connection, rows: list[tuple[int, str, int, str, int]]) -> None:
        bbt.execute(
            'CREATE TABLE IF NOT EXISTS betterbibtex."better-bibtex" '
            "(name TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)"
        )
        found = bbt.execute(
            'SELECT data FROM betterbibtex."better-bibtex" WHERE name=?', ("better-bibtex.citekey",)
        ).fetchone()
        collection: dict[str, Any] = (
            json.loads(found[0])
            if found
            else {"name": "citekey", "data": [], "idIndex": [], "maxId": 0, "uniqueNames": []}
        )
        records = {r["itemID"]: r for r in collection["data"]}
        created = int(datetime.now(UTC).timestamp() * 1000)
        for item_id, item_key, library_id, citation_key, pin in rows:
            record = records.get(item_id)
            if record is None:
                collection["maxId"] += 1
                record = {"$loki": collection["maxId"]}
                record["meta"] = {"revision": 0, "created": created, "version": 0}
                records[item_id] = record
            record |= {
                "itemID": item_id,
                "itemKey": item_key,
                "libraryID": library_id,
                "citekey": citation_key,
                "pinned": bool(pin),
            }
        collection["data"] = sorted(records.values(), key=lambda r: r["$loki"])
        collection["idIndex"] = [r["$loki"] for r in collection["data"]]
        database = {"filename": "better-bibtex", "collections": ["better-bibtex.citekey"]}
        bbt.execute("BEGIN")
        bbt.execute(
            'REPLACE INTO betterbibtex."better-bibtex" (name, data) VALUES (?, ?)',
            ("better-bibtex.citekey", json.dumps(collection)),
        )
        bbt.execute(
            'REPLACE INTO betterbibtex."better-bibtex" (name, data) VALUES (?, ?)',
            ("better-bibtex", json.dumps(database)),
        )
        bbt.execute("COMMIT")

    # -- writing pieces ----------------------------------------------------------------------

    def _type_id(self, item_type: str) -> int:
        if item_type not in self.item_types:
            raise ValueError(f"no item type {item_type!r} in Zotero {self.version}")
        return self.item_types[item_type]

    def _field_values(
        self, type_id: int, fields: Mapping[str, str], *, now: str | None = None
    ) -> dict[int, str]:
        """``Zotero.Item.setField`` for each field: {fieldID: value to store, '' to remove}."""
        out: dict[int, str] = {}
        type_name = next(n for n, i in self.item_types.items() if i == type_id)
        for name, raw in fields.items():
            if name not in self.fields:
                raise ValueError(f"{name!r} is not a valid itemData field")
            field_id = self._base_fields.get((type_id, self.fields[name]), self.fields[name])
            value = _normalize(str(raw))
            if value and (type_id, field_id) not in self._type_fields:
                raise ValueError(f"{name!r} is not a valid field for type {type_name!r}")
            if value and self._names[field_id] not in MULTILINE_FIELDS:
                value = re.sub(r"[\r\n]+", " ", value)
            if value and field_id in self._date_fields and not is_multipart(value):
                value = str_to_multipart(value)
            elif value and self._names[field_id] == "accessDate":
                value = self._access_date(value, now or self._now())
            out[field_id] = value
        return out

    @staticmethod
    def _access_date(value: str, now: str) -> str:
        if value == "CURRENT_TIMESTAMP":
            return now
        if _SQL_DATE_RE.match(value) or _SQL_DATETIME_RE.match(value):
            return value
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"invalid accessDate {value!r}") from None
        return _sql_datetime(parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))

    def _creator_rows(
        self, type_id: int, creators: Sequence[Creator]
    ) -> list[tuple[int, str, str, int]]:
        """``Zotero.Creators.cleanData`` + the strict ``setCreator`` checks."""
        rows = []
        for creator in creators:
            creator_type = creator[0]
            if creator_type not in self.creator_types:
                raise ValueError(f"unknown creator type {creator_type!r}")
            type_ok = (type_id, self.creator_types[creator_type]) in self._type_creators
            if not type_ok:
                raise ValueError(f"creator type {creator_type!r} is not valid for this item type")
            if len(creator) == 3:
                first, last, mode = _normalize(creator[1]), _normalize(creator[2]), 0
            elif len(creator) == 2:
                first, last, mode = "", _normalize(creator[1]), 1
            else:
                raise ValueError(f"a creator is (type, first, last) or (type, name): {creator!r}")
            if not first and not last:
                raise ValueError("Creator names cannot be empty")
            rows.append((self.creator_types[creator_type], first, last, mode))
        return rows

    def _insert_item(
        self,
        con: sqlite3.Connection,
        type_id: int,
        library_id: int,
        key: str | None,
        date_added: str | None,
        date_modified: str | None,
    ) -> tuple[int, str]:
        now = self._now()
        key = key or self._new_key(con, "items", library_id)
        if len(key) != 8 or any(c not in KEY_CHARS for c in key):
            raise ValueError(f"{key!r} is not a Zotero key")
        item_id = self._next_id(con, "items", "itemID")
        con.execute(
            "INSERT INTO items (itemID, itemTypeID, dateAdded, dateModified, libraryID, key, "
            "clientDateModified) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (item_id, type_id, date_added or now, date_modified or now, library_id, key, now),
        )
        return item_id, key

    def _write_fields(
        self, con: sqlite3.Connection, item_id: int, values: Mapping[int, str]
    ) -> None:
        for field_id, value in values.items():
            if value == "":
                con.execute(
                    "DELETE FROM itemData WHERE itemID=? AND fieldID=?", (item_id, field_id)
                )
                continue
            row = con.execute("SELECT valueID FROM itemDataValues WHERE value=?", (value,))
            found = row.fetchone()
            if found:
                value_id = found[0]
            else:
                value_id = self._next_id(con, "itemDataValues", "valueID")
                con.execute("INSERT INTO itemDataValues VALUES (?,?)", (value_id, value))
            con.execute("REPLACE INTO itemData VALUES (?,?,?)", (item_id, field_id, value_id))

    def _write_creators(
        self, con: sqlite3.Connection, item_id: int, rows: Sequence[tuple[int, str, str, int]]
    ) -> None:
        for order, (type_id, first, last, mode) in enumerate(rows):
            found = con.execute(
                "SELECT creatorID FROM creators WHERE firstName=? AND lastName=? AND fieldMode=?",
                (first, last, mode),
            ).fetchone()
            if found:
                creator_id = found[0]
            else:
                creator_id = self._next_id(con, "creators", "creatorID")
                con.execute(
                    "INSERT INTO creators (creatorID, firstName, lastName, fieldMode) "
                    "VALUES (?, ?, ?, ?)",
                    (creator_id, first, last, mode),
                )
            con.execute(
                "INSERT OR REPLACE INTO itemCreators "
                "(itemID, creatorID, creatorTypeID, orderIndex) VALUES (?, ?, ?, ?)",
                (item_id, creator_id, type_id, order),
            )

    def _write_tags(self, con: sqlite3.Connection, item_id: int, tags: Sequence[Tag]) -> None:
        for tag in tags:
            name, tag_type = (tag, 0) if isinstance(tag, str) else tag
            name = _normalize(name)
            if tag_type not in (0, 1):
                raise ValueError("Tag 'type' must be 0 or 1")
            found = con.execute("SELECT tagID FROM tags WHERE name=?", (name,)).fetchone()
            if found:
                tag_id = found[0]
            else:
                tag_id = self._next_id(con, "tags", "tagID")
                con.execute("INSERT INTO tags (tagID, name) VALUES (?, ?)", (tag_id, name))
            con.execute(
                "INSERT OR REPLACE INTO itemTags (itemID, tagID, type) VALUES (?, ?, ?)",
                (item_id, tag_id, tag_type),
            )

    def _add_to_collections(
        self, con: sqlite3.Connection, item_id: int, collections: Sequence[str]
    ) -> None:
        for collection in collections:
            collection_id = self._collection_id(con, collection)
            order = con.execute(
                "SELECT IFNULL(MAX(orderIndex)+1, 0) FROM collectionItems WHERE collectionID=?",
                (collection_id,),
            ).fetchone()[0]
            con.execute(
                "INSERT OR IGNORE INTO collectionItems (collectionID, itemID, orderIndex) "
                "VALUES (?, ?, ?)",
                (collection_id, item_id, order),
            )

    def _set_collections(
        self, con: sqlite3.Connection, item_id: int, collections: Sequence[str]
    ) -> None:
        wanted = {self._collection_id(con, c): c for c in collections}
        current = {
            row[0]
            for row in con.execute(
                "SELECT collectionID FROM collectionItems WHERE itemID=?", (item_id,)
            )
        }
        for collection_id in current - wanted.keys():
            con.execute(
                "DELETE FROM collectionItems WHERE itemID=? AND collectionID=?",
                (item_id, collection_id),
            )
        self._add_to_collections(con, item_id, [c for i, c in wanted.items() if i not in current])


def _update_global_schema(con: sqlite3.Connection, data: dict[str, Any]) -> None:
    """Port of ``Zotero.Schema._updateGlobalSchema`` for a new database.

    Fills ``fields``, ``creatorTypes``, ``itemTypes``, ``itemTypeFields``,
    ``baseFieldMappings`` and ``itemTypeCreatorTypes`` from ``schema.json`` (IDs in first-seen
    order, as ``Zotero.ID.get`` hands them out), stores the schema without its item types in
    ``settings`` and the ``globalSchema`` version, then rebuilds the ``*Combined`` tables
    (``_updateCustomTables``).
    """

    def next_id(table: str, column: str) -> int:
        return int(con.execute(f"SELECT COALESCE(MAX({column}) + 1, 1) FROM {table}").fetchone()[0])

    field_ids = dict(con.execute("SELECT fieldName, fieldID FROM fields"))
    creator_ids = dict(con.execute("SELECT creatorType, creatorTypeID FROM creatorTypes"))
    type_ids = dict(con.execute("SELECT typeName, itemTypeID FROM itemTypes"))
    post_fields: dict[str, None] = {}
    post_creators: dict[str, None] = {}
    for item_type in data["itemTypes"]:
        for field in item_type["fields"]:
            post_fields[field["field"]] = None
            if field.get("baseField"):
                post_fields[field["baseField"]] = None
        for creator in item_type["creatorTypes"]:
            post_creators[creator["creatorType"]] = None
    next_field = next_id("fields", "fieldID")
    for name in post_fields:
        if name not in field_ids:
            field_ids[name] = next_field
            con.execute("INSERT INTO fields VALUES (?, ?, NULL)", (next_field, name))
            next_field += 1
    next_creator = next_id("creatorTypes", "creatorTypeID")
    for name in post_creators:
        if name not in creator_ids:
            creator_ids[name] = next_creator
            con.execute("INSERT INTO creatorTypes VALUES (?, ?)", (next_creator, name))
            next_creator += 1

    type_fields: list[tuple[int, int, int, int]] = []
    base_mappings: list[tuple[int, int, int]] = []
    type_creators: list[tuple[int, int, int]] = []
    next_type = next_id("itemTypes", "itemTypeID")
    for item_type in data["itemTypes"]:
        type_id = type_ids.get(item_type["itemType"])
        if type_id is None:
            type_id = type_ids[item_type["itemType"]] = next_type
            next_type += 1
            con.execute(
                "INSERT INTO itemTypes VALUES (?, ?, NULL, 1)", (type_id, item_type["itemType"])
            )
        for index, field in enumerate(item_type["fields"]):
            field_id = field_ids[field["field"]]
            type_fields.append((type_id, field_id, 0, index))
            if field.get("baseField"):
                base_mappings.append((type_id, field_ids[field["baseField"]], field_id))
        for creator in item_type["creatorTypes"]:
            primary = 1 if creator.get("primary") else 0
            type_creators.append((type_id, creator_ids[creator["creatorType"]], primary))
    con.execute("DELETE FROM itemTypeFields")
    con.execute("DELETE FROM baseFieldMappings")
    con.execute("DELETE FROM itemTypeCreatorTypes")
    con.executemany("INSERT INTO itemTypeFields VALUES (?, ?, ?, ?)", type_fields)
    con.executemany("INSERT INTO baseFieldMappings VALUES (?, ?, ?)", base_mappings)
    con.executemany("INSERT INTO itemTypeCreatorTypes VALUES (?, ?, ?)", type_creators)

    stored = {k: v for k, v in data.items() if k != "itemTypes"}
    blob = zlib.compress(json.dumps(stored, ensure_ascii=False, separators=(",", ":")).encode())
    con.execute("REPLACE INTO settings VALUES ('globalSchema', 'data', ?)", (blob,))
    con.execute(
        "REPLACE INTO version (schema,version) VALUES (?,?)", ("globalSchema", data["version"])
    )

    offset = CUSTOM_ID_OFFSET
    for table in ("itemTypesCombined", "fieldsCombined", "itemTypeFieldsCombined"):
        con.execute(f"DELETE FROM {table}")
    con.execute("DELETE FROM baseFieldMappingsCombined")
    con.execute(
        "INSERT INTO itemTypesCombined "
        "SELECT itemTypeID, typeName, display, 0 AS custom FROM itemTypes UNION "
        f"SELECT customItemTypeID + {offset} AS itemTypeID, typeName, display, 1 AS custom "
        "FROM customItemTypes"
    )
    con.execute(
        "INSERT INTO fieldsCombined "
        "SELECT fieldID, fieldName, NULL AS label, fieldFormatID, 0 AS custom FROM fields UNION "
        f"SELECT customFieldID + {offset} AS fieldID, fieldName, label, NULL, 1 AS custom "
        "FROM customFields"
    )
    con.execute(
        "INSERT INTO itemTypeFieldsCombined "
        "SELECT itemTypeID, fieldID, hide, orderIndex FROM itemTypeFields UNION "
        f"SELECT customItemTypeID + {offset} AS itemTypeID, "
        f"COALESCE(fieldID, customFieldID + {offset}) AS fieldID, hide, orderIndex "
        "FROM customItemTypeFields"
    )
    con.execute(
        "INSERT INTO baseFieldMappingsCombined "
        "SELECT itemTypeID, baseFieldID, fieldID FROM baseFieldMappings UNION "
        f"SELECT customItemTypeID + {offset} AS itemTypeID, baseFieldID, "
        f"customFieldID + {offset} AS fieldID FROM customBaseFieldMappings"
    )
