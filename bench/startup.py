"""Where `paperchat serve` spends its start-up, and each fix against what it replaced, side
by side in one run (alternating, fresh processes), so the ratios survive a noisy machine.

    python bench/startup.py --data-dir /tmp/paperchat-scale/embedded-100000

1. ``import gradio`` as gradio does it, and through ``ui.web.gradio_import`` (which skips
   gradio's rewriting of its own type stubs), each in a fresh interpreter.
2. The catalogue of ``--data-dir``'s lexical index: one JSON line per paper, each made into
   a ``PaperRow`` (as before), against the columns of ``catalogue.json`` (now).
3. Opening the BM25 postings (tantivy, memory-mapped; until issue #17, bm25s read whole
   against memory-mapped: bench/results/startup_*.json).
4. ``paperchat serve`` until /healthz answers, with the UI and without (``--no-ui``).

Prints and saves JSON (bench/results/startup.json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "scale"))

from run import _env, _time_to_ready  # noqa: E402  (bench/scale/run.py)

GRADIO = {
    "plain": "import time; t = time.perf_counter(); import gradio; print(time.perf_counter() - t)",
    "ui.web.gradio_import": "import time; t = time.perf_counter(); import ui.web.gradio_import; "
    "print(time.perf_counter() - t)",
}

LOAD = """
import json, sys, time
from pathlib import Path
from rag.index import journal
from rag.index.postings import Postings
from rag.records import PaperRow
index, lines = Path(sys.argv[1]), Path(sys.argv[2])
out = {}
t = time.perf_counter()
with lines.open(encoding="utf-8") as fh:
    rows = [PaperRow.from_mapping(json.loads(line)) for line in fh]
out["catalogue_jsonl_rows_s"] = time.perf_counter() - t
t = time.perf_counter()
catalogue, _generation, _stamp = journal.read(index)
out["catalogue_columns_s"] = time.perf_counter() - t
assert [catalogue[r.id] for r in rows[:1000]] == rows[:1000]
t = time.perf_counter()
Postings(index / "postings")
out["postings_open_s"] = time.perf_counter() - t
out["papers"] = len(catalogue)
print(json.dumps(out))
"""


def gradio_import(repeat: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {k: [] for k in GRADIO}
    for _ in range(repeat):
        for name, code in GRADIO.items():  # alternating: drift hits both alike
            done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                                  capture_output=True, text=True)  # fmt: skip
            times[name].append(float(done.stdout.split()[-1]))
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"median_s": {k: round(v, 3) for k, v in med.items()}, "runs_s": times,
            "ratio": round(med["plain"] / med["ui.web.gradio_import"], 2)}  # fmt: skip


def index_load(data_dir: Path, repeat: int) -> dict[str, Any]:
    (index,) = {p.parent for p in (data_dir / "lexical").rglob("catalogue.json")}
    from rag.index import journal

    catalogue, _generation, _stamp = journal.read(index)
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "papers.jsonl"  # the catalogue as it was stored before
        with lines.open("w", encoding="utf-8") as fh:
            for i in range(len(catalogue)):
                fh.write(json.dumps(catalogue.row(i).to_json(), ensure_ascii=False) + "\n")
        runs = []
        for _ in range(repeat):
            done = subprocess.run([sys.executable, "-c", LOAD, str(index), str(lines)],
                                  cwd=ROOT, check=True, capture_output=True, text=True)  # fmt: skip
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = [k for k in runs[0] if k.endswith("_s")]
    med = {k: statistics.median([r[k] for r in runs]) for k in keys}
    ratio = med["catalogue_jsonl_rows_s"] / med["catalogue_columns_s"]
    return {"papers": runs[0]["papers"], "median_s": {k: round(v, 6) for k, v in med.items()},
            "catalogue_ratio": round(ratio, 1)}  # fmt: skip


def serve(data_dir: Path, repeat: int) -> dict[str, Any]:
    env = _env(data_dir, None)
    out: dict[str, list[float]] = {"ui": [], "api_only": []}
    for _ in range(repeat):
        for key, flags in (("ui", []), ("api_only", ["--no-ui"])):
            ready, _rss = _time_to_ready(env, flags)
            if ready is None:
                raise RuntimeError(f"paperchat serve {' '.join(flags)} did not become ready")
            out[key].append(ready)
    return {"median_s": {k: round(statistics.median(v), 2) for k, v in out.items()},
            "runs_s": out}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data-dir",
        type=Path,
        required=True,
        help="a data dir with an index (as bench/scale/run.py --keep leaves)",
    )
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/startup.json")
    args = ap.parse_args()
    result = {
        "data_dir": str(args.data_dir),
        "cpu_count": os.cpu_count(),
        "gradio_import": gradio_import(args.repeat),
        "index_load": index_load(args.data_dir, args.repeat),
        "serve_ready": serve(args.data_dir, args.repeat),
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    print(json.dumps(result, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
