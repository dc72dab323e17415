"""Removal through the engine, the CLI and the API; a removal cut short is finished by the
next run (the store's ``removing`` note)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rag.engine import Engine
from rag.index.connect import open_store
from rag.index.store import PENDING
from rag.settings import Settings, load_settings
from tests.apiserver import serve_api
from tests.fakes import HashEmbedder
from ui.app import App
from ui.cli.main import main

LONG = " ".join(f"Line {i} on pipelined KV cache offloading, GPU memory." for i in range(40))
PAPERS = [
    {"id": "kv", "title": "KCache", "year": 2024, "abstract": LONG},
    {"id": "fed", "title": "FedLaAvg", "year": 2021,
     "abstract": "FedLaAvg handles clients that are only intermittently available in federated "
                 "learning. It averages the latest gradients of every client."},
    {"id": "doi:10.1145/3600006.3613165", "title": "PagedAttention", "year": 2023,
     "abstract": "PagedAttention manages attention keys and values in pages, like virtual "
                 "memory, so that serving systems waste almost no KV cache memory."},
]  # fmt: skip


def _jsonl(folder: Path) -> Path:
    path = folder / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in PAPERS), encoding="utf-8")
    return path


def _app(settings: Settings) -> App:
    engine = Engine(settings, store=open_store(settings), embedder=HashEmbedder(), chat=None)
    return App.around(engine)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = load_settings(min_relevance=0.0, chunk_tokens=64, chunk_overlap=8)
    report = _app(settings).ingester.ingest([_jsonl(tmp_path)])
    assert report.added == 3 and report.ok
    return settings


def _listed(app: App) -> set[str]:
    return {r.id for r in app.engine.papers()[1]}


def _lexical_ids(app: App) -> set[str]:
    return {h.paper.id for h in app.engine.search("KV cache memory", k=5, mode="lexical")}


def test_a_removal_killed_after_deleting_is_finished_by_the_next_run(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _app(settings)
    assert "kv" in _lexical_ids(app)
    store = app.engine.store
    assert len(store.stored(["kv"])["kv"].chunk_ids) > 2

    def killed(self: object, metadata: dict[str, object]) -> None:
        if PENDING not in metadata:  # the final write: the chunks are gone, the note stays
            raise KeyboardInterrupt
        original(self, metadata)

    original = type(store)._modify
    monkeypatch.setattr(type(store), "_modify", killed)
    with pytest.raises(KeyboardInterrupt):
        app.engine.remove(["kv"])
    monkeypatch.undo()
    assert store.stored(["kv"]) == {}
    assert "removing" in store._metadata()

    later = _app(settings)  # the next run: any command opens the store
    assert PENDING not in later.engine.store._metadata()
    assert "kv" not in _listed(later) and "kv" not in _lexical_ids(later)
    assert _listed(later) == {"fed", "doi:10.1145/3600006.3613165"}


def test_a_removal_killed_between_chunk_deletes_leaves_no_half_paper(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _app(settings)
    store = app.engine.store
    collection = store._collection
    real_delete = collection.delete

    def one_then_crash(ids: list[str]) -> None:
        real_delete(ids=ids[:1])
        raise KeyboardInterrupt

    monkeypatch.setattr(collection, "delete", one_then_crash)
    with pytest.raises(KeyboardInterrupt):
        app.engine.remove(["kv"])
    monkeypatch.undo()
    half = store.stored(["kv"])["kv"]
    assert not half.complete and "kv#0" in half.chunk_ids  # the first chunk goes last

    later = _app(settings)
    assert later.engine.store.stored(["kv"]) == {}
    assert "kv" not in _listed(later) and "kv" not in _lexical_ids(later)
    hits = later.engine.search("pipelined KV cache offloading", k=3, mode="dense")
    assert all(h.paper.id != "kv" for h in hits)


def test_remove_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(_jsonl(tmp_path)), "--json"]) == 0
    capsys.readouterr()
    assert main(["remove", "kv", "nope", "kv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"removed": ["kv"], "not_found": ["nope"]}
    assert main(["remove", "kv", "--json"]) == 0  # idempotent
    assert json.loads(capsys.readouterr().out) == {"removed": [], "not_found": ["kv"]}

    assert main(["remove", "doi:10.1145/3600006.3613165"]) == 0
    out, err = capsys.readouterr()
    assert out == "removed 1 paper(s): doi:10.1145/3600006.3613165\n" and err == ""
    assert main(["remove", "gone"]) == 0
    assert "not stored (nothing to remove): gone" in capsys.readouterr().err

    assert main(["papers", "--json"]) == 0
    assert [p["paper_id"] for p in json.loads(capsys.readouterr().out)] == ["fed"]
    assert main(["search", "KV cache memory", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["paper_id"] for h in hits} <= {"fed"}
    assert main(["ingest", str(_jsonl(tmp_path)), "--json"]) == 0  # they come back cleanly
    report = json.loads(capsys.readouterr().out)
    assert (report["added"], report["unchanged"]) == (2, 1)


@pytest.fixture
def api(settings: Settings) -> Iterator[str]:
    """Our API (no UI) over a real socket, on the fake-embedded index."""
    with serve_api(_app(settings)) as url:
        yield url


@pytest.mark.integration
def test_delete_over_http(api: str) -> None:
    with httpx.Client(base_url=api, timeout=30) as client:
        r = client.delete("/api/papers/doi:10.1145/3600006.3613165")
        assert r.status_code == 200
        assert r.json() == {"removed": ["doi:10.1145/3600006.3613165"], "not_found": []}
        again = client.delete("/api/papers/doi:10.1145/3600006.3613165")
        assert again.status_code == 200
        assert again.json() == {"removed": [], "not_found": ["doi:10.1145/3600006.3613165"]}
        listed = client.get("/api/papers").json()
        assert listed["total"] == 2
        assert {p["paper_id"] for p in listed["papers"]} == {"kv", "fed"}
        hits = client.post("/api/search", json={"query": "PagedAttention pages", "k": 3}).json()
        assert all(h["paper_id"] != "doi:10.1145/3600006.3613165" for h in hits["hits"])
