"""How far two writers' review-table labels agree: the second writer's cells scored as if
they were the system's, against the first writer's labels (and the other way round), with
bench/table.py's measures: a cell stated (its best sentence among the labelled ones), "not
stated" right, a wrong sentence quoted.

The first labels are bench/data/table/labels_a.jsonl and labels_b.jsonl; the second,
bench/data/table/second/labels_second_*.jsonl, were written by a writer who saw only
RULES.md and the papers, never the first labels or the code.

    python bench/table_agreement.py [--out bench/results/table_agreement.json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench/data/table"


def _labels(paths: list[Path]) -> dict[str, dict[str, Any]]:
    out = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lab = json.loads(line)
                out[lab["id"]] = lab
    return out


def score(ref: dict[str, dict[str, Any]], cand: dict[str, dict[str, Any]],
          fields: dict[str, str]) -> dict[str, dict[str, Any]]:  # fmt: skip
    """``cand``'s best sentence per cell judged against ``ref``'s labelled sentences, by
    column, by field and over all."""
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for pid, lab in ref.items():
        for column, cell in lab["columns"].items():
            gold = set(cell["sentences"])
            best = cand[pid]["columns"][column]["best"]
            for key in ("all", column, fields[pid]):
                t = tally[key]
                t["cells"] += 1
                t["labelled"] += bool(gold)
                if best is None:
                    t["not_stated"] += 1
                    t["not_stated_right"] += not gold
                else:
                    t["quoted"] += 1
                    t["quoted_wrong"] += best not in gold
                    t["stated_right"] += best in gold and bool(gold)
    out = {}
    for key, t in tally.items():

        def rate(a: str, b: str, t: dict[str, int] = t) -> float | None:
            return round(t[a] / t[b], 3) if t[b] else None

        out[key] = dict(t) | {"stated": rate("stated_right", "labelled"),
                              "not_stated_right_rate": rate("not_stated_right", "not_stated"),
                              "wrong_quoted": rate("quoted_wrong", "quoted")}  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/table_agreement.json")
    args = ap.parse_args()
    first = _labels([DATA / "labels_a.jsonl", DATA / "labels_b.jsonl"])
    second = _labels(sorted((DATA / "second").glob("labels_second_*.jsonl")))
    papers = [json.loads(x) for x in (DATA / "papers.jsonl").read_text().splitlines() if x]
    fields = {p["id"]: p["field"] for p in papers}
    missing = set(first) ^ set(second)
    if missing:
        raise SystemExit(f"papers labelled by one writer only: {sorted(missing)}")
    same = sum(set(c["sentences"]) == set(second[pid]["columns"][col]["sentences"])
               for pid, lab in first.items() for col, c in lab["columns"].items())  # fmt: skip
    result = {
        "second_judged_by_first": score(first, second, fields),
        "first_judged_by_second": score(second, first, fields),
        "cells": sum(len(lab["columns"]) for lab in first.values()),
        "same_sentences": same,
    }
    for name in ("second_judged_by_first", "first_judged_by_second"):
        for key, t in result[name].items():
            print(f"{name:24} {key:18} stated {t.get('stated_right', 0)}/{t['labelled']}  "
                  f"not stated right {t.get('not_stated_right', 0)}/{t.get('not_stated', 0)}  "
                  f"wrong quoted {t.get('quoted_wrong', 0)}/{t.get('quoted', 0)}")  # fmt: skip
    print(f"cells listing the same sentences: {same}/{result['cells']}")
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
