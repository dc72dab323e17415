"""``paperchat add`` / ``enrich`` and POST /api/papers against a fake arXiv, OpenAlex and
Crossref on loopback: batching, spacing, retries, timeouts, malformed answers, offline."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ingest.sources.http import Fetcher
from ingest.sources.openalex import abstract_from_index
from rag.engine import Engine
from rag.errors import SourceError
from rag.index.connect import open_store
from rag.settings import load_settings
from tests.apiserver import serve_api
from tests.conftest import free_port
from tests.fake_sources import Failure, FakeSources, fake_sources
from tests.fakes import HashEmbedder
from ui.app import App
from ui.cli.main import main

# A fake arXiv / OpenAlex / Crossref server on loopback answers every test here.
pytestmark = pytest.mark.integration

PAGED = "doi:10.1145/3600006.3613165"
ALPHAFOLD = "doi:10.1038/s41586-021-03819-2"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSources]:
    with fake_sources() as server:
        for key, value in server.settings_env().items():
            monkeypatch.setenv(key, value)
        yield server


def _app() -> App:
    settings = load_settings(min_relevance=0.0)
    return App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))


def _ids(app: App) -> set[str]:
    return {r.id for r in app.engine.papers()[1]}


def test_add_by_arxiv_ids_and_dois(fake: FakeSources) -> None:
    app = _app()
    report = app.ingester.add(
        [
            "arXiv:1706.03762v5",
            "https://arxiv.org/abs/2309.06180",
            "https://doi.org/10.1038/S41586-021-03819-2",
            "2406.99999",
            "not-an-id",
        ]
    )
    assert report.added == 3
    assert _ids(app) == {"arxiv:1706.03762", PAGED, ALPHAFOLD}  # the journal DOI comes first
    assert [(s.source, s.reason.split(":")[0]) for s in report.skipped] == [
        ("not-an-id", "not an arXiv id or a DOI"),
        ("2406.99999", "not found on arXiv"),
    ]
    # One arXiv request for both ids, one OpenAlex request; Crossref not needed.
    [arxiv] = fake.paths("/arxiv")
    assert "id_list=1706.03762%2C2309.06180%2C2406.99999" in arxiv
    assert len(fake.paths("/openalex")) == 1 and fake.paths("/crossref") == []
    assert "mailto=tests%40example.org" in fake.paths("/openalex")[0]
    rows = {r.id: r for r in app.engine.papers()[1]}
    attention = rows["arxiv:1706.03762"]
    assert attention.title == "Attention Is All You Need" and attention.year == 2017
    assert attention.authors[0] == "Ashish Vaswani" and attention.source == "arXiv"
    assert rows[PAGED].entry_type == "article" and rows[PAGED].has_abstract
    alphafold = app.engine.store.papers([ALPHAFOLD])[0].abstract
    assert alphafold.startswith("Proteins are essential to life, and understanding their")
    again = app.ingester.add(["1706.03762", "10.1038/s41586-021-03819-2"])
    assert (again.added, again.unchanged) == (0, 2)  # idempotent


def test_the_same_paper_from_a_bib_and_add_is_one_paper(fake: FakeSources, tmp_path: Path) -> None:
    app = _app()
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@inproceedings{kwon23, title = {PagedAttention}, doi = {10.1145/3600006.3613165}}\n"
    )
    app.ingester.ingest([bib])
    assert _ids(app) == {PAGED}
    report = app.ingester.add(["2309.06180"])
    assert _ids(app) == {PAGED} and report.updated == 1  # the arXiv record replaces it


def test_doi_unknown_to_openalex_comes_from_crossref(fake: FakeSources) -> None:
    app = _app()
    report = app.ingester.add(["10.1145/3600006.3613165", "10.9999/nowhere"])
    assert report.added == 1 and _ids(app) == {PAGED}
    row = app.engine.papers()[1][0]
    assert (row.source, row.entry_type, row.year) == ("Crossref", "inproceedings", 2023)
    assert app.engine.store.papers([PAGED])[0].abstract.startswith("High throughput serving")
    assert report.skipped[0].reason == "not found on OpenAlex or Crossref: check the DOI"


def test_arxiv_search_is_paged_and_spaced(fake: FakeSources) -> None:
    app = _app()
    report = app.ingester.add(arxiv_query="attention memory", max_results=2)
    assert report.added == 2
    [request] = fake.paths("/arxiv")
    assert "search_query=all%3Aattention+AND+all%3Amemory" in request
    fetcher = Fetcher(retries=0)
    start = time.monotonic()
    for _ in range(3):
        fetcher.get("arXiv", f"{fake.url}/arxiv/api/query", {"id_list": "x"}, spacing=0.3)
    assert time.monotonic() - start >= 0.6  # three requests, 0.3 s apart


def test_429_and_500_are_retried_then_succeed(fake: FakeSources) -> None:
    fake.fail("/arxiv", Failure(429, headers=(("Retry-After", "0"),)), Failure(503))
    app = _app()
    assert app.ingester.add(["1706.03762"]).added == 1
    assert len(fake.paths("/arxiv")) == 3


@pytest.mark.parametrize(
    ("failures", "message"),
    [
        ([Failure(500)] * 3, "could not reach arXiv: HTTP 500 after 3 attempt(s)"),
        ([Failure(200, delay=1.5)] * 3, "could not reach arXiv: no answer within 1 s after 3"),
        ([Failure(200, b"<feed><entry>")], "arXiv sent a malformed response (XML: "),
        ([Failure(400, b"bad id_list")], "arXiv refused the request (HTTP 400)"),
    ],
)
def test_a_failing_source_changes_nothing(
    fake: FakeSources, failures: list[Failure], message: str
) -> None:
    app = _app()
    app.ingester.add(["10.1038/s41586-021-03819-2"])
    fake.fail("/arxiv", *failures)
    with pytest.raises(SourceError) as info:
        app.ingester.add(["1706.03762", "10.1145/3600006.3613165"])
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    assert _ids(app) == {ALPHAFOLD}


def test_malformed_json_from_openalex_falls_back_to_crossref(fake: FakeSources) -> None:
    fake.fail("/openalex", Failure(200, b"{not json"))
    app = _app()
    assert app.ingester.add(["10.1145/3600006.3613165"]).added == 1
    fake.fail("/openalex", Failure(200, b"{not json"))
    fake.fail("/crossref", Failure(200, b'{"message": "nope"}'))
    with pytest.raises(SourceError, match=r"^OpenAlex sent a malformed response .*; and Crossref"):
        app.ingester.add(["10.1038/s41586-021-03819-2"])


def test_offline_add_says_so_in_one_line_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("PAPERCHAT_ARXIV_API_URL", f"{closed}/api/query")
    monkeypatch.setenv("PAPERCHAT_OPENALEX_API_URL", closed)
    monkeypatch.setenv("PAPERCHAT_CROSSREF_API_URL", closed)
    papers = tmp_path / "p.jsonl"
    papers.write_text(json.dumps({"id": "x", "abstract": "A stored abstract, long enough."}) + "\n")
    assert main(["ingest", str(papers), "--json"]) == 0
    capsys.readouterr()
    assert main(["add", "2406.03243"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("paperchat: error: could not reach arXiv: ")
    assert main(["add", "10.1145/3600006.3613165"]) == 1
    assert "could not reach OpenAlex: " in capsys.readouterr().err
    assert main(["papers", "--json"]) == 0
    assert [p["paper_id"] for p in json.loads(capsys.readouterr().out)] == ["x"]


def test_add_and_enrich_on_the_command_line(
    fake: FakeSources, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ris = tmp_path / "lib.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Highly accurate protein structure prediction with AlphaFold\n"
        "DO  - 10.1038/s41586-021-03819-2\nKW  - protein folding\nER  - \n"
        "TY  - JOUR\nTI  - Attention Is All You Need\nUR  - https://arxiv.org/abs/1706.03762\n"
        "M1  - arXiv:1706.03762\nER  - \n"
        "TY  - JOUR\nTI  - A paper nobody indexed\nPY  - 1999\nER  - \n"
    )
    assert main(["ingest", str(ris), "--json"]) == 0
    capsys.readouterr()
    assert main(["enrich", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["updated"] == 2, report
    assert main(["papers", "--json"]) == 0
    rows = {p["paper_id"]: p for p in json.loads(capsys.readouterr().out)}
    assert rows[ALPHAFOLD]["has_abstract"] and rows[ALPHAFOLD]["year"] == 2021
    assert rows[ALPHAFOLD]["title"].startswith("Highly accurate")  # kept, not replaced
    assert rows[ALPHAFOLD]["source"] == str(ris)  # still the paper from the user's file
    assert rows["arxiv:1706.03762"]["authors"][0] == "Ashish Vaswani"
    assert next(p for p in rows.values() if not p["has_abstract"])["title"] == (
        "A paper nobody indexed"
    )
    assert main(["enrich", "--json"]) == 0  # nothing left to find: nothing changes
    assert json.loads(capsys.readouterr().out)["updated"] == 0

    assert main(["add", "10.1145/3600006.3613165", "nope", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == 1 and report["skipped"][0]["source"] == "nope"
    assert main(["add"]) == 2
    assert "give arXiv ids or DOIs" in capsys.readouterr().err


@pytest.mark.integration
def test_post_papers_over_http(fake: FakeSources) -> None:
    with serve_api(_app()) as url, httpx.Client(base_url=url, timeout=30) as client:
        r = client.post("/api/papers", json={"identifiers": ["1706.03762", "bad id"]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["added"] == 1 and body["skipped"][0]["source"] == "bad id"
        r = client.post("/api/papers", json={"arxiv_query": "attention", "max": 2})
        assert r.json()["added"] == 1 and r.json()["unchanged"] == 1
        fake.fail("/arxiv", *[Failure(500)] * 3)
        r = client.post("/api/papers", json={"identifiers": ["2309.06180"]})
        assert r.status_code == 502
        assert r.json()["error"]["message"].startswith("could not reach arXiv: HTTP 500")
        assert client.post("/api/papers", json={}).status_code == 422
        too_long = client.post("/api/papers", json={"identifiers": ["1" * 301]})
        assert too_long.status_code == 422 and "identifiers" in too_long.text
        assert client.get("/api/papers").json()["total"] == 2


def test_abstract_from_inverted_index() -> None:
    assert abstract_from_index({"b": [1], "a": [0, 2]}) == "a b a"
    assert abstract_from_index(None) == "" and abstract_from_index({"x": ["y"]}) == ""


def test_added_papers_go_in_the_named_collection(fake: FakeSources) -> None:
    app = _app()
    app.ingester.add(["1706.03762"], collection="to read")
    app.ingester.add(["1706.03762", "10.1038/s41586-021-03819-2"], collection="biology")
    rows = {r.id: r.collections for r in app.engine.papers()[1]}
    assert rows == {"arxiv:1706.03762": ("to read", "biology"), ALPHAFOLD: ("biology",)}
