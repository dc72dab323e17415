"""Answers as Server-Sent Events: our own event stream (``/api/ask``) and OpenAI's chat
completion chunks (``/v1/chat/completions``).

For OpenAI clients the text is made to read well where only ``content`` is shown: the
``[n]`` markers stay inline and a Markdown "Sources" list follows the answer once (title,
authors, year and a DOI or URL link); the extractive notice opens a conversation's first
reply only; ``usage`` counts tokens with tiktoken when no model counted them."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi.responses import StreamingResponse

from rag.answer.events import DeltaEvent, ErrorEvent, Event, FinalEvent
from rag.answer.prompts import EXTRACTIVE_NOTE
from rag.errors import PaperchatError
from rag.records import format_authors
from rag.tokens import get_encoding

__all__ = [
    "MODEL_ID",
    "SOURCES_HEADING",
    "Rendering",
    "completion_text",
    "dumps",
    "event_lines",
    "extras",
    "openai_chunks",
    "sources_block",
    "sse",
    "strip_sources",
    "usage",
]

log = logging.getLogger("paperchat.api")

MODEL_ID = "paperchat"
SOURCES_HEADING = "**Sources**"
# A refusal's closest papers: listed apart, without markers, so no one reads them as cited.
RELATED_HEADING = "**Related reading** (the closest papers; they do not answer the question)"


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse(lines: Iterator[str]) -> StreamingResponse:
    # A sync iterator: Starlette runs it in a thread, so a slow model blocks no one else.
    return StreamingResponse(
        lines, media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )


def guarded(events: Iterator[Event]) -> Iterator[Event]:
    """A stream whose failures past the first byte become an error event: a streamed
    response has already sent its status line."""
    try:
        yield from events
    except PaperchatError as exc:
        yield ErrorEvent(message=str(exc), kind=type(exc).__name__, fallback=False)
    except Exception as exc:
        log.exception("unexpected error while streaming")
        yield ErrorEvent(message=f"internal error ({type(exc).__name__}); see the server log",
                         kind="internal", fallback=False)  # fmt: skip


def event_lines(events: Iterator[Event], final: dict[str, Any] | None = None) -> Iterator[str]:
    """Our events as SSE: ``event: <type>`` and the event's JSON (the final event's with
    ``final`` added, e.g. the conversation's id)."""
    for e in guarded(events):
        data = e.to_json() | (final or {}) if isinstance(e, FinalEvent) else e.to_json()
        yield f"event: {e.type}\ndata: {dumps(data)}\n\n"


def usage(counts: dict[str, Any]) -> dict[str, int]:
    prompt, completion = (
        int(counts.get("prompt_tokens", 0)),
        int(counts.get("completion_tokens", 0)),
    )
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


def _link(citation: dict[str, Any]) -> str:
    if doi := citation.get("doi"):
        return f"https://doi.org/{doi}"
    return str(citation.get("url") or "")


def sources_block(citations: Sequence[dict[str, Any]]) -> str:
    """The cited papers as a Markdown list after the answer: ``- [n] **Title** — authors
    (year). <link>`` ("" when nothing is cited)."""
    if not citations:
        return ""
    lines = []
    for c in citations:
        link = f". <{_link(c)}>" if _link(c) else ""
        lines.append(f"- [{c['n']}] {_named(c)}{link}")
    return f"\n\n{SOURCES_HEADING}\n\n" + "\n".join(lines)


def _named(paper: dict[str, Any]) -> str:
    """``**Title** — authors (year)``: a paper of the wire form as a list shows it."""
    name = paper.get("title") or paper.get("label") or paper.get("paper_id")
    authors = format_authors(paper.get("authors") or ())
    year = f" ({paper['year']})" if paper.get("year") else ""
    meta = f" — {authors}{year}" if authors or year else ""
    return f"**{name}**{meta}"


def related_block(related: Sequence[dict[str, Any]]) -> str:
    """A refusal's related reading as a Markdown list after it: ``- **Title** — authors
    (year): its sentence nearest the question`` ("" when there is none)."""
    if not related:
        return ""
    lines = []
    for r in related:
        sentence = f": {r['sentence']}" if r.get("sentence") else ""
        lines.append(f"- {_named(r)}{sentence}")
    return f"\n\n{RELATED_HEADING}\n\n" + "\n".join(lines)


def strip_sources(text: str) -> str:
    """An earlier reply as the conversation saw it, without the Sources list (or related
    reading) we appended."""
    for heading in (SOURCES_HEADING, RELATED_HEADING):
        text = text.split(f"\n\n{heading}\n", 1)[0]
    return text


@dataclass(frozen=True, slots=True)
class Rendering:
    """How one /v1 reply is written: the model id it names, whether the extractive notice
    is dropped (an earlier reply carried it), the prompt's token count and the encoding
    that counts the completion when no model did."""

    model_id: str = MODEL_ID
    drop_note: bool = False
    prompt_tokens: int = 0
    encoding: str = "cl100k_base"

    def text(self, piece: str) -> str:
        if self.drop_note and piece.startswith(EXTRACTIVE_NOTE):
            return piece.removeprefix(EXTRACTIVE_NOTE).lstrip("\n")
        return piece

    def usage(self, final: dict[str, Any], content: str) -> dict[str, int]:
        counted = final["usage"]
        if counted.get("prompt_tokens") and not counted.get("estimated"):
            return usage(counted)  # the model's own counts
        completion = len(get_encoding(self.encoding).encode(content, disallowed_special=()))
        return usage({"prompt_tokens": self.prompt_tokens, "completion_tokens": completion})


def extras(final: dict[str, Any]) -> dict[str, Any]:
    """What paperchat adds to an OpenAI reply, under ``paperchat``."""
    keys = ("refused", "mode", "model", "query", "dropped_citations", "fallback_reason", "timings")
    return {k: final[k] for k in keys if k in final}


def openai_chunks(
    events: Iterator[Event], completion_id: str, rendering: Rendering | None = None
) -> Iterator[str]:
    """The events as OpenAI chat completion chunks, written as :class:`Rendering` says."""
    how = rendering or Rendering()
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                "model": how.model_id, "choices": [{"index": 0, "delta": delta,
                                                    "finish_reason": finish}]} | extra  # fmt: skip
        return f"data: {dumps(body)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    sent: list[str] = []
    for event in guarded(events):
        if isinstance(event, DeltaEvent):
            if text := how.text(event.text):
                sent.append(text)
                yield chunk({"content": text})
        elif isinstance(event, ErrorEvent) and (sent or not event.fallback):
            # Text already shown cannot be taken back, so there is no silent fallback.
            error = {"message": event.message, "type": "server_error", "code": event.kind}
            yield f"data: {dumps({'error': error})}\n\n"
            yield "data: [DONE]\n\n"
            return
        elif isinstance(event, FinalEvent):
            final = event.to_json()
            if block := sources_block(final["citations"]) + related_block(final["related"]):
                sent.append(block)
                yield chunk({"content": block})
            yield chunk({}, "stop", citations=final["citations"], related=final["related"],
                        sentences=final["sentences"], usage=how.usage(final, "".join(sent)),
                        paperchat=extras(final))  # fmt: skip
    yield "data: [DONE]\n\n"


def completion_text(final: dict[str, Any], rendering: Rendering) -> str:
    """The whole reply's ``content``: what :func:`openai_chunks` streams, joined."""
    return (
        rendering.text(final["answer"])
        + sources_block(final["citations"])
        + related_block(final["related"])
    )
