"""The vector store: one Chroma collection of chunks, each carrying its paper's metadata.

Embedded ``PersistentClient`` in the data directory by default; ``HttpClient`` when a Chroma
host is configured. Writes are idempotent ``upsert``s keyed by stable chunk ids, and each
chunk records its paper's content hash, so a re-run can tell unchanged papers from changed
or half-written ones without re-embedding anything.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.errors import StoreError
from rag.index.calls import BoundedCalls, bound_http
from rag.index.changes import changed_since, noted
from rag.index.layout import StoredPaper, chunk_metadata, stored_hash
from rag.records import Chunk, Paper, PaperRow

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    from rag.settings import Settings

__all__ = ["Store", "StoredPaper", "open_store", "stored_hash"]

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

    def generation(self) -> str:
        """A token that changes whenever any writer changes the collection (indexes built
        from the store record it, to know when they are stale)."""
        return str(self._metadata().get("generation", "0"))

    def changes(self, since: str) -> tuple[str, set[str] | None]:
        """(the current generation, the papers changed since generation ``since``, or None
        when the store's change log cannot tell: :mod:`rag.index.changes`)."""
        metadata = self._metadata()
        return str(metadata.get("generation", "0")), changed_since(metadata, since)

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
        pending = _pending(self._metadata())
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
        metadata = self._metadata()
        metadata.pop(PENDING, None)
        self._modify(noted(metadata, uuid.uuid4().hex, pending))
        return pending

    def _metadata(self) -> dict[str, Any]:
        current = self._call(
            "read", self._client.get_collection, self._collection.name, embedding_function=None
        )
        return dict(current.metadata or {})

    def _modify(self, metadata: dict[str, Any]) -> None:
        """Replace the collection's metadata (Chroma replaces it whole)."""
        self._call("write", self._collection.modify, metadata=metadata)

    def _bump_generation(self, paper_ids: Iterable[str] | None) -> None:
        """A new generation, noting the papers it changed (None: unknown; readers rebuild)."""
        self._modify(noted(self._metadata(), uuid.uuid4().hex, paper_ids))

    def reset(self) -> None:
        """Delete this collection (and only this one) and start it afresh, empty."""
        name, metadata = self._collection.name, dict(self._collection.metadata or {})
        for key in ("generation", PENDING, "changes"):
            metadata.pop(key, None)
        self._call("write", self._client.delete_collection, name)
        self._collection = self._call("write", _get_or_create, self._client, name, metadata)
        self._bump_generation(None)


def _pending(metadata: dict[str, Any]) -> list[str]:
    try:
        ids = json.loads(str(metadata.get(PENDING) or "[]"))
    except json.JSONDecodeError:
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


def _get_or_create(client: ClientAPI, name: str, metadata: dict[str, Any]) -> Collection:
    # We always pass vectors ourselves: no embedding function, cosine space.
    return client.get_or_create_collection(
        name,
        embedding_function=None,
        configuration={"hnsw": {"space": "cosine"}},
        metadata=metadata,
    )


def open_store(settings: Settings) -> Store:
    """Open (creating if needed) the collection named from ``settings``."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    token = settings.chroma_token.get_secret_value()
    auth: dict[str, Any] = {}
    if settings.chroma_host and token:
        auth = {
            "chroma_client_auth_provider": "chromadb.auth.token_authn.TokenAuthClientProvider",
            "chroma_client_auth_credentials": token,
            "chroma_auth_token_transport_header": settings.chroma_token_header,
        }
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False, **auth)
    if settings.chroma_host:
        scheme = "https" if settings.chroma_ssl else "http"
        location = f"{scheme}://{settings.chroma_host}:{settings.chroma_port}"
        if (settings.chroma_tenant, settings.chroma_database) != DEFAULT_DATABASE:
            location += f"/{settings.chroma_tenant}/{settings.chroma_database}"
        hint = (
            "is `chroma run` up at that host and port, and do the tenant, database and token "
            "exist there? (PAPERCHAT_CHROMA_HOST, _PORT, _TENANT, _DATABASE, _TOKEN)"
        )
    else:
        path = settings.data_dir / "chroma"
        location = str(path)
        hint = "check that PAPERCHAT_DATA_DIR (or --data-dir) is a writable directory"

    def connect() -> tuple[ClientAPI, Collection]:
        if settings.chroma_host:
            client = chromadb.HttpClient(
                host=settings.chroma_host,
                port=settings.chroma_port,
                ssl=settings.chroma_ssl,
                settings=chroma_settings,
                tenant=settings.chroma_tenant,
                database=settings.chroma_database,
            )
            # Longer than a call's own limit: a stuck request keeps failing the next calls
            # fast (BoundedCalls) until the server answers or this expires.
            bound_http(client, 2 * settings.chroma_timeout)
        else:
            path.mkdir(parents=True, exist_ok=True)
            client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        collection = _get_or_create(
            client,
            settings.collection_name(),
            {
                "embedder": settings.embedder_id,
                "chunk_tokens": settings.chunk_tokens,
                "chunk_overlap": settings.chunk_overlap,
            },
        )
        return client, collection

    opener = ThreadPoolExecutor(1, thread_name_prefix="paperchat-chroma-open")
    try:
        client, collection = opener.submit(connect).result(timeout=settings.chroma_timeout)
    except FutureTimeout:
        raise StoreError(
            f"cannot open the Chroma store at {location}: no answer within "
            f"{settings.chroma_timeout:g} s (PAPERCHAT_CHROMA_TIMEOUT); {hint}"
        ) from None
    except Exception as exc:  # connection refused, bad path, incompatible on-disk version...
        detail = str(exc).replace(token, "***") if token else str(exc)
        raise StoreError(
            f"cannot open the Chroma store at {location}: {type(exc).__name__}: {detail}; {hint}"
        ) from exc
    finally:
        opener.shutdown(wait=False)
    store = Store(
        client,
        collection,
        location=location,
        timeout=settings.chroma_timeout,
        threads=settings.chroma_threads,
    )
    store.finish_removals()  # a removal a crash cut short is finished before anything else
    return store
