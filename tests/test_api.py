"""The server over a real socket: every endpoint, streaming, auth on and off, the 4xx cases,
the official openai client and gradio's OpenAI chat loader against /v1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from rag.answer.prompts import NO_ANSWER
from rag.settings import load_settings
from tests.conftest import free_port, ingested_sample
from ui.http.server import check_bind, create_app

pytestmark = pytest.mark.integration

KEY = "pc-test-key-7d1e0c"
QUESTION = "How does KCache reduce the memory overhead of the KV cache?"


class Server:
    """uvicorn serving our app in a thread, on a free loopback port."""

    def __init__(self, data_dir: Path, **settings: object) -> None:
        app = create_app(load_settings(data_dir=data_dir, **settings))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def sample_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "api-index")


@pytest.fixture(scope="module")
def open_server(sample_data: Path) -> Iterator[str]:
    with Server(sample_data) as server:
        yield server.url


@pytest.fixture(scope="module")
def keyed_server(sample_data: Path) -> Iterator[str]:
    with Server(sample_data, api_key=KEY) as server:
        yield server.url


def _events(response: httpx.Response) -> list[tuple[str, dict]]:
    out = []
    for block in response.text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


# -- JSON API --------------------------------------------------------------------------------


def test_healthz(open_server: str, tmp_path: Path) -> None:
    health = httpx.get(f"{open_server}/healthz").json()
    assert health["status"] == "ok" and health["index_loaded"] and health["papers"] == 32
    assert health["embedder"] == "minilm-int8" and health["llm"]["mode"] == "extractive"
    assert "hint" not in health
    with Server(tmp_path / "empty") as empty:
        health = httpx.get(f"{empty.url}/healthz").json()
        assert health["papers"] == 0 and "paperchat ingest data/sample" in health["hint"]
        assert httpx.get(empty.url + "/").status_code == 200  # the UI says so too


def test_search(open_server: str) -> None:
    body = {"query": "request scheduling across LLM serving instances", "k": 3}
    hits = httpx.post(f"{open_server}/api/search", json=body).json()["hits"]
    assert len(hits) == 3 and hits[0]["label"] == "Llumnix"
    filtered = {"query": "KV cache memory", "filters": {"author": "qiaozhi"}}
    hits = httpx.post(f"{open_server}/api/search", json=filtered).json()["hits"]
    assert [h["label"] for h in hits] == ["KCache"]


def test_ask_json_and_refusal(open_server: str) -> None:
    out = httpx.post(f"{open_server}/api/ask", json={"question": QUESTION}, timeout=30).json()
    assert not out["refused"] and out["mode"] == "extractive" and out["errors"] == []
    assert out["citations"][0]["label"] == "KCache" and out["citations"][0]["quote"]
    assert "[1]" in out["answer"] and len(out["sources"]) >= len(out["citations"])
    # The contract: the answer's sentences in order, each with its markers' numbers; an
    # extractive answer's quoted sentences are all supported.
    sentences = out["sentences"]
    assert sentences and all(s["supported"] for s in sentences)
    cited = {n for s in sentences for n in s["citations"]}
    assert cited == set(range(1, len(out["citations"]) + 1))
    off = httpx.post(f"{open_server}/api/ask", json={"question": "Who painted the Mona Lisa?"})
    assert off.json()["refused"] and off.json()["answer"] == NO_ANSWER
    assert off.json()["citations"] == []


def test_ask_streams_events(open_server: str) -> None:
    history = [
        {"role": "user", "content": "What is KCache?"},
        {"role": "assistant", "content": "A KV cache method [1].", "cited": ["KCache"]},
    ]
    body = {"question": QUESTION, "stream": True, "history": history}
    with httpx.stream("POST", f"{open_server}/api/ask", json=body, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        response.read()
    events = _events(response)
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "final" and kinds.count("delta") >= 2
    final = events[-1][1]
    assert "".join(d["text"] for k, d in events if k == "delta") == final["answer"]
    assert final["citations"][0]["label"] == "KCache"
    assert final["sentences"] and final["removed_sentences"] == []


def test_papers_are_paged(open_server: str) -> None:
    page = httpx.get(f"{open_server}/api/papers", params={"offset": 30, "limit": 5}).json()
    assert page["total"] == 32 and len(page["papers"]) == 2 and page["offset"] == 30
    first = httpx.get(f"{open_server}/api/papers", params={"limit": 32}).json()["papers"]
    assert len({p["paper_id"] for p in first}) == 32
    assert httpx.get(f"{open_server}/api/papers", params={"limit": 0}).status_code == 422


@pytest.mark.parametrize(
    ("path", "payload", "status", "says"),
    [
        ("/api/ask", b"{not json", 422, "JSON"),
        ("/api/ask", {"question": ""}, 422, "question"),
        ("/api/ask", {"question": "   "}, 422, "empty"),
        ("/api/ask", {"question": "x" * 2001}, 413, "PAPERCHAT_MAX_QUESTION_CHARS"),
        ("/api/ask", {"question": "q", "k": 0}, 422, "k"),
        ("/api/ask", {"question": "q", "surprise": 1}, 422, "surprise"),
        ("/api/ask", {"question": "q", "filters": {"year_from": "soon"}}, 422, "year_from"),
        ("/api/ask", {"question": "q", "history": [{"role": "robot", "content": "x"}]}, 422,
         "role"),
        ("/api/search", {"query": "q", "mode": "psychic"}, 422, "mode"),
        ("/api/search", {"query": "x" * 1_100_000}, 413, "MB"),
        ("/api/ingest", {"files": "none"}, 422, "files"),
        ("/v1/chat/completions", {"messages": []}, 422, "messages"),
        ("/v1/chat/completions", {"messages": [{"role": "assistant", "content": "hi"}]}, 422,
         "last message"),
        ("/api/nowhere", {}, 404, "Not Found"),
    ],
)  # fmt: skip
def test_bad_requests_get_a_json_4xx(
    open_server: str, path: str, payload: object, status: int, says: str
) -> None:
    content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    r = httpx.post(
        open_server + path, content=content, headers={"content-type": "application/json"}
    )
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert says in error["message"] and error["type"] == "invalid_request_error"


def test_llm_openai_without_a_key_is_a_clear_400(open_server: str) -> None:
    r = httpx.post(f"{open_server}/api/ask", json={"question": QUESTION, "llm": "openai"})
    assert r.status_code == 400 and "OPENAI_API_KEY" in r.json()["error"]["message"]


# -- ingest by upload ------------------------------------------------------------------------


def test_ingest_uploads(tmp_path: Path) -> None:
    good = {"id": "up1", "title": "Speculative decoding for small servers",
            "abstract": "We speed up LLM decoding on small servers with a draft model.",
            "authors": ["Ada Byron"], "year": 2025}  # fmt: skip
    lines = [json.dumps(good), "{truncated", json.dumps(good | {"id": "up2", "title": "Other"})]
    jsonl = "\n".join(lines).encode()
    with Server(tmp_path / "data", max_upload_mb=0.01) as server:
        files = [
            ("files", ("../../evil/papers.jsonl", jsonl, "application/jsonl")),
            ("files", ("blob.jsonl", b"\x00\xff\x00binary", "application/octet-stream")),
        ]
        report = httpx.post(f"{server.url}/api/ingest", files=files, timeout=60).json()
        assert report["added"] == 2 and not report["ok"]
        sources = {s["source"] for s in report["skipped"]}
        assert "../../evil/papers.jsonl" in sources  # named as the client named it
        stored = Path(report["stored_as"]["../../evil/papers.jsonl"])  # no server path shown
        assert not stored.is_absolute() and (tmp_path / "data" / stored).is_file()
        assert stored.is_relative_to("uploads") and stored.name == "papers.jsonl"
        assert "blob.jsonl" not in report["stored_as"]  # nothing of it stored: not kept
        hits = httpx.post(f"{server.url}/api/search", json={"query": "speculative decoding"})
        assert hits.json()["hits"][0]["paper_id"] == "up1"
        assert httpx.get(f"{server.url}/healthz").json()["papers"] == 2
        again = httpx.post(f"{server.url}/api/ingest", files=files[:1], timeout=60).json()
        assert again["unchanged"] == 2 and again["added"] == 0
        big = [("files", ("big.jsonl", b"x" * 20_000, "application/jsonl"))]
        r = httpx.post(f"{server.url}/api/ingest", files=big)
        assert r.status_code == 413 and "PAPERCHAT_MAX_UPLOAD_MB" in r.json()["error"]["message"]
        assert httpx.get(f"{server.url}/healthz").json()["papers"] == 2  # nothing lost


# -- auth -------------------------------------------------------------------------------------


def test_auth(keyed_server: str) -> None:
    ask = {"question": QUESTION}
    for headers in ({}, {"authorization": "Bearer wrong-key"}, {"authorization": KEY}):
        r = httpx.post(f"{keyed_server}/api/ask", json=ask, headers=headers)
        assert r.status_code == 401 and "PAPERCHAT_API_KEY" in r.json()["error"]["message"]
        assert "wrong-key" not in r.text
    assert httpx.get(f"{keyed_server}/v1/models").status_code == 401
    good = {"authorization": f"Bearer {KEY}"}
    assert httpx.post(f"{keyed_server}/api/ask", json=ask, headers=good, timeout=30).is_success
    assert httpx.get(f"{keyed_server}/healthz").is_success  # health stays open
    # The UI asks for a login; the key is the password.
    login = httpx.post(f"{keyed_server}/login", data={"username": "me", "password": "nope"})
    assert login.status_code >= 400
    login = httpx.post(f"{keyed_server}/login", data={"username": "me", "password": KEY})
    assert login.is_success


def test_no_key_means_loopback_only() -> None:
    from rag.errors import ConfigError

    check_bind("127.0.0.1", load_settings())
    check_bind("::1", load_settings())
    with pytest.raises(ConfigError, match="PAPERCHAT_API_KEY"):
        check_bind("0.0.0.0", load_settings())
    check_bind("0.0.0.0", load_settings(api_key=KEY))


# -- OpenAI-compatible --------------------------------------------------------------------------


def test_the_openai_client_works_unchanged(keyed_server: str) -> None:
    import openai

    client = openai.OpenAI(base_url=f"{keyed_server}/v1", api_key=KEY)
    assert [m.id for m in client.models.list()] == ["paperchat", "paperchat-extractive"]
    only_he = {"filters": {"author": "Qiaozhi"}}
    reply = client.chat.completions.create(
        model="paperchat", messages=[{"role": "user", "content": QUESTION}], extra_body=only_he
    )
    content = reply.choices[0].message.content
    citations = reply.model_extra["citations"]
    assert "[1]" in content and citations[0]["label"] == "KCache" and citations[0]["n"] == 1
    assert reply.model_extra["paperchat"]["mode"] == "extractive"

    stream = client.chat.completions.create(
        model="paperchat", stream=True, messages=[{"role": "user", "content": QUESTION}],
        extra_body=only_he,
    )  # fmt: skip
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == content  # the streamed text is the checked answer
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and last.model_extra["citations"] == citations
    assert all("Qiaozhi He" in c["authors"] for c in citations)  # the filter was applied

    off = client.chat.completions.create(
        model="paperchat", messages=[{"role": "user", "content": "Who won the 2018 World Cup?"}]
    )
    assert off.choices[0].message.content == NO_ANSWER and off.model_extra["citations"] == []
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{keyed_server}/v1", api_key="nope").models.list()


def test_gradios_openai_chat_loader_works_unchanged(keyed_server: str) -> None:
    import gradio as gr

    demo = gr.load_chat(f"{keyed_server}/v1", model="paperchat", token=KEY)
    replies = list(demo.fn(QUESTION, []))
    assert len(replies) >= 2 and "[1]" in replies[-1]
    # gradio keeps history as content parts; the server joins them back into text
    history = [
        {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
        {"role": "assistant", "content": [{"type": "text", "text": replies[-1]}]},
    ]
    follow = list(demo.fn("and how much does it improve throughput?", history))[-1]
    assert "KCache" in follow or "[1]" in follow
