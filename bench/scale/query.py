"""One query process of the scale benchmark: open an index as `paperchat` would, run the
queries in every mode, report latency percentiles, index load time and peak memory.

Run by bench/scale/run.py in a process of its own, so its peak RSS is a searcher's, not
the builder's. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rag.index.connect import open_store  # noqa: E402
from rag.index.embed import make_embedder  # noqa: E402
from rag.retrieve import MODES, Retriever  # noqa: E402
from rag.settings import load_settings  # noqa: E402


def _queries(path: Path, n: int) -> list[str]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                out.append(rec.get("text") or rec.get("question"))
            if len(out) >= n:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("-k", type=int, default=10)
    args = ap.parse_args()
    settings = load_settings(data_dir=args.data_dir)  # Chroma server from the environment
    start = time.perf_counter()
    store = open_store(settings)
    embedder = make_embedder(settings)
    retriever = Retriever.from_settings(settings, store, embedder)
    index = retriever.index  # load (or rebuild) the lexical index and the catalogue
    load_s = time.perf_counter() - start
    embedder.embed_query("warm up the embedder")
    queries = _queries(args.queries, args.n)
    out: dict[str, object] = {
        "papers": len(index),
        "chunks": index.n_chunks,
        "index_load_s": round(load_s, 3),
        "queries": len(queries),
    }
    for mode in MODES:
        t = time.perf_counter()
        retriever.search(queries[0], k=args.k, mode=mode)  # warm (the first dense query
        first_ms = (time.perf_counter() - t) * 1000  # makes Chroma load its HNSW index)
        times = []
        for q in queries:
            t = time.perf_counter()
            retriever.search(q, k=args.k, mode=mode)
            times.append(time.perf_counter() - t)
        ms = np.array(times) * 1000
        out[mode] = {"p50_ms": round(float(np.percentile(ms, 50)), 2),
                     "p95_ms": round(float(np.percentile(ms, 95)), 2),
                     "first_ms": round(first_ms, 1)}  # fmt: skip
    # VmHWM, not getrusage's ru_maxrss: Linux keeps ru_maxrss across execve, so a child
    # of a large builder process would report the builder's peak as its own.
    hwm = next(line for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmHWM:"))  # fmt: skip
    out["peak_rss_mb"] = round(int(hwm.split()[1]) / 1024, 1)
    out["pid"] = os.getpid()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
