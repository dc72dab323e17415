"""The LLM path against real servers on loopback: llama.cpp serving SmolLM2 (a real
OpenAI-compatible server), a dead port, and a scripted HTTP server for the failures a real
one will not produce on demand (429, 5xx, a hang, a malformed or broken stream)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from rag.answer.chat import OpenAIChat, Usage, complete, make_chat_model
from rag.answer.cite import MARKER as MARKER_RE
from rag.answer.cite import check_citations, parse_markers, verify_quote
from rag.answer.events import DeltaEvent, ErrorEvent, FinalEvent, SourcesEvent
from rag.answer.prompts import EXTRACTIVE_MODE, LLM_MODE
from rag.answer.stream import answer_stream
from rag.engine import Engine
from rag.errors import LLMError
from rag.index.connect import open_store
from rag.index.embed import make_embedder
from rag.retrieve import Retriever
from rag.settings import load_settings
from tests.conftest import LLAMA_KEY, free_port, ingested_sample
from tests.fakes import make_source
from ui.cli.main import main

pytestmark = pytest.mark.integration

ASK = [{"role": "user", "content": "Name three colours."}]


def _llama_env(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", LLAMA_KEY)
    monkeypatch.setenv("PAPERCHAT_LLM_MODEL", "smollm2")
    monkeypatch.setenv("PAPERCHAT_LLM_CONTEXT_TOKENS", "700")  # a 135M model on 2 cores
    monkeypatch.setenv("PAPERCHAT_LLM_MAX_TOKENS", "96")


@pytest.fixture(scope="module")
def sample_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "llm-index")


# -- llama.cpp ---------------------------------------------------------------------------


def test_streams_text_from_a_real_server(llama_server: str) -> None:
    chat = OpenAIChat(model="smollm2", base_url=llama_server, api_key=LLAMA_KEY)
    pieces = list(chat.stream(ASK, max_tokens=24))
    text = [p for p in pieces if isinstance(p, str)]
    assert len(text) > 3 and "".join(text).strip()  # streamed, token by token


def test_answers_through_a_real_server_are_checked(
    llama_server: str, sample_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _llama_env(monkeypatch, llama_server)
    engine = Engine.from_settings(load_settings(data_dir=sample_data))
    assert isinstance(engine.chat, OpenAIChat)
    modes = []
    for question in (
        "Which inference engine is tailored to deploying deep learning models on mobile devices? "
        "Reply with one sentence ending with [1].",
        "How does KCache reduce the memory overhead of the KV cache during LLM inference?",
    ):
        events = list(engine.answer(question, k=3))
        assert isinstance(events[0], SourcesEvent) and isinstance(events[-1], FinalEvent)
        final = events[-1]
        modes.append(final.answerer)
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        if final.answerer == LLM_MODE:
            assert not errors and final.model == "smollm2" and final.citations
            assert final.usage["prompt_tokens"] > 100 and final.usage["completion_tokens"] > 0
            assert {"llm_first_token", "first_token", "llm", "total"} <= set(final.timings)
            # Every marker was settled after generation: each sentence carries the markers of
            # the sources that say it, or none and is flagged; the contract says which.
            assert len(final.sentences) >= 1 and any(s.citations for s in final.sentences)
            for s in final.sentences:
                assert s.supported or not s.citations
        else:  # no sentence SmolLM2 wrote is supported: refused, not shown as checked
            assert final.answerer == EXTRACTIVE_MODE and [e.kind for e in errors] == ["unsupported"]
            assert final.fallback_reason == errors[0].message
        numbers = [n for _, _, ns in parse_markers(final.answer) for n in ns]
        assert set(numbers) == set(range(1, len(final.citations) + 1))
        for c in final.citations:
            assert verify_quote(c.quote, c.source.abstract)
        # A dropped marker names a prompt number taken off a sentence; the same paper may
        # still be cited elsewhere, renumbered, so only the count of markers is checked.
        assert all(MARKER_RE.fullmatch(d) for d in final.dropped)
    assert LLM_MODE in modes  # the MNN question is answered (and cited) by the model itself


def test_a_marker_the_model_really_wrote_is_dropped(llama_server: str) -> None:
    chat = OpenAIChat(model="smollm2", base_url=llama_server, api_key=LLAMA_KEY)
    text = complete(
        chat,
        [{"role": "system", "content": "You copy text exactly."},
         {"role": "user", "content": "Repeat this sentence exactly: MNN runs deep learning "
                                     "models on phones [1][7]."}],
        max_tokens=40,
    )  # fmt: skip
    assert "[7]" in text  # what SmolLM2 writes at temperature 0
    abstract = "MNN is an inference engine that runs deep learning models on mobile phones."
    source = make_source(1, "mnn", "MNN", "", (), 2020, "s.txt", abstract)
    checked = check_citations(text, [source])
    assert checked.dropped == ("[7]",) and "[7]" not in checked.text and "[1]" in checked.text
    assert checked.citations[0].quote == abstract


def test_a_wrong_key_is_refused_and_never_repeated(llama_server: str) -> None:
    wrong = "sk-wrong-key-that-must-not-leak"
    chat = OpenAIChat(model="smollm2", base_url=llama_server, api_key=wrong, max_retries=0)
    with pytest.raises(LLMError) as info:
        list(chat.stream(ASK, max_tokens=8))
    assert info.value.kind == "auth" and "OPENAI_API_KEY" in str(info.value)
    assert wrong not in str(info.value) and "must-not-leak" not in repr(info.value.args)


def test_cli_ask_with_the_llm(
    llama_server: str, sample_data: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _llama_env(monkeypatch, llama_server)
    question = (
        "Which inference engine is tailored to deploying deep learning models on mobile devices? "
        "Reply with one sentence ending with [1]."
    )
    assert main(["ask", question, "--data-dir", str(sample_data), "--json", "-k", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "smollm2" and out["citations"] and out["usage"]["estimated"]
    assert main(["ask", question, "--data-dir", str(sample_data), "--llm", "extractive",
                 "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["mode"] == EXTRACTIVE_MODE


# -- failures ------------------------------------------------------------------------------


def test_a_dead_port_is_unreachable(
    sample_data: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    chat = OpenAIChat(model="m", base_url=url, max_retries=0)
    with pytest.raises(LLMError) as info:
        list(chat.stream(ASK, max_tokens=8))
    assert info.value.kind == "unreachable" and url in str(info.value)
    # Through the CLI: a note and the extractive answer, or exit 1 with --no-fallback.
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("PAPERCHAT_LLM_RETRIES", "0")
    question = "How does KCache reduce the memory overhead of the KV cache?"
    assert main(["ask", question, "--data-dir", str(sample_data), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mode"] == EXTRACTIVE_MODE
    assert "cannot reach the language model" in captured.err and "extractively" in captured.err
    assert main(["ask", question, "--data-dir", str(sample_data), "--no-fallback"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("paperchat: error: cannot reach") and len(err.splitlines()) == 1


def _sse(*payloads: object) -> bytes:
    return b"".join(
        b"data: " + (p if isinstance(p, bytes) else json.dumps(p).encode()) + b"\n\n"
        for p in payloads
    )


def _chunk(text: str | None = None, usage: dict | None = None) -> dict:
    choices = [] if text is None else [{"index": 0, "delta": {"content": text}}]
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": choices, "usage": usage}  # fmt: skip


class _Scripted(BaseHTTPRequestHandler):
    """POST /<case>/v1/chat/completions answers as the case says."""

    hits: ClassVar[Counter[str]] = Counter()
    bodies: ClassVar[list[dict]] = []

    def log_message(self, *args: object) -> None:  # keep the test output clean
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json", **headers) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        case = self.path.split("/")[1]
        self.hits[case] += 1
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.bodies.append(body)
        error = json.dumps({"error": {"message": f"{case} says no"}}).encode()
        if case == "r429":
            self._send(429, error, retry_after_ms="10")
        elif case == "r503":
            self._send(503, error, retry_after_ms="10")
        elif case == "r401":
            key = self.headers["authorization"].removeprefix("Bearer ")
            echo = {"error": {"message": f"Incorrect API key: {key}"}}
            self._send(401, json.dumps(echo).encode())
        elif case == "hang":
            time.sleep(3)
            self._send(200, _sse(_chunk("late"), b"[DONE]"), "text/event-stream")
        elif case == "malformed":
            self._send(200, _sse(_chunk("Fine "), b'{"choices": [ broken', b"[DONE]"),
                       "text/event-stream")  # fmt: skip
        elif case == "cut":  # promises more than it sends, then hangs up
            data = _sse(_chunk("Half "))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data) + 500))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            self.connection.close()
        elif case == "picky" and "stream_options" in body:
            rejected = {"error": {"message": "Unrecognized argument supplied: stream_options"}}
            self._send(400, json.dumps(rejected).encode())
        else:  # a well-behaved server that reports usage
            usage = {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13}
            self._send(200, _sse(_chunk("Hello "), _chunk("there"), _chunk(None, usage),
                                 b"[DONE]"), "text/event-stream")  # fmt: skip


@pytest.fixture(scope="module")
def scripted() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _stream(url: str, **kw: object) -> list[str | Usage]:
    chat = OpenAIChat(model="m", base_url=url, api_key="sk-secret-abc", **kw)  # type: ignore[arg-type]
    return list(chat.stream(ASK, max_tokens=8))


@pytest.mark.parametrize(("case", "kind"), [("r429", "rate_limit"), ("r503", "server")])
def test_429_and_5xx_are_retried_then_reported(scripted: str, case: str, kind: str) -> None:
    with pytest.raises(LLMError) as info:
        _stream(f"{scripted}/{case}/v1", max_retries=2)
    assert info.value.kind == kind and _Scripted.hits[case] == 3  # one call, two retries


def test_401_body_echoing_the_key_is_not_repeated(scripted: str) -> None:
    with pytest.raises(LLMError) as info:
        _stream(f"{scripted}/r401/v1")
    assert info.value.kind == "auth" and "sk-secret" not in str(info.value)


def test_a_hanging_server_times_out(scripted: str) -> None:
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        _stream(f"{scripted}/hang/v1", timeout=0.5, max_retries=0)
    assert info.value.kind == "timeout" and "PAPERCHAT_OPENAI_TIMEOUT" in str(info.value)
    assert time.monotonic() - start < 2.5  # did not wait for the server's 3 s


@pytest.mark.parametrize("case", ["malformed", "cut"])
def test_a_broken_stream_fails_after_what_it_sent(scripted: str, case: str) -> None:
    chat = OpenAIChat(model="m", base_url=f"{scripted}/{case}/v1", max_retries=0)
    got: list[str | Usage] = []
    with pytest.raises(LLMError) as info:
        for piece in chat.stream(ASK, max_tokens=8):
            got.append(piece)
    assert info.value.kind == "stream" and got and isinstance(got[0], str)


def test_usage_is_read_and_rejected_options_are_dropped(scripted: str) -> None:
    assert _stream(f"{scripted}/ok/v1") == ["Hello ", "there", Usage(11, 2)]
    _Scripted.bodies.clear()
    assert _stream(f"{scripted}/picky/v1", max_retries=0) == ["Hello ", "there", Usage(11, 2)]
    assert ["stream_options" in b for b in _Scripted.bodies] == [True, False]


def test_a_failed_stream_through_the_engine_falls_back(
    scripted: str, sample_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{scripted}/malformed/v1")
    monkeypatch.setenv("PAPERCHAT_LLM_RETRIES", "0")
    settings = load_settings(data_dir=sample_data)
    embedder = make_embedder(settings)
    retriever = Retriever.from_settings(settings, open_store(settings), embedder)
    events = list(
        answer_stream("How does KCache reduce KV cache memory?", retriever=retriever,
                      embedder=embedder, chat=make_chat_model(settings))
    )  # fmt: skip
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["SourcesEvent", "ErrorEvent"]  # "Fine " cited nothing: not shown
    assert events[1].kind == "stream" and events[1].fallback
    assert isinstance(events[-1], FinalEvent) and events[-1].answerer == EXTRACTIVE_MODE
    assert events[-1].citations[0].source.label == "KCache"
    assert sum(isinstance(e, DeltaEvent) for e in events) > 2
