"""Build the psychology corpus from the SYNERGY data set (asreview/synergy-dataset).

Source: SYNERGY, an open data set of systematic-review screening records, each record an
OpenAlex Work object (CC0). We use the Oud_2018 set (all 952 records screened for the
systematic review "Specialized psychotherapies for adults with borderline personality
disorder", Oud et al. 2018, doi:10.1177/0004867418791257), file Oud_2018/works_1.zip of
branch releases/v1 of github.com/asreview/synergy-dataset (see SOURCE.md for the commit).

Each RAW_FILE is such a works_*.zip (containing works_*.json lists of OpenAlex works) or an
extracted works_*.json file.

Selection: OpenAlex abstract (rebuilt from abstract_inverted_index, whitespace collapsed)
of 80-400 words; a title; English; no book reviews, errata, poster lists or replies
(regex NOT_RESEARCH); the highest-scoring level-0 OpenAlex concept is
"Psychology"; no pharmacological / molecular-biology wording (regex CLINICAL below); none
of the reserved words; duplicates by OpenAlex id, DOI and normalised title removed. If more
than TARGET records remain they are sorted by id and sampled with random.Random(41).sample;
output is sorted by id.

Usage: python bench/data/fields/psychology/build.py RAW_FILE... --out corpus.jsonl
Standard library only.
"""

import argparse
import json
import random
import re
import sys
import zipfile

TARGET = 350
SEED = 41
RESERVED = re.compile(
    r"climate|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|ocean|glacier|"
    r"earthquake|seismic|weather|black hole|dark matter|redshift|supernova",
    re.I,
)
CLINICAL = re.compile(
    r"placebo|pharmaco|medication|\bmg\b|\bdrugs?\b|antipsychotic|antidepressant|"
    r"anticonvulsant|mood stabili[sz]er|olanzapine|lamotrigine|topiramate|aripiprazole|"
    r"fluoxetine|naltrexone|oxytocin|genotype|polymorphism|\bgenes?\b|plasma|serum",
    re.I,
)
NOT_RESEARCH = re.compile(
    r"^(reviews the (book|film|video)|reports an error|presents (selected|an obituary|a list)|"
    r"comments on|this is a reply|a reply to)|^(erratum|corrigendum|book reviews?\b|correction)",
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
    "were",
    "was",
}


def ws(s):
    return " ".join(str(s or "").split())


def english(text):
    words = re.findall(r"[A-Za-z]+", text.lower())
    if not words:
        return False
    return sum(w in STOP for w in words) / len(words) >= 0.12


def works(paths):
    for path in paths:
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                for name in sorted(z.namelist()):
                    if name.endswith(".json"):
                        yield from json.loads(z.read(name).decode("utf-8"))
        else:
            with open(path, encoding="utf-8") as fh:
                yield from json.load(fh)


def abstract_of(w):
    inv = w.get("abstract_inverted_index")
    if not inv:
        return ""
    pos = sorted((p, t) for t, ps in inv.items() for p in ps)
    return ws(" ".join(t for _, t in pos))


def keep(w):
    wid = ws(w.get("id")).rsplit("/", 1)[-1]
    title = ws(w.get("title") or w.get("display_name"))
    abstract = abstract_of(w)
    if not wid or not title or not (80 <= len(abstract.split()) <= 400):
        return None
    lvl0 = [c for c in (w.get("concepts") or []) if c.get("level") == 0]
    if not lvl0 or max(lvl0, key=lambda c: c.get("score", 0)).get("display_name") != "Psychology":
        return None
    if RESERVED.search(title) or RESERVED.search(abstract):
        return None
    if NOT_RESEARCH.search(abstract) or NOT_RESEARCH.search(title):
        return None
    if CLINICAL.search(title) or CLINICAL.search(abstract):
        return None
    if not english(abstract):
        return None
    rec = {
        "id": wid,
        "title": title,
        "authors": [
            ws(a["author"].get("display_name"))
            for a in (w.get("authorships") or [])
            if a.get("author") and ws(a["author"].get("display_name"))
        ],
    }
    if w.get("publication_year"):
        rec["year"] = int(w["publication_year"])
    rec["abstract"] = abstract
    doi = ws(w.get("doi"))
    if doi:
        rec["doi"] = re.sub(r"^https?://(dx\.)?doi\.org/", "", doi)
    rec["url"] = doi if doi else ws(w.get("id"))
    rec["source"] = "SYNERGY Oud_2018 (OpenAlex)"
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    best = {}
    for w in works(a.raw):
        rec = keep(w)
        if rec is None:
            continue
        key = json.dumps(rec, sort_keys=True, ensure_ascii=False)
        old = best.get(rec["id"])
        if old is None or key < old[0]:
            best[rec["id"]] = (key, rec)
    uniq, seen = [], set()
    for k in sorted(best):
        rec = best[k][1]
        keys = {"t:" + re.sub(r"[^a-z0-9]", "", rec["title"].lower())}
        if rec.get("doi"):
            keys.add("d:" + rec["doi"].lower())
        if keys & seen:
            continue
        seen |= keys
        uniq.append(rec)
    if len(uniq) > TARGET:
        uniq = sorted(random.Random(SEED).sample(uniq, TARGET), key=lambda x: x["id"])
    with open(a.out, "w", encoding="utf-8") as fh:
        for rec in uniq:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"{len(uniq)} records -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
