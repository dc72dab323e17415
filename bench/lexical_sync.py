"""Adding 100 papers and deleting one, end to end through the store, on a large library.

    python bench/lexical_sync.py --corpus ../shared/bench/scifact/corpus.jsonl \\
        --size 100000 --work /tmp/lexwork/sync

An embedded Chroma store is filled to ``--size`` chunks with synthetic papers
(bench/scale/synth.py; the vectors are random unit vectors: only time is measured here),
written with the product's ``Store.write`` and its lexical index built as the first
``Retriever.refresh`` does. Then, as `paperchat ingest` and `paperchat remove` do:

- 100 new papers (~230 chunks, vectors given: embedding time excluded) through
  ``Store.write``, then ``Retriever.refresh`` (the lexical index catches up in place);
- one paper through ``Store.remove``, then ``Retriever.refresh``.

Each phase's seconds are reported apart: the store's write, the lexical catch-up.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.scale.synth import Anchor, Synthesizer  # noqa: E402
from rag.index.connect import open_store  # noqa: E402
from rag.retrieve import Retriever, lexical_dir  # noqa: E402
from rag.settings import load_settings  # noqa: E402

BATCH = 4000  # chunks per Store.write while filling


def _anchors(corpus: Path, dim: int = 384) -> list[Anchor]:
    rng = np.random.default_rng(0)
    out = []
    with corpus.open() as fh:
        for line in fh:
            r = json.loads(line)
            v = rng.normal(size=dim).astype(np.float32)
            out.append(Anchor(f"{r.get('title', '')}\n{r['text']}", v / np.linalg.norm(v)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/lexwork/sync"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    settings = load_settings(data_dir=args.work / f"data-{args.size}", chroma_host="")
    store = open_store(settings)
    synth = Synthesizer(_anchors(args.corpus))
    out: dict[str, Any] = {"chunks_target": args.size}
    t = time.perf_counter()
    if store.count_chunks() < args.size:
        store.reset()
        batch: list[Any] = []
        vectors: list[np.ndarray] = []
        for paper, chunks, vecs in synth.papers(args.size):
            batch.append((paper, chunks))
            vectors.append(vecs)
            if sum(len(c) for _, c in batch) >= BATCH:
                store.write(batch, np.concatenate(vectors))
                batch, vectors = [], []
        if batch:
            store.write(batch, np.concatenate(vectors))
        out["fill_s"] = round(time.perf_counter() - t, 1)
    out["chunks"] = store.count_chunks()
    retriever = Retriever(store, None, index_dir=lexical_dir(settings, store))  # type: ignore[arg-type]
    t = time.perf_counter()
    index = retriever.refresh()
    out["papers"] = len(index)
    out["first_refresh_s"] = round(time.perf_counter() - t, 2)  # a build, or a load

    # Chroma reads the collection's vector index from disk on its first query or write: a
    # fresh `paperchat ingest` into a large library pays this once (timed apart here).
    t = time.perf_counter()
    store.query(np.eye(1, 384, dtype=np.float32)[0], n=1)
    out["open_vector_index_s"] = round(time.perf_counter() - t, 2)

    new = [synth.paper(10**7 + i) for i in range(100)]
    t = time.perf_counter()
    store.write([(p, c) for p, c, _ in new], np.concatenate([v for _, _, v in new]))
    written = time.perf_counter()
    index = retriever.refresh()
    phases = {k: round(v, 3) for k, v in index.timings.items()}
    out["add100"] = {"chunks": sum(len(c) for _, c, _ in new),
                     "store_write_s": round(written - t, 3),
                     "lexical_refresh_s": round(time.perf_counter() - written, 3),
                     "lexical_apply_phases_s": phases}  # fmt: skip
    assert all(p.id in index.catalogue for p, _, _ in new)

    victim = index.paper_ids[len(index) // 2]
    t = time.perf_counter()
    store.remove([victim])
    removed = time.perf_counter()
    index = retriever.refresh()
    phases = {k: round(v, 3) for k, v in index.timings.items()}
    out["delete1"] = {"store_remove_s": round(removed - t, 3),
                      "lexical_refresh_s": round(time.perf_counter() - removed, 3),
                      "lexical_apply_phases_s": phases}  # fmt: skip
    assert victim not in index.catalogue
    out["papers_after"] = len(index)
    print(json.dumps(out))
    if args.out:
        old = json.loads(args.out.read_text()) if args.out.exists() else {}
        old[f"through the store, {args.size} chunks"] = out
        args.out.write_text(json.dumps(old, indent=1))


if __name__ == "__main__":
    main()
