"""Collections (``--collection`` on ingest and add; a paper can be in several) and the
``collection`` / ``paper_ids`` filters, through the engine, the CLI and the API."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from rag.engine import Engine
from rag.errors import IngestError
from rag.index.connect import open_store
from rag.retrieve import Filters
from rag.settings import load_settings
from tests.apiserver import serve_api
from tests.fakes import HashEmbedder
from ui.app import App
from ui.cli.main import main

KV = {
    "id": "kv",
    "title": "KCache",
    "year": 2024,
    "abstract": "KCache keeps the KV cache on the CPU and saves GPU memory during inference.",
}
PAGED = {
    "id": "paged",
    "title": "PagedAttention",
    "year": 2023,
    "abstract": "PagedAttention stores the KV cache in pages so that serving wastes no memory.",
}
FED = {"id": "fed", "title": "FedLaAvg", "year": 2021,
       "abstract": "FedLaAvg averages the latest gradients of clients that come, go."}  # fmt: skip


def _file(folder: Path, name: str, *rows: dict[str, object]) -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def app(tmp_path: Path) -> App:
    settings = load_settings(min_relevance=0.0)
    app = App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))
    app.ingester.ingest([_file(tmp_path, "kv.jsonl", KV, PAGED)], collection="serving")
    app.ingester.ingest([_file(tmp_path, "fed.jsonl", FED)])
    app.ingester.ingest([_file(tmp_path, "mine.jsonl", PAGED, FED)], collection=" my  reading ")
    return app


def _found(app: App, filters: Filters, query: str = "KV cache memory gradients") -> set[str]:
    return {h.paper.id for h in app.engine.search(query, k=10, filters=filters)}


def test_a_paper_can_be_in_several_collections(app: App) -> None:
    rows = {r.id: r for r in app.engine.papers()[1]}
    assert rows["kv"].collections == ("serving",)
    assert rows["paged"].collections == ("serving", "my reading")
    assert rows["fed"].collections == ("my reading",)
    assert rows["paged"].to_json()["collections"] == ["serving", "my reading"]
    # Re-ingesting changes nothing and keeps them; nothing was embedded for the collections.
    report = app.ingester.ingest([Path(rows["fed"].source)])  # mine.jsonl
    assert report.unchanged == 2 and report.chunks_written == 0
    assert {r.id: r.collections for r in app.engine.papers()[1]}["fed"] == ("my reading",)


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_collection_and_paper_ids_filter_every_mode(app: App, mode: str) -> None:
    def found(filters: Filters) -> set[str]:
        hits = app.engine.search("KV cache memory gradients", k=10, filters=filters, mode=mode)
        return {h.paper.id for h in hits}

    assert found(Filters(collection="serving")) == {"kv", "paged"}
    assert found(Filters(collection="my reading")) == {"paged", "fed"}
    assert found(Filters(collection="nope")) == set()
    assert found(Filters(paper_ids=("fed", "kv", "absent"))) == {"fed", "kv"}
    assert found(Filters(collection="serving", paper_ids=("fed", "kv"))) == {"kv"}
    assert found(Filters(collection="serving", year_from=2024)) == {"kv"}


def test_answers_draw_only_on_the_chosen_papers(app: App) -> None:
    answer = app.engine.ask("How is the KV cache kept?", filters=Filters(paper_ids=("paged",)))
    assert {s.paper_id for s in answer.sources} == {"paged"}


def test_bad_collection_names_are_refused(app: App, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="collection name ' ' must be 1 to 100 characters"):
        app.ingester.ingest([_file(tmp_path, "x.jsonl", KV)], collection=" ")


def test_collections_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["ingest", str(_file(tmp_path, "a.jsonl", KV, PAGED)), "--collection", "serving"]) == 0
    )
    assert main(["ingest", str(_file(tmp_path, "b.jsonl", FED))]) == 0
    capsys.readouterr()
    assert main(["search", "KV cache memory", "--collection", "serving", "--json"]) == 0
    assert {h["paper_id"] for h in json.loads(capsys.readouterr().out)} == {"kv", "paged"}
    argv = ["search", "memory", "--paper-id", "fed", "--paper-id", "kv", "--json"]
    assert main(argv) == 0
    assert {h["paper_id"] for h in json.loads(capsys.readouterr().out)} <= {"fed", "kv"}
    assert main(["ask", "How is the KV cache kept?", "--paper-id", "paged", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert {c["paper_id"] for c in answer["citations"]} <= {"paged"}
    assert main(["papers", "--json"]) == 0
    rows = {p["paper_id"]: p["collections"] for p in json.loads(capsys.readouterr().out)}
    assert rows == {"kv": ["serving"], "paged": ["serving"], "fed": []}


@pytest.mark.integration
def test_collections_over_http(app: App, tmp_path: Path) -> None:
    upload = _file(tmp_path, "up.jsonl", KV)
    with serve_api(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        files = [("files", ("up.jsonl", upload.read_bytes(), "application/json"))]
        r = client.post("/api/ingest", files=files, data={"collection": "uploaded"})
        assert r.status_code == 200 and r.json()["papers"] == 1
        body = {"query": "KV cache memory", "k": 10, "filters": {"collection": "uploaded"}}
        assert [h["paper_id"] for h in client.post("/api/search", json=body).json()["hits"]] == [
            "kv"
        ]
        body["filters"] = {"paper_ids": ["fed"]}
        assert [h["paper_id"] for h in client.post("/api/search", json=body).json()["hits"]] == [
            "fed"
        ]
        # A question that names its paper is answered whatever the (fake) embedder scores.
        ask = {
            "question": "How does KCache keep the KV cache?",
            "filters": {"collection": "serving"},
        }
        cited = {c["paper_id"] for c in client.post("/api/ask", json=ask).json()["citations"]}
        assert cited and cited <= {"kv", "paged"}
        chat = {"messages": [{"role": "user", "content": "How is the KV cache kept?"}],
                "filters": {"paper_ids": ["paged"]}}  # fmt: skip
        reply = client.post("/v1/chat/completions", json=chat).json()
        assert {c["paper_id"] for c in reply["citations"]} == {"paged"}
        bad = client.post("/api/search", json={"query": "x", "filters": {"collection": 3}})
        assert bad.status_code == 422


def test_the_chat_ui_passes_the_collection_filter() -> None:
    from ui.web.chat import _filters

    assert _filters(2020, None, " Kwon ", "  my   reading ") == Filters(
        year_from=2020, author="Kwon", collection="my reading"
    )
    assert _filters(None, None, "", "") == Filters()
