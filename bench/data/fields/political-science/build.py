#!/usr/bin/env python3
"""Build the sociology (political science) corpus from World Politics article abstracts.

Source: GitHub repository soodoku/meta_ps, commit 7ed11c3ebb18c8523895f810aff64917edbdd57e,
file data/wpo_data.csv: article metadata and abstracts of the journal *World Politics*
(Cambridge University Press) scraped from journals.cambridge.org by the repository's
scripts/get_data.py (columns article.url, issue.year, issue.date.of.publication,
article.title, article.abstract, article.doi, author1..author10, ...).

Usage:
  python bench/data/fields/political-science/build.py wpo_data.csv \
      --out bench/data/fields/political-science/corpus.jsonl

Standard library only. Keeps only records whose abstract came from the journal's abstract
field (the scraper ends these with the literal marker "' + '"; records without it hold the
first page of an old article, not an abstract) and contain no HTML markup. The marker is
removed, HTML character references are decoded (&#8217; -> ’), whitespace is collapsed.
Keeps English abstracts of 80-400 words, drops duplicates (same DOI or same abstract) and
records matching the reserved-field exclusion words; then sorts by id (the DOI) and draws
a seeded random sample (seed 41) of N records (default 350); output sorted by id.
"""

import argparse
import csv
import html
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
SOURCE = "World Politics (soodoku/meta_ps)"
MARKER = "' + '"


def ws(s):
    return re.sub(r"\s+", " ", s or "").strip()


PARTICLES = {
    "de",
    "van",
    "von",
    "da",
    "del",
    "der",
    "la",
    "le",
    "du",
    "dos",
    "bueno",
    "jr",
    "jr.",
    "ii",
    "iii",
}


def clean_name(s):
    s = re.sub(r"<[^>]*>.*$", "", s or "")  # footnote links after the name
    s = ws(html.unescape(s)).rstrip("*").strip().rstrip(",").strip()
    return re.sub(r"^By ", "", s)


def split_field(s):
    """The scraper sometimes glued names together without a space:
    'Henry FarrellAbraham L. Newman' (two authors) or 'JessicaGottlieb' (one author).
    Split at a lower-to-upper case joint (not after Mc/Mac); a one-word piece is a given
    name glued to its family name, so it is joined back with a space."""
    pieces = re.split(r"(?<![^a-z]Mc)(?<![^a-z]Mac)(?<=[a-z])(?=[A-Z])", s)
    out, carry = [], ""
    for p in pieces:
        p = (carry + " " + p).strip() if carry else p.strip()
        carry = ""
        if " " not in p:
            carry = p
            continue
        out.append(p)
    if carry:
        out.append(carry)
    return out


def suspect(name):
    """Two people left in one field ('Ruth Simmons George B. Simmons')."""
    words = [
        w for w in name.split() if not re.match(r"^[A-Z]\.$", w) and w.lower() not in PARTICLES
    ]
    return len(words) >= 4


def parse_authors(r):
    names = []
    for i in range(1, 11):
        f = clean_name(r.get(f"author{i}"))
        if f:
            names.extend(split_field(f))
    if any(suspect(n) for n in names):
        return []  # cannot be split reliably: leave the record without authors
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", nargs="+", help="wpo_data.csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", type=int, default=350)
    ap.add_argument("--seed", type=int, default=41)
    a = ap.parse_args()

    recs, seen_abs = {}, set()
    for path in a.raw:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f, skipinitialspace=True):
                raw = r.get("article.abstract") or ""
                if not raw.endswith(MARKER) or "<" in raw or ">" in raw:
                    continue
                ab = ws(html.unescape(raw[: -len(MARKER)]))
                title = ws(html.unescape(re.sub(r"<[^>]*>", "", r.get("article.title") or "")))
                doi = (
                    ws(r.get("article.doi"))
                    .replace("http://dx.doi.org/", "")
                    .replace("https://doi.org/", "")
                )
                if not ab or not doi.startswith("10."):
                    continue
                n = len(ab.split())
                if n < 80 or n > 400:
                    continue
                low = (title + " " + ab).lower()
                if any(w in low for w in EXCLUDE):
                    continue
                if doi in recs or ab in seen_abs:
                    continue
                seen_abs.add(ab)
                m = re.search(r"(\d{4})\s*$", r.get("issue.date.of.publication") or "")
                rec = {"id": doi, "title": title}
                authors = parse_authors(r)
                if authors:
                    rec["authors"] = authors
                if m:
                    rec["year"] = int(m.group(1))
                rec["abstract"] = ab
                rec["doi"] = doi
                rec["source"] = SOURCE
                recs[doi] = rec

    ids = sorted(recs)
    if len(ids) > a.n:
        ids = sorted(random.Random(a.seed).sample(ids, a.n))
    with open(a.out, "w", encoding="utf-8") as f:
        for i in ids:
            f.write(json.dumps(recs[i], ensure_ascii=False) + "\n")
    print(f"candidates {len(recs)}, written {len(ids)} -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
