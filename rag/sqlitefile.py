"""One SQLite file that several threads and processes share, and that a damaged copy of
never stops.

The file is in WAL mode (readers never wait for the writer); every connection waits up to
10 s for a lock (``busy_timeout``) and lasts one piece of work, so no process keeps using a
file another has replaced. The schema is made once, in a ``BEGIN IMMEDIATE`` transaction,
and ``PRAGMA user_version`` is its version: a file made by a newer schema is refused, not
changed.

A file that is not a SQLite database, or one SQLite finds damaged (its quick check at
first use, or an error saying so later), is renamed ``<name>.corrupt-<time>`` (its WAL
beside it), under a lock file so that only one process does it, and a new file is
started; :attr:`SqliteFile.notice` says so. Errors are raised as
:class:`rag.errors.StoreError`, never printed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rag.errors import StoreError

__all__ = ["BUSY_MS", "SqliteFile"]

BUSY_MS = 10_000
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
T = TypeVar("T")


def _casefold(value: object) -> str:
    return str(value or "").casefold()


def _damaged(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) in _DAMAGED


class SqliteFile:
    """The SQLite file at ``path`` with ``schema`` (statements separated by ";") at
    ``version``; ``what`` names it in messages ("the conversations file")."""

    def __init__(self, path: Path, *, schema: str, version: int, what: str) -> None:
        self.path = path
        self.schema = schema
        self.version = version
        self.what = what
        self.notice = ""  # set when a damaged file was set aside: for the faces to show
        self._ready = False
        self._lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        """A connection in autocommit mode (``BEGIN IMMEDIATE`` for writes), rows by name,
        ``casefold(text)`` for case-free matching."""
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.what} {self.path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        try:
            conn.create_function("casefold", 1, _casefold, deterministic=True)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _fault(self) -> str:
        """Why the file cannot be used ("" when it can), by SQLite's quick check."""
        try:
            conn = self.connect()
            try:
                rows = conn.execute("PRAGMA quick_check").fetchall()
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            if _damaged(exc):
                return str(exc)
            raise
        result = "; ".join(str(r[0]) for r in rows[:3])
        return "" if result == "ok" else result

    def _set_aside(self, reason: str) -> None:
        """Rename a damaged file (and its WAL) out of the way, once across processes."""
        with self.path.with_name(self.path.name + ".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not self.path.exists() or not self._fault():
                    return  # another process set it aside already
                stamp = time.strftime("%Y%m%dT%H%M%S")
                aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
                i = 1
                while aside.exists():
                    i += 1
                    aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{i}")
                os.replace(self.path, aside)
                wal = self.path.with_name(self.path.name + "-wal")
                if wal.exists():
                    os.replace(wal, aside.with_name(aside.name + "-wal"))
                with contextlib.suppress(FileNotFoundError):
                    self.path.with_name(self.path.name + "-shm").unlink()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        self.notice = (
            f"{self.what.capitalize()} {self.path} could not be read ({reason}); it was set "
            f"aside as {aside.name} and a new one started. Nothing else was touched."
        )

    def _make_schema(self) -> None:
        conn = self.connect()
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > self.version:
                raise StoreError(
                    f"{self.what} {self.path} was made by a newer paperchat (schema "
                    f"{version}; this one knows {self.version}): upgrade paperchat"
                )
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
                raise StoreError(f"{self.what} {self.path} cannot be put in WAL mode")
            if version < self.version:
                conn.execute("BEGIN IMMEDIATE")  # one process makes the schema
                for statement in self.schema.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {self.version}")
                conn.execute("COMMIT")
        finally:
            conn.close()

    def _prepare(self) -> None:
        """Once per process: the directory, a sound file, WAL, the schema."""
        with self._lock:
            if self._ready:
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create {self.path.parent}: {exc.strerror}") from exc
            try:
                if reason := self._fault():
                    self._set_aside(reason)
                self._make_schema()
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"cannot use {self.what} {self.path}: {exc}") from exc
            self._ready = True

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on a connection of its own (rolled back if it fails mid-transaction);
        a file found damaged is set aside and the work done once more on a new one."""
        for attempt in (1, 2):
            self._prepare()
            conn: sqlite3.Connection | None = None
            try:
                conn = self.connect()
                return work(conn)
            except sqlite3.Error as exc:
                if conn is not None and conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if not _damaged(exc) or attempt == 2:
                    raise StoreError(f"{self.what} {self.path}: {exc}") from exc
                with self._lock:
                    self._ready = False
                try:
                    self._set_aside(str(exc))
                except OSError as err:
                    raise StoreError(f"cannot set {self.what} {self.path} aside: {err}") from err
            finally:
                if conn is not None:
                    conn.close()
        raise AssertionError("unreachable")
