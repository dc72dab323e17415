"""`paperchat ingest` peak memory and rate against the number of papers (issue #17).

    python bench/ingest_memory.py --corpus ../shared/bench/scifact/corpus.jsonl \\
        --sizes 1000 10000 100000

For each size, one whole `paperchat ingest --json` process into a fresh data dir: docs/s
(whole process) and its own peak RSS. The papers are the corpus's real abstracts first, then
synthetic ones anchored on them (bench/scale/synth.py) past the corpus's size (SciFact has
5,183). ``--embed-batch 10`` shows what the embedder's batch size does to the peak.
Embedding is real: on 2 cores expect ~10-20 papers/s. The embedder graph is built
once, untimed, in a bench cache dir. Saves bench/results/ingest_memory.json (after every
size, so a long run stopped early keeps what it measured) and a plot.
"""

from __future__ import annotations

import argparse
import json
import shutil
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
    machine,
    read_records,
    run_peer,
    synthetic_records,
    versions,
    warm_up,
    write_jsonl,
)
from bench.scale.run import ChromaServer  # noqa: E402


def measure(
    corpus: Path,
    sizes: Sequence[int],
    out: Path,
    *,
    embed_batch: int = 0,
    no_inference: bool = False,
    chroma_server: bool = False,
) -> list[dict[str, Any]]:
    real = read_records(corpus, max(sizes))
    root = Path(tempfile.mkdtemp(prefix="paperchat-memory-"))
    rows: list[dict[str, Any]] = []
    try:
        cache_dir = root / "cache"
        warm_up(real, root, cache_dir)
        for size in sizes:
            path = root / f"corpus-{size}.jsonl"
            write_jsonl(synthetic_records(real, size), path)
            env = {"PAPERCHAT_EMBED_BATCH_SIZE": str(embed_batch)} if embed_batch else {}
            server = ChromaServer(root / f"chroma-{size}") if chroma_server else None
            if server is not None:  # the vector index lives there, not in the ingest
                env |= {"PAPERCHAT_CHROMA_HOST": "127.0.0.1",
                        "PAPERCHAT_CHROMA_PORT": str(server.port)}  # fmt: skip
            peer = "paperchat-no-inference" if no_inference else "paperchat"
            try:
                r = run_peer(peer, path, root, cache_dir, root, extra_env=env)
            finally:
                server_peak = server.stop() if server is not None else None
            path.unlink()
            r.update(
                embed_batch=embed_batch or "default",
                inference="stand-in (bench/no_inference.py)" if no_inference else "real",
                chroma="server (chroma run)" if chroma_server else "embedded",
                chroma_server_peak_mib=server_peak,
                size=size,
                real=min(size, len(real)),
                docs_per_s=size / r["wall_s"],
            )
            rows.append(r)
            print(
                f"{size:>8} papers ({r['real']} real): {r['wall_s']:8.1f}s "
                f"{r['docs_per_s']:6.1f} docs/s  peak {r['peak_rss_mib']:6.0f} MiB  "
                f"{r.get('chunks', '?')} chunks  rc={r['rc']}  "
                f"load {r['loadavg_before'][0]:.2f}-{r['loadavg_after'][0]:.2f}"
                + (f"  chroma server peak {server_peak:.0f} MiB" if server_peak else ""),
                flush=True,
            )
            result = {
                "corpus": str(corpus),
                "rows": rows,
                "versions": versions(),
                "machine": machine(),
                "when": time.strftime("%Y-%m-%d %H:%M:%S"),
            }
            out.write_text(json.dumps(result, indent=2))
            if not r["ok"]:
                print(r.get("stderr", ""), file=sys.stderr)
                break
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"saved {out}")
    return rows


def plot(rows: Sequence[dict[str, Any]], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot")
        return
    series: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["ok"]:
            inference = "real" if r.get("inference", "real") == "real" else "stand-in"
            where = r.get("chroma", "embedded").split()[0]
            name = r.get("label") or f"inference {inference}, Chroma {where}"
            series.setdefault(name, []).append(r)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, ok in series.items():
        ok.sort(key=lambda r: r["size"])
        ax.plot([r["size"] for r in ok], [r["peak_rss_mib"] for r in ok], "o-", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("papers ingested in one process")
    ax.set_ylabel("ingest process peak RSS MiB")
    ax.set_title("paperchat ingest: peak memory against size (2 cores)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"saved {path}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpus", type=Path, required=True, help="BEIR-style corpus.jsonl")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument(
        "--embed-batch",
        type=int,
        default=0,
        help="PAPERCHAT_EMBED_BATCH_SIZE for the ingests (default: the product's)",
    )
    ap.add_argument(
        "--no-inference",
        action="store_true",
        help="replace the graph's inference by a stand-in (bench/no_inference.py): the rest "
        "of the ingest's memory at sizes real embedding would take hours to reach",
    )
    ap.add_argument(
        "--chroma-server",
        action="store_true",
        help="ingest into a `chroma run` server (its vector index in its own process)",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "ingest_memory.json")
    ap.add_argument("--plot-only", nargs="+", type=Path, metavar="JSON",
                    help="plot the rows of these result files together (no run)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.plot_only:
        rows = [r for f in args.plot_only for r in json.loads(f.read_text())["rows"]]
        plot(rows, args.out.with_suffix(".png"))
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = measure(
        args.corpus,
        args.sizes,
        args.out,
        embed_batch=args.embed_batch,
        no_inference=args.no_inference,
        chroma_server=args.chroma_server,
    )
    plot(rows, args.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
