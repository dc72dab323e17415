"""Retrieval latency of the product's Retriever (query embedding included, no LLM).

    python bench/retrieval_latency.py --corpus corpus.jsonl --queries queries.jsonl \
        [--data-dir DIR] [--n 500] [--k 10] [--compare-pools 400 200]

Uses the index that `paperchat eval retrieval` builds for this corpus (built here if
missing), warms up, then times ``Retriever.search`` per query in each mode (dense, lexical,
hybrid, and hybrid without passages as answers search), the modes interleaved query by
query in one run; then each stage of hybrid alone. Saves p50/p95/mean to
bench/results/retrieval_latency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--data-dir", type=Path, help="paperchat data dir (default: settings)")
    ap.add_argument("--n", type=int, default=500, help="queries to time per mode")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--compare-pools", type=int, nargs="+", metavar="N",
                    help="also time hybrid at these pool sizes, side by side")  # fmt: skip
    ap.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "retrieval_latency.json"
    )
    args = ap.parse_args()

    from ingest.chunk import Chunker
    from ingest.pipeline import ingest_paths
    from rag.index.connect import open_store
    from rag.index.embed import make_embedder
    from rag.retrieve import Mode, Retriever
    from rag.settings import load_settings
    from ui.cli.evaluate import eval_settings, load_queries

    settings = eval_settings(load_settings(data_dir=args.data_dir), args.corpus)
    embedder = make_embedder(settings)
    store = open_store(settings)
    if store.count_chunks() == 0:
        chunker = Chunker.from_settings(settings, embedder)
        ingest_paths([args.corpus], store=store, embedder=embedder, chunker=chunker)
    t0 = time.perf_counter()
    retriever = Retriever.from_settings(settings, store, embedder)
    papers = len(retriever.index)
    load_s = time.perf_counter() - t0
    queries = list(load_queries(args.queries).values())[: args.n]
    for q in queries[:20]:  # warm-up: sessions, caches, HNSW pages
        retriever.search(q, k=args.k)
    result: dict = {
        "corpus": str(args.corpus),
        "papers": papers,
        "chunks": store.count_chunks(),
        "queries": len(queries),
        "k": args.k,
        "index_load_s": round(load_s, 3),
        "modes": {},
    }
    # The last row is hybrid as answers search: they quote whole abstracts, so they ask for
    # no passages and skip reading the hits' chunks.
    runs: list[tuple[str, Mode, int]] = [
        ("dense", "dense", 2),
        ("lexical", "lexical", 2),
        ("hybrid", "hybrid", 2),
        ("hybrid, no passages", "hybrid", 0),
    ]
    # Interleaved, query by query and in a rotating order, so that the machine's drift
    # falls on every mode alike.
    times: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    for i, q in enumerate(queries):
        for label, mode, passages in runs[i % len(runs) :] + runs[: i % len(runs)]:
            t = time.perf_counter()
            retriever.search(q, k=args.k, mode=mode, passages=passages)
            times[label].append((time.perf_counter() - t) * 1000)
    result["modes"] = {label: summary(spent) for label, spent in times.items()}
    # Where hybrid time goes: each stage alone, as search runs it (the lexical side runs
    # beside the embedding and the Chroma query, so hybrid costs about the slower side plus
    # fusion and passages, not the sum).
    index = retriever.index
    pool = max(retriever.pool, args.k)
    vectors = [embedder.embed_query(q) for q in queries]
    hits = [retriever.search(q, k=args.k) for q in queries]

    def stage(run: Callable[[int], object]) -> dict[str, float]:
        times = []
        for i in range(len(queries)):
            t = time.perf_counter()
            run(i)
            times.append((time.perf_counter() - t) * 1000)
        return summary(times)

    n_chunks = index.n_chunks
    result["stages"] = {
        "query embedding": stage(lambda i: embedder.embed_query(queries[i])),
        "chroma query (dense pool)": stage(
            lambda i: store.query(vectors[i], n=min(pool, n_chunks))
        ),
        "bm25 (lexical pool)": stage(lambda i: index.search(queries[i], k=pool)),
        "passages (read the hits' chunks)": stage(
            lambda i: store.documents(
                [f"{h.paper.id}#{c}" for h in hits[i] for c in range(h.paper.n_chunks)]
            )
        ),
    }
    result["query_embedding"] = result["stages"]["query embedding"]
    if args.compare_pools:
        result["pools"] = compare_pools(settings, store, embedder, queries, args.compare_pools)
    result["machine"] = {"cores": os.cpu_count(), "python": platform.python_version(),
                         "load_avg_1m": os.getloadavg()[0]}  # fmt: skip
    result["when"] = time.strftime("%Y-%m-%d %H:%M:%S")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"{papers} papers, {result['chunks']} chunks; index loaded in {load_s:.2f}s")
    print(f"{'mode':<21}{'p50 ms':>8}{'p95 ms':>8}{'mean':>8}")
    for mode, r in result["modes"].items():
        print(f"{mode:<21}{r['p50_ms']:>8.1f}{r['p95_ms']:>8.1f}{r['mean_ms']:>8.1f}")
    for name, r in result["stages"].items():
        print(f"  {name:<34}{r['p50_ms']:>8.1f}{r['p95_ms']:>8.1f}{r['mean_ms']:>8.1f}")
    print(f"saved {args.out}")


def compare_pools(settings, store, embedder, queries, pools):  # type: ignore[no-untyped-def]
    """Hybrid at each pool size, with and without passages, interleaved query by query in a
    rotating order (one process: this VM's speed drifts too much between runs)."""
    from rag.retrieve import Retriever

    retrievers = {
        p: Retriever.from_settings(settings.model_copy(update={"retrieval_pool": p}), store,
                                   embedder)
        for p in pools
    }  # fmt: skip
    for q in queries[:20]:
        for r in retrievers.values():
            r.search(q)
    keys = [(p, n) for p in pools for n in (2, 0)]
    spent: dict[tuple[int, int], list[float]] = {key: [] for key in keys}
    for i, q in enumerate(queries):
        for p, n in keys[i % len(keys) :] + keys[: i % len(keys)]:
            t = time.perf_counter()
            retrievers[p].search(q, passages=n)
            spent[(p, n)].append((time.perf_counter() - t) * 1000)
    out = {f"pool {p}, passages {n}": summary(times) for (p, n), times in spent.items()}
    for name, r in out.items():
        print(f"hybrid, {name}: p50 {r['p50_ms']} p95 {r['p95_ms']} ms")
    return out


def summary(times_ms: list[float]) -> dict[str, float]:
    arr = np.array(times_ms)
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 2),
        "p95_ms": round(float(np.percentile(arr, 95)), 2),
        "mean_ms": round(float(arr.mean()), 2),
    }


if __name__ == "__main__":
    main()
