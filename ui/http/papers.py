"""/api/papers and /api/zotero: changing the library over one App: adding by identifier,
syncing a Zotero library, removing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends

from ui.http.errors import ApiError
from ui.http.limits import bearer_check
from ui.http.schemas import AddRequest, ZoteroSyncRequest

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["papers_router"]


def papers_router(app: App) -> APIRouter:
    """POST /api/papers and DELETE /api/papers/{paper_id} over ``app``'s two doors."""
    engine, ingester = app.engine, app.ingester
    router = APIRouter(
        prefix="/api",
        tags=["api"],
        dependencies=[Depends(bearer_check(app.settings.api_key.get_secret_value()))],
    )

    @router.post("/papers")
    def add(body: AddRequest) -> dict[str, Any]:
        """Add papers by arXiv id or DOI (``identifiers``) and/or the first ``max`` results
        of an arXiv search (``arxiv_query``), as `paperchat add` does: the ingest report,
        unknown identifiers listed as skipped. A source that cannot be reached is a 502 and
        nothing is stored."""
        if not body.identifiers and not body.arxiv_query:
            raise ApiError(422, "give identifiers or arxiv_query", "invalid_request")
        report = ingester.add(
            body.identifiers,
            arxiv_query=body.arxiv_query,
            max_results=body.max,
            collection=body.collection,
        )
        return report.to_json()

    @router.post("/zotero/sync")
    def zotero_sync(body: ZoteroSyncRequest) -> dict[str, Any]:
        """Bring the library in step with a Zotero library, as `paperchat zotero sync` does:
        the local one in ``zotero_dir`` on the server (read-only), or ``library`` through
        Zotero's web API. The sync report; a library that cannot be read is a 400 and
        nothing changes."""
        if body.zotero_dir and body.library:
            raise ApiError(422, "give zotero_dir or library, not both", "invalid_request")
        report = ingester.sync_zotero(
            Path(body.zotero_dir).expanduser() if body.zotero_dir else None,
            web_library=body.library,
            collection=body.collection,
            abstract_only=body.abstract_only,
        )
        return report.to_json()

    @router.delete("/papers/{paper_id:path}")
    def remove(paper_id: str) -> dict[str, Any]:
        """Remove one paper (its chunks, lexical entries and catalogue row). Idempotent: a
        paper that is not stored gives ``"removed": []`` (200), not a 404."""
        removed = engine.remove([paper_id])
        return {"removed": removed, "not_found": [] if removed else [paper_id]}

    return router
