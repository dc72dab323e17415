"""A frozen Chroma server (SIGSTOP) against our server over a real socket (issue #16, 1):
/healthz answers 503 within its bound, a request that needs Chroma fails within the Chroma
timeout instead of hanging, a request that does not need Chroma is not blocked, and all is
well again once the server thaws (SIGCONT)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port
from tests.test_api import Server

pytestmark = pytest.mark.integration

ABSTRACT = (
    "KCache keeps the KV cache on the CPU and saves GPU memory during inference. "
    "Experiments show forty percent higher throughput than the baseline."
)


@pytest.fixture
def own_chroma(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A `chroma run` of this test's own (it will be frozen), with its process."""
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    cmd = [str(chroma), "run", "--path", str(tmp_path / "db"), "--host", "127.0.0.1",
           "--port", str(port)]  # fmt: skip
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    with (tmp_path / "chroma.log").open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, (tmp_path / "chroma.log").read_text()
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    assert time.monotonic() < deadline, "chroma did not start"
                    time.sleep(0.2)
            yield port, proc
        finally:
            os.kill(proc.pid, signal.SIGCONT)
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_frozen_chroma_server_never_hangs_the_api(
    own_chroma: tuple[int, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port, chroma = own_chroma
    settings = {
        "chroma_host": "127.0.0.1",
        "chroma_port": port,
        "chroma_timeout": 3.0,
        "health_timeout": 1.0,
        "index_refresh_seconds": 0.0,  # every question asks the store for its generation
        "ui": False,
    }
    with Server(tmp_path / "data", **settings) as server:
        url = server.url
        upload = [("files", ("p.jsonl", json.dumps({"id": "kv", "abstract": ABSTRACT}) + "\n"))]
        assert httpx.post(f"{url}/api/ingest", files=upload, timeout=60).json()["added"] == 1
        assert httpx.get(f"{url}/healthz", timeout=10).json()["status"] == "ok"

        os.kill(chroma.pid, signal.SIGSTOP)
        try:
            health = httpx.get(f"{url}/healthz", timeout=10)  # 1 s bound; 10 s = it hung
            assert health.status_code == 503 and health.json()["status"] == "not ok"
            assert "did not answer" in health.json()["reason"]

            asks: list[httpx.Response] = []

            def ask() -> None:
                body = {"question": "How does KCache save GPU memory?"}
                asks.append(httpx.post(f"{url}/api/ask", json=body, timeout=60))

            threads = [threading.Thread(target=ask) for _ in range(4)]
            for t in threads:
                t.start()
            time.sleep(0.5)  # the asks are now stuck on Chroma
            # What does not need Chroma is not blocked by what is stuck on it.
            assert httpx.get(f"{url}/v1/models", timeout=5).status_code == 200
            assert httpx.get(f"{url}/healthz", timeout=10).status_code == 503
            for t in threads:
                t.join(timeout=60)
            assert [r.status_code for r in asks] == [503] * 4
            error = asks[0].json()["error"]
            assert error["code"] == "store_unavailable"
            assert "did not answer" in error["message"] or "not tried" in error["message"]
        finally:
            os.kill(chroma.pid, signal.SIGCONT)

        deadline = time.monotonic() + 30
        while httpx.get(f"{url}/healthz", timeout=10).status_code != 200:
            assert time.monotonic() < deadline, "the server did not recover"
            time.sleep(0.2)
        body = {"question": "How does KCache save GPU memory?"}
        assert httpx.post(f"{url}/api/ask", json=body, timeout=60).json()["citations"]


def test_the_ui_mount_is_guarded_too(tmp_path: Path) -> None:
    """Gradio's own routes: upload size limit, no cross-site upload, the sign-in limit, and
    the page still served with its CSP."""
    key = "pc-test-key-7d1e0c"
    settings = {"api_key": key, "max_upload_mb": 0.01, "auth_failures_per_minute": 2}
    with Server(tmp_path / "data", **settings) as server:
        url = server.url
        page = httpx.get(url + "/", timeout=30)
        assert page.status_code == 200
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        big = {"files": ("a.txt", b"x" * 20_000)}
        assert httpx.post(f"{url}/gradio_api/upload", files=big).status_code == 413
        small = {"files": ("a.txt", b"x" * 100)}
        evil = {"origin": "https://evil.example"}
        assert httpx.post(f"{url}/gradio_api/upload", files=small, headers=evil).status_code == 403
        wrong = {"username": "me", "password": "not-the-key-at-all"}
        codes = [httpx.post(f"{url}/login", data=wrong).status_code for _ in range(3)]
        assert codes[:2] != [429, 429] and codes[2] == 429
        right = httpx.post(f"{url}/login", data={"username": "me", "password": key})
        assert right.status_code == 429  # the address waits, even with the right key
