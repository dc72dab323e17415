"""Build the computer-vision library from a daily arXiv digest's records.

Source: GitHub KAFKA2306/daily-arXiv-ai-enhanced, commit c8454e0f4d92642ac337be190572a877024686f1,
``data/YYYY-MM-DD.jsonl`` (400 daily files of arXiv records: id, categories, authors, title,
summary). Kept: papers whose first (primary) category is cs.CV, none of whose categories is
reserved (astro-ph*, gr-qc, physics.ao-ph, physics.geo-ph, physics.space-ph), whose title and
abstract mention none of the reserved fields' words, and none of language models (another
library covers ML systems), with an English abstract of 80 to 400 words; one record per id;
sorted by id, then 350 drawn with random.Random(41).

    python bench/data/fields/computer-vision/build.py /tmp/fields_raw/computer-vision/*.jsonl \\
        --out bench/data/fields/computer-vision/corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

COUNT = 350
SEED = 41
RESERVED_CATEGORIES = ("astro-ph", "gr-qc", "physics.ao-ph", "physics.geo-ph", "physics.space-ph")
RESERVED_WORDS = re.compile(
    r"climate|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|ocean|glacier|"
    r"earthquake|seismic|weather|black hole|dark matter|redshift|supernova|geoscien|"
    r"meteorolog|remote sensing|satellite|\bllms?\b|language model|\bgpt",
    re.IGNORECASE,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("raw", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    pool: dict[str, dict] = {}
    for path in sorted(args.raw):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            cats = rec.get("categories") or []
            pid = str(rec.get("id", "")).split("v")[0]
            title = " ".join(str(rec.get("title") or "").split())
            abstract = " ".join(str(rec.get("summary") or "").split())
            if not cats or cats[0] != "cs.CV" or not pid or not title or pid in pool:
                continue
            if any(c.startswith(RESERVED_CATEGORIES) for c in cats):
                continue
            if RESERVED_WORDS.search(f"{title} {abstract}"):
                continue
            words = len(abstract.split())
            if not 80 <= words <= 400 or (not abstract.isascii() and _mostly_foreign(abstract)):
                continue
            year = 2000 + int(pid[:2]) if re.match(r"^\d{4}\.\d{4,5}$", pid) else None
            pool[pid] = {
                "id": pid,
                "title": title,
                "authors": [" ".join(a.split()) for a in rec.get("authors") or []],
                "year": year,
                "abstract": abstract,
                "url": f"https://arxiv.org/abs/{pid}",
                "source": "arXiv",
            }
    ids = sorted(pool)
    chosen = sorted(random.Random(SEED).sample(ids, COUNT))
    with args.out.open("w", encoding="utf-8") as fh:
        for pid in chosen:
            fh.write(json.dumps(pool[pid], ensure_ascii=False) + "\n")
    print(f"{len(pool)} eligible, {COUNT} written to {args.out}")


def _mostly_foreign(text: str) -> bool:
    return sum(not c.isascii() for c in text) > 0.05 * len(text)


if __name__ == "__main__":
    main()
