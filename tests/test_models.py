"""Generating models one click away, against real llama.cpp servers on loopback: a local
server found at its address without configuration, the configured server's models listed
and picked per request (engine, /api, /v1, CLI), and plain words when none is reachable."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rag.answer.chat import OpenAIChat
from rag.answer.models import detect_local
from rag.engine import Engine
from rag.errors import ConfigError, QueryError
from rag.settings import load_settings
from tests.conftest import (
    LLAMA_KEY,
    free_port,
    ingested_sample,
    server_process,
    smollm2_gguf,
)
from tests.test_api import Server
from ui.cli.main import main

pytestmark = pytest.mark.integration

QUESTION = "How does KCache reduce the memory overhead of the KV cache?"


@pytest.fixture(scope="module")
def keyless_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp as a user runs it at home: no API key (like Ollama)."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()),
        "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048", "--n_threads", "1", "--seed", "0",
    ]  # fmt: skip
    with server_process(cmd, port, tmp_path_factory.mktemp("keyless-llama")):
        yield f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def sample_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "models-index")


def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERCHAT_LLM_CONTEXT_TOKENS", "600")  # a 135M model on 2 cores
    monkeypatch.setenv("PAPERCHAT_LLM_MAX_TOKENS", "64")


def test_a_local_server_is_found_without_configuration(
    keyless_server: str, sample_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small(monkeypatch)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setenv("PAPERCHAT_DETECT_LOCAL_LLM", "true")
    monkeypatch.setenv("PAPERCHAT_LOCAL_LLM_URLS", f"{dead},{keyless_server}")
    engine = Engine.from_settings(load_settings(data_dir=sample_data))
    server = engine.models()
    assert server.base_url == keyless_server and server.detected
    assert server.models == ("smollm2",) and "default address" in server.note
    chat = engine.chat
    assert isinstance(chat, OpenAIChat) and chat.name == "smollm2"  # not gpt-4o-mini
    assert chat.base_url == keyless_server
    final = engine.ask(QUESTION, k=2).final
    assert final.model == "smollm2" or final.fallback_reason  # a 135M model may cite nothing
    # Once per process: a second engine does not probe again.
    started = time.perf_counter()
    assert detect_local((dead, keyless_server)) == keyless_server
    assert time.perf_counter() - started < 0.01


def test_none_reachable_is_said_plainly_and_answers_stay_extractive(
    sample_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}/v1,http://localhost:{free_port()}/v1"
    monkeypatch.setenv("PAPERCHAT_DETECT_LOCAL_LLM", "true")
    monkeypatch.setenv("PAPERCHAT_LOCAL_LLM_URLS", nobody)
    engine = Engine.from_settings(load_settings(data_dir=sample_data))
    started = time.perf_counter()
    server = engine.models()
    assert time.perf_counter() - started < 1.0  # loopback, short timeout
    assert server.models == () and "none answered" in server.note and "extractive" in server.note
    assert engine.chat is None and engine.ask(QUESTION).final.answerer == "extractive"
    assert engine.health()["llm"]["note"] == server.note
    with pytest.raises(QueryError, match="not served: no language model"):
        engine.answer(QUESTION, model="smollm2")
    assert main(["models", "--data-dir", str(sample_data)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "none answered" in err


def test_only_loopback_is_probed() -> None:
    with pytest.raises(ConfigError, match="only loopback"):
        load_settings(local_llm_urls="http://10.0.0.5:11434/v1")


def test_the_configured_servers_models_are_listed_and_picked(
    llama_server: str,
    sample_data: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _small(monkeypatch)
    monkeypatch.setenv("OPENAI_BASE_URL", llama_server)
    monkeypatch.setenv("OPENAI_API_KEY", LLAMA_KEY)
    engine = Engine.from_settings(load_settings(data_dir=sample_data, llm="extractive"))
    assert engine.models().models == ()  # extractive by choice: nothing listed
    engine = Engine.from_settings(load_settings(data_dir=sample_data))
    server = engine.models()
    assert server.models == ("smollm2",) and not server.detected
    with pytest.raises(QueryError, match=r"'gpt-9' is not served: choose one of: smollm2"):
        engine.answer(QUESTION, model="gpt-9")
    final = engine.ask(QUESTION, model="smollm2", k=2).final
    assert final.model == "smollm2" or final.fallback_reason

    assert main(["models", "--data-dir", str(sample_data), "--json"]) == 0
    assert '"smollm2"' in capsys.readouterr().out
    assert main(["ask", QUESTION, "--data-dir", str(sample_data), "--model", "gpt-9"]) == 1
    assert "choose one of: smollm2" in capsys.readouterr().err

    with Server(sample_data) as running:
        listed = httpx.get(f"{running.url}/api/models").json()
        assert listed["models"] == ["smollm2"] and listed["base_url"] == llama_server
        bad = httpx.post(f"{running.url}/api/ask", json={"question": QUESTION, "model": "gpt-9"})
        assert bad.status_code == 400 and "smollm2" in bad.json()["error"]["message"]
        v1 = [m["id"] for m in httpx.get(f"{running.url}/v1/models").json()["data"]]
        assert v1 == ["paperchat", "paperchat-extractive", "paperchat/smollm2"]
        body = {"model": "paperchat/smollm2", "max_tokens": 64,
                "messages": [{"role": "user", "content": QUESTION}]}  # fmt: skip
        out = httpx.post(f"{running.url}/v1/chat/completions", json=body, timeout=120).json()
        assert out["model"] == "paperchat/smollm2"
        assert out["paperchat"]["model"] == "smollm2" or out["paperchat"]["fallback_reason"]
