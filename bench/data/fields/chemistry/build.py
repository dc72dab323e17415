"""Build the chemistry benchmark corpus.

Source: arXiv metadata (titles, authors, abstracts, categories) as collected by
the GitHub repository exopoiesis/daily-arxiv-ai4chem (commit
7abedaca3642f7f2567f0f8306d2c4f3f910cce3), files data/papers-YYYY-MM.json
(2024-04 .. 2026-04). Each file is a JSON object {arxiv_id: record}.

Selection: primary_category == physics.chem-ph; no cs.*/stat.* cross-list
(avoids machine-learning papers); no astro/earth/climate categories or words;
no mention of (large) language models; English abstracts of 80-400 words;
duplicates (by id, then by normalised title) dropped; then records sorted by
id and N=350 sampled with random.Random(41).sample.

Usage: python build.py data/papers-*.json --out corpus.jsonl
Standard library only.
"""

import argparse
import json
import os
import random
import re

PRIMARY = "physics.chem-ph"
EXCLUDE_CATS = ()  # extra categories to exclude (field specific)
EXCLUDE_WORDS_FIELD = None  # extra abstract pattern to exclude (field specific)
N = 350
SEED = 41

BAD_CAT_PREFIXES = ("astro-ph", "gr-qc", "physics.ao-ph", "physics.geo-ph", "physics.space-ph")
ML_CAT_PREFIXES = ("cs.", "stat.")
BAD_WORDS = re.compile(
    r"climate|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|"
    r"ocean|glacier|earthquake|seismic|weather|black hole|dark matter|"
    r"redshift|supernova|geoscien|meteorolog|oceanograph|climatolog",
    re.I,
)
LLM_WORDS = re.compile(r"language model|\bLLMs?\b|ChatGPT|\bGPT-?\d", re.I)
ENGLISH_WORDS = {
    "the",
    "of",
    "and",
    "in",
    "to",
    "a",
    "is",
    "we",
    "for",
    "with",
    "that",
    "by",
    "on",
    "are",
    "this",
}


def ws(text):
    return " ".join(str(text).split())


def as_list(x):
    if isinstance(x, list):
        return x
    import ast

    return ast.literal_eval(x)


def is_english(text):
    words = re.findall(r"[A-Za-z]+", text.lower())
    if not words:
        return False
    hits = sum(1 for w in words if w in ENGLISH_WORDS)
    return hits / len(words) >= 0.08


def load(paths):
    records = {}
    for path in sorted(paths, key=os.path.basename):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        for key, rec in data.items():
            aid = re.sub(r"v\d+$", "", key.strip())
            if aid not in records:  # first occurrence (earliest month) wins
                records[aid] = rec
    return records


def keep(rec):
    if rec.get("primary_category") != PRIMARY:
        return False
    cats = as_list(rec.get("categories") or [])
    if any(c.startswith(BAD_CAT_PREFIXES) for c in cats):
        return False
    if any(c.startswith(ML_CAT_PREFIXES) for c in cats):
        return False
    if any(c in EXCLUDE_CATS for c in cats):
        return False
    title, abstract = ws(rec.get("title", "")), ws(rec.get("abstract", ""))
    text = title + " " + abstract
    if BAD_WORDS.search(text) or LLM_WORDS.search(text):
        return False
    if EXCLUDE_WORDS_FIELD and re.search(EXCLUDE_WORDS_FIELD, text, re.I):
        return False
    if not 80 <= len(abstract.split()) <= 400:
        return False
    return is_english(abstract)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", nargs="+", help="data/papers-YYYY-MM.json files")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    records = load(args.raw)
    seen_titles, seen_abs, pool = set(), set(), []
    for aid in sorted(records):
        rec = records[aid]
        if not keep(rec):
            continue
        tkey = re.sub(r"\W+", " ", ws(rec["title"]).lower()).strip()
        akey = ws(rec["abstract"]).lower()
        if tkey in seen_titles or akey in seen_abs:
            continue
        seen_titles.add(tkey)
        seen_abs.add(akey)
        pool.append(aid)
    chosen = sorted(random.Random(SEED).sample(pool, min(N, len(pool))))

    with open(args.out, "w", encoding="utf-8") as out:
        for aid in chosen:
            rec = records[aid]
            year = int(str(rec.get("published", ""))[:4])
            obj = {
                "id": aid,
                "title": ws(rec["title"]),
                "authors": [ws(a) for a in as_list(rec.get("authors") or [])],
                "year": year,
                "abstract": ws(rec["abstract"]),
                "url": "https://arxiv.org/abs/" + aid,
                "source": "arXiv",
            }
            out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    print(f"pool {len(pool)}, wrote {len(chosen)} to {args.out}")


if __name__ == "__main__":
    main()
