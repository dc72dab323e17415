"""bench/fit_answers.py's held-out refusal trade-off, on made-up evidence rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.fit_answers import EVIDENCE_FEATURES, REFUSED_STEPS, refusal_ceiling, refusal_curve

MARGIN = 1 + EVIDENCE_FEATURES.index("margin")


def _row(
    score: float, y: float, *, margin: float = 0.1, gated: bool = True, other: bool = True
) -> dict[str, Any]:
    """An example whose score under _weights() is ``score``."""
    x = np.zeros(1 + len(EVIDENCE_FEATURES))
    x[0] = 1.0
    x[MARGIN] = margin
    x[1 + EVIDENCE_FEATURES.index("coverage")] = score
    row: dict[str, Any] = {"x": x, "y": y, "gated": gated}
    if y == 0.0:
        row |= {"type": "offtopic:x", "other_field": other}
    return row


def _weights(threshold: float) -> dict[str, float]:
    w = dict.fromkeys(EVIDENCE_FEATURES, 0.0) | {"coverage": 1.0}
    return w | {"bias": 0.0, "threshold": threshold, "min_margin": 0.0}


def test_refusing_more_of_the_answerable_answers_fewer_of_other_fields() -> None:
    positives = [_row(float(s), 1.0) for s in range(100)]  # scores 0, 1, ..., 99
    negatives = [_row(s, 0.0) for s in (0.5, 2.5, 4.5, 50.0)]
    out = refusal_curve(positives + negatives, _weights(3.0))
    curve = out["curve"]
    assert len(curve) == len(REFUSED_STEPS)
    # Each step refuses at most its share: floor(share * 100) of the 100.
    assert [c[0] for c in curve] == [np.floor(q * 100 + 1e-9) / 100 for q in REFUSED_STEPS]
    assert curve[0] == [0.0, 1.0]  # nothing refused: every negative answered
    assert curve[REFUSED_STEPS.index(0.01)] == [0.01, 0.75]  # 0 refused: 0.5 goes on
    assert curve[REFUSED_STEPS.index(0.05)] == [0.05, 0.25]  # up to 4 refused
    answered = [c[1] for c in curve]
    assert answered == sorted(answered, reverse=True)
    # At the fitted threshold 3: 0 .. 3 refused (4 of 100); 4.5 and 50 answered.
    assert out["fitted"] == [0.04, 0.5]


def test_the_noise_floor_gate_refuses_whatever_the_threshold() -> None:
    positives = [_row(5.0, 1.0, margin=-0.1), *(_row(5.0 + i, 1.0) for i in range(9))]
    negatives = [
        _row(9.0, 0.0, margin=-0.1),  # gated: never answered
        _row(9.0, 0.0, margin=-0.1, gated=False),  # a list question: not held to the floor
        _row(9.0, 0.0, other=False),  # the same field's: not counted
    ]
    out = refusal_curve(positives + negatives, _weights(-100.0))
    assert out["fitted"] == [0.1, 0.5]  # the gated positive, and one of two negatives
    assert out["curve"][0] == [0.1, 0.5]


def test_no_curve_without_both_kinds_of_question() -> None:
    assert refusal_curve([_row(1.0, 1.0)], _weights(0.0)) == {"curve": [], "fitted": []}


def _separable_by_focus(n: int = 200) -> list[dict[str, Any]]:
    """A library whose own questions and other fields' overlap in coverage (what _weights
    reads) but are told apart by focus: what weights fitted elsewhere may not see."""
    rng = np.random.default_rng(0)
    rows = []
    for y in (1.0, 0.0):
        for _ in range(n):
            row = _row(float(rng.normal()), y)
            row["x"][1 + EVIDENCE_FEATURES.index("focus")] = (1.0 if y else -1.0) + rng.normal(
                scale=0.1
            )
            rows.append(row)
    return rows


def test_the_ceiling_is_the_model_fitted_on_the_library_itself() -> None:
    rows = _separable_by_focus()
    held = refusal_curve(rows, _weights(0.0))  # weights that read coverage only
    ceiling = refusal_ceiling(rows, l2=1.0, max_refused=0.01)
    at = REFUSED_STEPS.index(0.01)
    assert held["curve"][at][1] > 0.5  # coverage alone cannot tell them apart
    assert ceiling["curve"][at] == [0.01, 0.0]  # focus does, fitted on the library
    refused, answered = ceiling["fitted"]  # its own threshold: at most 1% refused
    assert refused <= 0.01 and answered == 0.0


def test_a_ceiling_that_misses_the_box_says_no_weights_can_meet_it() -> None:
    # The same score for both kinds: nothing tells them apart, fitted anywhere.
    rows = [_row(float(s % 10), 1.0) for s in range(100)]
    rows += [_row(float(s % 10), 0.0) for s in range(100)]
    ceiling = refusal_ceiling(rows, l2=1.0, max_refused=0.01)
    refused_1, answered_1 = ceiling["curve"][REFUSED_STEPS.index(0.01)]
    assert refused_1 <= 0.01 and answered_1 > 0.5
