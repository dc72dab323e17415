"""Scale-out ingest: several `paperchat ingest` processes writing to one `chroma run`
server at once, as machines sharing a library would, lose and duplicate nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.index.connect import open_store
from rag.settings import load_settings

SHARED = [
    {"id": "10.1000/shared-1", "title": "Shared Paper One", "year": 2024,
     "abstract": "A paper both machines ingest. It describes gradient checkpointing for "
                 "training very deep networks with little memory."},
    {"id": "10.1000/shared-2", "title": "Shared Paper Two", "year": 2023,
     "abstract": "Another paper both machines ingest. It measures tail latency of "
                 "serverless inference under bursty traffic."},
]  # fmt: skip


def _ingest(env: dict[str, str], data: Path, *paths: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "ui.cli.main", "ingest", *map(str, paths), "--json"]
    return subprocess.Popen(
        cmd, env=env | {"PAPERCHAT_DATA_DIR": str(data)}, stdout=subprocess.PIPE, text=True
    )


@pytest.mark.integration
def test_two_ingest_processes_side_by_side_on_one_server(
    on_chroma_server: tuple[str, int], tmp_path: Path, sample_dir: Path
) -> None:
    shared = tmp_path / "shared.jsonl"
    shared.write_text("".join(json.dumps(r) + "\n" for r in SHARED), encoding="utf-8")
    first, second = sorted(sample_dir.glob("*.txt"))
    env = dict(os.environ) | {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    # Two machines (two data dirs, one server): different files, and one file in common.
    runs = [
        _ingest(env, tmp_path / "machine-a", first, shared),
        _ingest(env, tmp_path / "machine-b", second, shared),
    ]
    reports = []
    for run in runs:
        out, _ = run.communicate(timeout=600)
        assert run.returncode == 0, out
        reports.append(json.loads(out))
    assert sum(r["added"] for r in reports) >= 32 + 2  # a shared paper may be added twice
    store = open_store(load_settings(data_dir=tmp_path / "machine-c"))
    rows = list(store.iter_papers())
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids)) == 32 + 2  # none lost, none twice
    stored = store.stored(ids)
    assert all(s.complete for s in stored.values())  # every paper's chunks agree
    assert store.count_chunks() == sum(r.n_chunks for r in rows)  # no stray chunk
    # A third machine reads the whole library, lexical side included.
    found = subprocess.run(
        [sys.executable, "-m", "ui.cli.main", "search", "gradient checkpointing deep networks",
         "--json", "--data-dir", str(tmp_path / "machine-c")],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert json.loads(found)[0]["paper_id"] == "10.1000/shared-1"
