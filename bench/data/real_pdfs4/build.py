"""Build a real-PDF set that is all held out (the fourth, and the fifth) from a pool of PDFs
copied byte for byte from public GitHub repositories (``git show COMMIT:PATH`` on a snapshot
of each repository); the pool's SOURCES.tsv gives, for every file, the repository, path,
commit, the repository's licence, the publisher/style and the field.

Each PDF keeps its first ``--pages`` pages (3), cut by ``../real_pdfs3/build.py``'s
``cut_pages`` (pikepdf: the pages' own content, fonts and images, the document information
dictionary and the XMP metadata kept as they are; the later pages, the outline, the
structure tree and the pages' link annotations go; streams compressed). Every file goes to
``OUT/heldout/`` (there is no dev part), and ``OUT/SOURCES.tsv`` gets one row per file with
the part, the pool's columns, the page counts and the original's sha256.

To rebuild (from the repository root, with the pools in /tmp):

    source .venv/bin/activate && pip install pikepdf==10.17.0
    python bench/data/real_pdfs4/build.py /tmp/pdf_pool4
    python bench/data/real_pdfs4/build.py /tmp/pdf_pool5 --out bench/data/real_pdfs5
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from bench.data.real_pdfs3.build import cut_pages  # noqa: E402

COLUMNS = ["part", "file", "repo", "path", "commit", "license", "publisher_style", "field",
           "pages", "kept_pages", "sha256_original"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("pool", type=Path, help="a folder of PDFs with their SOURCES.tsv")
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE, help="the set's folder (default: this one)")
    args = ap.parse_args()
    with (args.pool / "SOURCES.tsv").open(newline="") as f:
        rows = sorted(csv.DictReader(f, delimiter="\t"), key=lambda r: r["file"])
    (args.out / "heldout").mkdir(parents=True, exist_ok=True)
    out_rows = []
    for row in rows:
        path = args.pool / row["file"]
        original = hashlib.sha256(path.read_bytes()).hexdigest()
        pages = cut_pages(path, args.out / "heldout" / path.name, args.pages)
        out_rows.append({"part": "heldout", **row, "pages": str(pages),
                         "kept_pages": str(min(pages, args.pages)),
                         "sha256_original": original})  # fmt: skip
    with (args.out / "SOURCES.tsv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, delimiter="\t")
        writer.writeheader()
        writer.writerows(out_rows)
    print(f"{len(out_rows)} PDFs cut to {args.pages} pages into {args.out / 'heldout'}")


if __name__ == "__main__":
    main()
