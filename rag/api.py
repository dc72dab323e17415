"""The HTTP API over one Engine: JSON under /api, OpenAI-compatible under /v1, /healthz.

Every error is JSON, ``{"error": {"message", "type", "code"}}`` (OpenAI's shape, so OpenAI
clients show the message): bad input is a 4xx naming the field, a failed language model a
502, never a traceback. With ``PAPERCHAT_API_KEY`` set, /api and /v1 need
``Authorization: Bearer <key>`` (compared in constant time); /healthz and /docs stay open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, File, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rag.errors import (
    ConfigError,
    EmbedderError,
    IngestError,
    LLMError,
    PaperchatError,
    ParseError,
    QueryError,
    StoreError,
)
from rag.events import DeltaEvent, ErrorEvent, Event, FinalEvent, SourcesEvent
from rag.followup import Turn
from rag.schemas import AskRequest, ChatCompletionRequest, SearchRequest

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from rag.engine import Engine

__all__ = ["create_api"]

log = logging.getLogger("paperchat.api")

MAX_JSON_BYTES = 1 << 20  # every request but an upload
MODEL_ID = "paperchat"


class ApiError(Exception):
    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


def _error(status: int, message: str, code: str) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": code}}, status_code=status
    )


_STATUS = {  # PaperchatError subclass -> (HTTP status, code)
    QueryError: (400, "bad_query"),
    ConfigError: (400, "not_configured"),
    ParseError: (400, "bad_file"),
    IngestError: (400, "bad_ingest"),
    LLMError: (502, "llm_failed"),
    EmbedderError: (503, "embedder_unavailable"),
    StoreError: (503, "store_unavailable"),
}


class BodyLimit:
    """Refuse a request body over its limit with 413 before it is read into memory
    (Content-Length up front, and counted as it streams for chunked uploads)."""

    def __init__(self, app: ASGIApp, *, upload_bytes: int) -> None:
        self.app = app
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if not path.startswith(("/api", "/v1")):
            await self.app(scope, receive, send)  # the UI's own uploads are gradio's
            return
        limit = self.upload_bytes if path == "/api/ingest" else MAX_JSON_BYTES
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(send, limit)

    @staticmethod
    async def _refuse(send: Send, limit: int) -> None:
        response = _error(
            413, f"request body over {limit / 1e6:g} MB: send less (PAPERCHAT_MAX_UPLOAD_MB "
            "sets the upload limit)", "too_large",
        )  # fmt: skip
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json")]})  # fmt: skip
        await send({"type": "http.response.body", "body": response.body})


class _TooLarge(Exception):
    pass


def create_api(engine: Engine) -> FastAPI:
    """The FastAPI app (without the UI; :func:`rag.server.create_app` mounts it at /)."""
    settings = engine.settings
    key = settings.api_key.get_secret_value().encode()
    app = FastAPI(
        title="paperchat",
        summary="Cited answers over a collection of scientific abstracts.",
        version="0.1.0",
        docs_url="/docs",
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, upload_bytes=int(settings.max_upload_mb * 1e6))

    # -- errors ----------------------------------------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        return _error(422, f"{where}: {first.get('msg', 'invalid')}", "invalid_request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), "http_error")

    @app.exception_handler(PaperchatError)
    async def _paperchat(_: Request, exc: PaperchatError) -> JSONResponse:
        status, code = next(
            (v for cls, v in _STATUS.items() if isinstance(exc, cls)), (500, "internal_error")
        )
        return _error(status, str(exc), code)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return _error(500, f"internal error ({type(exc).__name__}); see the server log", "internal")

    # -- auth ------------------------------------------------------------------------------

    def authorized(request: Request) -> None:
        if not key:
            return
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), key):
            raise ApiError(
                401,
                "missing or wrong API key: send 'Authorization: Bearer <PAPERCHAT_API_KEY>'",
                "unauthorized",
            )

    guarded = [Depends(authorized)]

    def question_ok(question: str, field: str = "question") -> str:
        question = question.strip()
        if not question:
            raise ApiError(422, f"{field}: the {field} is empty", "invalid_request")
        if len(question) > settings.max_question_chars:
            raise ApiError(
                413,
                f"{field}: {len(question)} characters, over the limit of "
                f"{settings.max_question_chars} (PAPERCHAT_MAX_QUESTION_CHARS)",
                "question_too_long",
            )
        return question

    # -- routes ----------------------------------------------------------------------------

    @app.get("/healthz", tags=["meta"])
    def healthz() -> dict[str, Any]:
        """Index loaded, papers, embedder, answer mode; a hint when the index is empty."""
        return engine.health()

    @app.post("/api/search", dependencies=guarded, tags=["api"])
    def search(body: SearchRequest) -> dict[str, Any]:
        query = question_ok(body.query, "query")
        filters = body.filters.to_filters() if body.filters else None
        hits = engine.search(query, k=body.k, filters=filters, mode=body.mode)
        return {"query": query, "hits": [h.to_json() for h in hits]}

    @app.post("/api/ask", dependencies=guarded, tags=["api"], response_model=None)
    def ask(body: AskRequest) -> dict[str, Any] | StreamingResponse:
        """The answer with its citations; ``"stream": true`` gives Server-Sent Events
        (sources, delta..., final; error when the model fails)."""
        events = engine.answer(
            question_ok(body.question),
            history=[Turn(m.role, m.content, tuple(m.cited)) for m in body.history],
            filters=body.filters.to_filters() if body.filters else None,
            llm=body.llm,
            k=body.k,
        )
        if body.stream:
            return _sse(
                f"event: {e.type}\ndata: {_dumps(e.to_json())}\n\n" for e in _guarded(events)
            )
        return _collect(events)

    @app.get("/api/papers", dependencies=guarded, tags=["api"])
    def papers(offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """The stored papers, ``limit`` (1-500) from ``offset``."""
        if offset < 0 or not 1 <= limit <= 500:
            raise ApiError(422, "offset must be >= 0 and limit 1..500", "invalid_request")
        total, page = engine.papers(offset, limit)
        return {"total": total, "offset": offset, "limit": limit,
                "papers": [r.to_json() for r in page]}  # fmt: skip

    @app.post("/api/ingest", dependencies=guarded, tags=["api"])
    def ingest(files: list[UploadFile] = File(...)) -> dict[str, Any]:  # noqa: B008
        """Upload files (seed .txt, .jsonl, .json, .csv, .tsv, .bib): parsed, chunked and
        stored as by `paperchat ingest`; bad records are listed, good ones stored. A copy
        of each file is kept under the data directory's uploads/, one folder per content
        hash, so the same file uploaded again changes nothing."""
        names: dict[str, str] = {}
        for i, upload in enumerate(files):
            path = _save_upload(upload, settings.data_dir / "uploads", i)
            names[str(path)] = upload.filename or path.name
        report = engine.ingest([Path(p) for p in names]).to_json()
        for entry in (*report["skipped"], *report["notices"]):
            entry["source"] = names.get(entry["source"], entry["source"])
        return report | {"stored_as": {name: path for path, name in names.items()}}

    @app.get("/v1/models", dependencies=guarded, tags=["openai"])
    def models() -> dict[str, Any]:
        model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "paperchat"}
        return {"object": "list", "data": [model]}

    @app.post("/v1/chat/completions", dependencies=guarded, tags=["openai"], response_model=None)
    def chat_completions(body: ChatCompletionRequest) -> dict[str, Any] | StreamingResponse:
        """OpenAI's chat completions: the last user message is the question, earlier turns
        the history. The answer's [n] markers are in ``content``; the papers they cite are
        in ``citations`` (and in the last streamed chunk). Extras: ``filters``, ``llm``."""
        turns = [m for m in body.messages if m.role in ("user", "assistant")]
        if not turns or turns[-1].role != "user":
            raise ApiError(422, "messages: the last message must be the user's question",
                           "invalid_request")  # fmt: skip
        question = question_ok(str(turns[-1].content))
        events = engine.answer(
            question,
            history=[Turn(m.role, str(m.content)) for m in turns[:-1]],  # type: ignore[arg-type]
            filters=body.filters.to_filters() if body.filters else None,
            llm=body.llm,
        )
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        if body.stream:
            return _sse(_openai_chunks(_guarded(events), completion_id))
        result = _collect(events)
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL_ID,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": result["answer"]}}],
            "usage": _usage(result["usage"]),
            "citations": result["citations"],
            "paperchat": _extras(result),
        }  # fmt: skip

    @app.api_route("/api/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    @app.api_route("/v1/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                   include_in_schema=False)  # fmt: skip
    def unknown(request: Request, rest: str) -> JSONResponse:
        # Without these, the UI mounted at / would answer an unknown API path with its own
        # (non-JSON-error) 404.
        return _error(404, f"Not Found: {request.method} {request.url.path}", "not_found")

    return app


# -- helpers --------------------------------------------------------------------------------


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _sse(lines: Iterator[str]) -> StreamingResponse:
    # A sync iterator: Starlette runs it in a thread, so a slow model blocks no one else.
    return StreamingResponse(
        lines, media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )


def _guarded(events: Iterator[Event]) -> Iterator[Event]:
    """A stream whose failures past the first byte become an error event: a streamed
    response has already sent its status line."""
    try:
        yield from events
    except PaperchatError as exc:
        yield ErrorEvent(str(exc), type(exc).__name__, False)
    except Exception as exc:
        log.exception("unexpected error while streaming")
        yield ErrorEvent(f"internal error ({type(exc).__name__}); see the server log",
                         "internal", False)  # fmt: skip


def _collect(events: Iterator[Event]) -> dict[str, Any]:
    """The final answer as JSON, with the sources offered and any model failure noted."""
    sources: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, SourcesEvent):
            sources = [s.to_json() for s in event.sources]
        elif isinstance(event, ErrorEvent):
            if not event.fallback:
                raise LLMError(event.message, kind=event.kind)
            errors.append(event.to_json())
        elif isinstance(event, FinalEvent):
            out = event.to_json()
            del out["type"]
            return out | {"sources": sources, "errors": errors}
    raise AssertionError("an answer stream ended without a final event")


def _usage(usage: dict[str, Any]) -> dict[str, int]:
    prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


def _extras(final: dict[str, Any]) -> dict[str, Any]:
    keys = ("refused", "mode", "model", "query", "dropped_citations", "fallback_reason", "timings")
    return {k: final[k] for k in keys if k in final}


def _openai_chunks(events: Iterator[Event], completion_id: str) -> Iterator[str]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                "model": MODEL_ID, "choices": [{"index": 0, "delta": delta,
                                                "finish_reason": finish}]} | extra  # fmt: skip
        return f"data: {_dumps(body)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    sent = False
    for event in events:
        if isinstance(event, DeltaEvent):
            sent = True
            yield chunk({"content": event.text})
        elif isinstance(event, ErrorEvent) and (sent or not event.fallback):
            # Text already shown cannot be taken back, so there is no silent fallback.
            error = {"message": event.message, "type": "server_error", "code": event.kind}
            yield f"data: {_dumps({'error': error})}\n\n"
            yield "data: [DONE]\n\n"
            return
        elif isinstance(event, FinalEvent):
            final = event.to_json()
            yield chunk({}, "stop", citations=final["citations"], usage=_usage(final["usage"]),
                        paperchat=_extras(final))  # fmt: skip
    yield "data: [DONE]\n\n"


def _save_upload(upload: UploadFile, folder: Path, i: int) -> Path:
    """Write an upload to ``folder/<content hash>/<safe name>`` (streamed, not in memory)."""
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=folder, delete=False, prefix=".upload-") as tmp:
        while chunk := upload.file.read(1 << 20):
            digest.update(chunk)
            tmp.write(chunk)
    final = folder / digest.hexdigest()[:16] / _safe_name(upload.filename or "", i)
    final.parent.mkdir(exist_ok=True)
    Path(tmp.name).replace(final)
    return final


def _safe_name(name: str, i: int) -> str:
    """An uploaded file's base name, safe to create (no folders, no odd characters)."""
    base = re.split(r"[\\/]", name)[-1].strip().lstrip(".")
    base = re.sub(r"[^\w.+-]+", "_", base)[:120]
    return base or f"upload-{i}.txt"
