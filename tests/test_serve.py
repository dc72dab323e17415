"""`paperchat serve` as users start it: a real process, several workers on a Chroma server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import SAMPLE, free_port
from ui.cli.main import main

pytestmark = pytest.mark.integration


def test_workers_need_a_chroma_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--workers", "2"]) == 1
    assert "PAPERCHAT_CHROMA_HOST" in capsys.readouterr().err


def test_no_key_refuses_a_public_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0"]) == 1
    assert "PAPERCHAT_API_KEY" in capsys.readouterr().err


def _workers(log: Path) -> set[int]:
    """The worker processes uvicorn reports as started."""
    return {int(m) for m in re.findall(r"Started server process \[(\d+)\]", log.read_text())}


def test_two_workers_serve_one_index(on_chroma_server: tuple[str, int], tmp_path: Path) -> None:
    assert main(["ingest", str(SAMPLE), "--json"]) == 0
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "serve.log"
    log = log_path.open("wb")
    env = {**os.environ, "PAPERCHAT_INDEX_REFRESH_SECONDS": "0.5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ui.cli.main", "serve", "--port", str(port), "--workers", "2"],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:  # until both workers have started and one answers
            assert proc.poll() is None, log_path.read_text()
            try:
                health = httpx.get(f"{url}/healthz", headers={"connection": "close"}).json()
            except httpx.TransportError:
                time.sleep(0.3)
                continue
            assert health["papers"] == 32 and health["worker_pid"] in _workers(log_path)
            if len(_workers(log_path)) == 2:
                break
            time.sleep(0.3)
        assert len(_workers(log_path)) == 2, log_path.read_text()
        answer = httpx.post(
            f"{url}/api/ask",
            json={"question": "How does KCache reduce KV cache memory?"},
            timeout=30,
        )
        assert answer.json()["citations"][0]["label"] == "KCache"
        # An upload through whichever worker takes it is seen by every worker.
        paper = (
            b'{"id": "w1", "title": "Worker test", "abstract": "Shared indexes across workers."}'
        )
        report = httpx.post(f"{url}/api/ingest", files=[("files", ("w.jsonl", paper))], timeout=60)
        assert report.json()["added"] == 1
        time.sleep(1.0)  # past the refresh interval
        seen = [httpx.get(f"{url}/healthz", headers={"connection": "close"}).json()
                for _ in range(20)]  # fmt: skip
        assert all(h["papers"] == 33 for h in seen)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def test_api_only_server_never_imports_gradio(tmp_path: Path) -> None:
    code = (
        "import sys; from ui.http.server import create_app; from rag.settings import load_settings;"
        f"app = create_app(load_settings(data_dir={str(tmp_path)!r}, ui=False));"
        "assert 'gradio' not in sys.modules, 'gradio imported';"
        "assert {'/healthz', '/api/ask', '/v1/chat/completions', '/'} <= "
        "set(app.openapi()['paths']) | {getattr(r, 'path', '') for r in app.routes}"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_warm_up_loads_the_vector_index_and_its_failure_stops_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rag.answer import reader
    from rag.answer.probes import PROBES
    from rag.engine import Engine
    from rag.errors import StoreError
    from rag.retrieve import Retriever
    from rag.settings import load_settings
    from ui.http.server import create_app

    settings = load_settings(ui=False)
    searched: list[str] = []
    real_search = Retriever.search

    def search(self, query, **kw):  # type: ignore[no-untyped-def]
        searched.append(kw.get("mode", "hybrid"))
        return real_search(self, query, **kw)

    monkeypatch.setattr(Retriever, "search", search)
    fresh = reader.Reader(reader.READER_DIR / "model.onnx")  # not loaded by earlier tests
    monkeypatch.setattr(reader, "_override", [fresh])
    create_app(settings)  # an empty index: nothing to warm, and no error
    assert searched == [] and fresh._session is None  # no question will read: not loaded
    assert main(["ingest", str(SAMPLE)]) == 0
    create_app(settings)
    assert fresh._session is not None  # the answers' reader was loaded before "ready"
    # Chroma read its vector index before "ready", then the library's noise floor was
    # measured (rag.answer.probes); a second start reads the floor it saved.
    assert searched == ["dense", *["hybrid"] * len(PROBES)]
    searched.clear()
    create_app(settings)
    assert searched == ["dense"]

    def broken(_self: Engine) -> None:
        raise StoreError("cannot open the Chroma store at x: test")

    monkeypatch.setattr(Engine, "warm_up", broken)
    with pytest.raises(StoreError, match="test"):
        create_app(settings)
