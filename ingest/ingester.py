"""The ingester: the one door papers come in by, for every face.

Files -> :mod:`ingest.parse`, and identifiers or searches -> :mod:`ingest.sources` (arXiv,
OpenAlex, Crossref); then :mod:`ingest.chunk` -> vectors -> the engine's store
(:mod:`ingest.pipeline`, :mod:`ingest.feed`), and the engine's lexical index and catalogue
are brought up to date, so the next question sees the new papers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.chunk import Chunker
from ingest.collection import add_to_collection, check_name
from ingest.feed import ingest_records
from ingest.parse.clean import Draft
from ingest.pipeline import IngestReport, Progress, ingest_paths
from ingest.sources.enrich import identifier_of, lacking, merge, paper_from_metadata
from ingest.sources.http import Fetcher
from ingest.sources.resolve import Resolved, resolve, search_arxiv
from ingest.zotero.local import ZoteroReadError, read_local
from ingest.zotero.sync import SyncProgress, SyncReport, sync_library
from rag.errors import IngestError
from rag.records import Paper, Skipped

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
        collection: str = "",
        abstract_only: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IngestReport:
        """Ingest every supported file under ``paths`` (see :func:`ingest_paths`), putting
        their papers in ``collection`` if one is named (PDFs' bodies too, unless ``abstract_only``);
        the engine sees the new papers when this returns."""
        collection = check_name(collection) if collection else ""
        with self._lock:
            report = ingest_paths(
                paths,
                store=self.engine.store,
                embedder=self.engine.embedder,
                chunker=self.chunker,
                format=format,
                abstract_only=abstract_only,
                batch_papers=self.batch_papers,
                on_progress=on_progress,
            )
            if collection:
                add_to_collection(self.engine.store, report.paper_ids, collection)
            self.engine.refresh()
            report.replaced = self._superseded(report.paper_ids)
        return report

    def _superseded(self, paper_ids: Sequence[str]) -> list[str]:
        """Remove what a PDF read again under another id stored before (its abstract, and so
        its id, changed with the reader; or it now shows a DOI): one file, one paper. Only
        PDFs: a .bib's papers share their file. The removed ids, sorted."""
        catalogue = self.engine.retriever.index.catalogue
        run = set(paper_ids)
        files = {
            catalogue[pid].source
            for pid in run
            if pid in catalogue and catalogue[pid].source.lower().endswith(".pdf")
        }
        if not files:
            return []
        stale = catalogue.select(lambda _y, _a, source, _c, pid: source in files and pid not in run)
        return self.engine.remove(sorted(stale)) if stale else []

    def add(
        self,
        identifiers: Sequence[str] = (),
        *,
        arxiv_query: str = "",
        max_results: int = 10,
        collection: str = "",
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IngestReport:
        """Add papers by arXiv id or DOI, and the first ``max_results`` results of an arXiv
        search. Everything is fetched first: when a source cannot be reached this raises
        :class:`rag.errors.SourceError` and nothing is stored. Identifiers that are not
        found are reported as skipped. The papers go in ``collection`` if one is named."""
        if not identifiers and not arxiv_query:
            raise IngestError("nothing to add: give arXiv ids or DOIs, or an arXiv query")
        collection = check_name(collection) if collection else ""
        settings = self.engine.settings
        with Fetcher.from_settings(settings) as fetcher:
            found = resolve(identifiers, settings=settings, fetcher=fetcher)
            if arxiv_query:
                more = search_arxiv(arxiv_query, max_results, settings=settings, fetcher=fetcher)
                found.drafts.extend(more.drafts)
        return self._write([*found.skipped, *found.drafts], on_progress, collection)

    def enrich(
        self,
        paper_ids: Sequence[str] = (),
        *,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IngestReport:
        """Fill in missing abstracts, titles, years, DOIs and authors of stored papers from
        the sources, by their DOI or arXiv id (all papers that lack something, or these).
        A source out of reach raises :class:`rag.errors.SourceError`; nothing changes."""
        _, rows = self.engine.papers()
        skipped: list[Skipped] = []
        if paper_ids:
            by_id = {r.id: r for r in rows}
            rows = [by_id[pid] for pid in dict.fromkeys(paper_ids) if pid in by_id]
            skipped += [
                Skipped(pid, None, "not stored: check the id (paperchat papers)")
                for pid in dict.fromkeys(paper_ids)
                if pid not in by_id
            ]
        todo = {r.id: identifier_of(r) for r in rows if lacking(r)}
        if paper_ids:
            skipped += [
                Skipped(pid, None, "has no DOI or arXiv id to look it up by")
                for pid, ident in todo.items()
                if not ident
            ]
        todo = {pid: ident for pid, ident in todo.items() if ident}
        found = Resolved()
        if todo:
            settings = self.engine.settings
            with Fetcher.from_settings(settings) as fetcher:
                found = resolve(list(todo.values()), settings=settings, fetcher=fetcher)
        metas = self.engine.store.first_chunks(list(todo))
        pairs = [
            (stored, merge(stored, found.found[ident]))
            for pid, ident in todo.items()
            if pid in metas and ident in found.found
            for stored in [paper_from_metadata(metas[pid])]
            if not stored.extra.get("full_text")  # its body is in chunks only: keep it whole
        ]
        report = self._write(
            [*skipped, *found.skipped, *(m for s, m in pairs if m != s)], on_progress
        )
        report.unchanged += sum(1 for s, m in pairs if m == s)
        return report

    def sync_zotero(
        self,
        path: Path | None = None,
        *,
        web_library: str = "",
        collection: str = "",
        abstract_only: bool = False,
        on_progress: Callable[[SyncProgress], None] | None = None,
    ) -> SyncReport:
        """Bring the index in step with a Zotero library (:mod:`ingest.zotero.sync`): the
        local one in the data directory ``path`` (default: the ``zotero_dir`` setting), read
        without writing to it, or ``web_library`` ("users/ID" or "groups/ID") through
        Zotero's web API with the ``zotero_api_key`` setting. Only ``collection``'s subtree
        when one is named. Raises :class:`ingest.zotero.local.ZoteroReadError` (nothing
        changed) when the library cannot be read."""
        settings = self.engine.settings
        if web_library:
            from ingest.zotero.web import read_web

            key = settings.zotero_api_key.get_secret_value()
            if not key:
                raise ZoteroReadError(
                    "Zotero's web API needs a key: create one at "
                    "https://www.zotero.org/settings/keys and set ZOTERO_API_KEY"
                )
            cache = settings.data_dir / "zotero" / "web" / web_library.replace("/", "-")
            library = read_web(
                web_library,
                api_key=key,
                cache_dir=cache,
                endpoint=settings.zotero_api_url,
            )  # the whole library: the subtree is cut below, so items outside it stay
        else:
            library = read_local(path or settings.zotero_dir)
        with self._lock:
            return sync_library(
                library,
                self.engine,
                self.chunker,
                collection=collection,
                full_text=not abstract_only,
                on_progress=on_progress,
            )

    def _write(
        self,
        items: Sequence[Draft | Paper | Skipped],
        on_progress: Callable[[Progress], None] | None,
        collection: str = "",
    ) -> IngestReport:
        with self._lock:
            report = ingest_records(
                items,
                store=self.engine.store,
                embedder=self.engine.embedder,
                chunker=self.chunker,
                batch_papers=self.batch_papers,
                on_progress=on_progress,
            )
            if collection:
                add_to_collection(self.engine.store, report.paper_ids, collection)
            self.engine.refresh()
        return report
