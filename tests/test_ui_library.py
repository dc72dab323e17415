"""The library tab's handlers without a browser: adding by arXiv id or DOI (against the fake
sources server), adding files into a collection, searching, removing, and what a year
filter says it leaves out. The browser flows are in test_ui.py and test_ui_library_browser.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_add import _app, fake  # noqa: F401 - the fake sources server fixture
from ui.web.library import Library


@pytest.mark.integration
@pytest.mark.usefixtures("fake")
def test_add_by_id_files_into_a_collection_search_and_remove(tmp_path: Path) -> None:
    library = Library(_app())
    said, status = library.add_ids("arXiv:1706.03762v5, 2406.99999", "reading")
    assert said.startswith("Added 1") and "skipped" in said and "1 papers in the library" in status
    papers = tmp_path / "more.jsonl"
    papers.write_text(
        json.dumps({"id": "p1", "title": "TinyServe", "abstract": "Tiny models, tiny latency."})
        + "\n"
    )
    said, status, cleared = library.add([str(papers)], "reading")
    assert said.startswith("Added 1") and cleared is None and "2 papers" in status
    engine = library.app.engine
    assert {r.id for r in engine.papers()[1] if "reading" in r.collections} == {
        "arxiv:1706.03762", "p1"
    }  # fmt: skip
    query = ("tiny", "title", "ascending", "any", "any", "any", "any")
    table, note, page, previous, following, number = library.first(*query)
    assert note == "1 of 2 papers match “tiny”" and table["value"][0][-1] == "p1"
    assert page == "Page 1 of 1" and number == 1
    assert not previous["interactive"] and not following["interactive"]
    assert library.listing(*query, 9)[2] == "Page 1 of 1"  # a page past the end: the last
    said, _, picked, *_ = library.remove("p1")
    assert said == "Removed p1." and picked == "" and engine.papers()[0] == 1
    assert library.remove("")[0] == "Pick a paper in the table first."


@pytest.mark.slow  # retries against a closed port
def test_adding_while_offline_says_so_and_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERCHAT_ARXIV_API_URL", "http://127.0.0.1:9/api/query")
    monkeypatch.setenv("PAPERCHAT_SOURCES_RETRIES", "0")
    library = Library(_app())
    said, _ = library.add_ids("2406.03243")
    assert said.startswith("Error: could not reach arXiv")
    assert library.app.engine.papers()[0] == 0
    assert library.add_ids("  ")[0] == "Type arXiv ids or DOIs first."
    assert library.add(None)[0] == "Choose files to add first."


def test_a_year_filter_says_what_it_leaves_out(tmp_path: Path) -> None:
    library = Library(_app())
    papers = tmp_path / "p.jsonl"
    text = "A paper about caching the attention keys of language models on the CPU."
    rows = [{"id": "a", "abstract": text, "year": 2021},
            {"id": "b", "abstract": text + " One."},
            {"id": "c", "abstract": text + " Two."}]  # fmt: skip
    papers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    said, *_ = library.add([str(papers)])
    assert said.startswith("Added 3"), said
    assert library.years() == ["2021"]
    assert library.excluded("any", "any") == ""
    assert (
        library.excluded("2021", "any")
        == "2 papers have no year and are excluded by a year filter."
    )
