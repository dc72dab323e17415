"""Reading a cell's sentences until one is sure: a choice made on the training fields only
(``bench/table.py --fold A --fold B --choose-stop``).

The table reader reads a cell's ``read`` sentences (five) in the order the other features
put them (``rag.answer.table.TableReader.order``). A sentence read later can change the
cell only by outscoring every one read before it, so the reader may stop once it has read
at least ``k`` and one has reached log-odds ``s`` (``params.table``: ``read_first``,
``sure``). The candidates: ``k`` in {1, 2, 3}, ``s`` in {2, 3, 4, 5}, and reading all five.

The criterion, fixed before it was measured (docs/benchmarks.md, "Review tables"): on the six
training fields, each read by the fold reader that did not see it, the candidate reading the
fewest pairs is shipped among those whose cells right, pooled, are no fewer than reading all
five's minus 0.25% of the cells; if none is, nothing changes. The records are read in full
(every one of the five), so each candidate is judged on the same log-odds as the product
would read them: a pair's log-odds do not depend on what else is read (each is read alone).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from bench import table_cut
from rag.answer.reader import sure_enough

CUT = -1.0  # the reader alone quotes a cell from this log-odds (rag.answer.table.THRESHOLD)
FIRST = (1, 2, 3)
SURE = (2.0, 3.0, 4.0, 5.0)
TOLERANCE = 0.0025  # of the cells: what an early stop may lose against reading all


def candidates() -> list[tuple[int, float] | None]:
    """Reading all (None) first, then every (k, s)."""
    return [None, *((k, s) for k in FIRST for s in SURE)]


def name(candidate: tuple[int, float] | None) -> str:
    return "all" if candidate is None else f"k={candidate[0]} s={candidate[1]:g}"


def read(record: dict[str, Any], candidate: tuple[int, float] | None) -> tuple[int | None, int]:
    """The sentence the cell quotes (None: "not stated") and how many pairs were read."""
    order = [int(i) for i in record["order"]]
    if not order:
        return None, 0
    odds = [float(record["x"][i, 0]) for i in order]
    n = len(order)
    if candidate is not None:  # where the product's reader stops on these log-odds
        n = next((m for m in range(1, n + 1) if sure_enough(odds[:m], *candidate)), n)
    # of equals, the first in the paper (as np.argmax over its sentences, and the product)
    best = max(order[:n], key=lambda i: (float(record["x"][i, 0]), -i))
    return (best if record["x"][best, 0] >= CUT else None), n


def judge(records: list[dict[str, Any]], candidate: tuple[int, float] | None) -> dict[str, Any]:
    """Cells right, stated, "not stated" right and wrong quotes (as bench/table.py counts
    them), and the pairs read, all cells and per column."""
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in records:
        quoted, n = read(r, candidate)
        table_cut.count(tally, r, quoted)
        for key in ("all", r["column"]):
            tally[key]["pairs"] += n
    for t in tally.values():
        t["right"] = t["stated_right"] + t["not_stated_right"]
    return {k: dict(v) for k, v in tally.items()}


def choose(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Every candidate on these (training) records, per field and pooled, and the chosen one
    (module doc)."""
    fields = sorted({r["field"] for r in records})
    out: dict[str, Any] = {"candidates": {}}
    for c in candidates():
        per = {f: judge([r for r in records if r["field"] == f], c)["all"] for f in fields}
        pooled = judge(records, c)["all"]
        pooled["worst_field_right"] = round(min(t["right"] / t["cells"] for t in per.values()), 4)
        out["candidates"][name(c)] = {"pooled": pooled, "fields": per}
    full = out["candidates"]["all"]["pooled"]
    floor = full["right"] - int(TOLERANCE * full["cells"])
    fit = [c for c in candidates() if out["candidates"][name(c)]["pooled"]["right"] >= floor]
    # min keeps the first of equals: reading all, then the smaller k and s
    chosen = min(fit, key=lambda c: out["candidates"][name(c)]["pooled"]["pairs"])
    out |= {"floor": floor, "chosen": name(chosen), "read_first": None if chosen is None else
            chosen[0], "sure": None if chosen is None else chosen[1]}  # fmt: skip
    return out


def reported(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Every candidate on the reported fields, pooled and per field (deciding nothing)."""
    fields = sorted({r["field"] for r in records})
    return {name(c): {"all": judge(records, c),
                      "fields": {f: judge([r for r in records if r["field"] == f], c)["all"]
                                 for f in fields}}
            for c in candidates()}  # fmt: skip
