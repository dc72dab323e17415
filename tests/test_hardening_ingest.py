"""Hardening of ingest (issue #16): size caps per record in every format, JSON arrays read
in bounded memory, the records before a truncation kept, every bad file on its own
(undetectable, FIFO, device, dangling link, symlink loop), skipped lists capped with a
count, no server paths over HTTP, failed uploads not kept, temp files cleaned.

"Permission denied" cannot be made with chmod here (the tests run as root, who reads any
file): it is simulated by making ``Path.open`` raise PermissionError for one file."""

from __future__ import annotations

import json
import os
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ingest.chunk import Chunker
from ingest.parse.dispatch import parse_file
from ingest.pipeline import MAX_LISTED_SKIPS, ingest_paths
from rag.engine import Engine
from rag.index.connect import open_store
from rag.records import Paper, Skipped
from rag.settings import load_settings
from tests.fakes import HashEmbedder
from ui.app import App
from ui.http.api import create_api
from ui.http.uploads import tidy_data_dir

ABSTRACT = (
    "KCache keeps the KV cache on the CPU and saves GPU memory during inference. "
    "Experiments show forty percent higher throughput than the baseline."
)


def _record(i: int, abstract: str = ABSTRACT) -> dict[str, object]:
    return {"id": f"p{i}", "title": f"Paper {i}", "abstract": f"{abstract} Paper number {i}."}


def _ingest(*paths: Path) -> dict[str, object]:
    settings = load_settings()
    embedder = HashEmbedder()
    report = ingest_paths(
        list(paths),
        store=open_store(settings),
        embedder=embedder,
        chunker=Chunker.from_settings(settings, embedder),
    )
    return report.to_json()


# -- 2. unbounded records -----------------------------------------------------------------------


def test_a_huge_record_in_a_json_array_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    big = _record(2, "word " * 1_000_000)  # a 5 MB abstract inside an array
    with path.open("w") as fh:
        fh.write("[" + json.dumps(_record(1)) + ",\n" + json.dumps(big) + ",\n")
        fh.write(json.dumps(_record(3)) + "]")
    tracemalloc.start()
    items = list(parse_file(path))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [p.id for p in items if isinstance(p, Paper)] == ["p1", "p3"]
    (skip,) = [s for s in items if isinstance(s, Skipped)]
    assert skip.position == 2 and "record 2 is 5,0" in skip.reason and "limit" in skip.reason
    assert peak < 4 << 20  # the 5 MB record was never held whole


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("a.jsonl", json.dumps(_record(1, "x y " * 30_000)) + "\n"),  # 240k chars < 1 MiB line
        ("a.csv", "id,title,abstract\np1,T," + "x y " * 30_000 + "\n"),
        ("a.bib", "@article{k, title={T}, abstract={" + "x y " * 30_000 + "}}\n"),
        ("a.txt", "x y " * 30_000 + ".\n"),
    ],
)
def test_every_format_caps_the_abstract(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    items = list(parse_file(path))
    assert not [p for p in items if isinstance(p, Paper)]
    assert any("over 100,000" in s.reason for s in items if isinstance(s, Skipped)), items


def test_titles_and_author_lists_are_capped(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    rows = [
        {"id": "t", "title": "T" * 3000, "abstract": ABSTRACT},
        {"id": "a", "authors": [f"Author {i}" for i in range(6000)], "abstract": ABSTRACT},
        {"id": "n", "authors": ["N" * 600], "abstract": ABSTRACT},
        {"id": "ok", "authors": ["Ada Lovelace"], "abstract": ABSTRACT},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = list(parse_file(path))
    assert [p.id for p in items if isinstance(p, Paper)] == ["ok"]
    reasons = [s.reason for s in items if isinstance(s, Skipped)]
    assert "title is 3,000 characters" in reasons[0] and "6,000 authors" in reasons[1]
    assert "author name is 600 characters" in reasons[2]


# -- 7. truncation, lone surrogates in files, unbounded skipped lists ------------------------------


def test_a_truncated_json_array_keeps_the_records_before_the_break(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    text = json.dumps([_record(i) for i in range(1, 6)], indent=1)
    path.write_text(text[: text.index('"p4"') + 20])  # cut inside record 4
    items = list(parse_file(path))
    assert [p.id for p in items if isinstance(p, Paper)] == ["p1", "p2", "p3"]
    (skip,) = [s for s in items if isinstance(s, Skipped)]
    assert skip.position == 4 and "truncated" in skip.reason


def test_a_bad_element_does_not_stop_the_array(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    good = json.dumps(_record(1))
    path.write_text(f'[{good}, {{"id": "p2", "abstract": }}, {json.dumps(_record(3))}, 7]')
    items = list(parse_file(path))
    assert [p.id for p in items if isinstance(p, Paper)] == ["p1", "p3"]
    assert [s.position for s in items if isinstance(s, Skipped)] == [2, 4]


def test_lone_surrogates_in_a_file_are_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "s", "abstract": "' + ABSTRACT + ' \\ud800 end."}\n')
    assert _ingest(path)["added"] == 1


def test_the_list_of_skipped_records_is_capped_with_a_count(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json}\n" * (MAX_LISTED_SKIPS + 500) + json.dumps(_record(1)) + "\n")
    report = _ingest(path)
    assert report["added"] == 1 and report["skipped_count"] == MAX_LISTED_SKIPS + 500
    assert len(report["skipped"]) == MAX_LISTED_SKIPS and not report["ok"]  # type: ignore[arg-type]


# -- 5, 6. one bad file never costs the rest ------------------------------------------------------


def _folder_with_bad_entries(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.jsonl").write_text(json.dumps(_record(1)) + "\n")
    (folder / "z_good.jsonl").write_text(json.dumps(_record(2)) + "\n")
    (folder / "mystery.txt").write_text("zz\n")  # no format can be told from this
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder / "gone.jsonl").symlink_to(folder / "nowhere.jsonl")
    (folder / "loop1.jsonl").symlink_to(folder / "loop2.jsonl")
    (folder / "loop2.jsonl").symlink_to(folder / "loop1.jsonl")
    return folder


def test_every_bad_file_is_skipped_and_the_run_goes_on(tmp_path: Path) -> None:
    folder = _folder_with_bad_entries(tmp_path)
    report = _ingest(folder)
    assert report["added"] == 2
    reasons = {Path(s["source"]).name: s["reason"] for s in report["skipped"]}  # type: ignore[union-attr]
    assert "FIFO" in reasons["pipe.jsonl"] and "device" in reasons["zero.jsonl"]
    assert "broken link" in reasons["gone.jsonl"] and "loop" in reasons["loop1.jsonl"]
    assert set(reasons) >= {"pipe.jsonl", "zero.jsonl", "gone.jsonl", "loop1.jsonl"}


def test_a_file_that_cannot_be_opened_is_one_skip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked.txt"  # .txt: format detection opens it too
    locked.write_text(ABSTRACT + "\n")
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(_record(1)) + "\n")
    real_open = Path.open

    def denied(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if self.name == "locked.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", denied)
    report = _ingest(locked, good)
    assert report["added"] == 1
    assert "Permission denied" in report["skipped"][0]["reason"]  # type: ignore[index]


def test_an_undetectable_file_is_one_skip(tmp_path: Path) -> None:
    odd = tmp_path / "notes.dat"
    odd.write_text("zz\nqq\n")
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(_record(1)) + "\n")
    report = _ingest(odd, good)
    assert report["added"] == 1
    assert "cannot tell the format" in report["skipped"][0]["reason"]  # type: ignore[index]


# -- over HTTP: no server paths, no failed uploads kept, temp files cleaned ----------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    s = load_settings()
    app = App.around(Engine(s, store=open_store(s), embedder=HashEmbedder(), chat=None))
    with TestClient(create_api(app), base_url="http://127.0.0.1") as c:
        yield c


def test_ingest_over_http_shows_no_server_paths_and_keeps_no_failed_upload(
    client: TestClient, tmp_path: Path
) -> None:
    files = [
        ("files", ("notes.dat", b"zz\nqq\n")),
        ("files", ("good.jsonl", (json.dumps(_record(1)) + "\n").encode())),
    ]
    r = client.post("/api/ingest", files=files)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["added"] == 1 and report["skipped"][0]["source"] == "notes.dat"
    data = str(tmp_path / "data")
    assert data not in r.text and "/uploads/" not in r.text.replace("uploads/", "", 0)
    assert set(report["stored_as"]) == {"good.jsonl"}  # the failed upload is not kept
    assert report["stored_as"]["good.jsonl"].startswith("uploads/")
    kept = [p.name for p in (tmp_path / "data" / "uploads").rglob("*") if p.is_file()]
    assert kept == ["good.jsonl"]


def test_stale_temp_files_are_cleaned_at_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lexical = data / "lexical" / "local" / ".lexical-abc123"
    lexical.mkdir(parents=True)
    (data / "uploads").mkdir()
    upload = data / "uploads" / ".upload-xyz"
    upload.write_text("half")
    fresh = data / "uploads" / ".upload-new"
    fresh.write_text("being written")
    old = time.time() - 7200
    for path in (lexical, upload):
        os.utime(path, (old, old))
    assert tidy_data_dir(data) == 2
    assert not lexical.exists() and not upload.exists() and fresh.exists()
