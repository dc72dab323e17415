"""`paperchat` with the embedder's ONNX inference replaced by a stand-in (bench only).

    python bench/no_inference.py ingest --json corpus.jsonl

Everything else is the product as shipped: parsing, chunking, WordPiece tokenization,
length-sorted batches bounded in tokens, sentence-span pooling, int8 packing, Chroma writes,
the lexical index. Only ``OnnxMiniLM._run`` (one padded batch through the graph) returns
seeded random hidden states of the same shape, and the graph is never loaded. For measuring
how the rest of an ingest's memory grows with the corpus (bench/ingest_memory.py
``--no-inference``) at sizes real embedding would take hours to reach on 2 cores; the
embedder's own peak is bounded by PAPERCHAT_EMBED_BATCH_TOKENS and measured apart.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.index.minilm import OnnxMiniLM


def _stand_in(self: OnnxMiniLM, ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = min(max(len(x) for x in ids), self.max_tokens)
    rng = np.random.default_rng(sum(len(x) for x in ids))
    hidden = rng.standard_normal((len(ids), width, self.dim), dtype=np.float32)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, seq in enumerate(ids):
        mask[row, : min(len(seq), width)] = 1
    return hidden, mask


if __name__ == "__main__":
    OnnxMiniLM._run = _stand_in  # type: ignore[method-assign]
    from ui.cli.main import main

    raise SystemExit(main(sys.argv[1:]))
