"""The OpenAI-compatible API under /v1: ``GET /v1/models`` and ``POST /v1/chat/completions``.

The last user message is the question, earlier turns the history. The answer's ``[n]``
markers are in ``content``; the papers they cite are in ``citations`` (and in the last
streamed chunk). Extras in the body: ``filters`` and ``llm``.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from rag.answer.events import collect
from rag.answer.followup import Turn
from ui.http.errors import ApiError
from ui.http.limits import bearer_check, question_check
from ui.http.schemas import ChatCompletionRequest
from ui.http.streaming import MODEL_ID, extras, openai_chunks, sse, usage

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["openai_router"]


def openai_router(app: App) -> APIRouter:
    engine, settings = app.engine, app.settings
    checked = question_check(settings.max_question_chars)
    router = APIRouter(
        prefix="/v1",
        tags=["openai"],
        dependencies=[Depends(bearer_check(settings.api_key.get_secret_value()))],
    )

    @router.get("/models")
    async def models() -> dict[str, Any]:
        model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "paperchat"}
        return {"object": "list", "data": [model]}

    @router.post("/chat/completions", response_model=None)
    def chat_completions(body: ChatCompletionRequest) -> dict[str, Any] | StreamingResponse:
        """OpenAI's chat completions over the papers (see the module doc)."""
        turns = [m for m in body.messages if m.role in ("user", "assistant")]
        if not turns or turns[-1].role != "user":
            raise ApiError(422, "messages: the last message must be the user's question",
                           "invalid_request")  # fmt: skip
        question = checked(str(turns[-1].content))
        events = engine.answer(
            question,
            history=[Turn(m.role, str(m.content)) for m in turns[:-1]],  # type: ignore[arg-type]
            filters=body.filters.to_filters() if body.filters else None,
            llm=body.llm,
        )
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        if body.stream:
            return sse(openai_chunks(events, completion_id))
        result = collect(events).to_json()
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL_ID,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": result["answer"]}}],
            "usage": usage(result["usage"]),
            "citations": result["citations"],
            "paperchat": extras(result),
        }  # fmt: skip

    return router
