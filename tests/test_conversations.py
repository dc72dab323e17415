"""Saved conversations (rag.conversations, rag.sqlitefile, rag.answer.saved) without a
server: create, list, search, page, rename, delete, follow-up history, titles (the
question's words or a model's), WAL and two writers at once, and a damaged, binary or empty
file, which is set aside (or used) and never fatal. The faces are in
test_conversations_api.py, test_conversations_cli.py and test_ui_conversations.py."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.answer.cite import Citation
from rag.answer.events import Answer, DeltaEvent, ErrorEvent, Event, FinalEvent, SourcesEvent
from rag.answer.followup import Turn
from rag.answer.references import conversation_bibtex, conversation_markdown
from rag.answer.saved import clean_title, model_title, title_from_question
from rag.conversations import FILE_NAME, SCHEMA_VERSION, Conversations
from rag.errors import LLMError, NotFoundError, QueryError, StoreError
from rag.retrieve import Filters, Passage
from tests.fakes import ScriptedChat, make_source


def _citation(n: int = 1, label: str = "KCache") -> Citation:
    src = make_source(n, f"p-{label}", label, f"{label}: a title", ("Ann Lee",), 2024,
                      "k.bib", f"{label} keeps the K cache. It is fast.")  # fmt: skip
    paper = dataclasses.replace(src.paper, entry_type="inproceedings", cite_key="lee2024kcache")
    passage = Passage("p#3", 3, "We train for 3 epochs. It converges.", 0.4, "4 Training", 7)
    return Citation(n, type(src)(n, paper), f"{label} keeps the K cache.",
                    body_quotes=(("We train for 3 epochs.", passage),))  # fmt: skip


def _answer(text: str = "KCache keeps the K cache [1].", *, cited: bool = True,
            answerer: str = "extractive") -> Answer:  # fmt: skip
    citations = (_citation(),) if cited else ()
    final = FinalEvent(answer=text, citations=citations, answerer=answerer,
                       timings={"total": 0.1}, query=text)  # fmt: skip
    return Answer(final=final, sources=tuple(c.source for c in citations))


@pytest.fixture
def store(tmp_path: Path) -> Conversations:
    return Conversations.in_dir(tmp_path / "data")


def test_a_conversation_is_made_by_its_first_turn_and_read_back(store: Conversations) -> None:
    cid = store.new_id()
    assert store.listing() == (0, [])  # nothing stored until a turn is
    filters = Filters(year_from=2020, paper_ids=("a", "b"))
    assert store.add_turn(cid, "How does KCache save memory?", _answer(), filters=filters,
                          llm="extractive") == 1  # fmt: skip
    assert store.add_turn(cid, "and how fast is it?", _answer("It is fast [1].")) == 2
    conversation, turns = store.get(cid)
    assert conversation.title == "How does KCache save memory?" and conversation.turns == 2
    first = turns[0]
    assert first.answer == _answer().to_json()  # the API's JSON, as it was
    assert first.filters == {"year_from": 2020, "paper_ids": ["a", "b"]}
    assert first.llm == "extractive" and first.model is None
    assert first.to_json()["created"].endswith("Z")
    # The citations come back whole: abstract, quoted passages, BibTeX type and key.
    (again,) = first.citations()
    assert again == _citation()
    assert again.source.abstract.startswith("KCache keeps") and again.quotes()[1][1].page == 7
    assert store.history(cid) == [
        Turn("user", "How does KCache save memory?"),
        Turn("assistant", "KCache keeps the K cache [1].", ("KCache",)),
        Turn("user", "and how fast is it?"),
        Turn("assistant", "It is fast [1].", ("KCache",)),
    ]
    with pytest.raises(NotFoundError, match="no saved conversation 'nope'"):
        store.get("nope")


def test_exports_of_a_saved_conversation(store: Conversations) -> None:
    cid = store.new_id()
    store.add_turn(cid, "How does KCache save memory?", _answer())
    store.add_turn(cid, "Who painted\nthe Mona Lisa?", _answer("No answer.", cited=False))
    exchanges = store.exchanges(cid)
    markdown = conversation_markdown("KCache", exchanges)
    assert markdown.startswith("# KCache\n") and "## Who painted the Mona Lisa?" in markdown
    assert "1. **KCache: a title**. Ann Lee (2024)." in markdown
    assert "> We train for 3 epochs. (p. 7, 4 Training)" in markdown
    bibtex = conversation_bibtex(exchanges)
    assert bibtex.startswith("@inproceedings{lee2024kcache,") and bibtex.count("@") == 1
    assert "quoted from p. 7, 4 Training" in bibtex
    assert conversation_bibtex([("q", "a", [])]) == ""


def test_list_newest_first_search_by_title_and_pages(store: Conversations) -> None:
    ids = []
    for question in ("What is KCache?", "What is Llumnix?", "Über GPU-Speicher?", "kcache again"):
        ids.append(store.new_id())
        store.add_turn(ids[-1], question, _answer())
    total, rows = store.listing()
    assert total == 4 and [c.id for c in rows] == ids[::-1]
    store.add_turn(ids[0], "more", _answer())  # a new turn brings it to the top
    assert store.latest().id == ids[0]  # type: ignore[union-attr]
    total, rows = store.listing("  KCACHE ")
    assert total == 2 and {c.id for c in rows} == {ids[0], ids[3]}
    assert store.listing("über")[0] == 1 and store.listing("ÜBER gpu")[0] == 1  # casefolded
    assert store.listing("%")[0] == 0 and store.listing("_")[0] == 0  # no LIKE wildcards
    total, page = store.listing(limit=2, offset=1)
    assert total == 4 and [c.id for c in page] == [ids[3], ids[2]]


def test_rename_delete_and_pop(store: Conversations) -> None:
    cid = store.new_id()
    store.add_turn(cid, "What is KCache?", _answer())
    store.add_turn(cid, "And Llumnix?", _answer())
    assert store.rename(cid, "  My   KCache\nnotes ").title == "My KCache notes"
    with pytest.raises(QueryError, match="cannot be empty"):
        store.rename(cid, "   ")
    with pytest.raises(NotFoundError):
        store.rename("nope", "x")
    assert store.pop_turn(cid) and store.get(cid)[0].turns == 1
    assert store.add_turn(cid, "And Llumnix, again?", _answer()) == 2  # numbered on
    store.delete(cid)
    assert store.listing() == (0, [])
    with pytest.raises(NotFoundError):
        store.delete(cid)
    other = store.new_id()
    store.add_turn(other, "Only one", _answer())
    assert store.pop_turn(other) and store.listing()[0] == 0  # emptied: gone
    assert not store.pop_turn(other)


def test_titles_from_the_question_are_never_cut_mid_word() -> None:
    assert title_from_question("What is KCache?") == "What is KCache?"
    long = "How do systems reduce the memory overhead of the key value cache in LLM inference?"
    title = title_from_question(long)
    assert title == "How do systems reduce the memory overhead of…"
    assert long.startswith(title.removesuffix("…")) and len(title) <= 60
    assert title_from_question("  \n ") == "Conversation"
    assert clean_title("x" * 80) == "x" * 59 + "…"  # one endless word: its start
    assert clean_title("Supercalifragilistic " * 5, max_chars=30) == "Supercalifragilistic…"


def test_a_models_title_is_cleaned_or_refused() -> None:
    sentence = "KCache is a method that keeps the K cache on the GPU and the V cache elsewhere"
    down = LLMError("down", kind="unreachable")
    chat = ScriptedChat('Title: "KCache and KV Cache Memory".', "  \n", sentence,
                        "Lluminix: Faster Serving", down)  # fmt: skip
    question = "How does KCache save KV cache memory?"
    assert model_title(chat, question) == "KCache and KV Cache Memory"
    assert chat.calls[0][1]["content"].endswith(f"Question: {question}")
    assert model_title(chat, question) is None  # empty
    assert model_title(chat, question) is None  # a sentence, not a title
    assert model_title(chat, "What does Llumnix do?") is None  # no word of the question
    assert model_title(chat, question) is None  # the model failed


class _Engine:
    """What answers in a conversation: scripted events and a scripted chat model."""

    def __init__(self, chat: ScriptedChat | None = None, fail: bool = False) -> None:
        self.chat = chat
        self.fail = fail
        self.asked: list[tuple[str, list[Turn]]] = []

    def answer(self, question: str, *, history: list[Turn], **options: object) -> Iterator[Event]:
        self.asked.append((question, list(history)))
        answer = _answer(answerer="llm" if self.chat else "extractive")
        yield SourcesEvent(sources=answer.sources)
        if self.fail:
            yield ErrorEvent(message="model down", kind="unreachable", fallback=False)
            return
        yield ErrorEvent(message="first try failed", kind="timeout", fallback=True)
        yield DeltaEvent(text=answer.final.answer)
        yield answer.final

    def chat_for(self, choice: object) -> ScriptedChat | None:
        return self.chat

    def chat_for_model(self, model: str, choice: object = None) -> ScriptedChat | None:
        return self.chat


def test_converse_keeps_the_history_and_saves_on_the_final_event(tmp_path: Path) -> None:
    engine = _Engine()
    store = Conversations.in_dir(tmp_path, engine)
    cid, events = store.converse("What is KCache?")
    assert store.listing()[0] == 0  # nothing yet: the stream has not run
    seen = [e.type for e in events]
    assert seen == ["sources", "error", "delta", "final"]
    _, turns = store.get(cid)
    assert turns[0].answer["errors"][0]["message"] == "first try failed"
    again, events = store.converse("and how fast is it?", conversation_id=cid)
    assert again == cid and list(events)
    assert engine.asked[1][1] == store.history(cid)[:2]  # the stored turns were the history
    with pytest.raises(NotFoundError):
        store.converse("x", conversation_id="nope")
    with pytest.raises(QueryError, match="not both"):
        store.converse("x", conversation_id=cid, history=[Turn("user", "hi")])
    started, events = store.converse("new", history=[Turn("user", "before")])
    list(events)
    assert engine.asked[-1][1] == [Turn("user", "before")] and store.get(started)[0].turns == 1
    # A stream that fails without a stand-in, or stops early, saves nothing.
    engine.fail = True
    _, events = store.converse("fails", conversation_id=cid)
    assert [e.type for e in events][-1] == "error" and store.get(cid)[0].turns == 2
    engine.fail = False
    _, events = store.converse("stopped", conversation_id=cid)
    next(events)
    events.close()  # type: ignore[attr-defined]
    assert store.get(cid)[0].turns == 2


def test_a_model_names_the_conversation_it_answered_first(tmp_path: Path) -> None:
    chat = ScriptedChat("KCache Memory Savings", "Never Asked")
    store = Conversations.in_dir(tmp_path, _Engine(chat))
    cid, events = store.converse("How does KCache reduce the memory of the KV cache?")
    list(events)
    assert store.get(cid)[0].title == "KCache Memory Savings"
    _, events = store.converse("and speed?", conversation_id=cid)
    list(events)
    assert len(chat.calls) == 1  # only the first answer is titled
    store.rename(cid, "Mine")
    assert store.get(cid)[0].title == "Mine"
    store.title_once(cid, "A model's")  # never over the user's own title
    assert store.get(cid)[0].title == "Mine"


def test_the_file_is_wal_with_a_busy_timeout_and_a_schema_version(store: Conversations) -> None:
    store.add_turn(store.new_id(), "q", _answer())
    conn = sqlite3.connect(store.path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()
    ours = store.file.connect()
    assert ours.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000
    ours.close()
    newer = Conversations(store.path.with_name("newer.sqlite3"))
    conn = sqlite3.connect(newer.path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer paperchat"):
        newer.listing()
    assert newer.path.exists() and not newer.notice  # refused, not set aside


def _write_turns(path: str, tag: str, n: int) -> None:
    store = Conversations(Path(path))
    cid = store.new_id()
    for i in range(n):
        store.add_turn(cid, f"{tag} {i}", _answer())


def test_two_processes_and_threads_write_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / FILE_NAME)
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_write_turns, args=(path, f"p{i}", 15)) for i in range(2)]
    threads = [threading.Thread(target=_write_turns, args=(path, f"t{i}", 15)) for i in range(2)]
    for worker in [*procs, *threads]:
        worker.start()
    for thread in threads:
        thread.join(timeout=60)
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    store = Conversations(Path(path))
    total, rows = store.listing()
    assert total == 4 and all(c.turns == 15 for c in rows)
    for c in rows:
        assert [t.n for t in store.get(c.id)[1]] == list(range(1, 16))


@pytest.mark.parametrize(
    "content",
    [b"\x00\x01binary garbage, not a database" * 100, b"SQLite format 3\x00" + b"\xff" * 5000],
    ids=["binary", "damaged-header"],
)
def test_a_file_that_is_no_database_is_set_aside(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / FILE_NAME
    path.write_bytes(content)
    (tmp_path / "data" / "other.txt").write_text("kept")
    store = Conversations(path)
    assert store.listing() == (0, [])  # not fatal: a new file
    aside = list(path.parent.glob(f"{FILE_NAME}.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content  # kept as it was
    assert "could not be read" in store.notice and aside[0].name in store.notice
    assert (tmp_path / "data" / "other.txt").read_text() == "kept"
    store.add_turn(store.new_id(), "works", _answer())
    assert Conversations(path).listing()[0] == 1 and not Conversations(path).notice


def test_an_empty_file_is_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"")
    store = Conversations(path)
    store.add_turn(store.new_id(), "q", _answer())
    assert store.listing()[0] == 1 and not store.notice
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_damage_found_later_is_set_aside_too(tmp_path: Path) -> None:
    store = Conversations(tmp_path / FILE_NAME)
    for i in range(40):  # several pages
        store.add_turn(store.new_id(), f"question {i} " + "x" * 500, _answer())
    conn = sqlite3.connect(store.path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(store.path.read_bytes())
    data[4096 * 2 : 4096 * 6] = b"\xa5" * (4096 * 4)  # pages overwritten in place
    store.path.write_bytes(bytes(data))
    assert store.listing()[0] == 0  # the damage is seen, the file set aside, a new one used
    assert "set aside" in store.notice
    aside = sorted(p.name for p in tmp_path.glob(f"{FILE_NAME}.corrupt-*"))
    assert len(aside) == 2 and aside[1] == aside[0] + "-wal"  # its WAL beside it


def test_an_unwritable_place_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).mkdir()  # a directory where the file should be
    with pytest.raises(StoreError, match="conversations file"):
        Conversations(tmp_path / FILE_NAME).listing()
