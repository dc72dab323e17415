"""Does ingest through an embeddings server follow the server's capacity? (issue #17)

    python bench/embed_throughput.py --corpus ../shared/bench/scifact/corpus.jsonl -n 400 \
        --workers 1 2 --concurrency 1 4 --rounds 2

For each server size (bench/embed_server.py: an OpenAI-compatible /v1/embeddings over the
shipped MiniLM, one batch at a time per worker process, one inference thread each) and
each PAPERCHAT_EMBED_CONCURRENCY, one whole `paperchat ingest` process with
PAPERCHAT_EMBEDDER=openai into a fresh embedded data dir: docs/s. Configurations alternate
within each round. With one worker, requests in flight only queue; with two, concurrency
should double the rate where concurrency 1 leaves a worker idle. These machines have 2
cores, shared by the server's workers and the ingest itself, so two workers are the most
this can show. Saves bench/results/embed_throughput.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.ingest_peers import (  # noqa: E402
    RESULTS,
    _env,
    _last_json,
    machine,
    read_records,
    run_process,
    write_jsonl,
)
from bench.machine import free_port, save_result  # noqa: E402


class EmbedServer:
    def __init__(self, workers: int, cache_dir: Path) -> None:
        self.port = free_port()
        env = _env(cache_dir) | {"OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "bench.embed_server:app", "--host", "127.0.0.1",
             "--port", str(self.port), "--workers", str(workers), "--log-level", "warning"],
            env=env, cwd=ROOT,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # every worker has loaded its model
            if self._ready(workers):
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("the embeddings server did not start")

    def _ready(self, workers: int) -> bool:
        import httpx

        try:
            for _ in range(4 * workers):  # requests land on any worker
                url = f"http://127.0.0.1:{self.port}/v1/embeddings"
                body = {"model": "m", "input": ["ready?"]}
                httpx.post(url, json=body, timeout=30).raise_for_status()
        except httpx.HTTPError:
            return False
        return True

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def one_ingest(corpus: Path, port: int, concurrency: int, root: Path, cache: Path) -> dict:
    work = Path(tempfile.mkdtemp(prefix="ingest-", dir=root))
    env = _env(cache, work / "data") | {
        "PAPERCHAT_EMBEDDER": "openai",
        "PAPERCHAT_EMBED_MODEL": "minilm",
        "PAPERCHAT_EMBED_CONCURRENCY": str(concurrency),
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "unused",
    }
    cmd = [sys.executable, "-m", "ui.cli.main", "ingest", "--json", str(corpus)]
    got = run_process(cmd, env=env, cwd=work)
    if got["rc"] != 0:
        raise RuntimeError(f"ingest failed (rc {got['rc']}): {got['stderr'][-800:]}")
    report = _last_json(got["stdout"])
    return {"wall_s": round(got["wall_s"], 2), "cpu_s": round(got["cpu_s"], 2),
            "papers": report["papers"], "chunks": report["chunks_written"],
            "stage_s": report["seconds"]}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, required=True, help="BEIR-style corpus.jsonl")
    parser.add_argument("-n", type=int, default=400, help="papers per ingest")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS / "embed_throughput.json")
    args = parser.parse_args(argv)

    root = Path(tempfile.mkdtemp(prefix="paperchat-embed-throughput-"))
    corpus = root / "corpus.jsonl"
    write_jsonl(read_records(args.corpus, args.n), corpus)
    cache = root / "cache"
    from rag.index.minilm import OnnxMiniLM

    OnnxMiniLM(cache_dir=cache).embed_documents(["build the graph once, untimed"])
    runs: list[dict[str, Any]] = []
    for round_ in range(args.rounds):
        for workers in args.workers:
            server = EmbedServer(workers, cache)
            try:
                for concurrency in args.concurrency:
                    row = one_ingest(corpus, server.port, concurrency, root, cache)
                    row |= {"round": round_, "workers": workers, "concurrency": concurrency,
                            "docs_per_s": round(row["papers"] / row["wall_s"], 2),
                            "loadavg": os.getloadavg()[0]}  # fmt: skip
                    runs.append(row)
                    print(f"round {round_}: {workers} worker(s), concurrency {concurrency}: "
                          f"{row['docs_per_s']:.1f} docs/s ({row['wall_s']} s; embed "
                          f"{row['stage_s']['embed']} s)", flush=True)  # fmt: skip
            finally:
                server.stop()
    summary = {
        f"{w} worker(s), concurrency {c}": statistics.median(
            r["docs_per_s"] for r in runs if r["workers"] == w and r["concurrency"] == c
        )
        for w in args.workers
        for c in args.concurrency
    }
    result = {"corpus": str(args.corpus), "papers": args.n, "summary_docs_per_s": summary,
              "runs": runs, "machine": machine()}  # fmt: skip
    save_result(args.out, result, summary)


if __name__ == "__main__":
    main()
