"""Build the condensed-matter corpus from the iopwsy/arXiv_cond-mat daily listings.

Source: GitHub repository iopwsy/arXiv_cond-mat (commit
45571587d94d0a8e90f68e288c85c26fb599f982), files ``data/YYYY-MM-DD_origin.md``: the
arXiv cond-mat daily listings as the repository saved them (title, arXiv link, authors,
"arXiv:ID Announce Type: ..." and "Abstract: ...").

Selection (see SOURCE.md): entries announced as ``new`` (first versions whose primary
archive is cond-mat); de-duplicated by arXiv id; titles/abstracts naming astronomy,
earth or climate science, or language models dropped; kept only papers on quantum,
electronic, magnetic and topological matter (superconductivity, magnetism, spin, Mott,
Kondo, topology, quantum Hall, Weyl/Dirac, Majorana, ...), which keeps the set apart from
bench/data/fields/materials-science; English abstracts of 80 to 400 words; sorted by id,
then ``random.Random(41).sample(pool, 350)``, written in id order.

Usage: python bench/data/fields/condensed-matter/build.py RAW/*_origin.md --out corpus.jsonl
(standard library only).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

N = 350
SEED = 41
HEAD = re.compile(r"^\[(\d+)\]\. \[\*(.*?)\*\]\(https?://arxiv\.org/abs/([^ )\"]+)")
ANNOUNCE = re.compile(r"^arXiv:(\S+?)(v\d+)? Announce Type: (\S+)")
EXCLUDE = re.compile(
    r"climat|galax|stellar|cosmolog|astro|planet|telescope|solar|atmospher|ocean|glacier|"
    r"earthquake|seismic|seismolog|weather|black hole|dark matter|redshift|supernova|"
    r"geoscien|geophys|meteorolog|earth's (lower |upper )?mantle|"
    r"language model|\bLLMs?\b|ChatGPT|\bGPT",
    re.I,
)
TOPIC = re.compile(
    r"superconduct|magnet|\bspin|\bMott\b|Kondo|correlated electron|topolog|quantum Hall|"
    r"Weyl|Dirac|Majorana|Luttinger|Fermi liquid|heavy fermion",
    re.I,
)
STOP = {
    "the",
    "of",
    "and",
    "in",
    "to",
    "a",
    "we",
    "is",
    "that",
    "for",
    "with",
    "this",
    "on",
    "by",
    "are",
}


def ws(text: str) -> str:
    return " ".join(text.split())


def entries(path: Path):
    """Yield (id, title, authors line, announce type, abstract) for each listing entry."""
    cur = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        m = HEAD.match(line)
        if m:
            if cur:
                yield cur
            cur = {
                "id": m.group(3),
                "title": m.group(2),
                "authors": None,
                "type": None,
                "abs": None,
            }
            continue
        if cur is None or not line:
            continue
        if line.startswith("#"):  # a section heading after the entries: the entry ends
            yield cur
            cur = None
            continue
        a = ANNOUNCE.match(line)
        if a:
            cur["type"] = a.group(3)
        elif line.startswith("Abstract:") and cur["abs"] is None:
            cur["abs"] = [line[len("Abstract:") :]]
        elif cur["abs"] is not None:
            cur["abs"].append(line)
        elif cur["authors"] is None:
            cur["authors"] = line
        else:  # a line that is neither: leave the entry unusable
            cur["type"] = "?"
    if cur:
        yield cur


def english(text: str) -> bool:
    words = re.findall(r"[a-z]+", text.lower())
    return bool(words) and sum(w in STOP for w in words) / len(words) >= 0.12


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    seen, titles, texts, pool = set(), set(), set(), []
    for path in sorted(args.raw, key=lambda p: p.name):
        for e in entries(path):
            if e["type"] != "new" or not e["abs"] or not e["authors"]:
                continue
            pid = re.sub(r"v\d+$", "", e["id"])
            if pid in seen:
                continue
            title, abstract = ws(e["title"]), ws(" ".join(e["abs"]))
            words = len(abstract.split())
            if not (80 <= words <= 400) or not english(abstract):
                continue
            both = title + " " + abstract
            if EXCLUDE.search(both) or not TOPIC.search(both):
                continue
            key_t, key_a = re.sub(r"\W+", " ", title.lower()).strip(), abstract.lower()
            if key_t in titles or key_a in texts:
                continue
            seen.add(pid)
            titles.add(key_t)
            texts.add(key_a)
            m = re.match(r"(\d{2})(\d{2})\.\d+$", pid)
            pool.append(
                {
                    "id": pid,
                    "title": title,
                    "authors": [ws(a) for a in e["authors"].split(",") if a.strip()],
                    "year": 2000 + int(m.group(1)) if m else None,
                    "abstract": abstract,
                    "url": f"https://arxiv.org/abs/{pid}",
                    "source": "arXiv cond-mat (iopwsy/arXiv_cond-mat)",
                }
            )
    pool.sort(key=lambda r: r["id"])
    chosen = sorted(random.Random(SEED).sample(pool, min(N, len(pool))), key=lambda r: r["id"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for r in chosen:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"pool {len(pool)}, written {len(chosen)} to {args.out}")


if __name__ == "__main__":
    main()
