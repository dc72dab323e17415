"""bench/fit_gate.py on made-up rows: the gate's weights, its bias set at the share of
answerable questions refused, and the tally it reports."""

from __future__ import annotations

import numpy as np

from bench.fit_gate import decide, decide_today, fit_gate, tally


def _rows(seed: int = 0) -> list[dict[str, object]]:
    """Answerable questions read as surely as questions no paper answers, but their words
    sit together in a paper's adjacent sentences, theirs scattered."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for _ in range(200):
        rows.append({"answerable": True, "type": "numeric", "read": float(rng.normal(1, 2)),
                     "local": float(rng.uniform(0.5, 1.0)), "absent": False})  # fmt: skip
    for i in range(60):
        kind = "unanswerable" if i % 2 else "offtopic:economics"
        rows.append({"answerable": False, "type": kind, "read": float(rng.normal(1, 2)),
                     "local": float(rng.uniform(0.0, 0.6)), "absent": i % 3 == 0})  # fmt: skip
    return rows


def test_the_gate_refuses_its_share_of_answerable_questions_and_weighs_the_evidence() -> None:
    rows = _rows()
    weights = fit_gate(rows, max_refused=0.05)
    assert set(weights) == {"gate_w_bias", "gate_w_read", "gate_w_local", "gate_w_absent"}
    assert weights["gate_w_local"] > 0  # the words' place tells them apart here, not the reader
    counts = tally(rows, decide(rows, weights))
    assert counts["answerable"] == 200 and counts["unanswerable"] == 30
    assert counts["answerable refused"] <= 10 + 1  # 5% of 200, the cut itself answered
    assert counts["unanswerable answered"] + counts["other field answered"] < 30
    # The reader alone at the same refusals cannot tell them apart: it answers more.
    today = tally(rows, decide_today(rows, {"gate": -2.3}))
    assert today["unanswerable answered"] > counts["unanswerable answered"]
