"""Review tables over the library: which papers are the rows, and the rows filled one by one.

The papers are picked by id, by collection, by a search query (its ``k`` best), or as the
papers a saved conversation cited; several ways together give their union, in that order,
each paper once (a query with a collection searches within it). The rows come as a stream
(:meth:`Table.rows`), so a face shows the first one while the rest are read and can stop at
any row. The cells are chosen by :mod:`rag.answer.table`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from rag.answer.cite import Source
from rag.answer.table import MAX_PAPERS, Column, Row, TableReader, columns
from rag.answer.tablellm import phrased
from rag.errors import NotFoundError, QueryError
from rag.index.layout import sentence_vectors
from rag.passages import body_passages
from rag.retrieve import Filters

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.conversations import Conversations
    from rag.index.embed import Embedder
    from rag.index.store import Store
    from rag.records import PaperRow
    from rag.retrieve import Hit, Retriever


class Library(Protocol):
    """What a table reads (:class:`rag.engine.Engine` is one): the store, the retriever and
    its catalogue, the embedder answers use, search, and the saved conversations."""

    @property
    def store(self) -> Store: ...

    @property
    def retriever(self) -> Retriever: ...

    @property
    def answer_embedder(self) -> Embedder: ...

    @property
    def conversations(self) -> Conversations: ...

    def search(self, query: str, *, k: int = ..., filters: Filters | None = ...,
               passages: int = ...) -> list[Hit]: ...  # fmt: skip


__all__ = ["BATCH", "BODY_PASSAGES", "Library", "Table", "plan"]

BATCH = 16  # papers read from the store at once (the first row waits for one batch only)
BODY_PASSAGES = 2  # a full-text paper's body passages nearest each column that are read
# Rows filled at once: two overlap one row's reading with the next row's features, each
# read on half the cores (rag.answer.reader.TABLE_THREADS); bench/table.py --time.
WORKERS = 2


@dataclass(frozen=True, slots=True)
class Table:
    """The table asked for: its columns and the papers of its rows, in order."""

    columns: tuple[Column, ...]
    papers: tuple[PaperRow, ...]
    engine: Library
    chat: ChatModel | None = None  # a model writes each stated cell's phrase (checked)

    def rows(self) -> Iterator[Row]:
        """Each paper's row, in order, as soon as it is filled."""
        return (row for _, row in self.filled())

    def filled(self) -> Iterator[tuple[Source, Row]]:
        """Each paper as a numbered source, and its row, in order. :data:`WORKERS` rows are
        filled at once (the reader's model runs outside Python's lock), at most that many
        ahead of the one given: a table stopped early reads little more than it showed."""
        reader = TableReader(self.columns, self.engine.answer_embedder)

        def fill(item: tuple[Source, dict[str, Source]]) -> tuple[Source, Row]:
            source, passages = item
            if not source.paper.has_abstract and not passages:
                return source, reader.empty_row(source)
            row = reader.row(source, passages)
            if self.chat is not None:
                row = phrased(row, list(self.columns), source, self.chat)
            return source, row

        pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="table-row")
        ahead: deque[Future[tuple[Source, Row]]] = deque()
        try:
            for item in self.sources():
                ahead.append(pool.submit(fill, item))
                if len(ahead) > WORKERS:
                    yield ahead.popleft().result()
            while ahead:
                yield ahead.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def sources(self) -> Iterator[tuple[Source, dict[str, Source]]]:
        """Each paper as a source (its stored abstract and sentence vectors), with, per
        column, the same paper holding the body passages nearest the column's question
        (full-text papers only), read from the store :data:`BATCH` papers at a time."""
        store, embedder = self.engine.store, self.engine.answer_embedder
        for start in range(0, len(self.papers), BATCH):
            batch = self.papers[start : start + BATCH]
            firsts = store.first_chunks([p.id for p in batch])
            full = [p for p in batch if p.n_chunks > 1 and firsts.get(p.id, {}).get("body")]
            near = {
                c.name: body_passages(store, embedder, c.question, full, n=BODY_PASSAGES)
                for c in self.columns
            } if full else {}  # fmt: skip
            for n, paper in enumerate(batch, start + 1):
                first = firsts.get(paper.id, {})
                abstract = str(first.get("abstract", paper.abstract))
                source = Source(n, replace(paper, abstract=abstract), sentence_vectors(first))
                yield (
                    source,
                    {
                        name: replace(source, passages=found[paper.id])
                        for name, found in near.items()
                        if paper.id in found
                    },
                )


def plan(
    engine: Library,
    column_names: Sequence[str],
    *,
    paper_ids: Sequence[str] = (),
    collection: str = "",
    query: str = "",
    k: int = 10,
    conversation_id: str = "",
) -> Table:
    """The table the options ask for, checked before any row is read: unknown ids and
    collections, no papers or more than :data:`MAX_PAPERS`, no columns or too many are
    errors that say what to do (nothing is read or stored)."""
    cols = columns(column_names)
    catalogue = engine.retriever.index.catalogue
    ids: list[str] = []
    if paper_ids:
        missing = [pid for pid in paper_ids if pid not in catalogue]
        if missing:
            raise NotFoundError(
                f"no paper with id {', '.join(repr(m) for m in missing[:10])}"
                + (f" (and {len(missing) - 10} more)" if len(missing) > 10 else "")
                + ": `paperchat papers` lists the stored ids"
            )
        ids += list(paper_ids)
    if collection and not query:
        filters = Filters(collection=collection)
        found = [pid for pid in catalogue if filters.matches(catalogue[pid])]
        if not found:
            raise NotFoundError(f"no paper is in a collection named {collection!r}: the "
                                "Library tab and `paperchat stats` list them")  # fmt: skip
        ids += found
    if query:
        if not 1 <= k <= MAX_PAPERS:
            raise QueryError(f"k must be between 1 and {MAX_PAPERS}")
        within = Filters(collection=collection) if collection else None
        ids += [h.paper.id for h in engine.search(query, k=k, filters=within, passages=0)]
    if conversation_id:
        for _, _, cited in engine.conversations.exchanges(conversation_id):
            ids += [c.source.paper_id for c in cited]
    if not (paper_ids or collection or query or conversation_id):
        raise QueryError("no papers chosen: give paper ids, a collection, a query "
                         "(with k) or a conversation")  # fmt: skip
    unique = [pid for pid in dict.fromkeys(ids) if pid in catalogue]
    if not unique:
        raise QueryError("the choice holds no paper: nothing to put in a table")
    if len(unique) > MAX_PAPERS:
        raise QueryError(
            f"{len(unique)} papers: a table has at most {MAX_PAPERS} rows; narrow the choice "
            "(a collection, a query with a smaller k, or paper ids)"
        )
    return Table(tuple(cols), tuple(catalogue[pid] for pid in unique), engine)
