"""Saved conversations over HTTP, on a real socket: every /api/conversations route, the
404s, 422s and 401s, ``conversation_id`` on /api/ask carrying a follow-up's subject (JSON
and SSE), /v1 staying stateless, a conversation surviving a restart, a damaged file set
aside at start, and two `paperchat serve` workers sharing one file on a Chroma server."""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import SAMPLE, free_port, ingested_sample
from tests.test_api import KEY, QUESTION, Server, _events
from ui.cli.main import main

pytestmark = pytest.mark.integration

FOLLOW_UP = "and how much faster is it?"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "conversations-index")


@pytest.fixture(scope="module")
def url(data: Path) -> Iterator[str]:
    with Server(data) as server:
        yield server.url


def _ask(url: str, question: str, **body: object) -> dict:
    r = httpx.post(f"{url}/api/ask", json={"question": question, **body}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def _count(url: str, **headers: str) -> int:
    return int(httpx.get(f"{url}/api/conversations", headers=headers).json()["total"])


def test_ask_saves_and_a_follow_up_keeps_the_subject(url: str) -> None:
    first = _ask(url, QUESTION)
    cid = first["conversation_id"]
    assert re.fullmatch(r"[0-9a-f]{16}", cid) and first["citations"][0]["label"] == "KCache"
    follow = _ask(url, FOLLOW_UP, conversation_id=cid)
    assert follow["conversation_id"] == cid
    assert "KCache" in follow["query"]  # the stored turns were the history
    assert follow["citations"][0]["label"] == "KCache"
    alone = _ask(url, FOLLOW_UP)  # without it, a new conversation with no subject
    assert alone["conversation_id"] != cid and "KCache" not in alone["query"]
    listing = httpx.get(f"{url}/api/conversations").json()
    assert listing["conversations"][0]["id"] == alone["conversation_id"]  # newest first
    got = httpx.get(f"{url}/api/conversations/{cid}").json()
    assert got["title"] == "How does KCache reduce the memory overhead of…"
    assert got["n_turns"] == 2 and [t["n"] for t in got["turns"]] == [1, 2]
    turn = got["turns"][1]
    assert turn["question"] == FOLLOW_UP and turn["answer"] == {
        k: v for k, v in follow.items() if k != "conversation_id"
    }  # the answer as /api/ask returned it, citations and sources included
    assert turn["answer"]["citations"][0]["quote"] and turn["filters"] == {}


def test_a_streamed_answer_is_saved_and_its_final_event_names_the_conversation(url: str) -> None:
    cid = _ask(url, QUESTION, filters={"author": "Qiaozhi"}, k=3)["conversation_id"]
    body = {"question": FOLLOW_UP, "stream": True, "conversation_id": cid}
    with httpx.stream("POST", f"{url}/api/ask", json=body, timeout=60) as response:
        response.read()
    events = _events(response)
    assert [k for k, _ in events][-1] == "final"
    final = events[-1][1]
    assert final["conversation_id"] == cid and "KCache" in final["query"]
    turns = httpx.get(f"{url}/api/conversations/{cid}").json()["turns"]
    assert len(turns) == 2 and turns[0]["filters"] == {"author": "Qiaozhi"}
    assert turns[1]["answer"]["answer"] == final["answer"]
    new = {"question": QUESTION, "stream": True}
    with httpx.stream("POST", f"{url}/api/ask", json=new, timeout=60) as response:
        response.read()
    assert _events(response)[-1][1]["conversation_id"] not in ("", cid)


def test_rename_export_and_delete(url: str) -> None:
    cid = _ask(url, QUESTION)["conversation_id"]
    _ask(url, FOLLOW_UP, conversation_id=cid)
    r = httpx.patch(f"{url}/api/conversations/{cid}", json={"title": "  KCache\n notes "})
    assert r.status_code == 200 and r.json()["title"] == "KCache notes" and r.json()["n_turns"] == 2
    md = httpx.get(f"{url}/api/conversations/{cid}/export")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert 'filename="kcache-notes.md"' in md.headers["content-disposition"]
    text = md.text
    assert text.startswith("# KCache notes\n") and f"## {QUESTION}" in text
    assert f"## {FOLLOW_UP}" in text and "References" in text and "**KCache**" in text
    bib = httpx.get(f"{url}/api/conversations/{cid}/export", params={"format": "bibtex"})
    assert bib.headers["content-type"].startswith("application/x-bibtex")
    assert bib.text.count("@misc{") == 1 and "title = {KCache}" in bib.text  # once per paper
    refused = _ask(url, "Who painted the Mona Lisa?")
    assert refused["refused"] and refused["conversation_id"]
    empty = httpx.get(f"{url}/api/conversations/{refused['conversation_id']}/export",
                      params={"format": "bibtex"})  # fmt: skip
    assert empty.status_code == 200 and empty.text.startswith("%")
    assert httpx.delete(f"{url}/api/conversations/{cid}").json() == {"deleted": cid}
    assert httpx.get(f"{url}/api/conversations/{cid}").status_code == 404
    ids = {c["id"] for c in httpx.get(f"{url}/api/conversations").json()["conversations"]}
    assert cid not in ids


def test_search_by_title_and_pages(url: str) -> None:
    marker = f"zebra{time.time_ns()}"
    ids = [_ask(url, f"What is {marker} number {i}?")["conversation_id"] for i in range(3)]
    found = httpx.get(f"{url}/api/conversations", params={"q": marker.upper()}).json()
    assert found["total"] == 3 and [c["id"] for c in found["conversations"]] == ids[::-1]
    page = httpx.get(f"{url}/api/conversations",
                     params={"q": marker, "limit": 1, "offset": 1}).json()  # fmt: skip
    assert page["total"] == 3 and [c["id"] for c in page["conversations"]] == [ids[1]]
    assert page["limit"] == 1 and page["offset"] == 1 and "notice" not in page


@pytest.mark.parametrize(
    ("method", "path", "payload", "status", "says"),
    [
        ("GET", "/api/conversations/nope", None, 404, "no saved conversation 'nope'"),
        ("PATCH", "/api/conversations/nope", {"title": "x"}, 404, "nope"),
        ("DELETE", "/api/conversations/nope", None, 404, "nope"),
        ("GET", "/api/conversations/nope/export", None, 404, "nope"),
        ("POST", "/api/ask", {"question": "q", "conversation_id": "nope"}, 404, "nope"),
        ("PATCH", "/api/conversations/nope", {"title": ""}, 422, "title"),
        ("PATCH", "/api/conversations/nope", {"title": "   "}, 422, "blank"),
        ("PATCH", "/api/conversations/nope", {"title": "x", "more": 1}, 422, "more"),
        ("GET", "/api/conversations?limit=0", None, 422, "limit"),
        ("GET", "/api/conversations?offset=-1", None, 422, "offset"),
        ("GET", "/api/conversations/x/export?format=pdf", None, 422, "format"),
        ("POST", "/api/ask", {"question": "q", "conversation_id": "x",
                              "history": [{"role": "user", "content": "hi"}]}, 422, "history"),
        ("POST", "/api/ask", {"question": "q", "conversation_id": "x", "save": False}, 422,
         "save"),
        ("POST", "/api/ask", {"question": "q", "conversation_id": ""}, 422, "conversation_id"),
    ],
)  # fmt: skip
def test_unknown_ids_are_404_and_bad_requests_422(
    url: str, method: str, path: str, payload: object, status: int, says: str
) -> None:
    r = httpx.request(method, url + path, json=payload, timeout=60)
    assert r.status_code == status, r.text
    assert says in r.json()["error"]["message"]
    if status == 404:
        assert r.json()["error"]["code"] == "not_found"


def test_v1_and_save_false_store_nothing(url: str) -> None:
    before = _count(url)
    chat = {"messages": [{"role": "user", "content": QUESTION}]}
    reply = httpx.post(f"{url}/v1/chat/completions", json=chat, timeout=60).json()
    assert "[1]" in reply["choices"][0]["message"]["content"] and "conversation_id" not in reply
    history = [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "It drops the V cache [1].", "cited": ["KCache"]},
    ]
    out = _ask(url, FOLLOW_UP, save=False, history=history)  # fmt: skip
    assert "conversation_id" not in out and "KCache" in out["query"]
    assert _count(url) == before


def test_the_key_guards_the_conversation_routes(data: Path) -> None:
    with Server(data, api_key=KEY) as server:
        good = {"authorization": f"Bearer {KEY}"}
        cid = httpx.post(f"{server.url}/api/ask", json={"question": QUESTION}, headers=good,
                         timeout=60).json()["conversation_id"]  # fmt: skip
        for method, path in [("GET", ""), ("GET", f"/{cid}"), ("PATCH", f"/{cid}"),
                             ("DELETE", f"/{cid}"), ("GET", f"/{cid}/export")]:  # fmt: skip
            r = httpx.request(method, f"{server.url}/api/conversations{path}",
                              json={"title": "x"} if method == "PATCH" else None)  # fmt: skip
            assert r.status_code == 401, (method, path)
        assert httpx.get(f"{server.url}/api/conversations/{cid}", headers=good).is_success
        ask = {"question": FOLLOW_UP, "conversation_id": cid}
        assert httpx.post(f"{server.url}/api/ask", json=ask).status_code == 401


def test_a_conversation_survives_a_restart(data: Path) -> None:
    with Server(data) as server:
        cid = _ask(server.url, QUESTION)["conversation_id"]
    with Server(data) as server:
        got = httpx.get(f"{server.url}/api/conversations/{cid}").json()
        assert got["turns"][0]["question"] == QUESTION
        follow = _ask(server.url, FOLLOW_UP, conversation_id=cid)
        assert "KCache" in follow["query"]
        assert httpx.get(f"{server.url}/api/conversations/{cid}").json()["turns"][1]["n"] == 2


def test_a_damaged_file_is_set_aside_and_the_server_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "conversations.sqlite3").write_bytes(b"\x89PNG not a database " * 50)
    with Server(folder) as server:
        listing = httpx.get(f"{server.url}/api/conversations").json()
        assert listing["total"] == 0 and "set aside" in listing["notice"]
        assert "/" not in listing["notice"].split("set aside as ")[1]  # its name, not a path
        out = _ask(server.url, "What is KCache?")  # an empty library refuses; still saved
        assert out["refused"] and out["conversation_id"]
        assert _count(server.url) == 1
    assert len(list(folder.glob("conversations.sqlite3.corrupt-*"))) == 1


def _workers(log: Path) -> set[int]:
    return {int(m) for m in re.findall(r"Started server process \[(\d+)\]", log.read_text())}


def test_two_workers_share_the_conversations(
    on_chroma_server: tuple[str, int], tmp_path: Path
) -> None:
    assert main(["ingest", str(SAMPLE), "--json"]) == 0
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ui.cli.main", "serve", "--port", str(port),
             "--workers", "2", "--no-ui"],
            stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ),
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 90
            while len(_workers(log_path)) < 2 or not _up(base):
                assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.3)
            close = {"connection": "close"}  # a new connection each time: either worker

            def conversation(i: int) -> tuple[str, set[int]]:
                pids = {httpx.get(f"{base}/healthz", headers=close).json()["worker_pid"]}
                out = httpx.post(f"{base}/api/ask", json={"question": QUESTION},
                                 headers=close, timeout=60).json()  # fmt: skip
                cid = out["conversation_id"]
                for question in (FOLLOW_UP, "What is Llumnix?"):
                    body = {"question": question, "conversation_id": cid}
                    r = httpx.post(f"{base}/api/ask", json=body, headers=close, timeout=60)
                    assert r.status_code == 200, r.text
                    pids.add(httpx.get(f"{base}/healthz", headers=close).json()["worker_pid"])
                return cid, pids

            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                done = list(pool.map(conversation, range(4)))
            seen = set().union(*(pids for _, pids in done))
            for _ in range(40):  # until both are seen answering
                if len(seen) == 2:
                    break
                seen.add(httpx.get(f"{base}/healthz", headers=close).json()["worker_pid"])
            assert seen == _workers(log_path)
            for cid, _ in done:
                for _ in range(4):  # whichever worker reads it sees all three turns
                    got = httpx.get(f"{base}/api/conversations/{cid}", headers=close).json()
                    assert [t["n"] for t in got["turns"]] == [1, 2, 3]
            listing = httpx.get(f"{base}/api/conversations", headers=close).json()
            assert listing["total"] == 4
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    # The index is on the Chroma server; the conversations stay in the local data directory.
    assert (Path(os.environ["PAPERCHAT_DATA_DIR"]) / "conversations.sqlite3").is_file()
    assert "Traceback" not in log_path.read_text()


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", headers={"connection": "close"}).is_success
    except httpx.TransportError:
        return False


def test_answer_json_is_unchanged_but_for_the_id(url: str) -> None:
    out = _ask(url, QUESTION)
    saved = httpx.get(f"{url}/api/conversations/{out['conversation_id']}").json()
    stored = saved["turns"][0]["answer"]
    assert set(out) - set(stored) == {"conversation_id"}
    assert json.dumps(stored, sort_keys=True) == json.dumps(
        {k: v for k, v in out.items() if k != "conversation_id"}, sort_keys=True
    )


def test_a_real_model_titles_a_conversation(llama_server: str) -> None:
    """SmolLM2 on llama.cpp names a conversation in one short call: a clean title, or None
    when its reply is no title (the question's words then stay)."""
    from rag.answer.chat import OpenAIChat
    from rag.answer.saved import model_title
    from tests.conftest import LLAMA_KEY

    chat = OpenAIChat(model="smollm2", base_url=llama_server, api_key=LLAMA_KEY)
    started = time.monotonic()
    title = model_title(chat, "How does KCache reduce the memory overhead of the KV cache?")
    assert time.monotonic() - started < 20  # one call of at most 24 tokens
    assert title is None or (0 < len(title.split()) <= 8 and len(title) <= 60)
    assert title is None or ("\n" not in title and not title.endswith("."))
    assert title is None or "kcache" in title.casefold()
    print(f"title={title!r}")
