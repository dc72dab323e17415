"""Hardening of the HTTP faces (issue #16), in process with fakes: Host and cross-site
checks, security headers, 413 for chunked bodies, 400 for lone surrogates, weak keys, the
failed-key limit, /healthz without the key, the bounded work queue, no server paths in
ingest errors. The frozen Chroma server is in tests/test_hardening_server.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from rag.engine import Engine
from rag.errors import ConfigError
from rag.index.connect import open_store
from rag.settings import load_settings
from tests.fakes import HashEmbedder
from ui.app import App
from ui.http.api import create_api
from ui.http.work import WorkLimit

KEY = "pc-test-key-7d1e0c"  # 18 characters, as in tests/test_api.py
ABSTRACT = (
    "KCache keeps the KV cache on the CPU and saves GPU memory during inference. "
    "Experiments show forty percent higher throughput than the baseline."
)
LOCAL = "http://127.0.0.1:7860"


def _app(**settings: object) -> App:
    s = load_settings(min_relevance=0.0, **settings)
    return App.around(Engine(s, store=open_store(s), embedder=HashEmbedder(), chat=None))


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_api(_app()), base_url=LOCAL) as c:
        yield c


@pytest.fixture
def keyed() -> Iterator[TestClient]:
    with TestClient(create_api(_app(api_key=KEY)), base_url=LOCAL) as c:
        yield c


# -- 4. a keyless server on loopback, reached from web pages ----------------


def test_other_host_names_are_refused(client: TestClient) -> None:
    """DNS rebinding: a page on attacker.example resolving to 127.0.0.1 sends its own Host."""
    r = client.get("/api/papers", headers={"host": "attacker.example:7860"})
    assert r.status_code == 400 and "PAPERCHAT_ALLOWED_HOSTS" in r.json()["error"]["message"]
    for host in ("127.0.0.1:7860", "localhost:7860", "[::1]:7860", "localhost"):
        assert client.get("/api/papers", headers={"host": host}).status_code == 200, host


def test_allowed_hosts_extend_the_loopback_names() -> None:
    with TestClient(create_api(_app(allowed_hosts="papers.lab.example")), base_url=LOCAL) as c:
        assert c.get("/api/papers", headers={"host": "papers.lab.example"}).status_code == 200
        assert c.get("/api/papers", headers={"host": "other.example"}).status_code == 400


def test_cross_site_writes_are_refused(client: TestClient, tmp_path: Path) -> None:
    upload = {"files": ("p.jsonl", json.dumps({"abstract": ABSTRACT}) + "\n")}
    for headers in (
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"origin": "http://localhost:8080"},  # another local site
    ):
        r = client.post("/api/ingest", files=upload, headers=headers)
        assert r.status_code == 403, headers
        assert r.json()["error"]["code"] == "cross_site"
        r = client.post("/api/ask", json={"question": "What is KCache?"}, headers=headers)
        assert r.status_code == 403, headers
        r = client.post("/gradio_api/upload", files=upload, headers=headers)
        assert r.status_code == 403, headers
    assert client.get("/api/papers").json()["total"] == 0  # nothing was stored
    # The server's own pages and clients that are not browsers may write.
    same = {"origin": LOCAL, "sec-fetch-site": "same-origin"}
    assert client.post("/api/ingest", files=upload, headers=same).json()["added"] == 1
    assert client.post("/api/ingest", files=upload).json()["unchanged"] == 1


def test_every_response_forbids_framing_and_sniffing(client: TestClient) -> None:
    for r in (
        client.get("/api/papers"),
        client.post("/api/search", json={"query": ""}),
        client.get("/nope"),
        client.get("/api/papers", headers={"host": "evil.example"}),
    ):
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"


# -- 7. malformed text and oversize bodies ----------------


def test_lone_surrogates_are_400_not_500(client: TestClient) -> None:
    raw = '{"model": "paperchat", "messages": [{"role": "user", "content": "KV \\ud800 cache"}]}'
    r = client.post(
        "/v1/chat/completions", content=raw, headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_text"
    parts = '{"messages": [{"role": "user", "content": [{"type": "text", "text": "a\\udfff"}]}]}'
    r = client.post(
        "/v1/chat/completions", content=parts, headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    for path, body in (
        ("/api/ask", '{"question": "what \\ud83d is it"}'),
        ("/api/search", '{"query": "x \\udc00"}'),
    ):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400, path


def test_an_oversize_chunked_body_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(40):
            yield b"a" * 65536
        yield b'"}'

    r = client.post("/api/ask", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    r = client.post("/api/ask", content=b"x" * (2 << 20))  # with Content-Length
    assert r.status_code == 413


def test_gradios_upload_route_has_the_upload_limit() -> None:
    with TestClient(create_api(_app(max_upload_mb=0.01)), base_url=LOCAL) as c:
        r = c.post("/gradio_api/upload", files={"files": ("a.txt", b"x" * 20_000)})
        assert r.status_code == 413


# -- 8. keys and /healthz ----------------


def test_short_keys_are_refused_with_the_reason() -> None:
    with pytest.raises(ConfigError, match="fewer than 16"):
        load_settings(api_key="secret")
    assert load_settings(api_key=KEY).api_key.get_secret_value() == KEY


def test_failed_key_attempts_are_limited_per_client() -> None:
    with TestClient(create_api(_app(api_key=KEY, auth_failures_per_minute=3)), base_url=LOCAL) as c:
        wrong = {"authorization": "Bearer wrong-key-0123456789"}
        codes = [c.get("/v1/models", headers=wrong).status_code for _ in range(5)]
        assert codes == [401, 401, 401, 429, 429]
        r = c.get("/v1/models", headers={"authorization": f"Bearer {KEY}"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_healthz_without_the_key_says_only_ok(keyed: TestClient) -> None:
    assert keyed.get("/healthz").json() == {"status": "ok"}
    full = keyed.get("/healthz", headers={"authorization": f"Bearer {KEY}"}).json()
    assert full["status"] == "ok" and "worker_pid" in full and "store" in full


def test_healthz_says_not_ok_when_the_store_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.errors import StoreError

    parts = _app()

    def broken() -> str:
        raise StoreError("Chroma read failed at /srv/secret/chroma: disk gone")

    monkeypatch.setattr(parts.engine.store, "generation", broken)
    with TestClient(create_api(parts), base_url=LOCAL) as c:
        r = c.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "not ok"
    assert "disk gone" in r.json()["reason"] and "/srv/secret" not in r.text


# -- 3. the bounded work queue ----------------


def test_the_work_queue_is_bounded_with_429_and_retry_after() -> None:
    release = asyncio.Event()
    started = 0

    async def slow(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        nonlocal started
        started += 1
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    limited = WorkLimit(slow, concurrency=2, queue=3)

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=limited)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as c:
            tasks = [asyncio.create_task(c.post("/api/ask")) for _ in range(8)]
            while limited.waiting < 3 or started < 2:
                await asyncio.sleep(0.01)
            refused = [await t for t in tasks if t.done()]
            release.set()
            done = [await t for t in tasks]
            assert all(r.headers["retry-after"] for r in refused)
            return [r.status_code for r in done]

    codes = asyncio.run(run())
    assert sorted(codes) == [200] * 5 + [429] * 3 and started == 5


# -- 8. a model that never answers ------------------------------------------------------------


def test_a_model_that_never_answers_costs_one_timeout_not_three() -> None:
    """It used to be retried with the whole timeout each time: 3 x 60 s by default."""
    import socket
    import threading

    from rag.answer.chat import OpenAIChat
    from rag.errors import LLMError

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    chat = OpenAIChat(model="m", base_url=url, api_key="k", timeout=1.0, max_retries=2)
    try:
        with pytest.raises(LLMError) as info:
            list(chat.stream([{"role": "user", "content": "hi"}], max_tokens=8))
        assert info.value.kind == "timeout" and len(accepted) == 1  # not retried
    finally:
        listener.close()
        for conn in accepted:
            conn.close()


def test_with_a_key_any_host_name_is_served_unless_some_are_listed(keyed: TestClient) -> None:
    auth = {"authorization": f"Bearer {KEY}", "host": "paperchat.lab.example"}
    assert keyed.get("/api/papers", headers=auth).status_code == 200
    listed = _app(api_key=KEY, allowed_hosts="papers.example")
    with TestClient(create_api(listed), base_url=LOCAL) as c:
        assert c.get("/api/papers", headers=auth).status_code == 400
