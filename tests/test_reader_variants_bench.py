"""Correctness of bench/reader_variants.py (its timings live in bench/results, never here):
the pairs it reads are the table's own, and the shipped session it times scores them as
the product's reader does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.reader_variants import pairs
from rag.answer import reader as R
from tests.conftest import ROOT


def test_the_pairs_are_the_five_columns_against_the_sample_s_sentences() -> None:
    feeds = pairs(10)
    assert len(feeds) == 10
    assert all(f["input_ids"].shape == f["attention_mask"].shape for f in feeds)
    assert all(f["input_ids"].shape[1] <= R.MAX_TOKENS for f in feeds)


def test_the_bench_runs_and_the_shipped_variant_changes_no_score(tmp_path: Path) -> None:
    out = tmp_path / "variants.json"
    subprocess.run(
        [sys.executable, "bench/reader_variants.py", "--pairs", "6", "--rounds", "1",
         "--out", str(out)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    result = json.loads(out.read_text())
    shipped = result["variants"]["shipped (1 thread, no arena, all optimisations)"]
    assert result["pairs"] == 6 and shipped["max_score_change"] == 0.0
    assert set(result["variants"]) >= {"with the memory arena", "two threads"}
    assert np.isfinite(shipped["ms_per_pair"])
