"""Build the mathematics corpus from arXiv listing records kept by daily-arXiv forks.

Source: the arXiv metadata (id, title, authors, categories, abstract) that forks of
dw-dengwei/daily-arXiv-ai-enhanced commit under data/*.jsonl (one JSON record per line,
as scraped from the arXiv daily listings). These forks follow computer-science
categories, so the mathematics/statistics papers they hold are those whose PRIMARY
(first-listed) category is math.* or stat.ME/stat.AP/stat.CO/stat.TH/stat.OT and that
were cross-listed to the followed categories. See SOURCE.md for repositories and commits.

Each RAW_FILE is the concatenation of one fork's data/*.jsonl files at the commit named in
SOURCE.md (any number of files, in any order; records are matched by arXiv id).

Selection: primary category math.* or one of the stat.* above; no astronomy/earth/climate
category; English; abstract of 80-400 words after collapsing whitespace; none of the
reserved words; no machine-learning/LLM papers (regex ML below); duplicates by arXiv id
(and by normalised title) removed. If more than MAX records remain, they are sorted by
id and sampled with random.Random(41).sample; output is sorted by id.

Usage: python bench/data/fields/mathematics/build.py RAW_FILE... --out corpus.jsonl
Standard library only.
"""

import argparse
import json
import random
import re
import sys

MAX = 400
SEED = 41
STAT_OK = {"stat.ME", "stat.AP", "stat.CO", "stat.TH", "stat.OT"}
BAD_CAT = re.compile(r"^(astro-ph|gr-qc|physics\.ao-ph|physics\.geo-ph|physics\.space-ph)")
RESERVED = re.compile(
    r"climate|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|ocean|glacier|"
    r"earthquake|seismic|weather|black hole|dark matter|redshift|supernova",
    re.I,
)
ML = re.compile(
    r"neural|deep learning|machine learning|language model|LLM|transformer|training|"
    r"diffusion model|reinforcement",
    re.I,
)
STOP = {
    "the",
    "of",
    "and",
    "a",
    "in",
    "to",
    "is",
    "we",
    "for",
    "that",
    "with",
    "on",
    "this",
    "are",
    "by",
    "an",
}


def ws(s):
    return " ".join(str(s or "").split())


def english(text):
    words = re.findall(r"[A-Za-z]+", text.lower())
    if not words:
        return False
    return sum(w in STOP for w in words) / len(words) >= 0.08


def year_from_id(aid):
    m = re.match(r"^(\d{2})(\d{2})\.\d{4,5}$", aid)
    return 2000 + int(m.group(1)) if m else None


def candidates(paths):
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict):
                    yield r


def keep(r):
    aid = ws(r.get("id"))
    aid = re.sub(r"v\d+$", "", aid)
    cats = r.get("categories")
    if not aid or not isinstance(cats, list) or not cats:
        return None
    cats = [str(c) for c in cats]
    if not (cats[0].startswith("math.") or cats[0] in STAT_OK):
        return None
    if any(BAD_CAT.match(c) for c in cats):
        return None
    title, abstract = ws(r.get("title")), ws(r.get("summary"))
    if not title or not (80 <= len(abstract.split()) <= 400):
        return None
    if RESERVED.search(title) or RESERVED.search(abstract):
        return None
    if ML.search(title) or ML.search(abstract):
        return None
    if not english(abstract):
        return None
    rec = {
        "id": aid,
        "title": title,
        "authors": [ws(a) for a in (r.get("authors") or []) if ws(a)],
        "year": year_from_id(aid),
        "abstract": abstract,
    }
    if rec["year"] is None:
        del rec["year"]
    rec["url"] = ws(r.get("abs")) or "https://arxiv.org/abs/" + aid
    rec["source"] = "arXiv (via daily-arXiv-ai-enhanced forks)"
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    best = {}
    for r in candidates(a.raw):
        rec = keep(r)
        if rec is None:
            continue
        key = json.dumps(rec, sort_keys=True, ensure_ascii=False)
        old = best.get(rec["id"])
        if old is None or key < old[0]:
            best[rec["id"]] = (key, rec)
    recs = [best[k][1] for k in sorted(best)]
    seen, uniq = set(), []
    for rec in recs:
        t = re.sub(r"[^a-z0-9]", "", rec["title"].lower())
        if t in seen:
            continue
        seen.add(t)
        uniq.append(rec)
    if len(uniq) > MAX:
        uniq = sorted(random.Random(SEED).sample(uniq, MAX), key=lambda x: x["id"])
    with open(a.out, "w", encoding="utf-8") as fh:
        for rec in uniq:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"{len(uniq)} records -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
