"""Build the fifth real-PDF set (all held out) from the pool in /tmp/pdf_pool5.

The pool holds 30 research-paper PDFs copied byte for byte from public GitHub repositories
(``git show COMMIT:PATH`` on a snapshot of each repository); its SOURCES.tsv gives, for every
file, the repository, path, commit, the repository's licence, the publisher/style and the field.

Each PDF keeps its first ``--pages`` pages (3), copied the way ``../real_pdfs3/build.py`` does
it, with pikepdf (qpdf): the pages' own content, fonts and images, the document information
dictionary and the XMP metadata are kept as they are; the later pages, the outline, the
structure tree and the pages' link annotations (/Annots) go; streams are compressed. Every
file goes to ``heldout/`` (there is no dev part), and ``SOURCES.tsv`` next to this script
gets one row per file with the part, the pool's columns, the page counts and the original's
sha256.

To rebuild (from the repository root, with the pool in /tmp/pdf_pool5):

    source .venv/bin/activate && pip install pikepdf==10.17.0
    python bench/data/real_pdfs5/build.py /tmp/pdf_pool5

(Give the pool folder explicitly, as above.)
"""

from __future__ import annotations

import argparse
import csv
import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE if HERE.name == "real_pdfs5" else Path("/work/main/bench/data/real_pdfs5")
COLUMNS = ["part", "file", "repo", "path", "commit", "license", "publisher_style", "field",
           "pages", "kept_pages", "sha256_original"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("pool", type=Path, nargs="?", default=Path("/tmp/pdf_pool5"))
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    import pikepdf

    with (args.pool / "SOURCES.tsv").open(newline="") as f:
        rows = sorted(csv.DictReader(f, delimiter="\t"), key=lambda r: r["file"])
    (args.out / "heldout").mkdir(parents=True, exist_ok=True)
    out_rows = []
    for row in rows:
        path = args.pool / row["file"]
        original = hashlib.sha256(path.read_bytes()).hexdigest()
        with pikepdf.open(path) as pdf, pikepdf.new() as cut:
            pages = len(pdf.pages)
            for page in pdf.pages[: args.pages]:
                if "/Annots" in page.obj:  # links point at later pages, which would come along
                    del page.obj["/Annots"]
                cut.pages.append(page)
            if "/Info" in pdf.trailer:
                cut.trailer.Info = cut.copy_foreign(pdf.trailer.Info)
            if "/Metadata" in pdf.Root:  # the XMP packet
                cut.Root.Metadata = cut.copy_foreign(pdf.Root.Metadata)
            cut.save(args.out / "heldout" / path.name, compress_streams=True)
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
