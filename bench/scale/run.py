"""How retrieval latency, insert rate, disk, memory and start-up grow with the corpus.

    python bench/scale/run.py --corpus ../shared/bench/scifact/corpus.jsonl \\
        --queries ../shared/bench/scifact/queries_train.jsonl \\
        --sizes 5000 100000 1000000 --backends embedded server --work /tmp/paperchat-scale

1. **Real base**: the first SciFact abstracts, about ``--base-chunks`` chunks, go through
   `paperchat ingest` (parse, chunk, embed for real, store): the smallest size.
2. **Synthetic growth** (bench/scale/synth.py): for each larger size, the real base plus
   synthetic papers anchored on it, written with the product's ``Store.write`` (only the
   embedder is bypassed), then the product's lexical index built from the store as
   `paperchat ingest` does.
3. For each size and backend (embedded Chroma, or a `chroma run` server on loopback):
   insert rate, disk size, then in a fresh process (bench/scale/query.py) 500 real SciFact
   claims in each mode (dense, lexical, hybrid; query embedding included): p50/p95, index
   load time and peak RSS; then the cold start of `paperchat serve` until /healthz answers.

Saves JSON (bench/results/scale.json) and a PNG of latency and memory against size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.machine import free_port  # noqa: E402
from bench.scale.synth import Anchor, Synthesizer  # noqa: E402
from rag.index.connect import open_store  # noqa: E402
from rag.index.embed import make_embedder  # noqa: E402
from rag.records import Chunk, Paper  # noqa: E402
from rag.retrieve import Retriever  # noqa: E402
from rag.settings import load_settings  # noqa: E402

WRITE_BATCH = 4000  # chunks per Store.write


def _du(*paths: Path) -> int:
    return sum(f.stat().st_size for p in paths if p.exists() for f in p.rglob("*") if f.is_file())


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _env(data_dir: Path, chroma: tuple[str, int] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    if "PAPERCHAT_CACHE_DIR" in os.environ:  # the embedder graph, built once, is shared
        env["PAPERCHAT_CACHE_DIR"] = os.environ["PAPERCHAT_CACHE_DIR"]
    env["PAPERCHAT_DATA_DIR"] = str(data_dir)
    env["PAPERCHAT_LLM"] = "extractive"
    env["PYTHONPATH"] = str(ROOT)
    if chroma:
        env["PAPERCHAT_CHROMA_HOST"], env["PAPERCHAT_CHROMA_PORT"] = chroma[0], str(chroma[1])
    return env


def _settings(data_dir: Path, chroma: tuple[str, int] | None):  # type: ignore[no-untyped-def]
    extra = {"chroma_host": chroma[0], "chroma_port": chroma[1]} if chroma else {}
    return load_settings(data_dir=data_dir, **extra)


# -- the real base --------------------------------------------------------------------------


def ingest_base(corpus: Path, base_chunks: int, work: Path) -> dict[str, Any]:
    """The first SciFact abstracts, ~base_chunks chunks (2.3 per abstract), ingested for real."""
    data_dir = work / "base"
    records = work / "base.jsonl"
    n_papers = max(1, round(base_chunks / 2.28))
    with corpus.open(encoding="utf-8") as src, records.open("w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= n_papers:
                break
            dst.write(line)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ui.cli.main", "ingest", str(records), "--json"],
        env=_env(data_dir, None), check=True, capture_output=True, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    report = json.loads(done.stdout)
    return {"data_dir": data_dir, "seconds": seconds,
            "chunks_written": report["chunks_written"]}  # fmt: skip


def read_base(data_dir: Path) -> tuple[list[tuple[Paper, list[Chunk]]], np.ndarray, list[Anchor]]:
    """The base papers, chunks and vectors as stored, and one anchor per paper."""
    settings = load_settings(data_dir=data_dir)
    store = open_store(settings)
    got = store._collection.get(include=["embeddings", "documents", "metadatas"])
    by_paper: dict[str, list[int]] = {}
    for i, meta in enumerate(got["metadatas"]):
        by_paper.setdefault(str(meta["paper_id"]), []).append(i)
    items, rows, anchors = [], [], []
    vectors = np.asarray(got["embeddings"], dtype=np.float32)
    for pid, idx in by_paper.items():
        idx.sort(key=lambda i: got["metadatas"][i]["chunk_index"])
        first = got["metadatas"][idx[0]]
        paper = Paper(id=pid, abstract=str(first.get("abstract", "")), source=str(first["source"]),
                      position=int(first["position"]), title=str(first.get("title", "")),
                      label=str(first.get("label", "")), year=first.get("year"))  # fmt: skip
        chunks = [Chunk(got["ids"][i], pid, int(got["metadatas"][i]["chunk_index"]),
                        got["documents"][i], int(got["metadatas"][i]["n_tokens"]))
                  for i in idx]  # fmt: skip
        items.append((paper, chunks))
        rows.extend(idx)
        anchors.append(Anchor(f"{paper.title}\n{paper.abstract}", vectors[idx[0]]))
    return items, vectors[rows], anchors


# -- one index ------------------------------------------------------------------------------


def build(
    target_chunks: int,
    *,
    base: tuple[list[tuple[Paper, list[Chunk]]], np.ndarray],
    synth: Synthesizer,
    data_dir: Path,
    chroma: tuple[str, int] | None,
) -> dict[str, Any]:
    settings = _settings(data_dir, chroma)
    store = open_store(settings)
    items, vectors = base
    written = 0
    start = time.perf_counter()
    for b in range(0, len(items), 500):  # the real papers, as stored by the real ingest
        part = items[b : b + 500]
        n = sum(len(c) for _, c in part)
        store.write(part, vectors[written : written + n])
        written += n
    batch: list[tuple[Paper, list[Chunk]]] = []
    batch_vectors: list[np.ndarray] = []
    pending = 0
    for paper, chunks, vecs in synth.papers(max(target_chunks - written, 0)):
        batch.append((paper, chunks))
        batch_vectors.append(vecs)
        pending += len(chunks)
        if pending >= WRITE_BATCH:
            store.write(batch, np.concatenate(batch_vectors))
            written += pending
            batch, batch_vectors, pending = [], [], 0
    if batch:
        store.write(batch, np.concatenate(batch_vectors))
        written += pending
    insert_s = time.perf_counter() - start
    start = time.perf_counter()
    retriever = Retriever.from_settings(settings, store, make_embedder(settings))
    index = retriever.index  # the lexical index built from the store, as after an ingest
    lexical_s = time.perf_counter() - start
    return {
        "chunks": written,
        "papers": len(index),
        "insert_s": round(insert_s, 2),
        "insert_chunks_per_s": round(written / insert_s, 1),
        "lexical_build_s": round(lexical_s, 2),
        "lexical_phases_s": {k: round(v, 2) for k, v in index.timings.items()},
    }


def measure(data_dir: Path, chroma: tuple[str, int] | None, queries: Path, n: int,
            *, serve: bool) -> dict[str, Any]:  # fmt: skip
    env = _env(data_dir, chroma)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench/scale/query.py"), "--data-dir", str(data_dir),
         "--queries", str(queries), "--n", str(n)],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if serve:
        out |= cold_start(data_dir, env)
    return out


def cold_start(data_dir: Path, env: dict[str, str]) -> dict[str, Any]:
    """Seconds from `paperchat serve` to a 200 from /healthz and the server's peak memory,
    with the UI and without it (--no-ui: the APIs only)."""
    out: dict[str, Any] = {}
    for key, flags in (("serve", []), ("api_only", ["--no-ui"])):
        ready, rss = _time_to_ready(env, flags)
        out[f"{key}_ready_s"], out[f"{key}_rss_mb"] = ready, rss
    return out


def _time_to_ready(env: dict[str, str], flags: list[str]) -> tuple[float | None, float | None]:
    import httpx

    port = free_port()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ui.cli.main", "serve", "--port", str(port), *flags],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        while time.perf_counter() - start < 600 and proc.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    return round(time.perf_counter() - start, 2), _vm_hwm_mb(proc.pid)
            except httpx.HTTPError:
                time.sleep(0.05)
        return None, None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class ChromaServer:
    def __init__(self, path: Path) -> None:
        self.path, self.port = path, free_port()
        chroma = Path(sys.executable).with_name("chroma")
        self.proc = subprocess.Popen(
            [str(chroma), "run", "--path", str(path), "--host", "127.0.0.1", "--port",
             str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("chroma run did not start")

    def stop(self) -> float | None:
        rss = _vm_hwm_mb(self.proc.pid)
        self.proc.terminate()
        self.proc.wait(timeout=30)
        return rss


# -- the run ----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    base_info = ingest_base(args.corpus, args.base_chunks, work)
    items, vectors, anchors = read_base(base_info["data_dir"])
    # What the store holds (a re-run over a kept work folder ingests nothing new).
    base_info |= {"papers": len(items), "chunks": len(vectors)}
    print(f"base: {base_info['papers']} real papers, {base_info['chunks']} chunks, ingested "
          f"(embedded for real) in {base_info['seconds']:.1f} s", flush=True)  # fmt: skip
    synth = Synthesizer(anchors, seed=args.seed)
    results = []
    for size in args.sizes:
        for backend in args.backends:
            data_dir = work / f"{backend}-{size}"
            shutil.rmtree(data_dir, ignore_errors=True)
            server = ChromaServer(work / f"chroma-{size}") if backend == "server" else None
            chroma = ("127.0.0.1", server.port) if server else None
            try:
                row: dict[str, Any] = {"target_chunks": size, "backend": backend}
                row |= build(size, base=(items, vectors), synth=synth, data_dir=data_dir,
                             chroma=chroma)  # fmt: skip
                row["disk_mb"] = round(
                    _du(data_dir, server.path if server else Path("/nonexistent")) / 1e6, 1
                )
                row |= measure(data_dir, chroma, args.queries, args.n, serve=not args.skip_serve)
            finally:
                if server:
                    row["chroma_server_rss_mb"] = server.stop()
            results.append(row)
            print(json.dumps(row), flush=True)
            if not args.keep:
                shutil.rmtree(data_dir, ignore_errors=True)
                if server:
                    shutil.rmtree(server.path, ignore_errors=True)
    return {
        "corpus": str(args.corpus),
        "queries": str(args.queries),
        "n_queries": args.n,
        "base": {k: v for k, v in base_info.items() if k != "data_dir"},
        "cpu_count": os.cpu_count(),
        "results": results,
    }


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (lat, mem, start) = plt.subplots(1, 3, figsize=(15, 4.2))
    for backend, style in (("embedded", "-"), ("server", "--")):
        rows = [r for r in result["results"] if r["backend"] == backend]
        if not rows:
            continue
        xs = [r["chunks"] for r in rows]
        for mode, colour in (("hybrid", "C0"), ("dense", "C1"), ("lexical", "C2")):
            lat.plot(xs, [r[mode]["p95_ms"] for r in rows], style, marker="o", color=colour,
                     label=f"{mode} p95 ({backend})")  # fmt: skip
        mem.plot(xs, [r["peak_rss_mb"] for r in rows], style, marker="o", color="C0",
                 label=f"query process peak RSS ({backend})")  # fmt: skip
        mem.plot(xs, [r["disk_mb"] for r in rows], style, marker="s", color="C3",
                 label=f"index on disk ({backend})")  # fmt: skip
        for key, colour, what in (("serve", "C4", "with UI"), ("api_only", "C5", "--no-ui")):
            ready = [(x, r.get(f"{key}_ready_s")) for x, r in zip(xs, rows, strict=True)]
            ready = [(x, y) for x, y in ready if y is not None]
            if ready:
                start.plot(*zip(*ready, strict=True), style, marker="o", color=colour,
                           label=f"serve {what} ({backend})")  # fmt: skip
    start.axhline(3.0, color="grey", linestyle=":", label="aim at 100k chunks (3 s)")
    start.set_xscale("log")
    start.set_xlabel("chunks in the index")
    start.set_ylabel("start to /healthz ready (s)")
    start.set_ylim(bottom=0)
    start.legend(fontsize=7)
    for ax in (lat, mem):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("chunks in the index")
        ax.legend(fontsize=7)
    lat.set_ylabel("retrieval latency p95 (ms), k=10")
    mem.set_ylabel("MB")
    fig.suptitle("paperchat at scale: retrieval, memory and start-up, 2 cores")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, help="BEIR corpus.jsonl (SciFact)")
    ap.add_argument("--queries", type=Path, help="queries JSONL (text or question)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 100_000, 1_000_000])
    ap.add_argument("--backends", nargs="+", choices=["embedded", "server"],
                    default=["embedded", "server"])  # fmt: skip
    ap.add_argument("--base-chunks", type=int, default=5000)
    ap.add_argument("--n", type=int, default=500, help="queries per mode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=Path("/tmp/paperchat-scale"))
    ap.add_argument("--keep", action="store_true", help="keep the indexes")
    ap.add_argument("--skip-serve", action="store_true", help="do not time `paperchat serve`")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/scale.json")
    ap.add_argument(
        "--merge", type=Path, nargs="+", metavar="JSON",
        help="run nothing: merge earlier runs' results into --out and plot them",
    )  # fmt: skip
    return ap


def merge(paths: list[Path]) -> dict[str, Any]:
    """One result from several runs (each size measured in one run, side by side)."""
    runs = [json.loads(p.read_text()) for p in paths]
    rows = sorted((r for run in runs for r in run["results"]),
                  key=lambda r: (r["target_chunks"], r["backend"]))  # fmt: skip
    return runs[0] | {"results": rows, "merged_from": [str(p) for p in paths]}


def main() -> None:
    ap = parser()
    args = ap.parse_args()
    if not args.merge and not (args.corpus and args.queries):
        ap.error("--corpus and --queries are needed (or --merge)")
    result = merge(args.merge) if args.merge else run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    try:
        plot(result, args.out.with_suffix(".png"))
    except ImportError:
        print("matplotlib not installed (pip install -e '.[bench]'): no plot")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
