"""bench/fit_reader.py's gates, on made-up log-odds: the gate of questions naming what no
paper holds, fitted to tell such questions the library answers from those it cannot."""

from __future__ import annotations

from typing import Any

from bench.fit_reader import fit_gate_absent, report


def _q(best: float, *, answerable: bool, absent: bool, kind: str = "what",
       type_: str = "which") -> list[dict[str, Any]]:  # fmt: skip
    return [{"read": best, "hand": 0.0, "label": 0, "answerable": answerable, "absent": absent,
             "retrieved": answerable, "named": False, "kind": kind, "type": type_}]  # fmt: skip


def test_the_absent_gate_parts_answered_from_unanswerable_and_never_falls_below_the_gate() -> None:
    qs = {
        ("lib", f"a{i}"): _q(v, answerable=True, absent=True) for i, v in enumerate([1.0, 2.0, 3.0])
    }
    qs |= {("lib", f"u{i}"): _q(v, answerable=False, absent=True, type_="unanswerable")
           for i, v in enumerate([-3.0, -2.5, 0.5])}  # fmt: skip
    # Questions naming nothing missing, and ungated kinds, do not move it.
    qs[("lib", "plain")] = _q(-9.0, answerable=True, absent=False)
    qs[("lib", "list")] = _q(-9.0, answerable=True, absent=True, kind="list")
    assert fit_gate_absent(qs, gate=-4.0) == 1.0  # refuses all three unanswerable, no answered one
    assert fit_gate_absent(qs, gate=2.5) == 2.5  # never below the gate
    only_answered = {k: v for k, v in qs.items() if v[0]["answerable"]}
    assert fit_gate_absent(only_answered, gate=-4.0) == -4.0  # nothing to tell apart: the gate
    blend = {"bias": 0.0, "reader": 1.0, "hand": 0.0}
    # the list question counts among those answered: it is never gated
    held = report("lib", qs, blend, -4.0, 1.0)["naming_absent"]
    assert held == {"answerable_refused": [0, 4], "unanswerable_passed": [0, 3]}
    one_gate = report("lib", qs, blend, -4.0)["naming_absent"]
    assert one_gate == {"answerable_refused": [0, 4], "unanswerable_passed": [3, 3]}


def test_the_blend_is_fitted_as_a_ranking_within_each_question() -> None:
    """Made-up questions where the reader tells a question's answer sentence from its others
    and the hand score only tells questions apart (it is high for every sentence of the
    easy questions): the ranking fit leans on the reader, and the blend stays a log-odds
    (its logistic scale and bias fitted after)."""
    import numpy as np

    from bench.fit_reader import fit_blend, fit_ranking, ranking_groups

    rng = np.random.default_rng(0)
    qs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for q in range(60):
        level = 3.0 if q % 2 else -3.0  # the hand score: the question's, not the sentence's
        rows = []
        for k in range(6):
            label = int(k == 0)
            rows.append({"read": 2.0 * label + rng.normal(0, 0.5), "label": label,
                         "hand": level + rng.normal(0, 0.5), "answerable": True})  # fmt: skip
        qs[("lib", f"q{q}")] = rows
    w = fit_ranking(ranking_groups(list(qs.values())), l2=1.0)
    assert w[0] > 4 * abs(w[1])  # the reader ranks; the hand score hardly moves the order
    blend = fit_blend(qs, l2=1.0)
    assert blend["reader"] > 0 and abs(blend["hand"]) < blend["reader"] / 4
    top = [max(rs, key=lambda r: blend["reader"] * r["read"] + blend["hand"] * r["hand"])
           for rs in qs.values()]  # fmt: skip
    assert sum(r["label"] for r in top) >= 57
