"""Check a file of attribution-bench sentences against the rules (RULES.md).

    python check_attribution.py FILE.jsonl [--contexts contexts.jsonl]

Prints each problem with its line number; exits 1 if there is any. Stdlib only: the
writers run it beside their file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

CASES = ("right", "unmarked", "wrong_marker", "changed_figure", "made_up", "merged", "framing")
MARKER = re.compile(r"\[\s*\d{1,2}(?:\s*[,;]\s*\d{1,2})*\s*\]")
FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def markers(text: str) -> set[int]:
    return {int(x) for m in MARKER.findall(text) for x in re.findall(r"\d+", m)}


def figures(text: str) -> set[str]:
    return {f.replace(",", "") for f in FIGURE.findall(MARKER.sub(" ", text))}


def check(path: Path, contexts: dict[str, dict]) -> list[str]:
    problems: list[str] = []
    seen: dict[str, set[str]] = {}
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {no}: not JSON ({exc})")
            continue
        where = f"line {no} ({row.get('context')} #{row.get('i')})"
        ctx = contexts.get(row.get("context", ""))
        if ctx is None:
            problems.append(f"{where}: unknown context")
            continue
        case, text = row.get("case"), row.get("text", "")
        if case not in CASES:
            problems.append(f"{where}: case must be one of {CASES}")
            continue
        seen.setdefault(ctx["id"], set()).add(case)
        abstracts = {s["n"]: s["abstract"] for s in ctx["sources"]}
        support = row.get("support")
        if not isinstance(support, list) or any(n not in abstracts for n in support):
            problems.append(f"{where}: support must list numbers of the context's papers")
            continue
        if not text.strip() or not re.search(r"[.!?](\s*(\[[^\]]*\])+)?\s*$", text):
            problems.append(f"{where}: text must be one sentence ending with . ! or ?")
        marks = markers(text)
        evidence = row.get("evidence", {})
        wanted = set(support) | ({row.get("source")} if case == "changed_figure" else set())
        if {int(k) for k in evidence} != wanted:
            problems.append(f"{where}: evidence must have exactly the keys {sorted(wanted)}")
        for k, quote in evidence.items():
            if int(k) in abstracts and quote not in abstracts[int(k)]:
                problems.append(f"{where}: evidence for [{k}] is not verbatim in its abstract")
        if case == "right" and (len(support) != 1 or marks != set(support)):
            problems.append(f"{where}: right: one paper in support and exactly its marker")
        if case == "unmarked" and (len(support) != 1 or marks):
            problems.append(f"{where}: unmarked: one paper in support and no marker")
        if case == "wrong_marker" and (len(support) != 1 or not marks or marks & set(support)):
            problems.append(f"{where}: wrong_marker: one paper in support, a marker of another")
        if case == "changed_figure":
            n = row.get("source")
            if support or n not in abstracts or marks != {n}:
                problems.append(f"{where}: changed_figure: support [], source n, marker [n]")
            elif not figures(text) - figures(abstracts[n]):
                problems.append(f"{where}: changed_figure: every figure is in abstract {n}")
        if case == "made_up" and (support or evidence):
            problems.append(f"{where}: made_up: support [] and evidence {{}}")
        if case == "merged" and len(support) != 2:
            problems.append(f"{where}: merged: two papers in support")
        if case == "framing" and (support or marks):
            problems.append(f"{where}: framing: no support and no marker")
    for cid, cases in seen.items():
        lacking = {"right", "unmarked", "wrong_marker", "made_up", "merged"} - cases
        if lacking:
            problems.append(f"context {cid}: no sentence of case {sorted(lacking)}")
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file", type=Path)
    ap.add_argument("--contexts", type=Path, default=Path(__file__).with_name("contexts.jsonl"))
    args = ap.parse_args()
    contexts = {}
    for line in args.contexts.read_text(encoding="utf-8").splitlines():
        if line.strip():
            c = json.loads(line)
            contexts[c["id"]] = c
    problems = check(args.file, contexts)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
