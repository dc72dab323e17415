"""The JSON API under /api: search, ask (JSON or Server-Sent Events), papers, ingest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.responses import StreamingResponse

from rag.answer.followup import Turn
from ui.http.errors import ApiError
from ui.http.limits import bearer_check, question_check
from ui.http.schemas import AskRequest, SearchRequest
from ui.http.streaming import event_lines, sse
from ui.http.uploads import discard_failed, public_report, save_upload

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["api_router"]


def api_router(app: App) -> APIRouter:
    """/api over ``app``'s engine and ingester."""
    engine, ingester, settings = app.engine, app.ingester, app.settings
    checked = question_check(settings.max_question_chars)
    router = APIRouter(
        prefix="/api",
        tags=["api"],
        dependencies=[Depends(bearer_check(settings.api_key.get_secret_value()))],
    )

    @router.post("/search")
    def search(body: SearchRequest) -> dict[str, Any]:
        query = checked(body.query, "query")
        filters = body.filters.to_filters() if body.filters else None
        hits = engine.search(query, k=body.k, filters=filters, mode=body.mode)
        return {"query": query, "hits": [h.to_json() for h in hits]}

    @router.post("/ask", response_model=None)
    def ask(body: AskRequest) -> dict[str, Any] | StreamingResponse:
        """The answer with its citations; ``"stream": true`` gives Server-Sent Events
        (sources, delta..., final; error when the model fails)."""
        question = checked(body.question)
        options: dict[str, Any] = {
            "history": [Turn(m.role, m.content, tuple(m.cited)) for m in body.history],
            "filters": body.filters.to_filters() if body.filters else None,
            "llm": body.llm,
            "k": body.k,
        }
        if body.stream:
            return sse(event_lines(engine.answer(question, **options)))
        return engine.ask(question, **options).to_json()

    @router.get("/papers")
    def papers(offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """The stored papers, ``limit`` (1-500) from ``offset``."""
        if offset < 0 or not 1 <= limit <= 500:
            raise ApiError(422, "offset must be >= 0 and limit 1..500", "invalid_request")
        total, page = engine.papers(offset, limit)
        return {"total": total, "offset": offset, "limit": limit,
                "papers": [r.to_json() for r in page]}  # fmt: skip

    @router.post("/ingest")
    def ingest(
        files: list[UploadFile] = File(...),  # noqa: B008
        collection: str = Form(""),
        full_text: bool = Form(False),
    ) -> dict[str, Any]:
        """Upload files (.txt, .jsonl, .json, .csv, .tsv, .bib, .ris, .pdf): parsed, chunked and
        stored as by `paperchat ingest`; bad records are listed, good ones stored. A copy
        of each file is kept under the data directory's uploads/, one folder per content
        hash, so the same file uploaded again changes nothing. A ``collection`` form field
        puts the papers in that collection; ``full_text=true`` indexes PDFs' bodies too."""
        folder = settings.data_dir / "uploads"
        names: dict[str, str] = {}
        for i, upload in enumerate(files):
            path = save_upload(upload, folder, i)
            names[str(path)] = upload.filename or path.name
        paths = [Path(p) for p in names]
        report = ingester.ingest(paths, collection=collection, full_text=full_text).to_json()
        discard_failed(report, names)  # nothing of them was stored: no copy kept
        return public_report(report, names, folder)

    return router
