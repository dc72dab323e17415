"""Build the contexts of the attribution bench: what a language model is offered.

For each chosen library, N written single-turn questions (seeded sample, answerable ones of
the key-fact types) are asked of its index through the Engine; the sources the answer was
offered (numbered [1]..[k], best first, as the model's prompt numbers them) are saved with
their whole abstracts. Writers who never see this code then write generated-style answer
sentences over each context (bench/data/attribution/RULES.md); bench/attribution.py scores
the product's attribution on them.

    python bench/attribution_contexts.py --domains sample economics ... --per 8 \\
        --pubmedqa ../shared/bench/pubmedqa --out bench/data/attribution/contexts.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import open_domain  # noqa: E402
from bench.domains import NAMES, domains  # noqa: E402

TYPES = ("numeric", "which", "how", "definition", "finding", "what", "comparison", "yesno")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--domains", nargs="+", required=True, choices=NAMES)
    ap.add_argument("--per", type=int, default=8, help="contexts per library")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pubmedqa", type=Path)
    ap.add_argument("--scifact", type=Path)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    every = domains(args.domains, pubmedqa=args.pubmedqa, scifact=args.scifact)
    rng = random.Random(args.seed)
    out = []
    for name in args.domains:
        domain = every[name]
        items = [it for it in domain.items if it.get("answerable", True)
                 and it.get("type") in TYPES and it.get("key_facts")]  # fmt: skip
        rng.shuffle(items)
        app = open_domain(domain, args.index_dir)
        made = 0
        for item in items:
            answer = app.engine.ask(item["question"])
            if answer.final.refused or len(answer.sources) < 3:
                continue
            made += 1
            out.append({
                "id": f"{name}-{made:02d}",
                "library": name,
                "question": item["question"],
                "sources": [
                    {"n": s.n, "name": s.name, "authors": list(s.authors[:6]),
                     "year": s.year, "abstract": s.abstract}
                    for s in answer.sources
                ],
            })  # fmt: skip
            if made == args.per:
                break
        print(f"{name}: {made} contexts", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in out))
    print(f"saved {len(out)} contexts to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
