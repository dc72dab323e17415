"""Build the third real-PDF set from a pool of PDFs copied byte for byte from public
repositories (each pool folder's SOURCES.tsv says from where, at which commit).

Each PDF keeps its first ``--pages`` pages, copied with pikepdf (qpdf) into a new file: the
pages' own content, fonts and images, the document information dictionary and the XMP
metadata are kept as they are; the later pages, the outline, the structure tree and the
pages' link annotations go (the set is a test of first pages and early body text, and the
whole files would weigh 100 MB). Then a third of the set, chosen at random with a fixed
seed before anyone looked at the files, is moved to ``heldout/``: it is not looked at until
the end of the work it measures.

    pip install pikepdf==10.17.0
    python bench/data/real_pdfs3/build.py /tmp/pdf_pool/A /tmp/pdf_pool/B /tmp/pdf_pool/C
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 44


def cut_pages(path: Path, dest: Path, pages: int) -> int:
    """``path``'s first ``pages`` pages into ``dest``, as the module doc says; the original's
    page count back. The later sets' scripts cut the same way (../real_pdfs4/build.py)."""
    import pikepdf

    with pikepdf.open(path) as pdf, pikepdf.new() as cut:
        for page in pdf.pages[:pages]:
            if "/Annots" in page.obj:  # links point at later pages, which would come along
                del page.obj["/Annots"]
            cut.pages.append(page)
        if "/Info" in pdf.trailer:
            cut.trailer.Info = cut.copy_foreign(pdf.trailer.Info)
        if "/Metadata" in pdf.Root:  # the XMP packet
            cut.Root.Metadata = cut.copy_foreign(pdf.Root.Metadata)
        cut.save(dest, compress_streams=True)
        return len(pdf.pages)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("pools", type=Path, nargs="+")
    ap.add_argument("--pages", type=int, default=4)
    args = ap.parse_args()
    rows = []
    for pool in args.pools:
        with (pool / "SOURCES.tsv").open(newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                row = {k.replace("licence", "license"): v for k, v in row.items()}
                path = pool / row["file"]
                if path.exists():
                    rows.append((path, row))
    rows.sort(key=lambda r: r[0].name)
    held = set(random.Random(SEED).sample([p.name for p, _ in rows], len(rows) // 3))
    for sub in ("dev", "heldout"):
        (HERE / sub).mkdir(exist_ok=True)
    out_rows = []
    for path, row in rows:
        part = "heldout" if path.name in held else "dev"
        original = hashlib.sha256(path.read_bytes()).hexdigest()
        pages = cut_pages(path, HERE / part / path.name, args.pages)
        out_rows.append({"part": part, **row, "pages": str(pages), "kept_pages":
                         str(min(pages, args.pages)), "sha256_original": original})  # fmt: skip
    with (HERE / "SOURCES.tsv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(out_rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(out_rows)
    print(f"{len(out_rows)} PDFs: {len(out_rows) - len(held)} dev, {len(held)} held out")


if __name__ == "__main__":
    main()
