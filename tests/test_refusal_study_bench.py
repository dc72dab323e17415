"""bench/refusal_study.py's readings (held out, within a library), on made-up examples."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.fit_answers import EVIDENCE_FEATURES
from bench.refusal_study import answered_at, held_out, tokens_of, within
from rag.tokens import get_encoding

MARGIN = 1 + EVIDENCE_FEATURES.index("margin")


def _example(y: float, f: float, rng: np.random.Generator, margin: float = 0.1) -> dict[str, Any]:
    x = np.zeros(1 + len(EVIDENCE_FEATURES))
    x[0] = 1.0
    x[MARGIN] = margin
    x[1 + EVIDENCE_FEATURES.index("coverage")] = rng.normal()  # the same for both kinds
    e: dict[str, Any] = {"x": x, "y": y, "gated": True, "extra": {"f": f}}
    if y == 0.0:
        e |= {"type": "offtopic:x", "other_field": True}
    return e


def _library(sign: float, seed: int, n: int = 150) -> list[dict[str, Any]]:
    """A library whose own questions and other fields' are told apart by ``f`` alone, own
    ones high when ``sign`` is 1 and low when it is -1."""
    rng = np.random.default_rng(seed)
    return [
        _example(y, sign * (1.0 if y else -1.0) + rng.normal(scale=0.2), rng)
        for y in (1.0, 0.0)
        for _ in range(n)
    ]


def test_a_feature_that_does_not_carry_between_libraries_helps_only_within() -> None:
    data = {"a": _library(1.0, 0), "b": _library(1.0, 1), "c": _library(-1.0, 2)}
    # Within each library f separates; from a and b to c it points the wrong way.
    assert within(data["c"], ["f"])["other_answered_at_1pct"] == "0/150"
    assert held_out(data, ["f"])["c"]["other_answered_at_1pct"] > 140
    assert held_out(data, ["f"])["a"]["other_answered_at_1pct"] > 100  # fitted on b and c: mixed
    # Without f nothing tells them apart, within or held out.
    assert int(within(data["a"], [])["other_answered_at_1pct"].split("/")[0]) > 100


def test_held_out_threshold_refuses_one_percent_of_the_training_libraries() -> None:
    data = {"a": _library(1.0, 0), "b": _library(1.0, 1), "c": _library(1.0, 2)}
    for name, reading in held_out(data, ["f"]).items():
        refused, own = map(int, reading["refused"].split("/"))
        assert own == 150 and refused <= 3, name  # 1% of the others', read on this one
        assert reading["other_answered"] == "0/150"


def test_answered_at_counts_what_the_threshold_lets_through() -> None:
    own = np.arange(100, dtype=float)  # refusing 1% refuses the 0: the threshold is just below 1
    other = np.asarray([-5.0, 0.5, 1.5, 50.0])
    assert answered_at(own, other, 0.01) == 2
    assert answered_at(own, other, 0.0) == 3  # just below 0
    # The gate refuses more than 1% of the own questions: what it lets through is answered.
    gated = np.asarray([-np.inf] * 5 + list(range(95)), dtype=float)
    assert answered_at(gated, np.asarray([-np.inf, -100.0]), 0.01) == 1


def test_a_word_tiktoken_splits_is_a_technical_one() -> None:
    encoding = get_encoding("cl100k_base")
    assert tokens_of("capital", encoding) == 1
    assert tokens_of("Australia", encoding) == 1
    assert tokens_of("leviviridae", encoding) >= 2
    assert tokens_of("tirasemtiv", encoding) >= 2
