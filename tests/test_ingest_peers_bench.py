"""Correctness of the peer ingest benchmark's own logic (its timings live in bench/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.ingest_peers import (
    embed_text,
    format_table,
    read_records,
    summarise,
    synthetic_records,
    token_figures,
    write_jsonl,
)


def test_token_figures_truncate_and_pad_per_batch() -> None:
    # One call of four texts, batches of two, sorted longest first: [300->256, 100], [50, 10].
    got = token_figures([[10, 300, 50, 100]], batch_size=2, sort_by_length=True)
    assert got == {"texts": 4, "tokens": 256 + 100 + 50 + 10, "cut": 44, "positions": 512 + 100}


def test_token_figures_fixed_padding_like_chroma() -> None:
    got = token_figures([[10, 20], [30]], batch_size=32, sort_by_length=False, pad_to=256)
    assert got["positions"] == 3 * 256
    assert got["tokens"] == 60


def test_summarise_takes_medians_and_ratios() -> None:
    runs = [
        {"peer": "paperchat", "ok": True, "wall_s": w, "peak_rss_mib": m}
        for w, m in ((10.0, 1000), (12.0, 1100), (30.0, 900))
    ] + [
        {"peer": "llamaindex", "ok": True, "wall_s": 20.0, "peak_rss_mib": 500},
        {"peer": "llamaindex", "ok": False, "wall_s": 1.0, "peak_rss_mib": 1},
    ]
    s = summarise(runs, docs=600)
    assert s["paperchat"]["wall_s"] == 12.0
    assert s["paperchat"]["docs_per_s"] == pytest.approx(50.0)
    assert s["paperchat"]["peak_rss_mib"] == 1000
    assert s["llamaindex"]["runs"] == 1  # the failed run is not counted
    assert s["llamaindex"]["paperchat_over_peer_docs_per_s"] == pytest.approx(50.0 / 30.0)
    assert s["llamaindex"]["paperchat_over_peer_rss"] == pytest.approx(2.0)
    assert "chroma" not in s
    table = format_table(s, docs=600)
    assert "paperchat ingest" in table and "1.67x" in table and "2.00x" in table


def test_records_round_trip_and_synthetic_fill(tmp_path: Path) -> None:
    real = [
        {"_id": str(i), "title": f"Title {i}", "text": f"Cells divide. Genes {i} express."}
        for i in range(3)
    ]
    path = tmp_path / "c.jsonl"
    assert write_jsonl(real, path) == 3
    assert read_records(path, 2) == real[:2]
    more = synthetic_records(real, 7)
    assert more[:3] == real and len(more) == 7
    assert len({r["_id"] for r in more}) == 7
    assert all(r["text"] for r in more)
    assert synthetic_records(real, 7) == more  # deterministic
    json.dumps(more)
    assert embed_text(real[0]) == "Title 0\nCells divide. Genes 0 express."
    assert embed_text({"_id": "x", "text": "t"}) == "t"
