"""A generated answer's unsupported sentence as a user sees it: in headless Chromium (the UI),
over our API (/api/ask, /v1) and in the CLI, from a model served over HTTP.

The model is an OpenAI-compatible server on loopback that streams a fixed reply (a small
model's typical answer: one right sentence without a marker, one made-up claim with a
marker), so what is checked is ours: the attribution, the contract and how each face shows
it. The real llama.cpp server's answers are checked in test_llm_server.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from rag.answer.prompts import UNSUPPORTED_NOTE
from tests.conftest import ingested_sample
from tests.test_api import Server
from tests.test_ui import ARTIFACTS, launch_chromium

pytestmark = pytest.mark.integration

REPLY = (
    "KCache alleviates the memory bottleneck of LLM inference without any training and "
    "improves throughput by 40% while keeping accuracy. "
    "It won the best paper award at OSDI 2019 [2]."
)
QUESTION = "How does KCache reduce the memory overhead of the KV cache?"


class _Model(BaseHTTPRequestHandler):
    """POST /v1/chat/completions streams REPLY word by word, as a model would."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        words = REPLY.split(" ")
        pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
        body = b"".join(
            b"data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0,
                                    "model": "tiny", "choices": [{"index": 0,
                                    "delta": {"content": p}}]}).encode() + b"\n\n"
            for p in pieces
        ) + b"data: [DONE]\n\n"  # fmt: skip
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample, ingested for this module: asking in the UI saves conversations in it."""
    return ingested_sample(tmp_path_factory, "attribution-index")


@pytest.fixture(scope="module")
def served(library: Path, model_url: str) -> Iterator[str]:
    settings = {"llm": "openai", "openai_base_url": model_url, "llm_model": "tiny"}
    with Server(library, **settings) as server:
        yield server.url


def test_the_api_and_v1_say_which_sentence_no_source_supports(served: str) -> None:
    out = httpx.post(f"{served}/api/ask", json={"question": QUESTION}, timeout=60).json()
    assert out["mode"] == "llm" and out["errors"] == []
    assert out["answer"] == (
        "KCache alleviates the memory bottleneck of LLM inference without any training and "
        "improves throughput by 40% while keeping accuracy [1]. "
        "It won the best paper award at OSDI 2019."
    )
    got = [(s["citations"], s["supported"]) for s in out["sentences"]]
    assert got == [([1], True), ([], False)]
    assert out["citations"][0]["label"] == "KCache" and "[2]" in out["dropped_citations"]
    body = {"messages": [{"role": "user", "content": QUESTION}]}
    v1 = httpx.post(f"{served}/v1/chat/completions", json=body, timeout=60).json()
    assert [s["supported"] for s in v1["sentences"]] == [True, False]


@pytest.mark.browser
def test_the_ui_shows_an_unsupported_sentence_apart(served: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(served, wait_until="domcontentloaded")
        box = page.locator("#pc-question textarea")
        box.wait_for(timeout=30_000)
        box.fill(QUESTION)
        box.press("Enter")
        flagged = page.locator("#pc-chat .pc-unsupported")
        flagged.wait_for(timeout=60_000)
        assert flagged.inner_text().startswith("It won the best paper award")
        assert flagged.get_attribute("title") == UNSUPPORTED_NOTE
        # The supported sentence is cited and not set apart.
        chat = page.locator("#pc-chat").inner_text()
        assert "while keeping accuracy [1]" in chat
        assert page.locator("#pc-chat .pc-unsupported").count() == 1
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "ui-unsupported.png"), full_page=True)
        browser.close()


@pytest.mark.browser
def test_with_attribution_off_the_same_reply_is_replaced(library: Path, model_url: str) -> None:
    """The behaviour before attribution, kept as PAPERCHAT_ATTRIBUTION=off: the reply's only
    marker names a paper sharing no word with its sentence, so nothing is cited and the whole
    reply gives way to the extractive answer (the screenshot is the "before" of the docs)."""
    from playwright.sync_api import sync_playwright

    settings = {"llm": "openai", "openai_base_url": model_url, "llm_model": "tiny",
                "attribution": "off"}  # fmt: skip
    with Server(library, **settings) as server, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url, wait_until="domcontentloaded")
        box = page.locator("#pc-question textarea")
        box.wait_for(timeout=30_000)
        box.fill(QUESTION)
        box.press("Enter")
        failed = (
            "() => { const t = document.querySelector('#pc-chat').innerText;"
            " return t.includes('Quoted from') && t.includes('the language model failed'); }"
        )
        page.wait_for_function(failed, timeout=60_000)
        chat = page.locator("#pc-chat").inner_text()
        assert "model failed" in chat and "best paper award" not in chat
        assert page.locator("#pc-chat .pc-unsupported").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "ui-attribution-off.png"), full_page=True)
        browser.close()
