"""PDF parsing speed of this tree beside another checkout's, side by side in one run.

    git worktree add /tmp/base COMMIT
    python bench/parse_speed.py --base /tmp/base [--rounds 3] [--out FILE.json]

Each round parses every real PDF of the repository's sets (tests/data/real_pdfs*,
bench/data/real_pdfs3 and real_pdfs4, full text) once with the base checkout's reader and
once with this tree's, each in a fresh process, alternating, so that a noisy machine slows
both alike; the ratio of the medians is what to read. Saves JSON (bench/results/parse_speed.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = ("tests/data/real_pdfs", "tests/data/real_pdfs_heldout", "bench/data/real_pdfs3/dev",
        "bench/data/real_pdfs3/heldout", "bench/data/real_pdfs4/heldout")  # fmt: skip
_ONE = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
from pathlib import Path
import pypdfium2 as pdfium
from ingest.parse.dispatch import parse_file
files = [Path(f) for f in sys.argv[2:]]
pages = sum(len(pdfium.PdfDocument(str(f))) for f in files)
start = time.perf_counter()
for f in files:
    list(parse_file(f))
print(json.dumps({"pages": pages, "seconds": time.perf_counter() - start}))
"""


def _run(tree: Path, files: list[str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _ONE, str(tree), *files], check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="another checkout (worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "parse_speed.json")
    args = parser.parse_args()
    files = sorted(str(p) for s in SETS for p in (ROOT / s).glob("*.pdf"))
    runs: dict[str, list[float]] = {"base": [], "this": []}
    pages = 0
    for _ in range(args.rounds):
        for name, tree in (("base", args.base), ("this", ROOT)):
            got = _run(tree, files)
            pages = int(got["pages"])
            runs[name].append(pages / got["seconds"])
            print(f"{name:5} {runs[name][-1]:6.1f} pages/s")
    base, this = statistics.median(runs["base"]), statistics.median(runs["this"])
    summary = {"pdfs": len(files), "pages": pages, "rounds": args.rounds,
               "base_pages_per_s": round(base, 1), "this_pages_per_s": round(this, 1),
               "ratio": round(this / base, 3)}  # fmt: skip
    print(json.dumps(summary))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
