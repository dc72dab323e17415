"""Build the review-table labelling set (issue #45): papers drawn from four bench fields, each
abstract split into numbered sentences as paperchat splits them, for writers who label
which sentences answer each column (bench/data/table/RULES.md) without seeing the code.

    python bench/table_set.py                 # the four reported fields: papers.jsonl
    python bench/table_set.py --train         # six fields to train on: papers_train.jsonl
    python bench/table_set.py --train --round 2   # 72 more of them: papers_train2.jsonl
    python bench/table_set.py --check PAPERS LABELS  # a writer's file against its papers

Fixed seed: the same papers every run. The labels (labels_*.jsonl) are written afterwards
by helpers and never edited after an answer is seen; bench/table.py scores against them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.sentences import split_sentences  # noqa: E402

FIELDS = ("public-health", "economics", "materials-science", "computer-vision")
# Fields whose labels only train the cell model (labels_train_*.jsonl): never reported on.
TRAIN_FIELDS = ("chemistry", "condensed-matter", "ecology-evolution", "mathematics",
                "political-science", "psychology")  # fmt: skip
PER_FIELD = 12
SEED = 45


COLUMNS = ("Method", "Data set", "Main result", "Sample size", "Limitations")


def check(papers: list[dict[str, Any]], labels: list[dict[str, Any]]) -> list[str]:
    """What is wrong with a writer's labels (RULES.md): a paper without a line or a line
    without a paper, a field or a column set not as given, a sentence out of range, a best
    not among its sentences, a value not verbatim in its best sentence."""
    by_id = {p["id"]: p for p in papers}
    problems, seen = [], set()
    for row in labels:
        pid = row.get("id")
        if pid not in by_id:
            problems.append(f"{pid}: not in the papers file")
            continue
        seen.add(pid)
        sentences = by_id[pid]["sentences"]
        if row.get("field") != by_id[pid]["field"]:
            problems.append(f"{pid}: field should be {by_id[pid]['field']}")
        cols = row.get("columns") or {}
        if sorted(cols) != sorted(COLUMNS):
            problems.append(f"{pid}: columns must be exactly {list(COLUMNS)}")
        for name in COLUMNS:
            cell = cols.get(name) or {}
            marked, best, value = cell.get("sentences"), cell.get("best"), cell.get("value")
            if not isinstance(marked, list) or any(
                not isinstance(i, int) or not 0 <= i < len(sentences) for i in marked
            ):
                problems.append(f"{pid} {name}: sentences must be indices 0..{len(sentences) - 1}")
            elif not marked and (best is not None or value is not None):
                problems.append(f"{pid} {name}: best and value must be null with no sentence")
            elif marked and best not in marked:
                problems.append(f"{pid} {name}: best {best} is not among {marked}")
            elif marked and not (isinstance(value, str) and value and value in sentences[best]):
                problems.append(f"{pid} {name}: value not verbatim in sentence {best}")
    problems += [f"{pid}: no label line" for pid in by_id if pid not in seen]
    return problems


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/data/table/papers.jsonl")
    ap.add_argument(
        "--train",
        action="store_true",
        help="the training fields' papers (default --out papers_train.jsonl)",
    )
    ap.add_argument("--round", type=int, default=1,
                    help="with --train: a further draw (its own seed), none of the papers "
                    "earlier rounds drew (default --out papers_train<ROUND>.jsonl)")  # fmt: skip
    ap.add_argument("--check", nargs=2, type=Path, metavar=("PAPERS", "LABELS"),
                    help="only check a labels file against the papers it labels")  # fmt: skip
    args = ap.parse_args()
    if args.check:
        problems = check(*map(_jsonl, args.check))
        print("\n".join(problems) or f"OK: {args.check[1]}")
        sys.exit(1 if problems else 0)
    fields = FIELDS
    drawn: set[str] = set()
    if args.train:
        fields = TRAIN_FIELDS
        if args.out == ROOT / "bench/data/table/papers.jsonl":
            suffix = "" if args.round == 1 else str(args.round)
            args.out = ROOT / f"bench/data/table/papers_train{suffix}.jsonl"
        for path in (ROOT / "bench/data/table").glob("papers_train*.jsonl"):
            if path != args.out:
                drawn |= {json.loads(line)["id"] for line in path.open(encoding="utf-8")}
    rng = random.Random(SEED + args.round - 1)
    rows = []
    for field in fields:
        corpus = ROOT / "bench/data/fields" / field / "corpus.jsonl"
        papers = [json.loads(line) for line in corpus.open(encoding="utf-8") if line.strip()]
        papers = [p for p in papers if len(split_sentences(p.get("abstract") or "")) >= 4
                  and p["id"] not in drawn]  # fmt: skip
        for p in rng.sample(papers, PER_FIELD):
            sentences = split_sentences(p["abstract"])
            rows.append({"field": field, "id": p["id"], "title": p.get("title", ""),
                         "year": p.get("year"), "sentences": sentences})  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} papers -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
