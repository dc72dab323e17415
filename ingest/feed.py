"""Records that do not come from files (``paperchat add``, ``enrich``) -> the store, with the
same checks, batches and report as files get (:mod:`ingest.pipeline`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ingest.parse.clean import Draft, build_paper
from ingest.pipeline import DEFAULT_BATCH_PAPERS, IngestReport, Progress, _store_batch
from rag.records import Notice, Paper, Skipped

if TYPE_CHECKING:
    from ingest.chunk import Chunker
    from rag.index.embed import Embedder
    from rag.index.store import Store

__all__ = ["ingest_records"]


def ingest_records(
    items: Iterable[Draft | Paper | Skipped | Notice],
    *,
    store: Store,
    embedder: Embedder,
    chunker: Chunker,
    batch_papers: int = DEFAULT_BATCH_PAPERS,
    on_progress: Callable[[Progress], None] | None = None,
) -> IngestReport:
    """Store these records: Drafts are checked and cleaned as a file's would be, Papers are
    stored as they are; the same paper twice keeps the first. Unchanged papers are not
    embedded again."""
    report = IngestReport()
    first_seen: dict[str, str] = {}
    batch: list[Paper] = []
    t0 = time.perf_counter()

    def flush() -> None:
        if batch:
            _store_batch(batch, store=store, embedder=embedder, chunker=chunker, report=report)
            if on_progress is not None:
                on_progress(Progress(report.papers, report.chunks_written, batch[-1].source))
            batch.clear()

    for item in items:
        if isinstance(item, Draft):
            built, notices = build_paper(item)
            if isinstance(built, Skipped):
                report.skipped.append(built)
                continue
            report.notices.extend(notices)
            item = built
        if isinstance(item, Skipped):
            report.skipped.append(item)
        elif isinstance(item, Notice):
            report.notices.append(item)
        elif item.id in first_seen:
            reason = f"same paper id {item.id!r} as {first_seen[item.id]}; kept the first"
            report.skipped.append(Skipped(item.source, item.position, reason))
        else:
            first_seen[item.id] = f"{item.source} ({item.id})"
            batch.append(item)
            if len(batch) >= batch_papers:
                flush()
    report.seconds["parse"] += time.perf_counter() - t0
    flush()
    report.paper_ids = list(first_seen)
    return report
