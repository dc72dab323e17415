"""Robustness of `paperchat serve` and `paperchat ingest` under load and faults (issue #16).

Load: 32 concurrent /api/ask on a fresh (cold) server, each on a new connection, with the
work queue off (PAPERCHAT_WORK_CONCURRENCY=0, as before) and on (the default), side by side:
server RSS before, at peak and 5 s after, p95 latency, errors, and the clients' own CPU. The
clients are the standard library's (light); a last row repeats the load with one httpx.post
per client, as this script did before, whose client-side CPU (~1.9 s for 32 posts on this
2-core machine) slowed the server it measured. Faults: a frozen Chroma server
(SIGSTOP), a model that never answers, a 4.2 MB record inside a JSON array, a truncated
array, a FIFO among the input files, and the web checks (Host, cross-site, chunked
oversize body, lone surrogate, short key). Every server is a process of its own on
127.0.0.1; every loop is bounded; the script stops by itself.

    PYTHONPATH=. python bench/robustness.py [--corpus data/sample] [--clients 32]
    PYTHONPATH=. python bench/robustness.py --skip-faults --data-dir DIR --questions Q.jsonl
        (the load cases on an index already built, e.g. SciFact's, with its queries)

Prints a table (case, expected, seen, RSS, p95) and saves bench/results/robustness.json.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import free_port  # noqa: E402

PAPERCHAT = [sys.executable, "-m", "ui.cli.main"]
ABSTRACT = (
    "KCache keeps the KV cache on the CPU and saves GPU memory during inference. "
    "Experiments show forty percent higher throughput than the baseline."
)


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    env |= {"PAPERCHAT_DATA_DIR": str(data_dir), "PAPERCHAT_LLM": "extractive"} | extra
    return env


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def _serve(env: dict[str, str], *args: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([*PAPERCHAT, "serve", "--port", str(port), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _post_json(url: str, path: str, payload: dict) -> int:
    """One POST on a new connection with the standard library's client: the lightest load
    generator (httpx.post builds a client and an SSL context per call, ~60 ms of CPU each,
    which on 2 cores competes with the server it measures)."""
    host, _, port = url.removeprefix("http://").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    try:
        conn.request("POST", path, json.dumps(payload), {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def cold_load(
    data: Path,
    questions: list[str],
    clients: int,
    bound: bool,
    concurrency: int | None = None,
    client: str = "stdlib",
) -> dict:
    """``clients`` asks at once on a fresh server, each on a new connection; RSS before, at
    peak, 5 s after, and the CPU the clients themselves used (they share the machine)."""
    extra = {} if bound else {"PAPERCHAT_WORK_CONCURRENCY": "0"}
    if bound and concurrency is not None:
        extra["PAPERCHAT_WORK_CONCURRENCY"] = str(concurrency)
    with _serve(_env(data, **extra)) as (url, proc):
        time.sleep(1.0)
        before = _rss_mb(proc.pid)
        latencies: list[float] = []
        codes: list[int] = []
        lock = threading.Lock()
        go = threading.Barrier(clients)

        def one(i: int) -> None:
            payload = {"question": questions[i % len(questions)]}
            go.wait()
            start = time.perf_counter()
            try:
                if client == "httpx":
                    code = httpx.post(f"{url}/api/ask", json=payload, timeout=120).status_code
                else:
                    code = _post_json(url, "/api/ask", payload)
            except (httpx.HTTPError, OSError):
                code = 0
            with lock:
                codes.append(code)
                if code == 200:
                    latencies.append(time.perf_counter() - start)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
        cpu = time.process_time()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        cpu = time.process_time() - cpu
        peak = _rss_mb(proc.pid, "VmHWM")
        time.sleep(5)
        after = _rss_mb(proc.pid)
    how = "httpx.post clients" if client == "httpx" else "stdlib clients"
    return {
        "case": f"{clients} cold concurrent /api/ask, queue "
        + ((f"on ({concurrency} at once)" if concurrency else "on") if bound else "off")
        + f", {how}",
        "expected": "< 1 GB RSS, p95 <= 1 s, 0 errors" if bound else "(as before #16)",
        "seen": f"{codes.count(200)}/{clients} ok, {sum(c == 429 for c in codes)} x 429, "
        f"clients' CPU {cpu:.2f} s",
        "rss_mb": {"before": round(before), "peak": round(peak), "after": round(after)},
        "p95_s": round(float(np.percentile(latencies, 95)), 3) if latencies else None,
        "p50_s": round(float(np.percentile(latencies, 50)), 3) if latencies else None,
        "client": client,
        "client_cpu_s": round(cpu, 2),
    }


def serial_floor(data: Path, questions: list[str], n: int) -> dict:
    """The same ``n`` cold questions one after another on a fresh server: the work itself,
    which no queue can make shorter than this."""
    with _serve(_env(data)) as (url, proc):
        t0 = time.perf_counter()
        latencies = []
        for i in range(n):
            t = time.perf_counter()
            code = _post_json(url, "/api/ask", {"question": questions[i % len(questions)]})
            if code != 200:
                raise SystemExit(f"/api/ask answered {code}")
            latencies.append(time.perf_counter() - t)
        total = time.perf_counter() - t0
        return {"case": f"the same {n} cold asks one at a time (the work itself)",
                "expected": "(the floor for the last of 32 at once)",
                "seen": f"{total:.2f} s in all, first {latencies[0]:.2f} s",
                "rss_mb": {"after": round(_rss_mb(proc.pid))},
                "p95_s": round(float(np.percentile(latencies, 95)), 3)}  # fmt: skip


def frozen_chroma(tmp: Path, corpus: list[Path]) -> list[dict]:
    """A `chroma run` server frozen with SIGSTOP while paperchat serves from it."""
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    cmd = [str(chroma), "run", "--path", str(tmp / "chroma"), "--host", "127.0.0.1",
           "--port", str(port)]  # fmt: skip
    env = _env(tmp / "frozen", PAPERCHAT_CHROMA_HOST="127.0.0.1", PAPERCHAT_CHROMA_PORT=str(port),
               PAPERCHAT_UI="false")  # fmt: skip
    env_chroma = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env_chroma)  # fmt: skip
    rows = []
    try:
        for _ in range(300):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            time.sleep(0.2)
        subprocess.run([*PAPERCHAT, "ingest", *map(str, corpus)], env=env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        with _serve(env) as (url, proc):
            os.kill(server.pid, signal.SIGSTOP)
            try:
                t0 = time.perf_counter()
                health = httpx.get(f"{url}/healthz", timeout=60)
                rows.append(_row("frozen Chroma: GET /healthz", "503 within 2 s",
                                 f"{health.status_code} in {time.perf_counter() - t0:.2f} s",
                                 proc.pid))  # fmt: skip
                asks: list[tuple[int, float]] = []

                def ask() -> None:
                    t = time.perf_counter()
                    r = httpx.post(f"{url}/api/ask", json={"question": "KV cache memory?"},
                                   timeout=120)  # fmt: skip
                    asks.append((r.status_code, time.perf_counter() - t))

                threads = [threading.Thread(target=ask) for _ in range(4)]
                for t in threads:
                    t.start()
                time.sleep(0.5)
                t0 = time.perf_counter()
                models = httpx.get(f"{url}/v1/models", timeout=60)
                rows.append(_row("frozen Chroma: GET /v1/models while 4 asks are stuck",
                                 "200 at once", f"{models.status_code} in "
                                 f"{time.perf_counter() - t0:.2f} s", proc.pid))  # fmt: skip
                for t in threads:
                    t.join(timeout=120)
                rows.append(
                    _row(
                        "frozen Chroma: 4 x POST /api/ask",
                        "503 within PAPERCHAT_CHROMA_TIMEOUT (30 s)",
                        ", ".join(f"{c} in {s:.1f} s" for c, s in asks),
                        proc.pid,
                    )
                )
            finally:
                os.kill(server.pid, signal.SIGCONT)
            t0 = time.perf_counter()
            while httpx.get(f"{url}/healthz", timeout=10).status_code != 200:
                if time.perf_counter() - t0 > 60:
                    break
                time.sleep(0.2)
            rows.append(_row("Chroma thawed (SIGCONT): /healthz", "200 again",
                             f"200 after {time.perf_counter() - t0:.2f} s", proc.pid))  # fmt: skip
    finally:
        os.kill(server.pid, signal.SIGCONT)
        server.terminate()
        server.wait(timeout=20)
    return rows


def _row(case: str, expected: str, seen: str, pid: int | None = None) -> dict:
    rss = {"now": round(_rss_mb(pid))} if pid else None
    return {"case": case, "expected": expected, "seen": seen, "rss_mb": rss, "p95_s": None}


def _ingest(env: dict[str, str], *paths: Path) -> tuple[int, float, float, dict]:
    """Exit code, seconds, peak RSS (MB) and JSON report of `paperchat ingest`."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*PAPERCHAT, "ingest", *map(str, paths), "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    try:
        report = json.loads(out)
    except ValueError:
        report = {}
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024, report


def ingest_faults(tmp: Path) -> list[dict]:
    rows = []
    env = _env(tmp / "ingest-data")
    big = tmp / "big.json"
    good = {"id": "ok", "abstract": ABSTRACT}
    with big.open("w") as fh:
        huge = {"id": "huge", "abstract": "word " * 840_000}  # 4.2 MB
        fh.write(f"[{json.dumps(good)}, {json.dumps(huge)}]")
    code, seconds, rss, report = _ingest(env, big)
    rows.append({"case": "JSON array with a 4.2 MB record", "expected":
                 "record skipped, the other stored, flat memory (was 145 s, 1.4 GB)",
                 "seen": f"exit {code}, {report.get('added')} added, "
                 f"{report.get('skipped_count')} skipped in {seconds:.1f} s",
                 "rss_mb": {"peak": round(rss)}, "p95_s": None})  # fmt: skip
    cut = tmp / "cut.json"
    text = json.dumps([{"id": f"t{i}", "abstract": f"{ABSTRACT} ({i})"} for i in range(5)])
    cut.write_text(text[: text.index('"t4"') + 10])
    code, seconds, rss, report = _ingest(env, cut)
    rows.append({"case": "truncated JSON array (cut inside record 5)",
                 "expected": "records 1-4 kept", "seen": f"exit {code}, "
                 f"{report.get('added')} added, {report.get('skipped_count')} skipped",
                 "rss_mb": {"peak": round(rss)}, "p95_s": None})  # fmt: skip
    folder = tmp / "folder"
    folder.mkdir()
    (folder / "good.jsonl").write_text(json.dumps({"id": "g", "abstract": ABSTRACT}) + "\n")
    (folder / "odd.txt").write_text("zz\n")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    code, seconds, rss, report = _ingest(env, folder)
    rows.append({"case": "folder with a FIFO, /dev/zero link, symlink loop, odd file",
                 "expected": "each one Skipped, the good file stored, exit 3",
                 "seen": f"exit {code} in {seconds:.1f} s, {report.get('added')} added, "
                 f"{report.get('skipped_count')} skipped", "rss_mb": {"peak": round(rss)},
                 "p95_s": None})  # fmt: skip
    return rows


def web_checks(data: Path) -> list[dict]:
    rows = []
    with _serve(_env(data, PAPERCHAT_UI="false")) as (url, proc):

        def check(case: str, expected: str, response: httpx.Response) -> None:
            rows.append(_row(case, expected, str(response.status_code), proc.pid))

        check(
            "GET /api/papers with Host: attacker.example",
            "400",
            httpx.get(f"{url}/api/papers", headers={"host": "attacker.example"}),
        )
        upload = [("files", ("p.jsonl", json.dumps({"abstract": ABSTRACT}) + "\n"))]
        check(
            "cross-site POST /api/ingest (Origin: https://evil.example)",
            "403",
            httpx.post(
                f"{url}/api/ingest", files=upload, headers={"origin": "https://evil.example"}
            ),
        )

        def body() -> Iterator[bytes]:
            yield b'{"question": "'
            for _ in range(32):
                yield b"a" * 65536
            yield b'"}'

        check(
            "chunked 2 MB body to /api/ask",
            "413",
            httpx.post(
                f"{url}/api/ask", content=body(), headers={"content-type": "application/json"}
            ),
        )
        raw = '{"messages": [{"role": "user", "content": "a \\ud800 b"}]}'
        check("lone surrogate in a /v1 message", "400",
              httpx.post(f"{url}/v1/chat/completions", content=raw,
                         headers={"content-type": "application/json"}))  # fmt: skip
        r = httpx.get(f"{url}/healthz")
        rows.append(_row("headers of any response", "CSP frame-ancestors 'none', nosniff",
                         f"{'frame-ancestors' in r.headers.get('content-security-policy', '')}"
                         f", {r.headers.get('x-content-type-options')}", proc.pid))  # fmt: skip
    short = subprocess.run([*PAPERCHAT, "serve", "--port", str(free_port())],
                           env=_env(data, PAPERCHAT_API_KEY="short"), capture_output=True,
                           text=True, timeout=60)  # fmt: skip
    rows.append(
        _row(
            "serve with PAPERCHAT_API_KEY=short",
            "refused with the reason",
            f"exit {short.returncode}: {short.stderr.strip()[:70]}...",
        )
    )
    return rows


def silent_model() -> dict:
    """A model server that accepts the connection and never answers."""
    from rag.answer.chat import OpenAIChat
    from rag.errors import LLMError

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    chat = OpenAIChat(model="m", base_url=url, api_key="k", timeout=10.0, max_retries=2)
    t0 = time.perf_counter()
    with contextlib.suppress(LLMError):
        list(chat.stream([{"role": "user", "content": "hi"}], max_tokens=8))
    seconds = time.perf_counter() - t0
    listener.close()
    for conn in held:
        conn.close()
    return _row("a model that never answers (timeout 10 s, 2 retries)",
                "10 s in all (was 3 x timeout + backoff)",
                f"{seconds:.1f} s, {len(held)} connection(s)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", default=[ROOT / "data" / "sample"])
    ap.add_argument("--questions", type=Path, default=ROOT / "tests/data/sample_questions.jsonl")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--data-dir", type=Path, help="an index to load instead of --corpus")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/robustness.json")
    ap.add_argument("--skip-faults", action="store_true", help="only the load cases")
    ap.add_argument("--work-concurrency", type=int, nargs="*", default=[],
                    help="also measure the queue with these bounds")  # fmt: skip
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    records = [json.loads(line) for line in args.questions.open() if line.strip()]
    questions = [r.get("question") or r["text"] for r in records]  # ours, or BEIR queries
    tmp = Path(tempfile.mkdtemp(prefix="paperchat-robust-"))
    data = args.data_dir or tmp / "data"
    if args.data_dir is None:
        subprocess.run([*PAPERCHAT, "ingest", *map(str, args.corpus), "--json"], env=_env(data),
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    rows = [cold_load(data, questions, args.clients, bound=False),
            cold_load(data, questions, args.clients, bound=True)]  # fmt: skip
    rows += [cold_load(data, questions, args.clients, bound=True, concurrency=n)
             for n in args.work_concurrency]  # fmt: skip
    # As measured before (one httpx.post per client): the clients' own CPU included.
    rows.append(cold_load(data, questions, args.clients, bound=True, client="httpx"))
    rows.append(serial_floor(data, questions, args.clients))
    if not args.skip_faults:
        rows += frozen_chroma(tmp, args.corpus)
        rows += ingest_faults(tmp)
        rows += web_checks(data)
        rows.append(silent_model())
    print(f"{'case':<62} {'expected':<44} {'seen':<40} {'RSS MB':<22} p95 s")
    for row in rows:
        rss = " / ".join(f"{k} {v}" for k, v in (row["rss_mb"] or {}).items())
        print(f"{row['case'][:62]:<62} {row['expected'][:44]:<44} {row['seen'][:40]:<40} "
              f"{rss:<22} {row['p95_s'] if row['p95_s'] is not None else '-'}")  # fmt: skip
    out = {"cpu_count": os.cpu_count(), "load_average_before": load_before,
           "load_average_after": os.getloadavg()[0],
           "corpus": [str(p) for p in args.corpus], "rows": rows}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
