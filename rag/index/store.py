"""The vector store: one Chroma collection of chunks, each carrying its paper's metadata.

Embedded ``PersistentClient`` in the data directory by default; ``HttpClient`` when a Chroma
host is configured. Writes are idempotent ``upsert``s keyed by stable chunk ids, and each
chunk records its paper's content hash, so a re-run can tell unchanged papers from changed
or half-written ones without re-embedding anything.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.errors import StoreError
from rag.index.calls import BoundedCalls
from rag.index.changes import OwnEntries, chain, changed_since, linked, noted
from rag.index.layout import StoredPaper, chunk_metadata, stored_hash
from rag.records import Chunk, Paper, PaperRow

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection


__all__ = ["DEFAULT_DATABASE", "Store", "StoredPaper", "get_or_create_collection", "stored_hash"]

_PAGE = 200  # rows per get() when scanning the collection
DEFAULT_DATABASE = ("default_tenant", "default_database")  # Chroma's, on every server
# Collection metadata key: paper ids whose removal has begun and not yet finished (JSON).
PENDING = "removing"


class Store:
    """A Chroma collection of paper chunks. Build it with :func:`open_store`.

    Every call to Chroma goes through :class:`rag.index.calls.BoundedCalls`: it fails with
    :class:`StoreError` after ``timeout`` seconds instead of hanging, and at once while an
    earlier call is still stuck."""

    def __init__(
        self,
        client: ClientAPI,
        collection: Collection,
        *,
        location: str,
        timeout: float = 30.0,
        threads: int = 8,
    ) -> None:
        self._client = client
        self._collection = collection
        self.location = location
        self._call = BoundedCalls(location=location, timeout=timeout, threads=threads)
        self._own = OwnEntries()  # this writer's recent change-log entries

    @property
    def collection_name(self) -> str:
        return self._collection.name

    # -- reading ---------------------------------------------------------------------------

    def stored(self, paper_ids: Sequence[str]) -> dict[str, StoredPaper]:
        """What the store holds for these papers (absent ids are left out)."""
        if not paper_ids:
            return {}
        found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for start in range(0, len(paper_ids), 200):
            batch = list(paper_ids[start : start + 200])
            result = self._call(
                "read",
                self._collection.get,
                where={"paper_id": {"$in": batch}},
                include=["metadatas"],
            )
            for cid, meta in zip(result["ids"], result["metadatas"] or [], strict=True):
                found.setdefault(str(meta["paper_id"]), []).append((cid, dict(meta)))
        out = {}
        for pid, rows in found.items():
            hashes = {m.get("paper_hash") for _, m in rows}
            counts = {m.get("n_chunks") for _, m in rows}
            ids = frozenset(cid for cid, _ in rows)
            complete = (
                len(hashes) == 1
                and len(counts) == 1
                and ids == {f"{pid}#{i}" for i in range(int(next(iter(counts)) or 0))}
            )
            out[pid] = StoredPaper(str(next(iter(hashes))), ids, complete)
        return out

    def label_holders(self, labels: Sequence[str]) -> dict[str, set[str]]:
        """{label: the ids of the stored papers holding it} for these labels (absent ones
        left out); for keeping untitled papers' labels unique in a library."""
        out: dict[str, set[str]] = {}
        for start in range(0, len(labels), 200):
            where = {"$and": [{"label": {"$in": list(labels[start : start + 200])}},
                              {"chunk_index": 0}]}  # fmt: skip
            ids = self._ids(where=where)
            if ids:
                papers = [cid.rsplit("#", 1)[0] for cid in ids]
                for pid, meta in self.first_chunks(papers).items():
                    out.setdefault(str(meta.get("label", "")), set()).add(pid)
        return out

    def generation(self) -> str:
        """A token that changes whenever any writer changes the collection (indexes built
        from the store record it, to know when they are stale)."""
        return str(self._metadata().get("generation", "0"))

    def changes(self, since: str) -> tuple[str, set[str] | None]:
        """(the current generation, the papers changed since generation ``since``, or None
        when the store's change log cannot tell: :mod:`rag.index.changes`)."""
        metadata = self._metadata()
        return str(metadata.get("generation", "0")), changed_since(metadata, since)

    def linked(self, generation: str) -> bool:
        """Whether the change log links ``generation`` to the current one
        (:func:`rag.index.changes.linked`)."""
        return linked(self._metadata(), generation)

    def papers(self, paper_ids: Sequence[str]) -> list[PaperRow]:
        """These papers as stored (from their first chunks, abstract included), read a page
        at a time (a page's metadata, sentence vectors and all, is dropped before the next);
        absent ids are left out."""
        rows: list[PaperRow] = []
        for start in range(0, len(paper_ids), _PAGE):
            found = self.first_chunks(page := paper_ids[start : start + _PAGE])
            rows += [PaperRow.from_mapping(found[pid]) for pid in page if pid in found]
        return rows

    def query(
        self, vector: np.ndarray, *, n: int, where: dict[str, Any] | None = None
    ) -> tuple[list[str], list[float]]:
        """Nearest chunks to ``vector``: (chunk ids, cosine distances), nearest first.
        ``n`` must not exceed the number of chunks (callers know it from their index)."""
        result = self._call(
            "query",
            self._collection.query,
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=n,
            where=where,
            include=["distances"],
        )
        return list(result["ids"][0]), [float(d) for d in result["distances"][0]]

    def documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Texts of these chunks (absent ids are left out)."""
        if not chunk_ids:
            return {}
        result = self._call(
            "read", self._collection.get, ids=list(chunk_ids), include=["documents"]
        )
        return dict(zip(result["ids"], result["documents"], strict=True))

    def body_chunks(
        self, chunk_ids: Sequence[str]
    ) -> list[tuple[str, str, dict[str, Any], np.ndarray]]:
        """(id, text, metadata, vector) of those of these chunks that hold a paper's full
        text (they carry a page), in the order asked."""
        if not chunk_ids:
            return []
        result = self._call(
            "read",
            self._collection.get,
            ids=list(chunk_ids),
            include=["documents", "metadatas", "embeddings"],
        )
        vectors = result["embeddings"] if result["embeddings"] is not None else []
        found = {
            cid: (text, dict(meta or {}), np.asarray(vector, dtype=np.float32))
            for cid, text, meta, vector in zip(
                result["ids"], result["documents"], result["metadatas"], vectors, strict=True
            )
        }
        return [
            (cid, *found[cid])
            for cid in chunk_ids
            if cid in found and found[cid][1].get("page") is not None
        ]

    def paper_vectors(self, paper_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """{paper_id: the stored vector of its first chunk} (absent ids are left out)."""
        if not paper_ids:
            return {}
        chunk_ids = [f"{pid}#0" for pid in paper_ids]
        result = self._call("read", self._collection.get, ids=chunk_ids, include=["embeddings"])
        vectors = result["embeddings"] if result["embeddings"] is not None else []
        return {
            cid.rsplit("#", 1)[0]: np.asarray(v, dtype=np.float32)
            for cid, v in zip(result["ids"], vectors, strict=True)
        }

    def first_chunks(self, paper_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """{paper_id: its first chunk's metadata (the whole paper's)}; absent ids left out."""
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(paper_ids), _PAGE):
            # By id ("<paper>#0"); a metadata filter costs more as the store grows (8.6 ms at 5k)
            ids = [f"{pid}#0" for pid in paper_ids[start : start + _PAGE]]
            result = self._call("read", self._collection.get, ids=ids, include=["metadatas"])
            out |= {str(m["paper_id"]): dict(m) for m in result["metadatas"] or [] if m}
        return out

    def count_chunks(self) -> int:
        return int(self._call("read", self._collection.count))

    def iter_papers(self, *, ordered: bool = True) -> Iterator[PaperRow]:
        """Every stored paper once (from its first chunk, abstract included), in source
        order; or, ``ordered=False``, as read, a page at a time, never holding them all."""
        rows = (PaperRow.from_mapping(meta) for meta in self._scan(where={"chunk_index": 0}))
        return iter(sorted(rows, key=lambda r: (r.source, r.position, r.id))) if ordered else rows

    def count_papers(self) -> int:
        return len(self._ids(where={"chunk_index": 0}))

    def _ids(self, *, where: dict[str, Any]) -> list[str]:
        return list(self._call("read", self._collection.get, where=where, include=[])["ids"])

    def _scan(self, *, where: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Metadata of every chunk matching ``where``: the ids in one call, then the rows by
        id a page at a time. Paging with ``offset`` re-reads every row before each page, so
        its cost grew with the square of the collection: 9.9 s against 3.1 s by id for the
        first chunks of 52,086 papers (100,000 chunks, bench/scale)."""
        ids = self._ids(where=where)
        for start in range(0, len(ids), _PAGE):
            result = self._call(
                "read", self._collection.get, ids=ids[start : start + _PAGE], include=["metadatas"]
            )
            yield from (dict(m or {}) for m in result["metadatas"] or [])

    # -- writing ---------------------------------------------------------------------------

    def write(
        self,
        items: Iterable[tuple[Paper, list[Chunk]]],
        vectors: np.ndarray,
        *,
        stale: dict[str, frozenset[str]] | None = None,
        sentence_vectors: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """Upsert these papers' chunks (``vectors`` row-aligned with the chunks in order),
        then delete chunk ids of theirs that the new version no longer has (``stale``).
        A paper's ``sentence_vectors`` ride on its first chunk, as its abstract does."""
        items = list(items)
        sentences = sentence_vectors or {}
        ids: list[str] = []
        docs: list[str] = []
        metas: list[dict[str, Any]] = []
        for paper, chunks in items:
            paper_hash = stored_hash(paper)
            for chunk in chunks:
                ids.append(chunk.id)
                docs.append(chunk.text)
                metas.append(
                    chunk_metadata(paper, chunk, len(chunks), paper_hash, sentences.get(paper.id))
                )
        if len(ids) != len(vectors):
            raise StoreError(f"{len(ids)} chunks but {len(vectors)} vectors; nothing was written")
        limit = self._client.get_max_batch_size()
        for start in range(0, len(ids), limit):
            end = start + limit
            self._call(
                "write",
                self._collection.upsert,
                ids=ids[start:end],
                embeddings=np.asarray(vectors[start:end], dtype=np.float32),
                documents=docs[start:end],
                metadatas=metas[start:end],
            )
        keep = set(ids)
        obsolete = sorted({cid for cids in (stale or {}).values() for cid in cids} - keep)
        if obsolete:
            self._call("write", self._collection.delete, ids=obsolete)
        if ids or obsolete:
            self._bump_generation(paper.id for paper, _ in items)

    def update_papers(self, fields: dict[str, dict[str, Any]]) -> None:
        """Merge ``{paper_id: {field: value}}`` into those papers' first chunks (what lists
        and filters read: e.g. their collections), without re-embedding anything."""
        if fields:
            ids, metas = [f"{pid}#0" for pid in fields], list(fields.values())
            self._call("write", self._collection.update, ids=ids, metadatas=metas)
            self._bump_generation(fields)

    def remove(self, paper_ids: Sequence[str]) -> list[str]:
        """Delete every chunk of these papers; the ids that were stored. Idempotent: an
        absent id is no error.

        Crash-safe: the ids are first written to the collection's metadata (``removing``),
        then their chunks are deleted, then the generation is bumped and the note cleared in
        one write. A run cut short anywhere is finished by the next :func:`open_store` (any
        command), so no paper stays half-removed and no index stays stale."""
        wanted = list(dict.fromkeys(paper_ids))
        found = self.stored(wanted)
        if found:
            metadata = self._metadata()
            pending = set(_pending(metadata)) | set(found)
            self._modify(metadata | {PENDING: json.dumps(sorted(pending))})
        self.finish_removals()
        return [pid for pid in wanted if pid in found]

    def finish_removals(self) -> list[str]:
        """Finish removals a crash interrupted (see :meth:`remove`); the ids it finished."""
        metadata = self._metadata()
        self._own.saw(metadata)  # at open: a later bump by another writer shows
        pending = _pending(metadata)
        if not pending:
            return []
        found = self.stored(pending)
        # The first chunk goes last: until the end, a half-removed paper still lists.
        chunk_ids = sorted(
            (cid for paper in found.values() for cid in paper.chunk_ids),
            key=lambda cid: (cid.endswith("#0"), cid),
        )
        limit = self._client.get_max_batch_size()
        for start in range(0, len(chunk_ids), limit):
            self._call("write", self._collection.delete, ids=chunk_ids[start : start + limit])
        self._bump_generation(pending, finished=pending)
        return pending

    def confirm_changes(self, waits: Sequence[float] = (0.25, 0.5, 1.25)) -> None:
        """After this process's writes: read the change log back and note again any entry of
        this writer's that another writer's late write replaced; when other writers were
        seen lately, again after each of ``waits`` seconds (:mod:`rag.index.changes`)."""
        for wait in (0.0, *waits):
            time.sleep(wait)
            if self._own.look(self._metadata()):
                self._bump_generation(())  # notes the lost entries' papers again
            if not self._own.unsure():
                return

    def _metadata(self) -> dict[str, Any]:
        current = self._call(
            "read", self._client.get_collection, self._collection.name, embedding_function=None
        )
        return dict(current.metadata or {})

    def _modify(self, metadata: dict[str, Any]) -> None:
        """Replace the collection's metadata (Chroma replaces it whole)."""
        self._call("write", self._collection.modify, metadata=metadata)

    def _bump_generation(
        self, paper_ids: Iterable[str] | None, *, finished: Sequence[str] = ()
    ) -> None:
        """A new generation, noting the papers it changed (None: unknown; readers rebuild),
        and the ``finished`` removals out of the pending note. The log is read back: if
        another writer's bump replaced this entry, or an earlier one of this writer's, their
        papers are noted again (:class:`rag.index.changes.OwnEntries`)."""
        ids = None if paper_ids is None else set(paper_ids)
        metadata = self._metadata()
        for _ in range(3):
            lost, replaced = self._own.lost(metadata)
            ids = None if ids is None or lost is None else ids | lost
            pending = [pid for pid in _pending(metadata) if pid not in finished]
            metadata = {k: v for k, v in metadata.items() if k != PENDING}
            metadata |= {PENDING: json.dumps(pending)} if pending else {}
            generation, previous = uuid.uuid4().hex, str(metadata.get("generation", "0"))
            self._modify(noted(metadata, generation, ids, replaced))
            self._own.made(generation, previous, ids, replaced)
            metadata = self._metadata()
            if generation in chain(metadata):
                return
            ids = set()

    def reset(self) -> None:
        """Delete this collection (and only this one) and start it afresh, empty."""
        name, metadata = self._collection.name, dict(self._collection.metadata or {})
        for key in ("generation", PENDING, "changes"):
            metadata.pop(key, None)
        self._call("write", self._client.delete_collection, name)
        self._own = OwnEntries()  # the old collection's entries are gone with it
        self._collection = self._call(
            "write", get_or_create_collection, self._client, name, metadata
        )
        self._bump_generation(None)


def _pending(metadata: dict[str, Any]) -> list[str]:
    try:
        ids = json.loads(str(metadata.get(PENDING) or "[]"))
    except json.JSONDecodeError:
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


def get_or_create_collection(client: ClientAPI, name: str, metadata: dict[str, Any]) -> Collection:
    # We always pass vectors ourselves: no embedding function, cosine space.
    return client.get_or_create_collection(
        name,
        embedding_function=None,
        configuration={"hnsw": {"space": "cosine"}},
        metadata=metadata,
    )
