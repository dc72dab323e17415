"""Saved conversations: every question and answer, in one SQLite file in the data directory.

``<data dir>/conversations.sqlite3`` holds each conversation (id, title, when it started and
was last added to) and its turns in order: the question, the answer's JSON exactly as the
API returns it, the records that show its citations again (:mod:`rag.answer.saved`), the
filters and the model asked for. One user per data directory: there are no owners. The
file is shared safely by threads and server workers, and a damaged one is set aside, never
fatal (:mod:`rag.sqlitefile`); a turn is numbered and written in one transaction.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rag.answer.events import Answer, ErrorEvent, Event, FinalEvent, SourcesEvent
from rag.answer.followup import Turn
from rag.answer.saved import (
    Conversation,
    SavedTurn,
    citation_records,
    clean_title,
    filters_json,
    model_title,
    title_from_question,
)
from rag.errors import NotFoundError, QueryError
from rag.sqlitefile import SqliteFile

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.answer.cite import Citation
    from rag.answer.followup import HistoryItem
    from rag.retrieve import Filters

__all__ = ["FILE_NAME", "SCHEMA_VERSION", "Answering", "Conversations"]

FILE_NAME = "conversations.sqlite3"
SCHEMA_VERSION = 1
HISTORY_TURNS = 25  # the exchanges a follow-up sees (the prompt's token budget cuts further)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    titled_by TEXT NOT NULL DEFAULT 'question',  -- question | model | user
    created REAL NOT NULL,
    updated REAL NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS conversations_by_update ON conversations (updated DESC);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,      -- Answer.to_json(), as /api/ask returns it
    citations TEXT NOT NULL,   -- rag.answer.saved.citation_records
    filters TEXT NOT NULL,     -- the filters that were set, by name
    llm TEXT,                  -- the request's choice: extractive | openai | NULL (default)
    model TEXT,                -- the model asked for by name, if one was
    created REAL NOT NULL,
    PRIMARY KEY (conversation_id, n)
);
"""


class Answering(Protocol):
    """What answers in a conversation (the engine)."""

    @property
    def answer(self) -> Callable[..., Iterator[Event]]: ...

    def chat_for(self, choice: Any) -> ChatModel | None: ...

    def chat_for_model(self, model: str, choice: Any = None) -> ChatModel | None: ...


def _conversation(row: sqlite3.Row) -> Conversation:
    return Conversation(row["id"], row["title"], row["created"], row["updated"], row["turns"])


def _turn(row: sqlite3.Row) -> SavedTurn:
    return SavedTurn(
        n=row["n"],
        question=row["question"],
        answer=json.loads(row["answer"]),
        records=json.loads(row["citations"]),
        filters=json.loads(row["filters"]),
        llm=row["llm"],
        model=row["model"],
        created=row["created"],
    )


class Conversations:
    """The saved conversations of one data directory (safe across threads and processes)."""

    def __init__(self, path: Path, answering: Answering | None = None) -> None:
        self.path = path
        self.answering = answering
        self.file = SqliteFile(
            path, schema=_SCHEMA, version=SCHEMA_VERSION, what="the conversations file"
        )

    @property
    def notice(self) -> str:
        """Set when a damaged file was set aside (for the faces to show); else ""."""
        return self.file.notice

    @classmethod
    def in_dir(cls, data_dir: Path, answering: Answering | None = None) -> Conversations:
        """The conversations file of a data directory; ``answering`` (the engine) lets
        :meth:`converse` answer."""
        return cls(data_dir / FILE_NAME, answering)

    # -- reading ----------------------------------------------------------------------------

    def listing(
        self, query: str = "", *, limit: int = 50, offset: int = 0
    ) -> tuple[int, list[Conversation]]:
        """(how many match, ``limit`` of them from ``offset``), newest first; ``query``
        keeps those whose title holds it (case ignored)."""
        needle = " ".join(query.split()).casefold()
        where = "WHERE instr(casefold(title), ?) > 0" if needle else ""
        args: tuple[Any, ...] = (needle,) if needle else ()

        def work(conn: sqlite3.Connection) -> tuple[int, list[Conversation]]:
            total = conn.execute(f"SELECT count(*) FROM conversations {where}", args)
            rows = conn.execute(
                f"SELECT * FROM conversations {where} ORDER BY updated DESC, id LIMIT ? OFFSET ?",
                (*args, limit, offset),
            )
            return int(total.fetchone()[0]), [_conversation(r) for r in rows]

        result: tuple[int, list[Conversation]] = self.file.run(work)
        return result

    def latest(self) -> Conversation | None:
        """The conversation added to last, if any."""
        _, rows = self.listing(limit=1)
        return rows[0] if rows else None

    def get(self, conversation_id: str) -> tuple[Conversation, list[SavedTurn]]:
        """The conversation and its turns in order; NotFoundError when there is none."""

        def work(conn: sqlite3.Connection) -> tuple[Conversation, list[SavedTurn]] | None:
            row = conn.execute("SELECT * FROM conversations WHERE id = ?", (conversation_id,))
            found = row.fetchone()
            if found is None:
                return None
            turns = conn.execute(
                "SELECT * FROM turns WHERE conversation_id = ? ORDER BY n", (conversation_id,)
            )
            return _conversation(found), [_turn(t) for t in turns]

        result: tuple[Conversation, list[SavedTurn]] | None = self.file.run(work)
        if result is None:
            raise self._missing(conversation_id)
        return result

    def history(self, conversation_id: str) -> list[Turn]:
        """The last exchanges of a conversation as :meth:`rag.engine.Engine.answer` takes
        them (``history=``); NotFoundError when there is none."""
        _, turns = self.get(conversation_id)
        return [t for saved in turns[-HISTORY_TURNS:] for t in saved.history()]

    def exchanges(self, conversation_id: str) -> list[tuple[str, str, list[Citation]]]:
        """(question, answer text, citations) of every turn, for exports."""
        _, turns = self.get(conversation_id)
        return [(t.question, str(t.answer.get("answer", "")), t.citations()) for t in turns]

    def _missing(self, conversation_id: str) -> NotFoundError:
        return NotFoundError(f"no saved conversation {conversation_id!r}")

    # -- writing ----------------------------------------------------------------------------

    @staticmethod
    def new_id() -> str:
        """An id for a conversation not stored yet (its first turn stores it)."""
        return secrets.token_hex(8)

    def add_turn(
        self,
        conversation_id: str,
        question: str,
        answer: Answer,
        *,
        filters: Filters | None = None,
        llm: str | None = None,
        model: str | None = None,
    ) -> int:
        """Append a question and its answer; the conversation is made by its first turn
        (titled by the question's words). The turn's number (1, 2, ...)."""
        now = time.time()
        row = (
            question,
            json.dumps(answer.to_json(), ensure_ascii=False),
            json.dumps(citation_records(answer.final.citations), ensure_ascii=False),
            json.dumps(filters_json(filters), ensure_ascii=False),
            llm,
            model,
            now,
        )

        def work(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT OR IGNORE INTO conversations (id, title, created, updated) "
                "VALUES (?, ?, ?, ?)",
                (conversation_id, title_from_question(question), now, now),
            )
            n = conn.execute(
                "SELECT coalesce(max(n), 0) + 1 FROM turns WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()[0]
            conn.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (conversation_id, n, *row))  # fmt: skip
            conn.execute(
                "UPDATE conversations SET updated = ?, turns = turns + 1 WHERE id = ?",
                (now, conversation_id),
            )
            conn.execute("COMMIT")
            return int(n)

        turn: int = self.file.run(work)
        return turn

    def pop_turn(self, conversation_id: str) -> bool:
        """Remove the last turn (to ask it again, or edit it); False when there was none.
        A conversation left without turns is removed."""

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute("BEGIN IMMEDIATE")
            last = conn.execute(
                "SELECT max(n) FROM turns WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()[0]
            if last is not None:
                conn.execute("DELETE FROM turns WHERE conversation_id = ? AND n = ?",
                             (conversation_id, last))  # fmt: skip
                conn.execute("UPDATE conversations SET turns = turns - 1 WHERE id = ?",
                             (conversation_id,))  # fmt: skip
                conn.execute("DELETE FROM conversations WHERE id = ? AND turns <= 0",
                             (conversation_id,))  # fmt: skip
            conn.execute("COMMIT")
            return last is not None

        popped: bool = self.file.run(work)
        return popped

    def rename(self, conversation_id: str, title: str, *, by: str = "user") -> Conversation:
        """Give a conversation a new title (whitespace folded, at most 200 characters)."""
        title = " ".join(title.split())
        if not title:
            raise QueryError("a conversation's title cannot be empty")
        title = clean_title(title, max_chars=200, words=200)

        def work(conn: sqlite3.Connection) -> bool:
            done = conn.execute("UPDATE conversations SET title = ?, titled_by = ? WHERE id = ?",
                                (title, by, conversation_id))  # fmt: skip
            return done.rowcount > 0

        if not self.file.run(work):
            raise self._missing(conversation_id)
        return self.get(conversation_id)[0]

    def title_once(self, conversation_id: str, title: str) -> None:
        """A model's title, kept only while the conversation still has its first title
        from the question (never over one the user gave)."""
        self.file.run(
            lambda conn: conn.execute(
                "UPDATE conversations SET title = ?, titled_by = 'model' "
                "WHERE id = ? AND titled_by = 'question'",
                (clean_title(title), conversation_id),
            )
        )

    def delete(self, conversation_id: str) -> None:
        """Delete a conversation and its turns; NotFoundError when there is none."""

        def work(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation_id,))
            gone = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            conn.execute("COMMIT")
            return gone.rowcount

        if not self.file.run(work):
            raise self._missing(conversation_id)

    # -- answering in a conversation --------------------------------------------------------

    def converse(
        self,
        question: str,
        *,
        conversation_id: str | None = None,
        history: Sequence[HistoryItem] = (),
        **options: Any,
    ) -> tuple[str, Iterator[Event]]:
        """The engine's answer within a saved conversation: its stored turns are the
        history and the answer is appended to it (before its final event is passed on).
        None starts a new conversation (``history``, if given, is what came before it),
        stored with its first answer; its id comes back with the events. An unknown id is
        a NotFoundError, raised before anything is answered. ``options`` are those of
        :meth:`rag.engine.Engine.answer`."""
        engine = self.answering
        if engine is None:
            raise QueryError("these conversations were opened without an engine to answer")
        if conversation_id is None:
            conversation_id = self.new_id()
        elif history:
            raise QueryError("give a conversation's id or its history, not both")
        else:
            history = self.history(conversation_id)
        llm, model = options.get("llm"), options.get("model")
        events = engine.answer(question, history=history, **options)

        def title(asked: str, answer: Answer) -> str | None:
            chat = engine.chat_for_model(model, llm) if model else engine.chat_for(llm)
            return model_title(chat, asked) if chat else None

        recorded = self.recording(conversation_id, question, events, titler=title,
                                  filters=options.get("filters"), llm=llm, model=model)  # fmt: skip
        return conversation_id, recorded

    def recording(
        self,
        conversation_id: str,
        question: str,
        events: Iterable[Event],
        *,
        filters: Filters | None = None,
        llm: str | None = None,
        model: str | None = None,
        titler: Callable[[str, Answer], str | None] | None = None,
    ) -> Iterator[Event]:
        """``events`` passed on unchanged; the answer is saved as the conversation's next
        turn when its final event comes, before that event is passed on (a stream that
        ends without one, stopped or failed, saves nothing). The first turn of a
        conversation whose answer a language model wrote may be titled by ``titler``."""
        sources: tuple[Any, ...] = ()
        errors: list[ErrorEvent] = []
        for event in events:
            if isinstance(event, SourcesEvent):
                sources = event.sources
            elif isinstance(event, ErrorEvent) and event.fallback:
                errors.append(event)
            elif isinstance(event, FinalEvent):
                answer = Answer(final=event, sources=sources, errors=tuple(errors))
                n = self.add_turn(
                    conversation_id, question, answer, filters=filters, llm=llm, model=model
                )
                first_by_model = n == 1 and event.answerer == "llm" and not event.refused
                title = titler(question, answer) if titler and first_by_model else None
                if title:
                    self.title_once(conversation_id, title)
            yield event
