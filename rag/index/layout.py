"""What the store keeps per chunk: the metadata layout, and the hash that tells a stored
paper from a changed one."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rag.errors import StoreError
from rag.index.vectors import pack_rows, unpack_rows
from rag.records import Chunk, Paper

__all__ = ["LAYOUT", "StoredPaper", "chunk_metadata", "sentence_vectors", "stored_hash"]

log = logging.getLogger("paperchat.store")

# What a chunk's metadata holds. Bump it when that changes: every stored paper then counts
# as changed, and the next ingest rewrites it in the new layout.
LAYOUT = 3  # 3: sentence vectors on the first chunk


def stored_hash(paper: Paper) -> str:
    """The hash a stored paper carries: its content and the metadata layout."""
    return f"{LAYOUT}:{paper.content_hash()}"


@dataclass(frozen=True, slots=True)
class StoredPaper:
    """What the store holds for one paper: its content hash and its chunk ids."""

    paper_hash: str
    chunk_ids: frozenset[str]
    complete: bool  # every chunk agrees on the hash and the count matches n_chunks


def chunk_metadata(
    paper: Paper,
    chunk: Chunk,
    n_chunks: int,
    paper_hash: str,
    sentence_vectors: np.ndarray | None = None,
) -> dict[str, Any]:
    """Chroma metadata for one chunk. Chroma has no nulls: an unknown field is None, which
    Chroma leaves out of a new chunk and deletes from a rewritten one (an upsert merges
    metadata, so a field a paper no longer has would otherwise stay)."""
    keywords = [str(k) for k in paper.extra.get("keywords") or ()]
    meta: dict[str, Any] = {
        "paper_id": paper.id,
        "chunk_index": chunk.index,
        "n_chunks": n_chunks,
        "paper_hash": paper_hash,
        "label": paper.label,
        "title": paper.title,
        "source": paper.source,
        "position": paper.position,
        "n_tokens": chunk.n_tokens,
        "authors": list(paper.authors) or None,
        "authors_lc": "; ".join(paper.authors).casefold() or None,
        "year": paper.year,
        "url": paper.url or None,
        "doi": paper.doi or None,
        "extra": json.dumps(paper.extra, ensure_ascii=False, sort_keys=True, default=str)
        if paper.extra
        else None,
        "section": chunk.section or None,
        "page": chunk.page,
    }
    if chunk.index == 0:
        # The whole abstract rides on the first chunk: the lexical index is rebuilt from it
        # and quotes are checked against it, without a second database. So do its
        # sentences' vectors (pooled at ingest): answers need not embed them again.
        meta["abstract"] = paper.abstract
        meta["body"] = paper.body or None  # a PDF's full text: BM25 reads it from here
        meta["has_abstract"] = None if paper.has_abstract else False
        meta["keywords"] = keywords or None
        meta["sentence_vectors"] = None if sentence_vectors is None else pack_rows(sentence_vectors)
    return meta


def sentence_vectors(meta: Mapping[str, Any]) -> np.ndarray | None:
    """A first chunk's sentence vectors (rows in ``split_sentences`` order of its abstract,
    NaN where none), or None when the paper was stored without them."""
    packed = meta.get("sentence_vectors")
    if not isinstance(packed, str):
        return None
    try:
        return unpack_rows(packed)
    except StoreError as exc:  # answers still work: they embed the sentences themselves
        log.warning("paper %s: %s", meta.get("paper_id"), exc)
        return None
