"""The ingester: the one door papers come in by, for every face.

Files (and, later, outside sources) -> :mod:`ingest.parse` -> :mod:`ingest.chunk` ->
vectors -> the engine's store (:mod:`ingest.pipeline`), then the engine's lexical index and
catalogue are brought up to date, so the next question sees the new papers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.chunk import Chunker
from ingest.pipeline import IngestReport, Progress, ingest_paths

if TYPE_CHECKING:
    from rag.engine import Engine

__all__ = ["Ingester"]


class Ingester:
    """Writes papers into one engine's index; one ingest at a time per process."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        settings = engine.settings
        self.chunker = Chunker.from_settings(settings, engine.embedder)
        self.batch_papers = max(settings.embed_batch_size * 4, 32)
        self._lock = threading.Lock()

    def ingest(
        self,
        paths: Sequence[Path],
        *,
        format: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IngestReport:
        """Ingest every supported file under ``paths`` (see :func:`ingest_paths`); the
        engine sees the new papers when this returns."""
        with self._lock:
            report = ingest_paths(
                paths,
                store=self.engine.store,
                embedder=self.engine.embedder,
                chunker=self.chunker,
                format=format,
                batch_papers=self.batch_papers,
                on_progress=on_progress,
            )
            self.engine.refresh()
        return report
