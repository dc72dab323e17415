"""Load on `paperchat serve`: time from start to ready, then concurrent clients on /api/ask.

Starts `paperchat serve` as a user would (a process of its own, on an index of the given
corpus), measures the seconds until /healthz answers, then for each concurrency level runs
a fixed number of extractive /api/ask requests from that many client threads, cycling
through the questions, and reports throughput, p50/p95 latency and errors (must be 0).
Traffic goes to 127.0.0.1 only; every loop is bounded.

    python bench/serve_load.py --corpus data/sample --questions tests/data/sample_questions.jsonl

Saves bench/results/serve_load.json (and a PNG of latency against clients).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import free_port  # noqa: E402


def _level(url: str, questions: list[str], clients: int, requests: int) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def worker() -> None:
        with httpx.Client(timeout=120) as http:
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                start = time.perf_counter()
                try:
                    r = http.post(
                        f"{url}/api/ask", json={"question": questions[i % len(questions)]}
                    )
                    ok = r.status_code == 200 and "answer" in r.json()
                    why = "" if ok else f"HTTP {r.status_code}"
                except httpx.HTTPError as exc:
                    ok, why = False, type(exc).__name__
                elapsed = time.perf_counter() - start
                with lock:
                    if ok:
                        latencies.append(elapsed)
                    else:
                        errors.append(why)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {
        "clients": clients,
        "requests": requests,
        "ok": len(latencies),
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
        "seconds": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 2),
        "p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 1) if latencies else None,
        "p95_ms": round(float(np.percentile(latencies, 95)) * 1000, 1) if latencies else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", default=[ROOT / "data" / "sample"])
    ap.add_argument("--questions", type=Path, default=ROOT / "tests/data/sample_questions.jsonl")
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--requests", type=int, default=200, help="requests per level")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/serve_load.json")
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    questions = [json.loads(line)["question"] for line in args.questions.open() if line.strip()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    env["PAPERCHAT_DATA_DIR"] = tempfile.mkdtemp(prefix="paperchat-load-")
    env["PAPERCHAT_LLM"] = "extractive"
    paperchat = [sys.executable, "-m", "ui.cli.main"]
    subprocess.run([*paperchat, "ingest", *map(str, args.corpus), "--json"], env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    start = time.perf_counter()
    proc = subprocess.Popen([*paperchat, "serve", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        ready = None
        while time.perf_counter() - start < 120 and proc.poll() is None:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    ready = time.perf_counter() - start
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        if ready is None:
            raise SystemExit("the server did not become ready")
        print(f"serve start to /healthz ready: {ready:.2f} s")
        first = time.perf_counter()
        httpx.post(f"{url}/api/ask", json={"question": questions[0]}, timeout=60)
        first_ask = time.perf_counter() - first
        print(f"first /api/ask after ready: {first_ask * 1000:.0f} ms")
        levels = []
        for clients in args.clients:
            result = _level(url, questions, clients, args.requests)
            levels.append(result)
            print(
                f"{clients:>3} clients: {result['throughput_rps']:>6} req/s  "
                f"p50 {result['p50_ms']} ms  p95 {result['p95_ms']} ms  errors {result['errors']}"
            )
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    out = {
        "corpus": [str(p) for p in args.corpus],
        "questions": len(questions),
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "ready_seconds": round(ready, 3),
        "first_ask_ms": round(first_ask * 1000, 1),
        "levels": levels,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        xs = [lv["clients"] for lv in levels]
        ax.plot(xs, [lv["p50_ms"] for lv in levels], marker="o", label="p50")
        ax.plot(xs, [lv["p95_ms"] for lv in levels], marker="o", label="p95")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrent clients")
        ax.set_ylabel("/api/ask latency (ms)")
        ax.set_title("paperchat serve, extractive, 2 cores")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.out.with_suffix(".png"), dpi=120)
    except ImportError:
        print("matplotlib not installed: no plot")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
