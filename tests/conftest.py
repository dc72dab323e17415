"""Shared fixtures: every test runs with its own data dir, cwd and a clean environment."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"


@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedder-graph cache for the session: building it once is enough."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _shared_cache: Path) -> None:
    for key in list(os.environ):
        if key.startswith(("PAPERCHAT_", "OPENAI_")) and key != "PAPERCHAT_TEST_CHROMA":
            monkeypatch.delenv(key)
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PAPERCHAT_CACHE_DIR", str(_shared_cache))
    monkeypatch.chdir(tmp_path)  # no stray .env from the repo


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return SAMPLE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real `chroma run` server on loopback: the one CI started
    (PAPERCHAT_TEST_CHROMA=host:port), else one started here for the session."""
    given = os.environ.get("PAPERCHAT_TEST_CHROMA")
    if given:
        host, _, port = given.rpartition(":")
        yield host, int(port)
        return
    chroma = Path(sys.executable).with_name("chroma")
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    log = open(path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            str(chroma),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma run exited: {(path / 'server.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("chroma run did not start within 60 s")
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture
def on_chroma_server(
    chroma_server: tuple[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, int]:
    """Settings point at the `chroma run` server, with a collection of this test's own."""
    host, port = chroma_server
    monkeypatch.setenv("PAPERCHAT_CHROMA_HOST", host)
    monkeypatch.setenv("PAPERCHAT_CHROMA_PORT", str(port))
    monkeypatch.setenv("PAPERCHAT_COLLECTION_PREFIX", f"t{os.getpid()}{time.time_ns()}")
    return host, port
