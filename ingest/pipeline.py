"""Ingest: files -> papers -> chunks -> vectors -> store, in resumable batches.

Each batch asks the store what it already holds, so unchanged papers are never
re-embedded, a changed abstract replaces its old chunks, and a run killed at any point
is finished by the next run (a paper counts as stored only when all its chunks agree).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ingest.chunk import Chunker, sentence_spans
from ingest.parse.detect import FORMATS, iter_input_files
from ingest.parse.dispatch import parse_file
from ingest.parse.labels import label_candidates, unique_label
from rag.errors import IngestError, ParseError
from rag.index.embed import SpanEmbedder
from rag.index.store import stored_hash
from rag.records import Chunk, Notice, Paper, Skipped

if TYPE_CHECKING:
    from rag.index.embed import Embedder
    from rag.index.store import Store

__all__ = ["IngestReport", "Progress", "ingest_paths"]

DEFAULT_BATCH_PAPERS = 128
MAX_LISTED_SKIPS = 1000
"""Skipped records listed in a report; the rest are only counted (one bad file of 800k
lines once gave a list of 798k)."""


@dataclass(frozen=True, slots=True)
class Progress:
    """Sent after each stored batch: how far the run is."""

    papers_seen: int
    chunks_written: int
    current_file: str


@dataclass
class IngestReport:
    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    replaced: list[str] = field(default_factory=list)  # papers a PDF read again superseded
    chunks_written: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    paper_ids: list[str] = field(default_factory=list)  # every paper of the run, stored or not
    seconds: dict[str, float] = field(
        default_factory=lambda: {"parse": 0.0, "chunk": 0.0, "embed": 0.0, "store": 0.0}
    )
    skipped_count: int = 0  # all of them; ``skipped`` lists the first MAX_LISTED_SKIPS
    notices_count: int = 0

    def skip(self, item: Skipped) -> None:
        self.skipped_count += 1
        if len(self.skipped) < MAX_LISTED_SKIPS:
            self.skipped.append(item)

    def notice(self, item: Notice) -> None:
        self.notices_count += 1
        if len(self.notices) < MAX_LISTED_SKIPS:
            self.notices.append(item)

    @property
    def papers(self) -> int:
        return self.added + self.updated + self.unchanged

    @property
    def ok(self) -> bool:
        """True when every record of every file was used."""
        return not self.skipped_count and not self.skipped

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "papers": self.papers,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "replaced": list(self.replaced),
            "chunks_written": self.chunks_written,
            "skipped": [
                {"source": s.source, "position": s.position, "reason": s.reason}
                for s in self.skipped
            ],
            "notices": [
                {"source": n.source, "position": n.position, "message": n.message}
                for n in self.notices
            ],
            "skipped_count": max(self.skipped_count, len(self.skipped)),
            "notices_count": max(self.notices_count, len(self.notices)),
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "ok": self.ok,
        }


def ingest_paths(
    paths: Sequence[Path],
    *,
    store: Store,
    embedder: Embedder,
    chunker: Chunker,
    format: str | None = None,
    abstract_only: bool = False,
    batch_papers: int = DEFAULT_BATCH_PAPERS,
    on_progress: Callable[[Progress], None] | None = None,
) -> IngestReport:
    """Ingest every supported file under ``paths``. Bad records are skipped and reported;
    good ones are stored. Each file is on its own: one that cannot be read, detected or
    parsed (a FIFO, a device, a dangling link, a symlink loop) is a Skipped and the run goes
    on. Raises :class:`IngestError` only when a path does not exist or ``format`` is unknown."""
    if format is not None and format not in FORMATS:
        raise IngestError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")
    files = list(iter_input_files(paths))
    if not files:
        raise IngestError(
            f"no supported files under {', '.join(map(str, paths))}: "
            "expected .txt (seed format), .jsonl/.json (CSL-JSON too), .csv/.tsv, .bib or .ris"
        )
    report = IngestReport(files=len(files))
    first_seen: dict[str, str] = {}
    batch: list[Paper] = []
    current = ""

    def flush() -> None:
        if batch:
            _store_batch(batch, store=store, embedder=embedder, chunker=chunker, report=report)
            batch.clear()
            if on_progress is not None:
                on_progress(Progress(report.papers, report.chunks_written, current))

    full_text = False  # the batch holds a paper's full text
    for path in files:
        current = str(path)
        t0 = time.perf_counter()
        for item in _parse_isolated(path, format, abstract_only):
            if isinstance(item, Skipped):
                report.skip(item)
            elif isinstance(item, Notice):
                report.notice(item)
            elif item.id in first_seen:
                report.skip(
                    Skipped(
                        item.source,
                        item.position,
                        f"same paper id {item.id!r} as {first_seen[item.id]}; kept the first",
                    )
                )
            else:
                first_seen[item.id] = f"{item.source}:{item.position}"
                batch.append(item)
                full_text = full_text or bool(item.sections)
                if len(batch) >= batch_papers:
                    report.seconds["parse"] += time.perf_counter() - t0
                    flush()
                    t0 = time.perf_counter()
        report.seconds["parse"] += time.perf_counter() - t0
        if full_text:  # a PDF's full text: stored file by file (progress, flat memory)
            flush()
            full_text = False
    flush()
    report.paper_ids = list(first_seen)
    return report


def _parse_isolated(
    path: Path, format: str | None, abstract_only: bool = False
) -> Iterator[Paper | Skipped | Notice]:
    """:func:`parse_file`, with whatever stops this one file turned into a Skipped for it:
    the records it gave before are kept, and the next file is read as usual."""
    problem = _not_a_regular_file(path)
    if problem:
        yield Skipped(str(path), None, problem)
        return
    try:
        yield from parse_file(path, format=format, abstract_only=abstract_only)
    except (IngestError, ParseError) as exc:
        yield Skipped(str(path), None, str(exc))
    except (OSError, RuntimeError, UnicodeError, ValueError, RecursionError) as exc:
        yield Skipped(str(path), None, f"cannot read the file ({type(exc).__name__}: {exc})")


def _not_a_regular_file(path: Path) -> str:
    """Why ``path`` cannot be read as a file (``""`` if it can): opening a FIFO would wait
    for a writer for ever, and a device such as /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if os.path.islink(path):
            what = "a symlink loop" if exc.errno == errno.ELOOP else "a broken link"
            return f"{what} ({exc.strerror}): point it at a file or remove it"
        return f"cannot read the file ({exc.strerror}): check the path and its permissions"
    if stat.S_ISREG(mode):
        return ""
    kind = (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return f"{kind}, not a regular file: only files with abstracts can be read"


def _store_batch(
    papers: list[Paper],
    *,
    store: Store,
    embedder: Embedder,
    chunker: Chunker,
    report: IngestReport,
) -> None:
    t0 = time.perf_counter()
    papers = unique_labels(papers, store)
    stored = store.stored([p.id for p in papers])
    report.seconds["store"] += time.perf_counter() - t0

    todo: list[tuple[Paper, list[Chunk]]] = []
    stale: dict[str, frozenset[str]] = {}
    t0 = time.perf_counter()
    for paper in papers:
        previous = stored.get(paper.id)
        if previous is not None and previous.complete and previous.paper_hash == stored_hash(paper):
            report.unchanged += 1
            continue
        chunks = chunker.chunk(paper)
        if not chunks:
            report.skip(Skipped(paper.source, paper.position, "abstract has no text left to index"))
            continue
        if previous is None:
            report.added += 1
        else:
            report.updated += 1
            stale[paper.id] = previous.chunk_ids
        todo.append((paper, chunks))
    report.seconds["chunk"] += time.perf_counter() - t0
    if not todo:
        return

    t0 = time.perf_counter()
    vectors, sentences = _embed(todo, embedder)
    report.seconds["embed"] += time.perf_counter() - t0

    t0 = time.perf_counter()
    store.write(todo, vectors, stale=stale, sentence_vectors=sentences)
    report.seconds["store"] += time.perf_counter() - t0
    report.chunks_written += len(vectors)


def unique_labels(papers: list[Paper], store: Store) -> list[Paper]:
    """``papers`` (a batch) with each untitled paper's derived label unique in the library:
    one that another stored paper, or one earlier in the batch, holds already gives way to
    the paper's next candidate (:func:`ingest.parse.labels.label_candidates`). The same
    files ingested again give the same labels."""
    assigned: dict[str, str] = {}  # label -> paper id, this batch's
    options = {
        p.id: cands
        for p in papers
        if not p.title
        for cands in [label_candidates(p.abstract, authors=p.authors, year=p.year)]
        if cands and p.label == cands[0]
    }
    if not options:
        return papers
    holders = store.label_holders(sorted({c for cands in options.values() for c in cands}))
    out = []
    for paper in papers:
        cands = options.get(paper.id)
        if cands:

            def taken(label: str, pid: str = paper.id) -> bool:
                return bool(holders.get(label, set()) - {pid}) or assigned.get(label, pid) != pid

            label = unique_label(cands[0], taken, fallback=[*cands[1:], paper.id])
            if label != paper.label:
                paper = replace(paper, label=label)
        assigned.setdefault(paper.label, paper.id)
        out.append(paper)
    return out


def _embed(
    todo: list[tuple[Paper, list[Chunk]]], embedder: Embedder
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The chunks' vectors, in order, and each paper's sentence vectors (rows in
    :func:`split_sentences` order, NaN where none) when the embedder pools them from the
    same pass; answers then embed no sentences at question time."""
    texts = [chunk.embed_text for _, chunks in todo for chunk in chunks]
    if not isinstance(embedder, SpanEmbedder):
        return np.asarray(embedder.embed_documents(texts)), {}
    located = [sentence_spans(paper, chunks) for paper, chunks in todo]
    vectors, pooled = embedder.embed_spans(texts, [s for spans, _ in located for s in spans])
    sentences: dict[str, np.ndarray] = {}
    first = 0  # the paper's first chunk in texts
    for (paper, chunks), (_, where) in zip(todo, located, strict=True):
        if where:
            rows = np.full((len(where), embedder.dim), np.nan, dtype=np.float32)
            for j, at in enumerate(where):
                if at is not None:
                    rows[j] = pooled[first + at[0]][at[1]]
            sentences[paper.id] = rows
        first += len(chunks)
    return np.asarray(vectors), sentences
