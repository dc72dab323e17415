"""PDF extraction accuracy, speed and memory: real PDFs and generated ones, each on its own.

    python bench/pdf_ingest.py [--real tests/data/real_pdfs] \
        [--second tests/data/real_pdfs_heldout] [--n 32] [--body-pages 7] [--folder 100]

* **real**: the public PDFs of tests/data/real_pdfs against their hand-written truth
  (bench/pdf_truth.py: title, first author, all authors, year, DOI, arXiv id, the
  abstract's first and last 8 words, no soft hyphen or ligature left), beside the figures
  of the reader before issue #24 (bench/results/pdf_real_before.json); and the same for a
  second real set, found after the reader was written (``--second``);
* **generated**: ``n`` PDFs in four layouts made from the sample abstracts
  (tests/pdfgen.py): how many titles, abstracts, author lists, years, DOIs and arXiv ids
  come out exactly as printed (the no-heading layout counts as right when the first
  paragraph was taken and a notice says so);
* **speed**: parsing in pages/s (full text, the default, and ``--abstract-only``), and
  ``paperchat ingest`` end to end (parse, chunk, embed with the offline MiniLM, store) of
  the real set, with the body and without; the longest real paper (46 pages) alone;
* **memory**: a folder of ``--folder`` generated PDFs ingested in this process, its
  resident memory read after every file (stored file by file): peak and growth, plotted
  in bench/results/pdf_ingest_rss.png.

Results are printed and saved as JSON in bench/results/pdf_ingest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pdf_truth import REAL_PDFS, run, summary  # noqa: E402
from ingest.parse.dispatch import parse_file  # noqa: E402
from ingest.pipeline import Progress  # noqa: E402
from rag.records import Notice, Paper  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from tests.pdfgen import make_corpus  # noqa: E402
from ui.app import App  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def _pages(paths: list[Path]) -> int:
    import pypdfium2 as pdfium

    total = 0
    for path in paths:
        pdf = pdfium.PdfDocument(str(path))
        total += len(pdf)
        pdf.close()
    return total


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _parse_speed(paths: list[Path], *, abstract_only: bool) -> float:
    start = time.perf_counter()
    for path in paths:
        list(parse_file(path, abstract_only=abstract_only))
    return time.perf_counter() - start


def _ingest(paths: list[Path], data: Path, *, abstract_only: bool = False) -> dict[str, Any]:
    app = App.from_settings(load_settings(data_dir=data))
    start = time.perf_counter()
    report = app.ingester.ingest(paths, abstract_only=abstract_only)
    seconds = time.perf_counter() - start
    return {
        "seconds": round(seconds, 2),
        "chunks": report.chunks_written,
        "papers": report.added + report.updated + report.unchanged,
        "phase_seconds": {k: round(v, 2) for k, v in report.seconds.items()},
    }


def generated_accuracy(folder: Path, n: int, body_pages: int) -> dict[str, Any]:
    made = make_corpus(folder, n, body_pages=body_pages)
    fields = ("title", "abstract", "authors", "year", "doi", "arxiv")
    right = dict.fromkeys(fields, 0)
    by_layout: dict[str, dict[str, int]] = {}
    misses: list[dict[str, str]] = []
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
        layout = by_layout.setdefault(m.layout, {"n": 0} | dict.fromkeys(fields, 0))
        layout["n"] += 1
        for f, ok in got.items():
            right[f] += ok
            layout[f] += ok
            if not ok:
                misses.append({"file": m.path.name, "field": f})
    return {
        "pdfs": n,
        "pages": sum(m.pages for m in made),
        "exact": {f: f"{right[f]}/{n}" for f in fields},
        "by_layout": by_layout,
        "misses": misses,
    }


def memory(folder: Path, data: Path, n: int) -> dict[str, Any]:
    """Ingest ``n`` generated PDFs, reading RSS after every stored file."""
    make_corpus(folder, n, body_pages=7)
    paths = sorted(folder.glob("*.pdf"))
    app = App.from_settings(load_settings(data_dir=data))
    app.engine.warm_up()
    samples: list[tuple[int, float]] = [(0, _rss_mb())]

    def on_progress(p: Progress) -> None:
        samples.append((p.papers_seen, _rss_mb()))

    start = time.perf_counter()
    app.ingester.ingest(paths, on_progress=on_progress)
    seconds = time.perf_counter() - start
    tenth = max(1, len(samples) // 10)
    early = max(rss for _, rss in samples[1 : tenth + 1])
    late = max(rss for _, rss in samples[-tenth:])
    _plot(samples)
    return {
        "pdfs": n,
        "pages": _pages(paths),
        "progress_reports": len(samples) - 1,
        "seconds": round(seconds, 1),
        "rss_start_mb": round(samples[0][1], 1),
        "rss_peak_mb": round(max(rss for _, rss in samples), 1),
        "rss_first_tenth_mb": round(early, 1),
        "rss_last_tenth_mb": round(late, 1),
        "samples": [(k, round(v, 1)) for k, v in samples],
    }


def _plot(samples: list[tuple[int, float]]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the [bench] extra: the JSON has the figures anyway
        return
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot([k for k, _ in samples], [v for _, v in samples], marker=".")
    ax.set_xlabel("PDFs ingested")
    ax.set_ylabel("resident memory (MB)")
    ax.set_title("paperchat ingest of a folder of PDFs (full text)")
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(RESULTS / "pdf_ingest_rss.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=Path, default=REAL_PDFS, help="folder with truth.jsonl")
    parser.add_argument(
        "--second",
        type=Path,
        default=REAL_PDFS.parent / "real_pdfs_heldout",
        help="a second real set with its truth.jsonl",
    )
    parser.add_argument("--n", type=int, default=32, help="generated PDFs (default 32)")
    parser.add_argument("--body-pages", type=int, default=7, help="pages after page 1")
    parser.add_argument("--folder", type=int, default=100, help="PDFs for the memory run")
    parser.add_argument("--out", type=Path, default=RESULTS / "pdf_ingest.json")
    args = parser.parse_args()
    real = sorted(args.real.glob("*.pdf"))
    real_pages = _pages(real)
    before = json.loads((RESULTS / "pdf_real_before.json").read_text())
    result: dict[str, Any] = {}
    for key, folder, then in (
        ("real", args.real, before["summary"]),
        ("second", args.second, before.get("heldout")),
    ):
        results = run(folder)
        result[key] = {
            "pdfs": len(results),
            "pages": _pages(sorted(folder.glob("*.pdf"))),
            "fields": summary(results),
            "before": then,
            "misses": [
                {"file": r.file, "field": f} for r in results for f, ok in r.right.items() if not ok
            ],
        }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generated = generated_accuracy(root / "generated", args.n, args.body_pages)
        made = sorted((root / "generated").glob("*.pdf"))
        result["generated"] = generated
        full_s = _parse_speed(real, abstract_only=False)
        head_s = _parse_speed(real, abstract_only=True)
        gen_s = _parse_speed(made, abstract_only=False)
        result["speed"] = {
            "real_parse_pages_per_s": round(real_pages / full_s, 1),
            "real_parse_abstract_only_pages_per_s": round(real_pages / head_s, 1),
            "generated_parse_pages_per_s": round(generated["pages"] / gen_s, 1),
            "real_ingest_full_text": _ingest(real, root / "full"),
            "real_ingest_abstract_only": _ingest(real, root / "head", abstract_only=True),
        }
        for key in ("real_ingest_full_text", "real_ingest_abstract_only"):
            result["speed"][key]["pages_per_s"] = round(
                real_pages / result["speed"][key]["seconds"], 2
            )
        longest = max(real, key=lambda p: _pages([p]))
        result["speed"]["longest_paper"] = {
            "file": longest.name,
            "pages": _pages([longest]),
            **_ingest([longest], root / "longest"),
        }
        result["memory"] = memory(root / "folder", root / "memory", args.folder)
    result["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    printable = {k: v for k, v in result.items() if k != "memory"}
    printable["memory"] = {k: v for k, v in result["memory"].items() if k != "samples"}
    print(json.dumps(printable, indent=2), file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"saved {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
