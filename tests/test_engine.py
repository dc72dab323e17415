"""The two doors, with deterministic fakes: the engine (ask, search, papers, stats, remove,
reset) and the ingester writing into it, both built by the composition root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.answer.events import Answer, ErrorEvent, FinalEvent, SourcesEvent, collect
from rag.engine import Engine
from rag.errors import ConfigError, LLMError
from rag.index.connect import open_store
from rag.settings import load_settings
from tests.fakes import HashEmbedder, ScriptedChat
from ui.app import App

PAPERS = [
    {"id": "kv", "title": "KCache", "authors": ["Qiaozhi He", "Zhihua Wu"], "year": 2024,
     "abstract": "KCache keeps the KV cache on the CPU and saves GPU memory during inference. "
                 "Experiments show forty percent higher throughput than the baseline."},
    {"id": "fed", "title": "FedLaAvg", "authors": ["Yang Xiang"], "year": 2021,
     "abstract": "FedLaAvg handles clients that are only intermittently available in federated "
                 "learning. It averages the latest gradients of every client."},
    {"id": "mnn", "title": "MNN", "authors": [], "year": 2020,
     "abstract": "MNN is an inference engine for deep learning models on mobile devices. "
                 "It runs faster than other mobile inference engines on common benchmarks."},
]  # fmt: skip


def _jsonl(folder: Path, rows: list[dict[str, object]]) -> Path:
    path = folder / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def app(tmp_path: Path) -> App:
    settings = load_settings(min_relevance=0.0)
    engine = Engine(settings, store=open_store(settings), embedder=HashEmbedder(), chat=None)
    app = App.around(engine)
    report = app.ingester.ingest([_jsonl(tmp_path, PAPERS)])
    assert (report.added, report.ok) == (3, True)
    return app


def test_the_ingester_writes_and_the_engine_sees_at_once(app: App) -> None:
    total, rows = app.engine.papers()
    assert total == 3 and {r.id for r in rows} == {"kv", "fed", "mnn"}
    stats = app.engine.stats()
    assert stats["papers"] == 3 and stats["chunks"] >= 3
    assert stats["collection"] == app.engine.store.collection_name


def test_one_paper_with_its_abstract(app: App) -> None:
    paper = app.engine.paper("kv")
    assert paper is not None and paper.name == "KCache"
    assert paper.abstract == PAPERS[0]["abstract"]
    assert app.engine.paper("absent") is None


def test_search_and_ask_go_through_the_engine(app: App) -> None:
    hits = app.engine.search("KV cache GPU memory", k=2)
    assert hits[0].paper.id == "kv" and hits[0].to_json()["paper_id"] == "kv"
    answer = app.engine.ask("How does KCache save GPU memory?")
    assert isinstance(answer, Answer) and not answer.final.refused
    assert answer.final.citations[0].source.paper_id == "kv"
    assert answer.sources and answer.sources[0].paper_id == "kv"
    body = answer.to_json()
    assert "type" not in body and body["sources"][0]["paper_id"] == "kv"
    assert body["mode"] == "extractive" and body["errors"] == []


def test_an_answer_reads_abstracts_by_id_and_no_passages(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = app.engine.store
    reads: list[str] = []
    monkeypatch.setattr(store, "documents", lambda ids: reads.extend(ids) or {})
    answer = app.engine.ask("How does KCache save GPU memory?")
    assert answer.final.citations and reads == []  # passages are never quoted: none read
    assert set(store.first_chunks(["kv", "fed", "absent"])) == {"kv", "fed"}


def test_remove_takes_chunks_lexical_entries_and_rows(app: App) -> None:
    engine = app.engine
    assert engine.remove(["kv", "absent"]) == ["kv"]
    total, rows = engine.papers()
    assert total == 2 and "kv" not in {r.id for r in rows}
    assert all(h.paper.id != "kv" for h in engine.search("KCache KV cache", k=3, mode="lexical"))
    assert all(h.paper.id != "kv" for h in engine.search("KCache KV cache", k=3, mode="dense"))
    assert engine.store.stored(["kv"]) == {}
    assert engine.remove(["kv"]) == []  # idempotent
    report = app.ingester.ingest([_jsonl(engine.settings.data_dir.parent, PAPERS)])
    assert (report.added, report.unchanged) == (1, 2)  # a removed paper comes back cleanly


def test_reset_empties_the_index(app: App) -> None:
    app.engine.reset()
    assert app.engine.papers() == (0, [])
    assert app.engine.stats()["chunks"] == 0


def test_the_chat_model_is_made_only_when_an_answer_needs_it(tmp_path: Path) -> None:
    settings = load_settings(llm="openai")  # no key, no URL: a model cannot be made
    engine = Engine(settings, store=open_store(settings), embedder=HashEmbedder())
    assert engine.papers() == (0, [])  # reading needs no model
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        _ = engine.chat
    assert engine.chat_for("extractive") is None


def test_collect_is_the_one_way_a_stream_becomes_an_answer() -> None:
    final = FinalEvent(answer="A [1].", answerer="extractive", timings={})
    error = ErrorEvent(message="model down", kind="server", fallback=True)
    answer = collect(iter([SourcesEvent(sources=()), error, SourcesEvent(sources=()), final]))
    assert answer.final is final and answer.errors == (error,)
    with pytest.raises(LLMError, match="model down"):
        collect(iter([ErrorEvent(message="model down", kind="server", fallback=False)]))
    with pytest.raises(AssertionError):
        collect(iter([SourcesEvent(sources=())]))


def test_a_failing_model_falls_back_through_the_engine(app: App) -> None:
    engine = Engine(
        app.settings,
        store=app.engine.store,
        embedder=app.engine.embedder,
        chat=ScriptedChat(LLMError("the model is down", kind="server")),
    )
    answer = engine.ask("How does KCache save GPU memory?")
    assert [e.kind for e in answer.errors] == ["server"]
    assert answer.final.answerer == "extractive" and answer.final.fallback_reason
    with pytest.raises(LLMError):
        Engine(
            app.settings,
            store=app.engine.store,
            embedder=app.engine.embedder,
            chat=ScriptedChat(LLMError("down", kind="server")),
        ).ask("How does KCache save GPU memory?", fallback=False)
