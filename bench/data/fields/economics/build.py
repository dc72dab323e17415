#!/usr/bin/env python3
"""Build the economics corpus from NBER Summer Institute presentation abstracts.

Source: GitHub repository Michael-E-Rose/Discussants (MIT licence), commit
f0302f3d09eab35b2eaec637111bd08175619d3a, files
  025_paper_auxiliary/abstracts_programs.csv  (title, group, year, abstract of papers
      presented at NBER Summer Institutes 2000-2009; collected by Nurzhan Sapargali
      and Christopher Schwarz)
  012_presentations/entries.csv               (title, author, group, year, ... of the
      same programmes; used only to attach author names)

Usage:
  python bench/data/fields/economics/build.py abstracts_programs.csv entries.csv \
      --out bench/data/fields/economics/corpus.jsonl

Standard library only. Selection: English abstracts of 80-400 words, whitespace collapsed,
duplicates (same title and year, or same abstract text) dropped, records matching the
reserved-field exclusion words dropped; then sort by id and draw a seeded random sample
(seed 41) of N records (default 350); output sorted by id.
"""

import argparse
import csv
import json
import random
import re
import sys

EXCLUDE = [
    "climate",
    "galax",
    "stellar",
    "cosmolog",
    "astro",
    "planet",
    "telescope",
    "solar",
    "atmospher",
    "ocean",
    "glacier",
    "earthquake",
    "seismic",
    "weather",
    "black hole",
    "dark matter",
    "redshift",
    "supernova",
]
SOURCE = "NBER Summer Institute programmes (Michael-E-Rose/Discussants)"


def ws(s):
    return re.sub(r"\s+", " ", s or "").strip()


def short_key(title):
    # the key the Discussants repository uses for a presentation ("short"):
    # upper-case title, letters and digits only
    return re.sub(r"[^A-Z0-9]", "", title.upper())


def name_case(name):
    """Upper-case names of the programmes -> 'Given Family' in title case."""
    out = []
    for w in name.split():
        t = w.title()
        t = re.sub(r"^Mc([a-z])", lambda m: "Mc" + m.group(1).upper(), t)
        t = re.sub(r"^(Ii|Iii|Iv)$", lambda m: m.group(1).upper(), t)
        out.append(t)
    return " ".join(out)


def parse_authors(s):
    names = []
    for part in (s or "").split(";"):
        part = part.strip()
        if not part:
            continue
        name = ws(part.split(",", 1)[0])
        if name.upper() == name:
            name = name_case(name)
        if name:
            names.append(name)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", nargs="+", help="abstracts_programs.csv and entries.csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", type=int, default=350)
    ap.add_argument("--seed", type=int, default=41)
    a = ap.parse_args()

    abstracts, entries = None, None
    for path in a.raw:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        cols = set(rows[0].keys()) if rows else set()
        if "abstract" in cols:
            abstracts = rows
        elif "author" in cols and "discussant" in cols:
            entries = rows
    if abstracts is None or entries is None:
        sys.exit("need abstracts_programs.csv and entries.csv")

    authors = {}
    for e in entries:
        k = (ws(e["title"]).upper(), e["year"].strip())
        if k not in authors and ws(e["author"]):
            authors[k] = parse_authors(e["author"])

    recs, seen_key, seen_abs = {}, set(), set()
    for r in abstracts:
        title, year, ab = ws(r["title"]), r["year"].strip(), ws(r["abstract"])
        if not ab or not title:
            continue
        n = len(ab.split())
        if n < 80 or n > 400:
            continue
        low = (title + " " + ab).lower()
        if any(w in low for w in EXCLUDE):
            continue
        key = (title.upper(), year)
        if key in seen_key or ab in seen_abs:
            continue
        seen_key.add(key)
        seen_abs.add(ab)
        rid = f"NBER-SI-{year}-{short_key(title)}"
        if rid in recs:
            continue
        rec = {"id": rid, "title": title}
        au = authors.get(key)
        if au:
            rec["authors"] = au
        rec["year"] = int(year)
        rec["abstract"] = ab
        rec["source"] = SOURCE
        recs[rid] = rec

    ids = sorted(recs)
    if len(ids) > a.n:
        ids = sorted(random.Random(a.seed).sample(ids, a.n))
    with open(a.out, "w", encoding="utf-8") as f:
        for i in ids:
            f.write(json.dumps(recs[i], ensure_ascii=False) + "\n")
    print(f"candidates {len(recs)}, written {len(ids)} -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
