"""The per-field table of an answer bench run (bench/answers.py's JSON), as the issues ask
it: key facts stated, gold cited where retrieval ranks it first, answerable refused,
in-field unanswerable answered, other-field answered, conversations right, p50/p95 of the
answer; the mean over the ten fields and the worst field for each column. Runs side by side
(``--compare``) print each field's figures of both.

    python bench/fields_report.py bench/results/answers_reader.json \\
        --compare bench/results/answers_ranker.json --markdown

"Other-field" counts the questions of the other libraries asked of this one (types
``offtopic:*``), the everyday ones included; "in-field unanswerable" the library's own
questions no abstract answers (type ``unanswerable``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.domains import FIELDS  # noqa: E402

COLUMNS = ("key facts", "gold when 1st", "ans. refused", "unans. answered", "other answered",
           "conversations", "p50 s", "p95 s")  # fmt: skip
HIGHER_IS_BETTER = {"key facts": True, "gold when 1st": True, "ans. refused": False,
                    "unans. answered": False, "other answered": False, "conversations": True,
                    "p50 s": False, "p95 s": False}  # fmt: skip


def _flat(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t | {"type": r["type"]} for r in rows
            for t in (r["turns"] if r["type"] == "conversation" else [r])]  # fmt: skip


def figures(domain: dict[str, Any]) -> dict[str, tuple[int, int] | float | None]:
    """One library's columns: (count, of) pairs, or seconds."""
    rep = domain["extractive"]
    types = rep["by_type"]
    own = rep["own"]

    def pair(d: dict[str, Any], key: str = "count") -> tuple[int, int]:
        return (int(d[key]), int(d["n"]))

    unans = types.get("unanswerable", {}).get("unanswerable_answered", {"count": 0, "n": 0})
    other = [v["unanswerable_answered"] for t, v in types.items() if t.startswith("offtopic")]
    other += [types["everyday"]["unanswerable_answered"]] if "everyday" in types else []
    return {
        "key facts": (own["key_facts"]["stated"], own["key_facts"]["asked"]),
        "gold when 1st": pair(own["gold_cited_when_first"]),
        "ans. refused": pair(own["answerable_refused"]),
        "unans. answered": pair(unans),
        "other answered": (sum(o["count"] for o in other), sum(o["n"] for o in other)),
        "conversations": pair(own["conversations_right"]),
        "p50 s": own["total_s"]["p50"],
        "p95 s": own["total_s"]["p95"],
    }


def _rate(v: tuple[int, int] | float | None) -> float | None:
    if isinstance(v, tuple):
        return v[0] / v[1] if v[1] else None
    return v


def _cell(v: tuple[int, int] | float | None) -> str:
    if isinstance(v, tuple):
        return f"{v[0]}/{v[1]} ({100 * v[0] / v[1]:.0f}%)" if v[1] else "-"
    return f"{v:.3f}" if v is not None else "-"


def table(result: dict[str, Any], names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    return [(n, figures(result["domains"][n])) for n in names if n in result["domains"]]


def summary(rows: list[tuple[str, dict[str, Any]]]) -> dict[str, tuple[str, str]]:
    """Per column over the ten fields: (mean, worst field and its value)."""
    out = {}
    fields = [(n, f) for n, f in rows if n in FIELDS]
    for col in COLUMNS:
        vals = [(n, _rate(f[col])) for n, f in fields if _rate(f[col]) is not None]
        if not vals:
            continue
        mean = sum(v for _, v in vals) / len(vals)
        worst = (min if HIGHER_IS_BETTER[col] else max)(vals, key=lambda x: x[1])
        pct = col not in ("p50 s", "p95 s")
        fmt = (lambda x: f"{100 * x:.1f}%") if pct else (lambda x: f"{x:.3f}")
        out[col] = (fmt(mean), f"{worst[0]} {fmt(worst[1])}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("result", type=Path)
    ap.add_argument("--compare", type=Path, help="another run of the same bench, side by side")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    result = json.loads(args.result.read_text())
    names = list(result["domains"])
    rows = table(result, names)
    other = table(json.loads(args.compare.read_text()), names) if args.compare else []
    before = dict(other)
    sep = " | " if args.markdown else "  "
    head = ["library", *COLUMNS]
    print(("| " if args.markdown else "") + sep.join(head) + (" |" if args.markdown else ""))
    if args.markdown:
        print("|" + "---|" * len(head))
    for name, f in rows:
        cells = [_cell(f[c]) for c in COLUMNS]
        if name in before:
            cells = [f"{a} ← {_cell(before[name][c])}" for a, c in zip(cells, COLUMNS, strict=True)]
        line = sep.join([name, *cells])
        print(f"| {line} |" if args.markdown else line)
    for label, s in (("mean of the fields", summary(rows)),):
        print(f"\n{label}: " + "; ".join(f"{c} {v[0]}" for c, v in s.items()))
        print("worst field: " + "; ".join(f"{c} {v[1]}" for c, v in s.items()))
    if other:
        s = summary(other)
        print(
            "\ncompared run, mean of the fields: " + "; ".join(f"{c} {v[0]}" for c, v in s.items())
        )
        print("compared run, worst field: " + "; ".join(f"{c} {v[1]}" for c, v in s.items()))


if __name__ == "__main__":
    main()
