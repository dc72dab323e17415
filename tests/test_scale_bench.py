"""Correctness of the scale benchmark's code (its timings live in bench/, never here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.scale.synth import Anchor, Synthesizer
from tests.conftest import ROOT


def _anchors(n: int = 5) -> list[Anchor]:
    rng = np.random.default_rng(1)
    texts = [
        "KV cache compression saves GPU memory in LLM serving. Offloading keys to the CPU.",
        "Federated learning averages client updates. Intermittent clients slow convergence.",
        "Diffusion models cache features across denoising steps to run faster.",
        "Mobile inference engines optimise operators for phones and tablets.",
        "Schedulers migrate requests between LLM instances to cut tail latency.",
    ][:n]
    out = []
    for text in texts:
        v = rng.normal(size=16)
        out.append(Anchor(text, (v / np.linalg.norm(v)).astype(np.float32)))
    return out


def test_synthesizer_is_deterministic_and_near_its_anchors() -> None:
    a, b = (
        Synthesizer(_anchors(), seed=7, chunk_words=8),
        Synthesizer(_anchors(), seed=7, chunk_words=8),
    )
    one = list(a.papers(60))
    two = list(b.papers(60))
    assert [p for p, _, _ in one] == [p for p, _, _ in two]
    assert all(np.array_equal(x, y) for (_, _, x), (_, _, y) in zip(one, two, strict=True))
    assert sum(len(c) for _, c, _ in one) >= 60
    other = list(Synthesizer(_anchors(), seed=8, chunk_words=8).papers(60))
    assert [p.abstract for p, _, _ in other] != [p.abstract for p, _, _ in one]
    # Paper i is the same whether the stream starts at 0 or at i.
    assert a.paper(3)[0] == one[3][0]
    for paper, chunks, vectors in one:
        assert [c.id for c in chunks] == [f"{paper.id}#{k}" for k in range(len(chunks))]
        assert " ".join(c.text for c in chunks) == paper.abstract
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        best = max(float(vectors[0] @ an.vector) for an in a.anchors)
        assert 0.7 < best < 0.97  # near one real paper, not a copy of it
        vocab = set(a.vocab)
        assert {w.strip(".").lower() for w in paper.abstract.split()} <= vocab


@pytest.mark.slow
def test_the_bench_runs_end_to_end_on_a_tiny_size(tmp_path: Path) -> None:
    from bench.scale import run

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(
        json.dumps({"_id": str(i), "title": f"Paper {i}", "text": an.text}) + "\n"
        for i, an in enumerate(_anchors())
    ))  # fmt: skip
    args = run.parser().parse_args([
        "--corpus", str(corpus), "--queries", str(ROOT / "tests/data/sample_questions.jsonl"),
        "--sizes", "5", "40", "--backends", "embedded", "--base-chunks", "11", "--n", "3",
        "--work", str(tmp_path / "work"), "--skip-serve", "--out", str(tmp_path / "s.json"),
    ])  # fmt: skip
    result = run.run(args)
    small, large = result["results"]
    assert small["chunks"] == result["base"]["chunks"] == 5 and small["papers"] == 5
    assert large["chunks"] >= 40 and large["papers"] > 5
    for row in (small, large):
        # reading the store, analysis and indexing are one pass (streamed into tantivy)
        assert set(row["lexical_phases_s"]) == {"index_s", "save_s"}
        assert row["queries"] == 3 and row["disk_mb"] > 0 and row["peak_rss_mb"] > 0
        for mode in ("dense", "lexical", "hybrid"):
            assert 0 < row[mode]["p50_ms"] <= row[mode]["p95_ms"]


def test_startup_bench_compares_the_catalogue_formats_on_a_real_index(tmp_path: Path) -> None:
    from bench import startup
    from tests.fakes import small_index

    _store, retriever, _ = small_index(tmp_path, {
        f"p{i}": (f"Paper {i}", ["Ada Lovelace"], an.text) for i, an in enumerate(_anchors())
    })  # fmt: skip
    assert len(retriever.index) == 5  # built and saved
    out = startup.index_load(tmp_path / "data", repeat=1)  # asserts the two formats agree
    assert out["papers"] == 5
    assert set(out["median_s"]) == {
        "catalogue_jsonl_rows_s", "catalogue_columns_s", "postings_open_s"
    }  # fmt: skip
    assert all(v > 0 for v in out["median_s"].values())
