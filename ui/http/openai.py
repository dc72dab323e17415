"""The OpenAI-compatible API under /v1: ``GET /v1/models`` and ``POST /v1/chat/completions``.

The last user message is the question, earlier turns the history. ``content`` is the answer
with its ``[n]`` markers and a Markdown "Sources" list after it (:mod:`ui.http.streaming`);
the papers are also in ``citations`` (and in the last streamed chunk). Models:
``paperchat`` answers as the server is configured, ``paperchat-extractive`` without a
language model, and ``paperchat/<model>`` with that model of the configured (or locally
found) server. A client's own housekeeping requests (titles, tags, follow-up suggestions:
:mod:`ui.http.housekeeping`) are answered briefly without retrieval. Extras in the body:
``filters`` and ``llm``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from rag.answer.events import collect
from rag.answer.followup import Turn
from rag.tokens import get_encoding
from ui.http.errors import ApiError
from ui.http.housekeeping import housekeeping, reply
from ui.http.limits import bearer_check, question_check
from ui.http.schemas import ChatCompletionRequest
from ui.http.streaming import (
    MODEL_ID,
    Rendering,
    completion_text,
    dumps,
    extras,
    openai_chunks,
    sse,
    strip_sources,
    usage,
)

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["EXTRACTIVE_ID", "openai_router"]

EXTRACTIVE_ID = f"{MODEL_ID}-extractive"


def _model(created: int, model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": "paperchat"}


def openai_router(app: App) -> APIRouter:
    engine, settings = app.engine, app.settings
    checked = question_check(settings.max_question_chars)
    router = APIRouter(
        prefix="/v1",
        tags=["openai"],
        dependencies=[Depends(bearer_check(settings.api_key.get_secret_value()))],
    )

    def served() -> list[str]:
        listed = engine.models().models if settings.llm != "extractive" else ()
        return [MODEL_ID, EXTRACTIVE_ID, *(f"{MODEL_ID}/{m}" for m in listed)]

    def choice(body: ChatCompletionRequest) -> dict[str, Any]:
        """The engine options ``body.model`` names."""
        if body.model in (MODEL_ID, ""):
            return {"llm": body.llm}
        if body.model == EXTRACTIVE_ID:
            return {"llm": "extractive"}
        if body.model.startswith(f"{MODEL_ID}/"):
            return {"llm": body.llm, "model": body.model.removeprefix(f"{MODEL_ID}/")}
        raise ApiError(404, f"model {body.model!r} is not served here: choose one of "
                       f"{', '.join(served())} (GET /v1/models)", "model_not_found")  # fmt: skip

    @router.get("/models")
    def models() -> dict[str, Any]:
        """``paperchat`` (the server's default answerer), ``paperchat-extractive``, and
        ``paperchat/<model>`` for each model the language model server lists."""
        return {"object": "list", "data": [_model(0, m) for m in served()]}

    @router.post("/chat/completions", response_model=None)
    def chat_completions(body: ChatCompletionRequest) -> dict[str, Any] | StreamingResponse:
        """OpenAI's chat completions over the papers: the last user message is the question,
        earlier turns the history. ``content`` is the answer with its ``[n]`` markers and a
        "Sources" list after it; the papers are also in ``citations`` (and in the last
        streamed chunk), each generated sentence's sources in ``sentences``. ``model`` picks
        the answerer (``paperchat``, ``paperchat-extractive``, ``paperchat/<model>``: see
        GET /v1/models); extras in the body: ``filters`` and ``llm``."""
        turns = [m for m in body.messages if m.role in ("user", "assistant")]
        if not turns or turns[-1].role != "user":
            raise ApiError(422, "messages: the last message must be the user's question",
                           "invalid_request")  # fmt: skip
        prompt = str(turns[-1].content)
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        encoding = get_encoding(settings.tiktoken_encoding)
        prompt_tokens = sum(
            len(encoding.encode(str(m.content), disallowed_special=())) for m in body.messages
        )
        if task := housekeeping(prompt):
            text = reply(task, prompt)
            written = len(encoding.encode(text, disallowed_special=()))
            count = {"prompt_tokens": prompt_tokens, "completion_tokens": written}
            return _brief(body, completion_id, text, usage(count))
        question = checked(prompt)
        earlier = [Turn(m.role, strip_sources(str(m.content))) for m in turns[:-1]]  # type: ignore[arg-type]
        events = engine.answer(
            question,
            history=earlier,
            filters=body.filters.to_filters() if body.filters else None,
            **choice(body),
        )
        rendering = Rendering(
            model_id=body.model or MODEL_ID,
            drop_note=any(t.role == "assistant" for t in earlier),
            prompt_tokens=prompt_tokens,
            encoding=settings.tiktoken_encoding,
        )
        if body.stream:
            return sse(openai_chunks(events, completion_id, rendering))
        result = collect(events).to_json()
        content = completion_text(result, rendering)
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": rendering.model_id,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": rendering.usage(result, content),
            "citations": result["citations"],
            "related": result["related"],
            "sentences": result["sentences"],
            "paperchat": extras(result),
        }  # fmt: skip

    return router


def _brief(
    body: ChatCompletionRequest, completion_id: str, text: str, counts: dict[str, int]
) -> dict[str, Any] | StreamingResponse:
    """A housekeeping reply, whole or as one streamed piece."""
    created, model_id = int(time.time()), body.model or MODEL_ID
    if not body.stream:
        return {"id": completion_id, "object": "chat.completion", "created": created,
                "model": model_id, "usage": counts,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]}  # fmt: skip

    def lines() -> Iterator[str]:
        for delta, finish in (({"role": "assistant", "content": ""}, None),
                              ({"content": text}, None), ({}, "stop")):  # fmt: skip
            chunk = {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                     "model": model_id, "choices": [{"index": 0, "delta": delta,
                                                     "finish_reason": finish}]}  # fmt: skip
            yield f"data: {dumps(chunk | ({'usage': counts} if finish else {}))}\n\n"
        yield "data: [DONE]\n\n"

    return sse(lines())
