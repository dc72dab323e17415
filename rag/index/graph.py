"""The MiniLM graphs the offline embedder can run, built from the packaged ONNX file.

The packaged graph's int8 weights are dequantised once (onnxruntime's basic optimisation
folds them into constants), the exporter's no-op NaN guards after each softmax are dropped,
LayerNorm/GELU are fused (onnxruntime's transformer optimizer, no torch needed), and every
MatMul except the FFN outputs is quantised to int8 x int8 (dynamic, per channel).
:class:`rag.index.minilm.OnnxMiniLM` builds its graph here once and caches the bytes.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError, EmbedderError

__all__ = ["GRAPHS", "GRAPH_RECIPE", "build_graph", "drop_nan_guards", "import_onnxruntime",
           "quantize_graph"]  # fmt: skip


def import_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise EmbedderError(
            "the offline embedder needs the package 'onnxruntime' (pip install onnxruntime)"
        ) from exc
    return onnxruntime


GRAPHS = ("shipped", "fused", "int8")
GRAPH_RECIPE = 2  # bump when build_graph changes what it makes
"""Graphs OnnxMiniLM can run. shipped: the packaged file as is (int8 weights, fp32 maths).
fused: weights dequantised once, NaN guards dropped, LayerNorm/GELU fused (fp32 maths,
same vectors).
int8: fused + int8 activations x int8 weights for every MatMul except the FFN outputs
(the one quantisation the vectors are sensitive to); see bench/embedder_study.py."""


def build_graph(kind: str, source: Path) -> bytes:
    """The ONNX graph of `kind` made from the packaged model file (needs onnx, and sympy)."""
    ort = import_onnxruntime()
    if kind == "shipped":
        return source.read_bytes()
    if kind not in GRAPHS:
        raise ConfigError(f"unknown MiniLM graph {kind!r}; choose one of {', '.join(GRAPHS)}")
    try:
        import onnx
        import sympy  # noqa: F401
        from onnxruntime.transformers.optimizer import optimize_model
    except ImportError as exc:
        raise EmbedderError(
            f"the {kind!r} MiniLM graph is built from the packaged model with the packages "
            "'onnx' and 'sympy' (pip install onnx sympy)"
        ) from exc
    with tempfile.TemporaryDirectory(prefix="paperchat-graph-") as tmp:
        folded = Path(tmp) / "folded.onnx"
        # ORT's basic level folds the int8 -> fp32 weight dequantisation into constants; the
        # transformer optimizer then fuses on that graph. Done this way it needs no torch.
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        unguarded = drop_nan_guards(onnx.load(str(folded)))
        onnx.save(unguarded, str(folded))
        fused = optimize_model(
            str(folded), model_type="bert", num_heads=12, hidden_size=384, opt_level=0
        ).model
        graph = fused if kind == "fused" else quantize_graph(fused, exclude_ffn_out=True)
        return bytes(graph.SerializeToString())


def drop_nan_guards(model: Any) -> Any:
    """The graph without its ``Where(IsNaN(p), 0, p)`` after each softmax.

    The exporter guards against rows whose every key is masked with -inf (softmax of those
    is NaN). This graph masks with float32's lowest finite value, never -inf, so a softmax
    here is never NaN and the guard passes its input through unchanged, at a cost of a
    fifth of the embedding time for 224-token chunks (two full passes over every
    [batch, heads, tokens, tokens] score tensor). Dropping it gives the same vectors, bit
    for bit (tests/test_embed.py). A graph holding a -inf constant keeps its guards."""
    from onnx import numpy_helper

    graph = model.graph
    constants = list(graph.initializer) + [
        attr.t for node in graph.node if node.op_type == "Constant" for attr in node.attribute
    ]
    if any(np.isneginf(numpy_helper.to_array(c)).any() for c in constants if c.data_type == 1):
        return model
    producer = {out: node for node in graph.node for out in node.output}
    bypass: dict[str, str] = {}
    dropped = []
    for node in graph.node:
        guard = producer.get(node.input[0]) if node.op_type == "Where" else None
        if guard is not None and guard.op_type == "IsNaN" and guard.input[0] == node.input[2]:
            bypass[node.output[0]] = node.input[2]
            dropped += [node, guard]
    for node in dropped:
        graph.node.remove(node)
    for node in graph.node:
        for k, name in enumerate(node.input):
            if name in bypass:
                node.input[k] = bypass[name]
    return model


def quantize_graph(model: Any, *, exclude_ffn_out: bool) -> Any:
    """Dynamic int8 quantisation, per output channel, of the MatMuls with constant weights."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    weights = {init.name: tuple(init.dims) for init in model.graph.initializer}
    exclude = []
    if exclude_ffn_out:
        # FFN output MatMuls (1536 -> 384) take the post-GELU activations, whose outliers
        # make per-tensor uint8 too coarse: quantising them costs most of the accuracy.
        exclude = [
            node.name
            for node in model.graph.node
            if node.op_type == "MatMul" and weights.get(node.input[1]) == (1536, 384)
        ]
    with tempfile.TemporaryDirectory(prefix="paperchat-quant-") as tmp:
        src, dst = Path(tmp) / "in.onnx", Path(tmp) / "out.onnx"
        onnx.save(model, str(src))
        # The quantiser logs advice ("consider pre-processing") on the root logger; a library
        # must not print, so that logger is hushed for this one call.
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)
        try:
            quantize_dynamic(
                str(src),
                str(dst),
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=exclude,
                extra_options={"MatMulConstBOnly": True},
            )
        finally:
            root.setLevel(level)
        return onnx.load(str(dst))
