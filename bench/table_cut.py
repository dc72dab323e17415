"""Where the table reader alone says "stated", and whether one sentence may fill several
columns of a row: a choice among four ways, made on the training fields only
(``bench/table.py --fold A --fold B --choose-cut``).

The reader alone quotes a cell's best sentence when its log-odds reach a cut, -1 for every
column since table reader 4 (a value set by hand, never fitted). The four ways:

- ``shared``: the cut -1 for every column, a sentence may fill several columns (shipped);
- ``cuts``: one cut per preset column, fitted to get the most cells right on the fields
  fitted on (the cut nearest -1 among the best), a sentence may fill several columns;
- ``exclusive``: the cut -1, and a sentence fills at most one column of its row: the
  (column, sentence) pairs over their cut are taken best first, a column taking its best
  sentence no earlier column took, else "not stated";
- ``cuts+exclusive``: both.

The criterion, fixed before any of them was measured (docs/benchmarks.md, "Review tables"):
each training field is read by the fold reader that did not see it and judged with the cuts
fitted on the other five; the way with the most cells right pooled over the six (a labelled
cell quoting a labelled sentence, or an empty cell said "not stated") is shipped, a tie
going to the way listed first. No reported field is read for the choice.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import numpy as np

CUT = -1.0  # the shipped cut, the reader's log-odds
WAYS = ("shared", "cuts", "exclusive", "cuts+exclusive")


def fit_cuts(records: list[dict[str, Any]]) -> dict[str, float]:
    """Per column, the cut on the reader's best log-odds that gets the most of these cells
    right (each column on its own, every sentence free to fill it): CUT itself when no
    other does better, else the one nearest CUT among the best (the candidates: under
    the lowest best log-odds, midway between two, over the highest)."""
    out = {}
    for column in sorted({r["column"] for r in records}):
        best = [(float(r["x"][:, 0].max()), r) for r in records
                if r["column"] == column and len(r["x"])]  # fmt: skip
        if not best:
            continue

        def right(t: float, best: list[tuple[float, dict[str, Any]]] = best) -> int:
            return sum(bool(r["y"][int(np.argmax(r["x"][:, 0]))]) if s >= t else
                       not r["labelled"] for s, r in best)  # fmt: skip

        cuts = sorted({s for s, _ in best})
        options: list[float] = [cuts[0] - 1.0, *((a + b) / 2 for a, b in itertools.pairwise(cuts)),
                   cuts[-1] + 1.0, CUT]  # fmt: skip
        out[column] = round(float(max(options, key=lambda t: (right(t), -abs(t - CUT)))), 4)
    return out


def quoted(row: list[dict[str, Any]], cuts: dict[str, float], exclusive: bool
           ) -> list[int | None]:  # fmt: skip
    """For one paper's records (one per column), the index each cell quotes, or None for
    "not stated"."""
    out: list[int | None] = [None] * len(row)
    over = [(float(r["x"][i, 0]) - cuts.get(r["column"], CUT), c, i)
            for c, r in enumerate(row) for i in range(len(r["x"]))]  # fmt: skip
    if not exclusive:
        for c, r in enumerate(row):
            if len(r["x"]):
                i = int(np.argmax(r["x"][:, 0]))
                if r["x"][i, 0] >= cuts.get(r["column"], CUT):
                    out[c] = i
        return out
    used: set[str] = set()
    # best first; among equals the earlier column, then the earlier sentence
    for score, c, i in sorted(over, key=lambda t: (-t[0], t[1], t[2])):
        text = row[c]["texts"][i]
        if score < 0:
            break
        if out[c] is None and text not in used:
            out[c] = i
            used.add(text)
    return out


def count(tally: dict[str, dict[str, int]], r: dict[str, Any], quoted: int | None) -> None:
    """One cell into the tally, all cells and its column's: labelled, quoted (right or a
    wrong sentence) or said "not stated" (right when the label is empty)."""
    for key in ("all", r["column"]):
        t = tally[key]
        t["cells"] += 1
        t["labelled"] += r["labelled"]
        if quoted is None:
            t["not_stated"] += 1
            t["not_stated_right"] += not r["labelled"]
        else:
            t["quoted"] += 1
            right = bool(r["y"][quoted])
            t["quoted_wrong"] += not right
            t["stated_right"] += right and r["labelled"]


def judge(records: list[dict[str, Any]], cuts: dict[str, float], exclusive: bool
          ) -> dict[str, Any]:  # fmt: skip
    """Cells right, stated, "not stated" right and wrong quotes, as bench/table.py counts
    them, all cells and per column."""
    rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        rows[(r["field"], r["paper"])].append(r)
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows.values():
        for r, q in zip(row, quoted(row, cuts, exclusive), strict=True):
            count(tally, r, q)
    for t in tally.values():
        t["right"] = t["stated_right"] + t["not_stated_right"]
    return {k: dict(v) for k, v in tally.items()}


def choose(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The four ways on the training fields (module doc): per field, per way, the tally
    with the cuts fitted on the other fields; pooled; the chosen way."""
    fields = sorted({r["field"] for r in records})
    out: dict[str, Any] = {"fields": {}, "pooled": {}}
    for field in fields:
        held = [r for r in records if r["field"] == field]
        fitted = fit_cuts([r for r in records if r["field"] != field])
        out["fields"][field] = {"cuts": fitted} | {
            way: judge(held, fitted if way.startswith("cuts") else {}, way.endswith("exclusive"))
            for way in WAYS
        }
    for way in WAYS:
        pooled: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for f in out["fields"].values():
            for key, t in f[way].items():
                for k, v in t.items():
                    pooled[key][k] += v
        out["pooled"][way] = {k: dict(v) for k, v in pooled.items()}
        out["pooled"][way]["worst_field_right"] = min(
            f[way]["all"]["right"] / f[way]["all"]["cells"] for f in out["fields"].values()
        )
    # max keeps the first of equals: a tie goes to the way listed first
    out["chosen"] = max(WAYS, key=lambda w: out["pooled"][w]["all"]["right"])
    out["cuts"] = fit_cuts(records)  # what "cuts" ships: fitted on all six
    return out
