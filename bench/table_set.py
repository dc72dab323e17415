"""Build the review-table labelling set (issue #45): papers drawn from four bench fields, each
abstract split into numbered sentences as paperchat splits them, for writers who label
which sentences answer each column (bench/data/table/RULES.md) without seeing the code.

    python bench/table_set.py                 # the four reported fields: papers.jsonl
    python bench/table_set.py --train         # six fields to train on: papers_train.jsonl
    python bench/table_set.py --train --round 2   # 72 more of them: papers_train2.jsonl

Fixed seed: the same papers every run. The labels (labels_*.jsonl) are written afterwards
by helpers and never edited after an answer is seen; bench/table.py scores against them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.sentences import split_sentences  # noqa: E402

FIELDS = ("public-health", "economics", "materials-science", "computer-vision")
# Fields whose labels only train the cell model (labels_train_*.jsonl): never reported on.
TRAIN_FIELDS = ("chemistry", "condensed-matter", "ecology-evolution", "mathematics",
                "political-science", "psychology")  # fmt: skip
PER_FIELD = 12
SEED = 45


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
    args = ap.parse_args()
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
