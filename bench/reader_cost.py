"""What the reader costs at question time: extractive answer latency with and without it,
side by side in one run, and the resident memory it adds.

The library's own written questions are asked through the Engine, alternating question by
question between the hand ranker alone (``params.reader`` empty) and the reader with its
fitted weights, so both see the same machine load; a few questions warm both up first, and
the reader forgets what it read before the timed pass. Resident memory is read before the
reader is first used and after the timed pass.

    python bench/reader_cost.py --domain pubmedqa --pubmedqa ../shared/bench/pubmedqa

Saves bench/results/reader_cost.json.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import open_domain  # noqa: E402
from bench.domains import NAMES, domains  # noqa: E402
from rag.answer import params, reader  # noqa: E402
from rag.answer.events import collect  # noqa: E402


def rss_mb() -> float:
    """The process's resident memory now (MB), from /proc (ru_maxrss is a peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--domain", default="pubmedqa", choices=NAMES)
    ap.add_argument("--pubmedqa", type=Path)
    ap.add_argument("--scifact", type=Path)
    ap.add_argument("--limit", type=int, default=150, help="questions asked (each twice)")
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/reader_cost.json")
    ap.add_argument("--top", type=int, nargs="*", default=[],
                    help="also answer reading this many sentences (params.reader 'top'; the "
                    "gate reading as many as shipped), alternating with the others")  # fmt: skip
    args = ap.parse_args()
    domain = domains([args.domain], pubmedqa=args.pubmedqa, scifact=args.scifact)[args.domain]
    app = open_domain(domain, args.index_dir)
    shipped = params.load()
    if not shipped.reader or reader.packaged() is None:
        raise SystemExit("no reader shipped (rag/answer/reader/model.onnx) or no weights for it")
    without = replace(shipped, reader={})
    questions = [
        t["question"]
        for item in domain.items
        for t in (item["turns"][:1] if item["type"] == "conversation" else [item])
    ][: args.limit]
    params.use(without)
    for q in questions[:5]:  # the embedder and the index warm up, reader not loaded
        collect(app.engine.answer(q))
    before = rss_mb()
    params.use(shipped)
    for q in questions[:5]:  # the reader loads and warms up
        collect(app.engine.answer(q))
    loaded = reader.packaged()
    assert loaded is not None
    loaded._seen.clear()  # nothing read before is remembered: each pair is read when timed
    modes = [("ranker", without), ("reader", shipped)]
    gate_top = shipped.reader.get("gate_top", shipped.reader.get("top", 16))
    modes += [(f"reader_top{n}", replace(shipped, reader={**shipped.reader, "top": float(n),
                                                          "gate_top": gate_top}))
              for n in args.top]  # fmt: skip
    seconds: dict[str, list[float]] = {name: [] for name, _ in modes}
    for q in questions:
        for name, p in modes:
            params.use(p)
            loaded._seen.clear()  # each mode reads its pairs anew (an answer's own reads kept)
            clock = time.perf_counter()
            collect(app.engine.answer(q))
            seconds[name].append(time.perf_counter() - clock)
    after = rss_mb()
    params.use(shipped)
    papers = len(app.engine.retriever.index)
    out = {
        "domain": args.domain,
        "papers": papers,
        "questions": len(questions),
        "seconds": {
            name: {
                "p50": round(float(np.percentile(v, 50)), 4),
                "p95": round(float(np.percentile(v, 95)), 4),
            }
            for name, v in seconds.items()
        },
        "rss_mb": {
            "before_reader": round(before, 1),
            "after": round(after, 1),
            "added": round(after - before, 1),
        },
        "note": "each question asked once per mode, alternating; the reader's remembered "
        "pairs cleared before timing",
    }
    print(json.dumps(out, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
