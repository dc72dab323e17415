"""/v1 as real clients use it, over a real socket: Open WebUI's own requests replayed
(tests/data/openwebui/), the official openai client streaming and not, and /docs offline."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rag.answer.prompts import EXTRACTIVE_NOTE, NO_ANSWER
from rag.tokens import get_encoding
from tests.conftest import ingested_sample
from tests.test_api import Server
from ui.cli.main import main
from ui.http.housekeeping import housekeeping, reply
from ui.http.streaming import SOURCES_HEADING, strip_sources

pytestmark = pytest.mark.integration

OPEN_WEBUI = Path(__file__).parent / "data" / "openwebui"
QUESTION = "How does KCache reduce the memory overhead of the KV cache?"


def _body(name: str) -> dict[str, Any]:
    return json.loads((OPEN_WEBUI / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = ingested_sample(tmp_path_factory, "v1-index")
    with Server(data) as running:
        yield running.url


def _streamed(response: httpx.Response) -> tuple[str, list[dict[str, Any]]]:
    """The content a client shows, and the chunks."""
    chunks = []
    for block in response.text.strip().split("\n\n"):
        data = block.removeprefix("data: ")
        if data != "[DONE]":
            chunks.append(json.loads(data))
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    return text, chunks


def _tokens(text: str) -> int:
    return len(get_encoding("cl100k_base").encode(text))


# -- housekeeping ------------------------------------------------------------------------------


TASKS = [
    ("task_title.json", "title"),
    ("task_tags.json", "tags"),
    ("task_follow_ups.json", "follow_ups"),
    ("task_queries.json", "queries"),
]


def test_the_detector_tells_housekeeping_from_questions() -> None:
    for name, task in TASKS:
        assert housekeeping(_body(name)["messages"][-1]["content"]) == task, name
    questions = (
        QUESTION,
        "Generate a title for a paper on KV caches",
        "Which papers suggest follow-up questions for tags?",
        "### Tasks in papers",
    )
    for question in questions:
        assert housekeeping(question) is None, question
    assert housekeeping("### Task:\nDescribe an image for generation.") == "other"
    old_title = (
        "Create a concise, 3-5 word phrase as a header for the following query, strictly "
        "adhering to the 3-5 word limit and avoiding the use of the word 'title': " + QUESTION
    )
    assert housekeeping(old_title) == "title"
    assert reply("title", old_title) == "KCache Reduce Memory Overhead KV"
    assert reply("other", "### Task:\nanything") == "{}"


@pytest.mark.parametrize(("name", "key"), TASKS)
def test_open_webui_housekeeping_is_answered_without_retrieval(
    server: str, name: str, key: str
) -> None:
    out = httpx.post(f"{server}/v1/chat/completions", json=_body(name), timeout=30).json()
    content = out["choices"][0]["message"]["content"]
    asked = json.loads(content)  # the raw JSON object the prompt asks for, nothing around it
    assert list(asked) == [key]
    assert "citations" not in out and "[1]" not in content  # no retrieval, no sources
    assert out["usage"]["prompt_tokens"] > 100 and out["usage"]["completion_tokens"] > 0
    if key == "title":
        assert asked["title"] == "KCache Reduce Memory Overhead KV"
    if key == "follow_ups":
        assert len(asked["follow_ups"]) >= 3 and "KCache" in asked["follow_ups"][0]
    if key == "queries":
        assert asked["queries"] == []


def test_housekeeping_streams_too(server: str) -> None:
    body = _body("task_title.json") | {"stream": True}
    with httpx.stream("POST", f"{server}/v1/chat/completions", json=body, timeout=30) as r:
        r.read()
    text, chunks = _streamed(r)
    assert json.loads(text) == {"title": "KCache Reduce Memory Overhead KV"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["usage"]


# -- answers as Open WebUI shows them --------------------------------------------------------


def test_open_webui_conversation_replayed(server: str) -> None:
    url = f"{server}/v1/chat/completions"
    with httpx.stream("POST", url, json=_body("chat_first.json"), timeout=60) as r:
        r.read()
    first, chunks = _streamed(r)
    assert first.startswith(EXTRACTIVE_NOTE) and first.count(EXTRACTIVE_NOTE) == 1
    answer, sources = first.split(f"\n\n{SOURCES_HEADING}\n\n")
    citations = chunks[-1]["citations"]
    # One Sources list after the answer, one line per cited paper, numbered as the markers.
    lines = sources.splitlines()
    assert len(lines) == len(citations) and "[1]" in answer
    assert lines[0].startswith(f"- [1] **{citations[0]['title'] or citations[0]['label']}**")
    assert sum(line.startswith("- [") for line in first.splitlines()) == len(citations)
    # Beside the citations, the answer's sentences with their numbers and support.
    sentences = chunks[-1]["sentences"]
    assert {n for s in sentences for n in s["citations"]} == {c["n"] for c in citations}
    usage = chunks[-1]["usage"]
    assert usage["prompt_tokens"] == _tokens(QUESTION)
    assert usage["completion_tokens"] == _tokens(first)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]

    with httpx.stream("POST", url, json=_body("chat_followup.json"), timeout=60) as r:
        r.read()
    follow, chunks = _streamed(r)
    assert EXTRACTIVE_NOTE not in follow  # said once per conversation
    assert "[1]" in follow and f"\n\n{SOURCES_HEADING}\n\n" in follow
    assert "KCache" in chunks[-1]["citations"][0]["label"]  # the topic carried over
    assert chunks[-1]["paperchat"]["query"] != "and how much does it improve throughput?"


def test_sources_are_linked_when_the_paper_has_a_doi(tmp_path: Path) -> None:
    papers = tmp_path / "papers.jsonl"
    row = {"id": "p1", "title": "Paged KV caches", "authors": ["Ada Lovelace"], "year": 2024,
           "doi": "10.1000/kv.1", "abstract": "We page the KV cache of LLM inference to cut "
           "its memory by 4x. Paging keeps throughput high."}  # fmt: skip
    papers.write_text(json.dumps(row) + "\n")
    data = tmp_path / "doi-index"
    assert main(["ingest", str(papers), "--data-dir", str(data), "--json"]) == 0
    with Server(data) as running:
        body = {"model": "paperchat", "messages": [
            {"role": "user", "content": "How much does paging cut KV cache memory?"}]}  # fmt: skip
        out = httpx.post(f"{running.url}/v1/chat/completions", json=body, timeout=60).json()
    content = out["choices"][0]["message"]["content"]
    assert content.endswith(
        "- [1] **Paged KV caches** — Ada Lovelace (2024). <https://doi.org/10.1000/kv.1>"
    )


def test_strip_sources_gives_back_the_answer() -> None:
    text = f"An answer [1].\n\n{SOURCES_HEADING}\n\n- [1] **A** — B (2020)"
    assert strip_sources(text) == "An answer [1]." and strip_sources("plain") == "plain"


def test_the_official_openai_client_streaming_and_not(server: str) -> None:
    import openai

    client = openai.OpenAI(base_url=f"{server}/v1", api_key="anything")
    assert [m.id for m in client.models.list()] == ["paperchat", "paperchat-extractive"]
    ask = [{"role": "user", "content": QUESTION}]
    whole = client.chat.completions.create(model="paperchat", messages=ask)  # type: ignore[arg-type]
    content = whole.choices[0].message.content or ""
    assert whole.usage is not None and whole.usage.completion_tokens == _tokens(content)
    assert whole.usage.prompt_tokens == _tokens(QUESTION)
    assert content.count(SOURCES_HEADING) == 1

    stream = client.chat.completions.create(
        model="paperchat-extractive", messages=ask, stream=True,  # type: ignore[arg-type]
        stream_options={"include_usage": True},
    )  # fmt: skip
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == content  # the same reply, streamed
    last = chunks[-1].usage
    assert last is not None and last.total_tokens == whole.usage.total_tokens

    later = [*ask, {"role": "assistant", "content": content},
             {"role": "user", "content": "What is Llumnix?"}]  # fmt: skip
    again = client.chat.completions.create(model="paperchat", messages=later)  # type: ignore[arg-type]
    assert EXTRACTIVE_NOTE not in (again.choices[0].message.content or "")

    off = client.chat.completions.create(
        model="paperchat", messages=[{"role": "user", "content": "Who won the 2018 World Cup?"}]
    )
    assert off.choices[0].message.content == NO_ANSWER  # no Sources list under a refusal
    with pytest.raises(openai.NotFoundError, match="paperchat-extractive"):
        client.chat.completions.create(model="gpt-4o", messages=ask)  # type: ignore[arg-type]


# -- /docs ---------------------------------------------------------------------------------------


def test_docs_work_offline(server: str) -> None:
    page = httpx.get(f"{server}/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)""", page.text)
    assert urls and all(u.startswith("/docs/assets/") for u in urls), urls
    assert "//" not in re.sub(r"<!--.*?-->", "", page.text).replace("'/openapi.json'", "")
    for url in urls:
        asset = httpx.get(server + url)
        assert asset.status_code == 200 and len(asset.content) > 500, url
    assert httpx.get(f"{server}/openapi.json").json()["info"]["title"] == "paperchat"
