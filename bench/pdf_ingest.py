"""PDF extraction accuracy and speed on generated papers (tests/pdfgen.py).

    python bench/pdf_ingest.py [--n 32] [--body-pages 7]

Makes ``n`` PDFs in four layouts (one column with an "Abstract" heading, "Abstract." inline,
two columns, no "Abstract" at all) from the sample abstracts, then:

* accuracy: how many titles, abstracts, author lists, years, DOIs and arXiv ids come out
  exactly as printed (the no-heading layout has no abstract to find: its "abstract" counts
  as right when the opening text was taken and a notice says so);
* parse speed: PDF pages per second through ``parse_file`` (files of 1 + body-pages pages;
  only the first pages are read, so this is per page of the files, not per page read);
* ingest speed: ``paperchat ingest`` of the folder end to end (parse, chunk, embed with the
  offline MiniLM, store) in pages/s and papers/s, and the same with ``--full-text`` (every
  page read, the body embedded as more chunks).

Results are printed and saved as JSON in bench/results/pdf_ingest.json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingest.parse.dispatch import parse_file  # noqa: E402
from rag.records import Notice, Paper  # noqa: E402
from tests.pdfgen import make_corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--n", type=int, default=32, help="PDFs to make (default 32: one per sample abstract)"
    )
    parser.add_argument("--body-pages", type=int, default=7, help="pages after page 1")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "pdf_ingest.json")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        made = make_corpus(folder, args.n, body_pages=args.body_pages)
        pages = sum(m.pages for m in made)
        fields = ("title", "abstract", "authors", "year", "doi", "arxiv")
        right = {f: 0 for f in fields}
        by_layout: dict[str, dict[str, int]] = {}
        misses: list[dict[str, str]] = []
        start = time.perf_counter()
        for m in made:
            items = list(parse_file(m.path))
            paper = next(i for i in items if isinstance(i, Paper))
            noted = any(isinstance(i, Notice) and "no 'Abstract'" in i.message for i in items)
            got = {
                "title": paper.title == m.title,
                "abstract": (noted and bool(paper.abstract))
                if not m.abstract
                else paper.abstract == m.abstract and not noted,
                "authors": paper.authors == m.authors,
                "year": paper.year == m.year,
                "doi": paper.doi == m.doi,
                "arxiv": paper.extra.get("arxiv_id", "") == m.arxiv,
            }
            layout = by_layout.setdefault(m.layout, {"n": 0} | {f: 0 for f in fields})
            layout["n"] += 1
            for f, ok in got.items():
                right[f] += ok
                layout[f] += ok
                if not ok:
                    misses.append({"file": m.path.name, "field": f})
        parse_s = time.perf_counter() - start

        from ui.cli.main import main as cli

        data = Path(tmp) / "data"
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = cli(["ingest", str(folder), "--data-dir", str(data), "--json"])
        ingest_s = time.perf_counter() - start
        report = json.loads(out.getvalue())
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            cli(["ingest", str(folder), "--data-dir", str(Path(tmp) / "full"), "--full-text",
                 "--json"])  # fmt: skip
        full_s = time.perf_counter() - start
        full = json.loads(out.getvalue())

    result = {
        "pdfs": args.n,
        "pages": pages,
        "exact": {f: f"{right[f]}/{args.n}" for f in fields},
        "by_layout": by_layout,
        "misses": misses,
        "parse_seconds": round(parse_s, 3),
        "parse_pages_per_s": round(pages / parse_s, 1),
        "parse_papers_per_s": round(args.n / parse_s, 1),
        "ingest_exit_code": code,
        "ingest_papers_stored": report["added"] + report["unchanged"] + report["updated"],
        "ingest_phase_seconds": report["seconds"],
        "ingest_seconds": round(ingest_s, 3),
        "ingest_pages_per_s": round(pages / ingest_s, 1),
        "ingest_papers_per_s": round(args.n / ingest_s, 2),
        "full_text_seconds": round(full_s, 3),
        "full_text_chunks": full["chunks_written"],
        "full_text_pages_per_s": round(pages / full_s, 1),
        "full_text_phase_seconds": full["seconds"],
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    print(json.dumps(result, indent=2), file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"saved {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
