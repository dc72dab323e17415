"""Answers as Server-Sent Events: our own event stream (``/api/ask``) and OpenAI's chat
completion chunks (``/v1/chat/completions``)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

from fastapi.responses import StreamingResponse

from rag.answer.events import DeltaEvent, ErrorEvent, Event, FinalEvent
from rag.errors import PaperchatError

__all__ = ["MODEL_ID", "dumps", "event_lines", "extras", "openai_chunks", "sse", "usage"]

log = logging.getLogger("paperchat.api")

MODEL_ID = "paperchat"


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


def event_lines(events: Iterator[Event]) -> Iterator[str]:
    """Our events as SSE: ``event: <type>`` and the event's JSON."""
    for e in guarded(events):
        yield f"event: {e.type}\ndata: {dumps(e.to_json())}\n\n"


def usage(counts: dict[str, Any]) -> dict[str, int]:
    prompt, completion = (
        int(counts.get("prompt_tokens", 0)),
        int(counts.get("completion_tokens", 0)),
    )
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


def extras(final: dict[str, Any]) -> dict[str, Any]:
    """What paperchat adds to an OpenAI reply, under ``paperchat``."""
    keys = ("refused", "mode", "model", "query", "dropped_citations", "fallback_reason", "timings")
    return {k: final[k] for k in keys if k in final}


def openai_chunks(events: Iterator[Event], completion_id: str) -> Iterator[str]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                "model": MODEL_ID, "choices": [{"index": 0, "delta": delta,
                                                "finish_reason": finish}]} | extra  # fmt: skip
        return f"data: {dumps(body)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    sent = False
    for event in guarded(events):
        if isinstance(event, DeltaEvent):
            sent = True
            yield chunk({"content": event.text})
        elif isinstance(event, ErrorEvent) and (sent or not event.fallback):
            # Text already shown cannot be taken back, so there is no silent fallback.
            error = {"message": event.message, "type": "server_error", "code": event.kind}
            yield f"data: {dumps({'error': error})}\n\n"
            yield "data: [DONE]\n\n"
            return
        elif isinstance(event, FinalEvent):
            final = event.to_json()
            yield chunk({}, "stop", citations=final["citations"], usage=usage(final["usage"]),
                        paperchat=extras(final))  # fmt: skip
    yield "data: [DONE]\n\n"
