from __future__ import annotations

import math

import pytest

from rag.metrics import evaluate, mrr_at, ndcg_at, recall_at


def test_ndcg_by_hand() -> None:
    rels = {"a": 2, "b": 1}
    # ranked: x, a, b -> DCG = 2/log2(3) + 1/log2(4); IDCG = 2/log2(2) + 1/log2(3)
    dcg = 2 / math.log2(3) + 1 / 2
    idcg = 2 + 1 / math.log2(3)
    assert ndcg_at(["x", "a", "b"], rels, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at(["a", "b"], rels, 10) == pytest.approx(1.0)
    assert ndcg_at(["x", "y"], rels, 10) == 0.0
    assert ndcg_at(["x", "a"], rels, 1) == 0.0  # cut-off applies


def test_recall_and_mrr_by_hand() -> None:
    rels = {"a": 1, "b": 1, "c": 0}
    ranked = ["c", "x", "a"] + [f"n{i}" for i in range(200)] + ["b"]
    assert recall_at(ranked, rels, 10) == 0.5
    assert recall_at(ranked, rels, 100) == 0.5
    assert recall_at(ranked, rels, 1000) == 1.0
    assert mrr_at(ranked, rels, 10) == pytest.approx(1 / 3)
    assert mrr_at(["x"], rels, 10) == 0.0


def test_evaluate_averages_judged_queries_and_counts_missing_runs_as_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"z": 0}}  # q3 has no relevant doc
    run = {"q1": ["a"], "q3": ["z"]}  # q2 retrieved nothing
    scores = evaluate(run, qrels)
    assert scores == {"ndcg@10": 0.5, "recall@10": 0.5, "recall@100": 0.5, "mrr@10": 0.5}
    with pytest.raises(ValueError, match="no query"):
        evaluate(run, {"q": {"a": 0}})
