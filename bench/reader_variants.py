"""What one (question, sentence) pair costs the shipped readers under other onnxruntime
settings or graphs, side by side in one run: where a review table's time goes (issue #45).

A table reads each of its pairs alone, one ONNX run per pair (``rag.answer.reader``), so its
time is its pairs times this cost. The pairs are the five preset columns' questions against
the sample's sentences; each variant reads all of them once per round, the variants
alternating, and the median round counts (a ratio survives a noisy machine).

    python bench/reader_variants.py [--model table|answers] [--rounds 3] [--fp32 FILE]

Variants: the shipped session (one thread, no memory arena, all graph optimisations), with
the arena, with only the extended or basic optimisations, with two threads, and, given
``--fp32`` (the export ``bench/train_reader.py`` quantises, left in a temporary folder), the
fp32 graph itself and that graph fused by onnxruntime's transformer optimizer and then
quantised the same way. Saves bench/results/reader_variants.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu_model, save_result  # noqa: E402
from rag.answer import reader as R  # noqa: E402
from rag.answer.table import columns  # noqa: E402
from rag.index.graph import import_onnxruntime  # noqa: E402
from rag.index.minilm import load_tokenizer, session_options  # noqa: E402
from rag.sentences import split_sentences  # noqa: E402

COLUMNS = ["Method", "Data set", "Main result", "Sample size", "Limitations"]


def pairs(limit: int) -> list[dict[str, Any]]:
    """The five columns' questions against the sample's sentences, tokenised as the reader
    tokenises them (one pair per feed)."""
    questions = [c.question for c in columns(COLUMNS)]
    sentences = [
        s
        for f in sorted((ROOT / "data" / "sample").glob("*.txt"))
        for s in split_sentences(f.read_text(encoding="utf-8").split("\n\n", 2)[-1])
        if len(s.split()) >= 6
    ]
    tokenizer = load_tokenizer()
    tokenizer.enable_truncation(R.MAX_TOKENS, strategy="only_second")
    asked = [(questions[i % len(questions)], s) for i, s in enumerate(sentences[:limit])]
    return [
        {
            "input_ids": np.asarray([e.ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(e.ids)), dtype=np.int64),
            "token_type_ids": np.asarray([e.type_ids], dtype=np.int64),
        }
        for e in tokenizer.encode_batch(asked)
    ]


def fused(fp32: Path, out: Path) -> Path:
    """``fp32`` fused by onnxruntime's transformer optimizer (BERT: 12 heads, 384 wide),
    then quantised to int8 weights as bench/train_reader.py does."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    graph = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=12, hidden_size=384)
    graph.save_model_to_file(str(out.with_suffix(".fp32.onnx")))
    quantize_dynamic(
        str(out.with_suffix(".fp32.onnx")), str(out), weight_type=QuantType.QInt8,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["table", "answers"], default="table")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=240, help="pairs read per variant and round")
    ap.add_argument("--fp32", type=Path, help="the reader's fp32 export, to compare graphs")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/reader_variants.json")
    args = ap.parse_args()

    ort = import_onnxruntime()
    model = R.READER_DIR / ("table/model.onnx" if args.model == "table" else "model.onnx")
    feeds = pairs(args.pairs)

    def options(threads: int = 1, arena: bool = False, level: Any = None) -> Any:
        o = session_options(threads=threads)
        o.enable_cpu_mem_arena = arena
        if level is not None:
            o.graph_optimization_level = level
        return o

    levels = ort.GraphOptimizationLevel
    variants: dict[str, tuple[Path, Any]] = {
        "shipped (1 thread, no arena, all optimisations)": (model, options()),
        "with the memory arena": (model, options(arena=True)),
        "extended optimisations only": (model, options(level=levels.ORT_ENABLE_EXTENDED)),
        "basic optimisations only": (model, options(level=levels.ORT_ENABLE_BASIC)),
        "two threads": (model, options(threads=2)),
    }  # fmt: skip
    scratch = Path(tempfile.mkdtemp())
    if args.fp32:
        variants["fp32 (not quantised)"] = (args.fp32, options())
        variants["fused, then int8"] = (fused(args.fp32, scratch / "fused.onnx"), options())
    sessions = {
        name: ort.InferenceSession(str(path), sess_options=o, providers=["CPUExecutionProvider"])
        for name, (path, o) in variants.items()
    }
    times: dict[str, list[float]] = {name: [] for name in sessions}
    scores: dict[str, np.ndarray] = {}
    for session in sessions.values():
        session.run(["logits"], feeds[0])  # loaded and warm
    for _ in range(args.rounds):
        for name, session in sessions.items():
            clock = time.perf_counter()
            out = [float(np.asarray(session.run(["logits"], f)[0]).ravel()[0]) for f in feeds]
            times[name].append((time.perf_counter() - clock) / len(feeds) * 1000)
            scores[name] = np.asarray(out)
    shipped = scores[next(iter(scores))]
    rows = {
        name: {
            "ms_per_pair": round(statistics.median(t), 3),
            "runs_ms": [round(x, 3) for x in t],
            "max_score_change": round(float(np.abs(scores[name] - shipped).max()), 3),
        }
        for name, t in times.items()
    }
    tokens = [int(f["input_ids"].shape[1]) for f in feeds]
    result = {
        "model": str(model.relative_to(ROOT)),
        "pairs": len(feeds),
        "mean_tokens": round(float(np.mean(tokens)), 1),
        "rounds": args.rounds,
        "cpu": cpu_model(),
        "onnxruntime": ort.__version__,
        "variants": rows,
    }
    save_result(args.out, result, {k: v["ms_per_pair"] for k, v in rows.items()})


if __name__ == "__main__":
    main()
