"""Named collections of papers (``--collection NAME``): a paper can be in several.

A paper's collections are a list on its first chunk (Chroma 1.5 keeps lists in metadata),
read into the catalogue, where the ``collection`` filter looks. Adding papers to a
collection changes no vectors; re-ingesting a paper keeps its collections (an upsert merges
metadata), and removing it takes them with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rag.errors import IngestError

if TYPE_CHECKING:
    from rag.index.store import Store

__all__ = ["MAX_NAME", "add_to_collection", "check_name", "set_collections"]

MAX_NAME = 100


def check_name(name: str) -> str:
    """The collection name, stripped; :class:`IngestError` if it is empty or too long."""
    clean = " ".join(name.split())
    if not clean or len(clean) > MAX_NAME:
        raise IngestError(
            f"collection name {name!r} must be 1 to {MAX_NAME} characters: choose another"
        )
    return clean


def add_to_collection(store: Store, paper_ids: Sequence[str], name: str) -> int:
    """Put these stored papers in collection ``name``; how many were not in it yet."""
    name = check_name(name)
    firsts = store.first_chunks(list(dict.fromkeys(paper_ids)))
    fields = {
        pid: {"collections": [*(meta.get("collections") or []), name]}
        for pid, meta in firsts.items()
        if name not in (meta.get("collections") or [])
    }
    store.update_papers(fields)
    return len(fields)


def set_collections(store: Store, memberships: Mapping[str, Sequence[str]]) -> int:
    """Make each stored paper's collections exactly these (``{paper_id: names}``; an empty
    list takes it out of all); how many papers changed. Changes no vectors."""
    firsts = store.first_chunks(list(memberships))
    fields: dict[str, dict[str, Any]] = {}
    for pid, names in memberships.items():
        wanted = list(dict.fromkeys(check_name(n) for n in names))
        if pid in firsts and list(firsts[pid].get("collections") or []) != wanted:
            fields[pid] = {"collections": wanted or None}  # None drops the key: Chroma has no []
    store.update_papers(fields)
    return len(fields)
