"""Writers side by side on one Chroma server, and a reader that keeps its lexical index
current from the store's change log: does the reader end up with every paper? (issue #17)

    python bench/concurrent_writers.py --corpus ../shared/bench/scifact/corpus.jsonl \
        --writers 3 --papers 1500 --rounds 3 --baseline /tmp/wt-base

``--writers`` `paperchat ingest` processes, each with its own data dir (machines sharing a
library), write different files of SciFact abstracts into one `chroma run` server, 32 papers
a batch: each batch is one generation bump. Inference is the stand-in of
bench/no_inference.py, so batches come seconds apart, as with a fast embeddings server.
A reader process, as a server's retriever does, syncs its lexical index every 50 ms; it
rebuilds only when the change log cannot tell it what changed (a periodic sync first waits
up to 15 s for a lost entry to be noted again). When the writers are done it
syncs once more and counts the stored papers its index misses.

Chroma has no compare-and-swap on collection metadata, so two bumps at the same instant can
lose one's change-log entry; a reader that was behind then misses those papers.
``--baseline DIR`` (a checkout of an earlier commit, e.g. `git worktree add /tmp/wt-base
bd51d02`) runs the same rounds with that code, interleaved, for a before/after in one run.
Saves bench/results/concurrent_writers.json.
"""

from __future__ import annotations

import argparse
import json
import os
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

from bench.ingest_peers import RESULTS, machine, read_records, write_jsonl  # noqa: E402
from bench.machine import save_result  # noqa: E402
from bench.scale.run import ChromaServer  # noqa: E402

READER = r"""
import json, sys, time
from pathlib import Path
try:
    from rag.index.connect import open_store
except ImportError:  # before open_store moved
    from rag.index.store import open_store
from rag.index.lexical import Bm25Params, LexicalIndex
from rag.index.sync import lexical_dir, sync_lexical
from rag.settings import load_settings

stop = Path(sys.argv[1])
settings = load_settings()
store = open_store(settings)
directory = lexical_dir(settings, store)
builds = 0
build = LexicalIndex.build.__func__
def counted(cls, *args, **kwargs):
    global builds
    builds += 1
    return build(cls, *args, **kwargs)
LexicalIndex.build = classmethod(counted)
index, syncs, generations = None, 0, set()
while not stop.exists():
    try:  # as a server's retriever checks, every refresh_seconds
        index = sync_lexical(store, directory, Bm25Params(), index, patient=True)
    except TypeError:  # before patient syncs
        index = sync_lexical(store, directory, Bm25Params(), index)
    syncs += 1
    generations.add(index.generation)
    time.sleep(0.05)
during = builds
index = sync_lexical(store, directory, Bm25Params(), index)  # at once: what it ends with
stored = {row.id for row in store.iter_papers(ordered=False)}
held = set(index.catalogue)
print(json.dumps({"syncs": syncs, "generations_seen": len(generations), "builds": builds,
                  "rebuilds_at_the_end": builds - during,
                  "stored": len(stored), "held": len(held), "missing": len(stored - held),
                  "extra": len(held - stored)}))
"""


def one_run(code: Path, files: Sequence[Path], work: Path) -> dict[str, Any]:
    """One round with the code in ``code``: a server, the reader, the writers."""
    server = ChromaServer(work / "chroma")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERCHAT_")}
    env |= {
        "PYTHONPATH": str(code),
        "PAPERCHAT_CHROMA_HOST": "127.0.0.1",
        "PAPERCHAT_CHROMA_PORT": str(server.port),
        "PAPERCHAT_CACHE_DIR": str(work / "cache"),
        "PAPERCHAT_EMBED_BATCH_SIZE": "8",  # 32 papers a batch, a bump each
        "ANONYMIZED_TELEMETRY": "False",
    }
    stop = work / "stop"
    try:
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(stop)],
            env=env | {"PAPERCHAT_DATA_DIR": str(work / "reader")},
            cwd=code, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(3)  # the reader has opened the store and built its (empty) index
        start = time.perf_counter()
        stand_in = str(code / "bench" / "no_inference.py")
        writers = [
            subprocess.Popen(
                [sys.executable, stand_in, "ingest", "--json", str(path)],
                env=env | {"PAPERCHAT_DATA_DIR": str(work / f"writer-{i}")},
                cwd=code,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for i, path in enumerate(files)
        ]
        added = 0
        for writer in writers:
            out, _ = writer.communicate(timeout=3600)
            if writer.returncode != 0:
                raise RuntimeError(f"a writer failed (rc {writer.returncode})")
            added += json.loads(out[out.rfind("\n{") + 1 :])["added"]
        wall = time.perf_counter() - start
        stop.touch()
        out, _ = reader.communicate(timeout=600)
        seen = json.loads(out.strip().splitlines()[-1])
    finally:
        server.stop()
    # The reader's first build is of the empty store, before the writers start.
    return {
        "added": added,
        "writers_wall_s": round(wall, 1),
        **seen,
        "rebuilds": seen["builds"] - 1,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, required=True, help="BEIR-style corpus.jsonl")
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--papers", type=int, default=1500, help="in all, split among writers")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="a checkout of earlier code to compare")
    parser.add_argument("--out", type=Path, default=RESULTS / "concurrent_writers.json")
    args = parser.parse_args(argv)

    records = read_records(args.corpus, args.papers)
    root = Path(tempfile.mkdtemp(prefix="paperchat-writers-"))
    files = []
    for i in range(args.writers):
        files.append(root / f"part-{i}.jsonl")
        write_jsonl(records[i :: args.writers], files[-1])
    codes = {"this code": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    runs: list[dict[str, Any]] = []
    for round_ in range(args.rounds):
        for name, code in codes.items():
            work = root / f"{name.replace(' ', '-')}-{round_}"
            work.mkdir()
            row = {"code": name, "round": round_} | one_run(code, files, work)
            runs.append(row)
            print(f"{name:10} round {round_}: {row['added']} added by {args.writers} writers in "
                  f"{row['writers_wall_s']} s; reader synced {row['syncs']} times, "
                  f"{row['generations_seen']} generations, rebuilt {row['rebuilds']} times "
                  f"({row['rebuilds_at_the_end']} at the end); "
                  f"misses {row['missing']} of {row['stored']} papers", flush=True)  # fmt: skip
    summary = {
        name: {
            "runs": sum(r["code"] == name for r in runs),
            "missing": [r["missing"] for r in runs if r["code"] == name],
            "rebuilds": [r["rebuilds"] for r in runs if r["code"] == name],
        }
        for name in codes
    }
    result = {"corpus": str(args.corpus), "writers": args.writers, "papers": args.papers,
              "summary": summary, "runs": runs, "machine": machine()}  # fmt: skip
    save_result(args.out, result, summary)


if __name__ == "__main__":
    main()
