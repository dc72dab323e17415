"""/api/conversations: the saved conversations over one App (list, read, rename, delete,
export), and answering within one for POST /api/ask.

Every route goes through ``engine.conversations``; with ``PAPERCHAT_API_KEY`` set they need
the key like the rest of /api. An unknown id is a 404.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import PlainTextResponse, StreamingResponse

from rag.answer.events import collect
from rag.answer.references import conversation_bibtex, conversation_markdown
from ui.http.errors import ApiError
from ui.http.limits import bearer_check
from ui.http.schemas import RenameRequest
from ui.http.streaming import event_lines, sse

if TYPE_CHECKING:
    from rag.engine import Engine
    from ui.app import App

__all__ = ["answer_saved", "conversations_router"]

_MEDIA = {"markdown": ("text/markdown", "md"), "bibtex": ("application/x-bibtex", "bib")}


def answer_saved(
    engine: Engine,
    question: str,
    conversation_id: str | None,
    options: dict[str, Any],
    *,
    stream: bool,
) -> dict[str, Any] | StreamingResponse:
    """POST /api/ask within a saved conversation: the answer's JSON (or its events) with the
    conversation's id, the turn saved."""
    cid, events = engine.conversations.converse(
        question, conversation_id=conversation_id, **options
    )
    if stream:
        return sse(event_lines(events, {"conversation_id": cid}))
    return collect(events).to_json() | {"conversation_id": cid}


def _file_name(title: str, ext: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()[:60] or "conversation"
    return f"{slug}.{ext}"


def conversations_router(app: App) -> APIRouter:
    """/api/conversations over ``app``'s engine."""
    engine = app.engine
    router = APIRouter(
        prefix="/api/conversations",
        tags=["conversations"],
        dependencies=[Depends(bearer_check(app.settings.api_key.get_secret_value()))],
    )

    @router.get("")
    def listing(q: str = "", limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """The saved conversations, newest first (by their last turn): ``limit`` (1-500) from
        ``offset``, only those whose title holds ``q`` (case ignored) when given. A
        ``notice`` says when a damaged conversations file was set aside."""
        if offset < 0 or not 1 <= limit <= 500:
            raise ApiError(422, "offset must be >= 0 and limit 1..500", "invalid_request")
        if len(q) > 200:
            raise ApiError(422, "q: at most 200 characters", "invalid_request")
        store = engine.conversations
        total, rows = store.listing(q, limit=limit, offset=offset)
        out = {"total": total, "offset": offset, "limit": limit,
               "conversations": [c.to_json() for c in rows]}  # fmt: skip
        return out | ({"notice": store.notice} if store.notice else {})

    @router.get("/{conversation_id}")
    def one(conversation_id: str) -> dict[str, Any]:
        """A conversation and its turns in order: each question with its answer as
        POST /api/ask returned it (citations, sources), the filters and model asked for."""
        conversation, turns = engine.conversations.get(conversation_id)
        return conversation.to_json() | {"turns": [t.to_json() for t in turns]}

    @router.patch("/{conversation_id}")
    def rename(conversation_id: str, body: RenameRequest) -> dict[str, Any]:
        """Give the conversation a new title."""
        if not body.title.strip():
            raise ApiError(422, "title: cannot be blank", "invalid_request")
        return engine.conversations.rename(conversation_id, body.title).to_json()

    @router.delete("/{conversation_id}")
    def delete(conversation_id: str) -> dict[str, Any]:
        """Delete the conversation and its turns."""
        engine.conversations.delete(conversation_id)
        return {"deleted": conversation_id}

    @router.get("/{conversation_id}/export", response_class=PlainTextResponse)
    def export(
        conversation_id: str, format: Literal["markdown", "bibtex"] = "markdown"
    ) -> PlainTextResponse:
        """The conversation as Markdown (each question, its answer and the papers it cited)
        or the BibTeX entries of every paper it cited, as a file to save."""
        conversation, turns = engine.conversations.get(conversation_id)
        exchanges = [(t.question, str(t.answer.get("answer", "")), t.citations()) for t in turns]
        if format == "markdown":
            text = conversation_markdown(conversation.title, exchanges)
        else:
            text = conversation_bibtex(exchanges) or "% this conversation cites no paper\n"
        media, ext = _MEDIA[format]
        disposition = f'attachment; filename="{_file_name(conversation.title, ext)}"'
        return PlainTextResponse(
            text,
            media_type=f"{media}; charset=utf-8",
            headers={"content-disposition": disposition},
        )

    return router
