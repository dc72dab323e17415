"""/api/papers: changing the library (removal) over one App."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends

from ui.http.limits import bearer_check

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["papers_router"]


def papers_router(app: App) -> APIRouter:
    """DELETE /api/papers/{paper_id} over ``app``'s engine."""
    engine = app.engine
    router = APIRouter(
        prefix="/api",
        tags=["api"],
        dependencies=[Depends(bearer_check(app.settings.api_key.get_secret_value()))],
    )

    @router.delete("/papers/{paper_id:path}")
    def remove(paper_id: str) -> dict[str, Any]:
        """Remove one paper (its chunks, lexical entries and catalogue row). Idempotent: a
        paper that is not stored gives ``"removed": []`` (200), not a 404."""
        removed = engine.remove([paper_id])
        return {"removed": removed, "not_found": [] if removed else [paper_id]}

    return router
