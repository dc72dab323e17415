"""bench/fit_tie.py's leave-one-out choice of TIE, on made-up bench summaries."""

from __future__ import annotations

from typing import Any

from bench.fit_tie import choose, f1


def _summary(recall: float, precision: float) -> dict[str, Any]:
    return {
        "gold_cited": {"recall": recall, "precision": precision, "count": 1, "n": 2},
        "key_facts": {"stated": 1, "asked": 2},
        "conversations_right": {"count": 1, "n": 2},
        "median_words": 100,
    }


def test_f1_of_gold_citations() -> None:
    assert f1(_summary(0.5, 1.0)) == 2 / 3
    assert f1(_summary(0.0, 1.0)) == 0.0
    assert f1(_summary(0.5, None)) == 0.0  # type: ignore[arg-type]


def test_each_library_gets_the_value_best_on_the_other_two() -> None:
    runs = {
        0.0: {"a": _summary(0.9, 0.9), "b": _summary(0.6, 0.7), "c": _summary(0.9, 0.9)},
        0.1: {"a": _summary(0.9, 0.8), "b": _summary(0.7, 0.7), "c": _summary(0.95, 0.9)},
        0.2: {"a": _summary(0.95, 0.5), "b": _summary(0.8, 0.6), "c": _summary(0.95, 0.5)},
    }
    chosen = choose(runs)
    # a held out: b and c sum best at 0.1 (F1 0.70 + 0.92); b held out: c's gain at 0.1
    # (0.90 -> 0.92) does not pay a's loss (0.90 -> 0.85), so 0.0, and b is read there.
    assert chosen["held_out"]["a"]["tie"] == 0.1
    assert chosen["held_out"]["a"]["gold_f1"] == round(f1(runs[0.1]["a"]), 4)
    assert chosen["held_out"]["b"]["tie"] == 0.0
    assert chosen["held_out"]["b"]["gold_f1"] == round(f1(runs[0.0]["b"]), 4)
    assert chosen["held_out"]["c"]["tie"] == 0.1
    assert chosen["fitted_on_all"] == 0.1
    assert set(chosen["grid"]) == {"0.0", "0.1", "0.2"}


def test_a_tie_of_sums_goes_to_the_smaller_value() -> None:
    same = {"a": _summary(0.9, 0.9), "b": _summary(0.9, 0.9)}
    assert choose({0.0: same, 0.1: dict(same)})["fitted_on_all"] == 0.0
