"""POST /api/table: a review table over the library (rag.tables), as JSON, a stream of rows,
or Markdown, CSV or BibTeX text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from fastapi.responses import PlainTextResponse, StreamingResponse

from rag.answer import tablefmt
from rag.errors import PaperchatError
from ui.http.errors import scrub_paths
from ui.http.limits import bearer_check
from ui.http.schemas import TableRequest
from ui.http.streaming import dumps, sse

if TYPE_CHECKING:
    from rag.tables import Table
    from ui.app import App

__all__ = ["tables_router"]

_MEDIA = {"markdown": "text/markdown", "csv": "text/csv", "bibtex": "application/x-bibtex"}


def tables_router(app: App) -> APIRouter:
    engine = app.engine
    router = APIRouter(
        prefix="/api",
        tags=["api"],
        dependencies=[Depends(bearer_check(app.settings.api_key.get_secret_value()))],
    )

    @router.post("/table", response_model=None)
    def table(body: TableRequest) -> dict[str, Any] | StreamingResponse | PlainTextResponse:
        """A review table: ``rows`` (one per paper: ``paper_id``, ``label``, ``title``,
        ``year``, ``cells``), each cell ``{column, text, quote, page, section, stated,
        number}``: the sentence of that paper that best states what the column asks, or
        "not stated" (``stated`` false, ``quote`` empty). Unknown ids, no papers or columns,
        more than 500 papers or 12 columns are errors that say so. ``"stream": true`` sends
        each row as it is filled (a client that disconnects stops the table). Nothing is
        stored."""
        plan = engine.table(
            body.columns,
            paper_ids=tuple(dict.fromkeys(body.paper_ids)),
            collection=" ".join(body.collection.split()),
            query=body.query.strip(),
            k=body.k,
            conversation_id=body.conversation_id.strip(),
            llm="openai" if body.model else body.llm,
            model=body.model,
        )
        names = [c.name for c in plan.columns]
        if body.stream:
            return sse(_events(plan, names))
        rows = list(plan.rows())
        if body.format == "markdown":
            return _text(tablefmt.markdown(names, rows), "markdown")
        if body.format == "csv":
            return _text(tablefmt.csv_text(names, rows), "csv")
        if body.format == "bibtex":
            return _text(tablefmt.bibtex(plan.papers) + "\n", "bibtex")
        return {"columns": names, "rows": [r.to_json() for r in rows]}

    return router


def _text(text: str, kind: str) -> PlainTextResponse:
    return PlainTextResponse(text, media_type=f"{_MEDIA[kind]}; charset=utf-8")


def _events(plan: Table, names: list[str]) -> Iterator[str]:
    yield f"event: columns\ndata: {dumps({'columns': names, 'papers': len(plan.papers)})}\n\n"
    try:
        for row in plan.rows():
            yield f"event: row\ndata: {dumps(row.to_json())}\n\n"
    except PaperchatError as exc:
        yield f"event: error\ndata: {dumps({'message': scrub_paths(str(exc))})}\n\n"
        return
    yield "event: done\ndata: {}\n\n"
