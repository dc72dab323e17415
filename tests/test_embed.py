"""rag.index.embed: the offline MiniLM for real, and OpenAIEmbedder against a local fake server."""

from __future__ import annotations

import hashlib
import json
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rag.errors import ConfigError, EmbedderError
from rag.index.embed import OpenAIEmbedder, make_embedder
from rag.index.minilm import OnnxMiniLM

SENTENCES = [
    "PagedAttention stores the key-value cache in fixed-size blocks to cut memory waste.",
    "Photosynthesis converts light energy into chemical energy in chloroplasts.",
    "The vaccine reduced hospital admissions among elderly patients.",
    "Speculative decoding drafts tokens with a small model and verifies them in parallel.",
    "Glaciers in the Alps have lost a third of their volume since 1980.",
    "Mixture-of-experts layers route each token to a few feed-forward networks.",
]


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> OnnxMiniLM:
    # A module-wide cache dir: the int8 graph is built once (some seconds), then reused.
    return OnnxMiniLM(batch_size=4, cache_dir=tmp_path_factory.mktemp("embed-cache"))


def test_shapes_and_normalisation(minilm: OnnxMiniLM) -> None:
    vectors = minilm.embed_documents(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384) == (len(SENTENCES), minilm.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("memory of the KV cache")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_order_preserved_when_sorting_by_length(minilm: OnnxMiniLM) -> None:
    texts = [s * (1 + i % 3) for i, s in enumerate(SENTENCES)]  # varied lengths
    random.Random(7).shuffle(texts)
    together = minilm.embed_documents(texts)
    one_by_one = np.stack([minilm.embed_documents([t])[0] for t in texts])
    # Padding in a batch may move the int8 activation scale a little, never the order.
    cos = (together * one_by_one).sum(axis=1)
    assert cos.min() > 0.99
    assert (np.argmax(together @ one_by_one.T, axis=1) == np.arange(len(texts))).all()


def test_deterministic(minilm: OnnxMiniLM) -> None:
    first = minilm.embed_documents(SENTENCES)
    second = minilm.embed_documents(SENTENCES)
    np.testing.assert_array_equal(first, second)


def test_semantic_sanity(minilm: OnnxMiniLM) -> None:
    query = minilm.embed_query("KV cache memory for LLM serving")
    relevant, unrelated = minilm.embed_documents([SENTENCES[0], SENTENCES[1]])
    assert float(query @ relevant) > float(query @ unrelated) + 0.1


def test_count_tokens_includes_special_tokens(minilm: OnnxMiniLM) -> None:
    assert minilm.count_tokens([""]) == [2]  # [CLS] [SEP]
    assert minilm.count_tokens(["hello", "hello world"]) == [3, 4]
    assert minilm.count_tokens([]) == []
    long = " ".join(["word"] * 2000)
    assert minilm.count_tokens([long]) == [2002]  # no truncation when counting
    assert minilm.max_tokens == 256


def test_long_text_is_truncated_not_fatal(minilm: OnnxMiniLM) -> None:
    long = " ".join(f"token{i % 50} analysis" for i in range(1000))  # ~2,000 words
    vectors = minilm.embed_documents([long, "short"])
    assert vectors.shape == (2, 384)
    assert np.isfinite(vectors).all()


def test_empty_list(minilm: OnnxMiniLM) -> None:
    assert minilm.embed_documents([]).shape == (0, 384)


def test_graph_cache_is_reused(minilm: OnnxMiniLM) -> None:
    minilm.embed_documents(["warm"])
    assert minilm.cache_dir is not None
    cached = list(Path(minilm.cache_dir).glob("minilm-int8-*.onnx"))
    assert len(cached) == 1
    again = OnnxMiniLM(cache_dir=minilm.cache_dir)
    np.testing.assert_allclose(
        again.embed_documents(SENTENCES[:2]), minilm.embed_documents(SENTENCES[:2]), atol=1e-5
    )


def test_shipped_graph_agrees_with_int8_graph(minilm: OnnxMiniLM) -> None:
    shipped = OnnxMiniLM(graph="shipped").embed_documents(SENTENCES)
    cos = (shipped * minilm.embed_documents(SENTENCES)).sum(axis=1)
    assert cos.min() > 0.99


def test_built_graph_has_no_nan_guards(minilm: OnnxMiniLM) -> None:
    import onnx

    minilm.embed_documents(["warm"])
    assert minilm.cache_dir is not None
    (cached,) = Path(minilm.cache_dir).glob("minilm-int8-*.onnx")
    ops = {node.op_type for node in onnx.load(str(cached)).graph.node}
    assert "IsNaN" not in ops and "Softmax" in ops


def _softmax_graph(mask_value: float) -> Any:
    """scores + mask -> Softmax -> Where(IsNaN(p), 0, p) -> MatMul: the exporter's pattern."""
    from onnx import TensorProto, helper, numpy_helper

    mask = np.zeros((1, 4), dtype=np.float32)
    mask[0, 3] = mask_value
    nodes = [
        helper.make_node("Add", ["x", "mask"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),
        helper.make_node("MatMul", ["guarded", "v"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(mask, "mask"),
        numpy_helper.from_array(np.zeros((), dtype=np.float32), "zero"),
        numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(4, 2), "v"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: Any, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def test_dropping_nan_guards_keeps_every_output() -> None:
    from rag.index.graph import drop_nan_guards

    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32) * 50
    guarded = _softmax_graph(float(np.finfo(np.float32).min))
    before = _run(guarded, x)
    after = _run(drop_nan_guards(guarded), x)
    ops = [n.op_type for n in guarded.graph.node]
    assert ops == ["Add", "Softmax", "MatMul"]
    np.testing.assert_array_equal(after, before)


def test_minilm_without_its_nan_guards_gives_the_same_vectors_bit_for_bit(
    tmp_path: Path,
) -> None:
    import onnx

    from rag.index.graph import drop_nan_guards
    from rag.index.minilm import _MODEL_DIST, _MODEL_FILE, packaged_file

    shipped = packaged_file(_MODEL_DIST, _MODEL_FILE)
    unguarded = drop_nan_guards(onnx.load(str(shipped)))
    assert "IsNaN" not in {n.op_type for n in unguarded.graph.node}
    onnx.save(unguarded, str(tmp_path / "unguarded.onnx"))
    texts = [*SENTENCES, "short", " ".join(SENTENCES * 3)]  # padding, and a cut text
    before = OnnxMiniLM(graph="shipped", batch_size=3).embed_documents(texts)
    after = OnnxMiniLM(graph="shipped", batch_size=3, model_path=tmp_path / "unguarded.onnx")
    np.testing.assert_array_equal(after.embed_documents(texts), before)


def test_a_graph_masking_with_minus_infinity_keeps_its_guards() -> None:
    from rag.index.graph import drop_nan_guards

    model = drop_nan_guards(_softmax_graph(float("-inf")))
    ops = [n.op_type for n in model.graph.node]
    assert "IsNaN" in ops and "Where" in ops


def test_unknown_graph_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="shipped"):
        OnnxMiniLM(graph="fp64")


def test_import_is_cheap() -> None:
    code = (
        "import sys, rag.index.embed; "
        "heavy = [m for m in ('onnxruntime', 'openai', 'tokenizers', 'onnx') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------------------
# OpenAIEmbedder against a tiny deterministic OpenAI-compatible server


def fake_vector(text: str, dim: int = 8) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    return (np.random.default_rng(seed).normal(size=dim) * 3.0).tolist()  # not unit length


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.fail_next: list[int] = []  # status codes to answer with before succeeding
        self.delay = 0.0  # seconds each request takes
        self.in_flight = 0
        self.most_in_flight = 0
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if self.headers.get("Authorization") == "Bearer wrong":
                    return self.reply(401, {"error": {"message": "Incorrect API key provided"}})
                if body.get("model") == "missing":
                    return self.reply(404, {"error": {"message": "model not found"}})
                if owner.fail_next:
                    return self.reply(owner.fail_next.pop(0), {"error": {"message": "boom"}})
                with lock:
                    owner.in_flight += 1
                    owner.most_in_flight = max(owner.most_in_flight, owner.in_flight)
                time.sleep(owner.delay)
                with lock:
                    owner.in_flight -= 1
                inputs = body["input"]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t)}
                    for i, t in enumerate(inputs)
                ]
                data.reverse()  # servers may answer out of order; index is what counts
                self.reply(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def reply(self, status: int, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.close()


def embedder(server: FakeServer, **kwargs: object) -> OpenAIEmbedder:
    options: dict = {
        "model": "fake-embed",
        "base_url": server.url,
        "api_key": "sk-test",
        "timeout": 5.0,
        "batch_size": 3,
    }
    options.update(kwargs)
    return OpenAIEmbedder(**options)


def test_openai_batching_order_normalisation(server: FakeServer) -> None:
    texts = [f"text number {i}" for i in range(7)]
    vectors = embedder(server).embed_documents(texts)
    assert vectors.shape == (7, 8) and vectors.dtype == np.float32
    assert sorted(len(r["body"]["input"]) for r in server.requests) == [1, 3, 3]
    assert all(
        r["path"] == "/v1/embeddings" and r["auth"] == "Bearer sk-test" for r in server.requests
    )
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    expected = np.array([fake_vector(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-5)


def test_openai_batches_go_concurrently_in_order(server: FakeServer) -> None:
    server.delay = 0.2
    texts = [f"text number {i}" for i in range(24)]
    vectors = embedder(server, concurrency=4).embed_documents(texts)
    assert server.most_in_flight == 4  # 8 requests of 3, four at a time
    expected = np.array([fake_vector(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-5)  # order kept


def test_openai_concurrency_one_is_one_request_at_a_time(server: FakeServer) -> None:
    server.delay = 0.05
    embedder(server, concurrency=1).embed_documents([f"t{i}" for i in range(9)])
    assert server.most_in_flight == 1 and len(server.requests) == 3


def test_openai_failure_in_one_concurrent_batch_is_raised(server: FakeServer) -> None:
    server.fail_next = [400]
    with pytest.raises(EmbedderError):
        embedder(server, concurrency=4, max_retries=0).embed_documents([f"t{i}" for i in range(12)])


def test_openai_dim_and_query(server: FakeServer) -> None:
    emb = embedder(server)
    assert emb.dim == 8  # learnt from a probe call
    query = emb.embed_query("hello")
    assert query.shape == (8,)
    assert emb.name == "openai-fake-embed"
    assert emb.embed_documents([]).shape == (0, 8)


def test_openai_401_names_the_key(server: FakeServer) -> None:
    with pytest.raises(EmbedderError, match="OPENAI_API_KEY"):
        embedder(server, api_key="wrong").embed_documents(["x"])


def test_openai_404_names_the_model(server: FakeServer) -> None:
    with pytest.raises(EmbedderError, match="PAPERCHAT_EMBED_MODEL"):
        embedder(server, model="missing").embed_documents(["x"])


def test_openai_500_then_success_is_retried(server: FakeServer) -> None:
    server.fail_next = [500]
    vectors = embedder(server).embed_documents(["a", "b"])
    assert vectors.shape == (2, 8)
    assert len(server.requests) == 2


def test_openai_persistent_500_is_an_embedder_error(server: FakeServer) -> None:
    server.fail_next = [503] * 5
    with pytest.raises(EmbedderError, match="HTTP 503"):
        embedder(server, max_retries=1).embed_documents(["a"])


def test_openai_dead_port_is_a_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    emb = OpenAIEmbedder(
        model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k", timeout=2.0, max_retries=0
    )
    with pytest.raises(EmbedderError, match=r"cannot reach .* OPENAI_BASE_URL"):
        emb.embed_documents(["x"])


# --------------------------------------------------------------------------------------
# make_embedder


def test_make_embedder_offline_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.settings import Settings

    monkeypatch.chdir(tmp_path)  # no stray .env
    settings = Settings(data_dir=tmp_path, embed_threads=1, embed_batch_size=8)
    emb = make_embedder(settings)
    assert isinstance(emb, OnnxMiniLM)
    assert (emb.name, emb.threads, emb.batch_size) == ("minilm-int8", 1, 8)
    assert emb.name == settings.embedder_id


def test_make_embedder_openai(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.settings import Settings

    monkeypatch.chdir(tmp_path)
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "PAPERCHAT_OPENAI_API_KEY",
        "PAPERCHAT_OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match=r"OPENAI_API_KEY.*PAPERCHAT_EMBEDDER"):
        make_embedder(Settings(embedder="openai"))
    emb = make_embedder(
        Settings(
            embedder="openai",
            openai_base_url="http://127.0.0.1:9/v1",
            embed_model="nomic",
            embed_batch_size=5,
        )
    )
    assert isinstance(emb, OpenAIEmbedder)
    assert (emb.name, emb.batch_size, emb.base_url) == ("openai-nomic", 5, "http://127.0.0.1:9/v1")
    assert emb.name == Settings(embedder="openai", embed_model="nomic").embedder_id


def test_cached_embedder_embeds_each_text_once_and_forgets_the_oldest() -> None:
    from rag.index.embed import CachedEmbedder
    from tests.fakes import HashEmbedder

    inner = HashEmbedder()
    cached = CachedEmbedder(inner, max_items=3)
    first = cached.embed_documents(["a b", "c d", "a b"])
    assert inner.calls == [2] and first.shape == (3, 64)  # the new texts in one call
    assert np.array_equal(first[0], first[2]) and np.array_equal(
        first, inner.embed_documents(["a b", "c d", "a b"])
    )
    inner.calls.clear()
    again = cached.embed_documents(["c d", "e f"])
    assert inner.calls == [1] and np.array_equal(again[0], first[1])  # only "e f" was new
    cached.embed_documents(["g h"])  # 4 texts: the least recently used ("a b") goes
    inner.calls.clear()
    cached.embed_documents(["c d", "e f", "g h"])
    assert inner.calls == []
    cached.embed_documents(["a b"])
    assert inner.calls == [1]
    assert cached.embed_documents([]).shape == (0, 64)
    assert np.array_equal(cached.embed_query("x y"), inner.embed_query("x y"))
    inner.calls.clear()
    cached.embed_query("x y")  # the same query again: remembered
    assert inner.calls == []


def test_a_remembered_vector_does_not_depend_on_what_was_embedded_with_it(
    minilm: OnnxMiniLM,
) -> None:
    """The answer path's embedder embeds each sentence alone: the int8 model quantises its
    activations over what it embeds at once, so a sentence embedded in a batch got another
    vector than alone, and the one remembered depended on the questions asked before."""
    from rag.index.embed import CachedEmbedder

    text = "We ran a cluster-randomised trial in 40 villages."
    others = ["Large language models have had a profound impact on industry. " * 5,
              "Participants were 1,099 women."]  # fmt: skip
    alone = CachedEmbedder(minilm).embed_documents([text])[0]
    together = CachedEmbedder(minilm).embed_documents([*others, text])[-1]
    assert np.array_equal(alone, together)
    assert not np.array_equal(together, minilm.embed_documents([*others, text])[-1])


def test_batches_are_bounded_in_padded_tokens() -> None:
    from rag.index.minilm import length_sorted_batches

    rng = random.Random(3)
    lengths = [rng.randint(1, 256) for _ in range(500)]
    batches = length_sorted_batches(lengths, batch_size=32, max_tokens=2048)
    flat = sorted(int(i) for b in batches for i in b)
    assert flat == list(range(500))  # every text once
    for batch in batches:
        widest = max(lengths[i] for i in batch)
        assert len(batch) <= 32
        assert len(batch) * widest <= 2048 or len(batch) == 1
    # Short texts (queries, sentences) still go 32 at a time; full chunks 8 at a time.
    assert [len(b) for b in length_sorted_batches([20] * 64, 32, 2048)] == [32, 32]
    assert [len(b) for b in length_sorted_batches([256] * 16, 32, 2048)] == [8, 8]
    assert [len(b) for b in length_sorted_batches([5000], 32, 2048)] == [1]
