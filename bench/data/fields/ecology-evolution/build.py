"""Build the ecology-evolution corpus from Web of Science exports.

Source: GitHub GabrielNakamura/Decolonizing_expertise (commit
8597713f42f2cd5c6ca1e1929458241abc07f060), files data/raw/EU_top1000.txt and
data/raw/USA_CAN_top1000.txt: Clarivate Web of Science "full record" plain-text
exports (tags PT/AU/AF/TI/SO/LA/DT/AB/PY/DI/WC/SC/UT) of the most-cited ecology
papers by authors in Europe and in the USA/Canada, committed for the paper
"Decolonizing expertise" (citation bias in ecological research).

Usage (standard library only):
    python bench/data/fields/ecology-evolution/build.py \
        /tmp/fields_raw/ecology-evolution/EU_top1000.txt \
        /tmp/fields_raw/ecology-evolution/USA_CAN_top1000.txt \
        --out bench/data/fields/ecology-evolution/corpus.jsonl

Selection: records of document type Article/Review, language English, with an
abstract of 80-400 words, whose WoS categories (WC) include an ecology /
evolution / conservation / behaviour / zoology category and none of the
earth/space-science categories nor "Biochemistry & Molecular Biology"; records
whose title or abstract mention any excluded term (climate, galax, stellar, ...)
are dropped. Duplicates (same UT, or same normalised title) are dropped.
Candidates are sorted by UT and 350 are drawn with random.Random(41).sample;
the output is written sorted by id.
"""

import argparse
import json
import random
import re

N = 350
SEED = 41
SOURCE = "Web of Science export (GabrielNakamura/Decolonizing_expertise)"

KEEP_WC = (
    "ecology",
    "evolutionary biology",
    "biodiversity conservation",
    "zoology",
    "behavioral sciences",
    "ornithology",
    "entomology",
    "plant sciences",
    "biology",
    "marine & freshwater biology",
    "genetics & heredity",
    "forestry",
    "mycology",
)
DROP_WC = (
    "astronomy",
    "astrophysics",
    "geoscience",
    "meteorology",
    "atmospheric",
    "oceanography",
    "geography, physical",
    "geochemistry",
    "geology",
    "remote sensing",
    "water resources",
    "limnology",
    "physics",
    "biochemistry & molecular biology",
)
DROP_TERMS = re.compile(
    r"climate|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|"
    r"ocean|glacier|earthquake|seismic|weather|black hole|dark matter|"
    r"redshift|supernova",
    re.I,
)
LIST_TAGS = {"AU", "AF"}


def ws(s):
    return re.sub(r"\s+", " ", s).strip()


def parse_wos(path):
    """Yield dicts tag -> str (or list for AU/AF) from a WoS tagged file."""
    rec, tag = {}, None
    with open(path, encoding="utf-8-sig") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if line.startswith("ER"):
                if rec:
                    yield rec
                rec, tag = {}, None
                continue
            if not line.strip():
                continue
            if line.startswith("   ") and tag:
                val = line[3:]
                if tag in LIST_TAGS:
                    rec[tag].append(val.strip())
                else:
                    rec[tag] += " " + val
                continue
            tag, val = line[:2], line[3:]
            if tag in ("FN", "VR", "EF"):
                tag = None
                continue
            if tag in LIST_TAGS:
                rec.setdefault(tag, []).append(val.strip())
            elif tag in rec:
                rec[tag] += " " + val
            else:
                rec[tag] = val


def author_name(a):
    if "," in a:
        fam, giv = a.split(",", 1)
        return ws(giv + " " + fam)
    return ws(a)


def wc_ok(wc):
    cats = [c.strip().lower() for c in wc.split(";") if c.strip()]
    if any(any(d in c for d in DROP_WC) for c in cats):
        return False
    return any(c in KEEP_WC for c in cats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    cands, seen_ids, seen_titles = [], set(), set()
    for path in args.raw:
        for r in parse_wos(path):
            uid = ws(r.get("UT", ""))
            title = ws(r.get("TI", ""))
            abstract = ws(r.get("AB", ""))
            if not uid or not abstract or not title:
                continue
            if ws(r.get("LA", "")).lower() != "english":
                continue
            dt = ws(r.get("DT", "")).lower()
            if "article" not in dt and "review" not in dt:
                continue
            if not wc_ok(ws(r.get("WC", ""))):
                continue
            if not (80 <= len(abstract.split()) <= 400):
                continue
            if DROP_TERMS.search(title) or DROP_TERMS.search(abstract):
                continue
            tkey = re.sub(r"[^a-z0-9]", "", title.lower())
            if uid in seen_ids or tkey in seen_titles:
                continue
            seen_ids.add(uid)
            seen_titles.add(tkey)
            authors = [author_name(a) for a in (r.get("AF") or r.get("AU") or [])]
            rec = {"id": uid, "title": title, "authors": authors}
            py = ws(r.get("PY", ""))
            if py.isdigit():
                rec["year"] = int(py)
            rec["abstract"] = abstract
            doi = ws(r.get("DI", ""))
            if doi:
                rec["doi"] = doi
            rec["source"] = SOURCE
            cands.append(rec)

    cands.sort(key=lambda x: x["id"])
    chosen = cands if len(cands) <= N else random.Random(SEED).sample(cands, N)
    chosen.sort(key=lambda x: x["id"])
    with open(args.out, "w", encoding="utf-8") as out:
        for rec in chosen:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"{len(cands)} candidates, wrote {len(chosen)} records to {args.out}")


if __name__ == "__main__":
    main()
