"""Ingest pipeline against a real embedded Chroma (fake embedder: this is about our logic)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ingest.chunk import Chunker
from ingest.pipeline import ingest_paths
from rag.index.connect import open_store
from rag.index.store import Store
from rag.records import Paper
from rag.settings import load_settings
from tests.conftest import ROOT
from tests.fakes import HashEmbedder

SENT = "Paper {i} studies topic {i} with method {m} and reports result {r}."


def _write_jsonl(path: Path, n: int, *, sentences: int = 3, start: int = 0) -> Path:
    with path.open("w") as fh:
        for i in range(start, start + n):
            text = " ".join(SENT.format(i=i, m=k, r=k * i) for k in range(sentences))
            fh.write(json.dumps({"id": f"p{i}", "title": f"Paper {i}", "abstract": text}) + "\n")
    return path


def _run(paths: list[Path], store: Store, **kw):  # type: ignore[no-untyped-def]
    return ingest_paths(
        paths,
        store=store,
        embedder=HashEmbedder(),
        chunker=Chunker(chunk_tokens=64, overlap=8),
        **kw,
    )


def _assert_consistent(store: Store) -> None:
    """Every stored paper has exactly its chunks, all from one version."""
    papers = list(store.iter_papers())
    stored = store.stored([p.id for p in papers])
    assert all(s.complete for s in stored.values())
    assert store.count_chunks() == sum(p.n_chunks for p in papers)


@pytest.fixture
def store() -> Store:
    return open_store(load_settings())


def test_sample_corpus_ingests_all_32_papers(store: Store, sample_dir: Path) -> None:
    report = _run([sample_dir], store)
    assert (report.files, report.added, report.papers) == (2, 32, 32)
    assert report.ok and not report.skipped
    assert store.count_papers() == 32
    assert store.count_chunks() == report.chunks_written >= 32
    _assert_consistent(store)
    # The whole abstract is kept with the first chunk, verbatim.
    from ingest.parse.dispatch import parse_file

    parsed = {
        p.id: p.abstract
        for f in sorted(sample_dir.glob("*.txt"))
        for p in parse_file(f)
        if isinstance(p, Paper)
    }
    assert {row.id: row.abstract for row in store.iter_papers()} == parsed


def test_reingest_changes_nothing(store: Store, sample_dir: Path) -> None:
    first = _run([sample_dir], store)
    chunks = store.count_chunks()
    embedder = HashEmbedder()
    again = ingest_paths([sample_dir], store=store, embedder=embedder, chunker=Chunker(64, 8))
    assert (again.added, again.updated, again.unchanged) == (0, 0, 32)
    assert again.chunks_written == 0 and embedder.calls == []  # nothing re-embedded
    assert store.count_chunks() == chunks == first.chunks_written


def test_changed_abstract_replaces_its_chunks(store: Store, tmp_path: Path) -> None:
    src = _write_jsonl(tmp_path / "a.jsonl", 5, sentences=12)
    _run([src], store)
    before = {p.id: p.n_chunks for p in store.iter_papers()}
    assert before["p2"] > 1
    lines = src.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["abstract"] = "A much shorter abstract about something else entirely."
    lines[2] = json.dumps(rec)
    src.write_text("\n".join(lines) + "\n")
    report = _run([src], store)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 4)
    after = {p.id: p.n_chunks for p in store.iter_papers()}
    assert after["p2"] == 1
    assert store.stored(["p2"])["p2"].chunk_ids == {"p2#0"}
    _assert_consistent(store)


def test_duplicate_ids_across_files_keep_the_first(store: Store, tmp_path: Path) -> None:
    a = _write_jsonl(tmp_path / "a.jsonl", 3)
    b = _write_jsonl(tmp_path / "b.jsonl", 3, start=2)  # p2 again, then p3, p4
    report = _run([a, b], store)
    assert report.papers == 5
    [dup] = report.skipped
    assert dup.source.endswith("b.jsonl") and dup.position == 1
    assert "p2" in dup.reason and "a.jsonl:3" in dup.reason


def test_sigkill_midway_then_rerun_leaves_exactly_the_right_papers(tmp_path: Path) -> None:
    src = _write_jsonl(tmp_path / "many.jsonl", 240, sentences=8)
    driver = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from ingest.chunk import Chunker
        from ingest.pipeline import ingest_paths
        from rag.settings import load_settings
        from rag.index.connect import open_store
        from tests.fakes import HashEmbedder
        store = open_store(load_settings())
        ingest_paths([__import__("pathlib").Path({str(src)!r})], store=store,
                     embedder=HashEmbedder(delay=0.15), chunker=Chunker(64, 8), batch_papers=16,
                     on_progress=lambda p: print(p.papers_seen, flush=True))
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", driver], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert proc.stdout is not None
    seen = 0
    deadline = time.monotonic() + 60
    while seen < 64 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen = int(line)
    time.sleep(0.07)  # land somewhere inside the next batch (embedding or writing)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert 64 <= seen < 240, "the run must be killed midway"

    store = open_store(load_settings())
    _assert_consistent(store)  # what was written is whole
    report = _run([src], store)
    assert report.unchanged >= 64  # resumed, not restarted
    assert report.papers == 240 and report.unchanged + report.added + report.updated == 240
    assert store.count_papers() == 240
    _assert_consistent(store)
    again = _run([src], store)
    assert again.unchanged == 240 and again.chunks_written == 0


@pytest.mark.integration
def test_same_ingest_against_a_chroma_server(
    on_chroma_server: tuple[str, int], sample_dir: Path
) -> None:
    host, port = on_chroma_server
    store = open_store(load_settings())
    assert store.location == f"http://{host}:{port}"
    try:
        first = _run([sample_dir], store)
        assert (first.added, store.count_papers()) == (32, 32)
        again = _run([sample_dir], store)
        assert again.unchanged == 32 and again.chunks_written == 0
        _assert_consistent(store)
    finally:
        store.reset()


def test_unreachable_chroma_server_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.errors import StoreError
    from tests.conftest import free_port

    monkeypatch.setenv("PAPERCHAT_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERCHAT_CHROMA_PORT", str(free_port()))
    with pytest.raises(StoreError, match=r"chroma run.*PAPERCHAT_CHROMA_HOST"):
        open_store(load_settings())
