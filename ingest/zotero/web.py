"""A Zotero library read through Zotero's web API (v3) with pyzotero, incrementally: what
was read is kept in a cache (:mod:`ingest.zotero.webfiles`) with the library's version, and
a later read asks only for what changed since (https://www.zotero.org/support/dev/web_api/
v3/syncing). With ``Zotero-API-Version: 3`` and the key as ``Authorization: Bearer``:

1. ``GET /<library>/collections?since=V&includeTrashed=1``, ``If-Modified-Since-Version:
   V``: a 304 means nothing changed in the whole library, and the read stops there;
2. ``GET /<library>/items?since=V&includeTrashed=1``: every changed item, top-level and
   child (attachments, notes), trashed ones with ``deleted``; 100 a page, ``rel="next"``;
3. ``GET /<library>/deleted?since=V``: keys of collections and items deleted for good.

The first read sends 1 and 2 without ``since``, and not 3. Every answer of a pass must
report the same ``Last-Modified-Version``: if the library changed during the pass (objects
may have moved between pages), the pass is run again from V. PDFs are then downloaded
(``/<library>/items/<key>/file``) only when their md5 is not the one downloaded before.
Retries, timeouts and 304s: :mod:`ingest.zotero.webapi`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ingest.zotero.records import (
    NOT_ITEMS,
    Attachment,
    Creator,
    Item,
    Library,
    citation_key,
    with_venue,
)
from ingest.zotero.webapi import Api, Failed, Unreachable
from ingest.zotero.webfiles import (
    CACHE_FILE,
    KEYS_URL,
    LINKED,
    forget_files,
    load_cache,
    pdf_attachment,
    save_cache,
)
from rag.errors import ConfigError, IngestError, SourceError

__all__ = ["CACHE_FILE", "LINKED", "read_web"]

PASSES = 3  # reads of a library that keeps changing before its version is left as it was
# Not item fields: Zotero's bookkeeping, or kept elsewhere in an Item.
NOT_FIELDS = frozenset(
    {
        "key",
        "version",
        "itemType",
        "creators",
        "tags",
        "collections",
        "relations",
        "dateAdded",
        "dateModified",
        "deleted",
        "parentItem",
    }
)


def read_web(
    library: str,
    *,
    api_key: str,
    cache_dir: Path,
    endpoint: str = "https://api.zotero.org",
    collection: str = "",
    timeout: float = 30.0,
    retries: int = 3,
    backoff: float = 1.0,
) -> Library:
    """The library ``library`` ("users/<id>" or "groups/<id>") as it is now on the web API
    at ``endpoint``, read incrementally through the cache in ``cache_dir`` (created), its
    PDFs downloaded there. ``collection`` (a path "Parent/Child" or a collection key) keeps
    only the items in that collection or under it. ``timeout`` is per request; a request
    failing with 429, 5xx or a timeout is tried ``retries`` more times, ``backoff`` seconds
    apart, doubling. Raises :class:`SourceError` when the library cannot be read (a refused
    key, no such library, the API unreachable); a PDF that cannot be downloaded only sets
    its attachment's ``problem``."""
    kind, library_id = _parse_library(library)
    name = f"{kind}/{library_id}"
    source = f"zotero.org/{name}"
    endpoint = endpoint.strip().rstrip("/")
    cache_dir = Path(cache_dir).expanduser().resolve()
    cache_path = cache_dir / CACHE_FILE
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IngestError(
            f"cannot create the Zotero cache folder {cache_dir}: {exc.strerror}"
        ) from None
    problems: list[tuple[str, str]] = []
    cache = load_cache(cache_path, name, endpoint, problems)
    with Api(
        kind,
        library_id,
        api_key,
        endpoint=endpoint,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
    ) as api:
        try:
            _sync(api, cache, source, problems)
        except Unreachable as exc:
            raise SourceError(
                f"could not reach the Zotero web API at {endpoint}: {exc}; check the network "
                "connection, or the Zotero endpoint setting"
            ) from None
        except Failed as exc:
            raise SourceError(_refusal(exc, name, endpoint)) from None
        save_cache(cache_path, cache)
        result = _library(api, cache, cache_dir, source, name, collection)
    forget_files(cache, cache_dir)
    save_cache(cache_path, cache)
    result.problems[:0] = problems
    return result


# -- the library: cache -> records -----------------------------------------------------


def _library(
    api: Api, cache: dict[str, Any], cache_dir: Path, source: str, name: str, collection: str
) -> Library:
    collections: dict[str, dict[str, Any]] = cache["collections"]
    paths = _collection_paths(collections)
    chosen = _chosen_collections(collection, collections, paths, source) if collection else None
    items: dict[str, dict[str, Any]] = cache["items"]
    children: dict[str, list[dict[str, Any]]] = {}
    for data in items.values():
        if data.get("itemType") == "attachment" and data.get("parentItem") and not _trashed(data):
            children.setdefault(data["parentItem"], []).append(data)
    result = Library(
        source=source,
        library=name,
        collections=sorted(set(paths.values())),
        version=str(cache["version"]),
    )
    for key in sorted(items):
        data = items[key]
        if data.get("itemType") in NOT_ITEMS:
            continue
        if _trashed(data):
            result.trashed.add(key)
            continue
        if chosen is not None and not chosen.intersection(data.get("collections") or ()):
            continue
        attachments = tuple(
            pdf_attachment(api, child, cache, cache_dir)
            for child in sorted(children.get(key, ()), key=lambda d: d["key"])
            if _is_pdf(child)
        )
        result.items.append(_item(data, paths, attachments))
    return result


def _item(
    data: Mapping[str, Any], paths: Mapping[str, str], attachments: tuple[Attachment, ...]
) -> Item:
    fields = {
        k: v for k, v in data.items() if isinstance(v, str) and v.strip() and k not in NOT_FIELDS
    }
    fields = with_venue(fields)
    creators = tuple(
        Creator(
            kind=str(c.get("creatorType") or "author"),
            last=str(c.get("lastName") or ""),
            first=str(c.get("firstName") or ""),
            name=str(c.get("name") or ""),
        )
        for c in data.get("creators") or ()
        if isinstance(c, Mapping)
    )
    tags = tuple(
        dict.fromkeys(
            str(t["tag"]) for t in data.get("tags") or () if isinstance(t, Mapping) and t.get("tag")
        )
    )
    in_collections = tuple(
        dict.fromkeys(paths[k] for k in data.get("collections") or () if k in paths)
    )
    return Item(
        key=str(data["key"]),
        item_type=str(data.get("itemType", "")),
        version=f"{data.get('version', 0)} {data.get('dateModified', '')}".strip(),
        fields=fields,
        creators=creators,
        tags=tags,
        collections=in_collections,
        attachments=attachments,
        citation_key=citation_key(fields),
    )


def _trashed(data: Mapping[str, Any]) -> bool:
    return data.get("deleted") not in (None, False, 0, "", "0")


def _is_pdf(data: Mapping[str, Any]) -> bool:
    if data.get("linkMode") not in ("imported_file", "imported_url", "linked_file"):
        return False
    kind = str(data.get("contentType") or "").lower()
    if kind:
        return kind == "application/pdf"
    named = str(data.get("filename") or data.get("path") or "")
    return named.lower().endswith(".pdf")


def _collection_paths(collections: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """{collection key: "Parent/Child"} for the collections not in the trash."""
    live = {k: c for k, c in collections.items() if not _trashed(c)}
    paths: dict[str, str] = {}
    for key in live:
        names: list[str] = []
        seen: set[str] = set()
        at: str | None = key
        while at is not None and at in live and at not in seen:  # a loop of parents ends
            seen.add(at)
            names.append(str(live[at].get("name") or at))
            parent = live[at].get("parentCollection")
            at = parent if isinstance(parent, str) and parent else None
        paths[key] = "/".join(reversed(names))
    return paths


def _chosen_collections(
    wanted: str,
    collections: Mapping[str, Mapping[str, Any]],
    paths: Mapping[str, str],
    source: str,
) -> set[str]:
    """The keys of the collection ``wanted`` (a path or a key) and of all under it."""
    want = wanted.strip().strip("/")
    roots = {k for k, p in paths.items() if p == want}
    roots = roots or ({want.upper()} & paths.keys())
    roots = roots or {k for k, p in paths.items() if p.casefold() == want.casefold()}
    if not roots:
        known = ", ".join(sorted(set(paths.values()))[:10]) or "none"
        raise SourceError(
            f"no collection '{wanted}' in {source}: give a collection's path "
            f"(Parent/Child) or its key; its collections are: {known}"
        )
    below: dict[str, list[str]] = {}
    for key in paths:
        parent = collections[key].get("parentCollection")
        if isinstance(parent, str) and parent:
            below.setdefault(parent, []).append(key)
    chosen: set[str] = set()
    todo = list(roots)
    while todo:
        key = todo.pop()
        if key not in chosen:
            chosen.add(key)
            todo.extend(below.get(key, ()))
    return chosen


# -- incremental sync --------------------------------------------------------------------


def _sync(api: Api, cache: dict[str, Any], source: str, problems: list[tuple[str, str]]) -> None:
    """Brings the cache's collections and items up to the library's current version."""
    since = int(cache["version"])
    for attempt in range(PASSES):
        pulled = _pull(api, since, conditional=since > 0 and attempt == 0)
        if pulled is None:  # 304: nothing changed since `since`
            return
        versions, collections, items, deleted = pulled
        if since and min(versions) < since:  # the library went back (restored): read it all
            since = 0
            continue
        if not since:  # a full read: what an earlier pass saw may be gone since
            cache["collections"].clear()
            cache["items"].clear()
        for obj in collections:
            data = _data(obj)
            cache["collections"][data["key"]] = data
        for obj in items:
            data = _data(obj)
            cache["items"][data["key"]] = data
        for key in deleted.get("collections") or ():
            cache["collections"].pop(key, None)
        for key in deleted.get("items") or ():
            cache["items"].pop(key, None)
        if len(set(versions)) == 1:
            cache["version"] = versions[0]
            return
    problems.append(
        (
            source,
            "the library kept changing while it was read; the next read asks again for "
            f"everything changed since version {since}",
        )
    )


def _pull(
    api: Api, since: int, *, conditional: bool
) -> tuple[list[int], list[Any], list[Any], Mapping[str, Any]] | None:
    """One pass: (the Last-Modified-Version of every answer, changed collections, changed
    items, deletions), or None when the library has not changed since ``since``."""
    z = api.zot
    after = {"since": since} if since else {}
    versions: list[int] = []
    api.conditional = str(since) if conditional else ""
    try:
        collections = api.all(lambda: z.collections(includeTrashed=1, **after), versions)
    finally:
        api.conditional = ""
    if collections is None:
        told = api.last.headers.get("last-modified-version", "") if api.last else ""
        if told.isdigit() and int(told) < since:  # not newer, older: the caller reads it all
            return [int(told)], [], [], {}
        return None
    items = api.all(lambda: z.items(includeTrashed=1, **after), versions) or []
    deleted: Mapping[str, Any] = {}
    if since:
        # limit=None: pyzotero 1.6.11 would send limit=100 (its own default comes too late)
        answer = api.call(lambda: z.deleted(since=since, limit=None))
        if not isinstance(answer, Mapping):
            raise Failed(200, "its list of deleted objects is not a JSON object")
        versions.append(api.version())
        deleted = answer
    return versions, collections, items, deleted


def _data(obj: Any) -> dict[str, Any]:
    """An object's ``data`` as the API gives it, less its empty strings."""
    data = obj.get("data") if isinstance(obj, Mapping) else None
    if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
        raise Failed(200, "an object without data or key")
    out = {k: v for k, v in data.items() if v != ""}
    out.setdefault("version", obj.get("version", 0))
    return out


# -- errors ------------------------------------------------------------------------------


def _refusal(exc: Failed, name: str, endpoint: str) -> str:
    kind, _, number = name.partition("/")
    if kind == "users":
        which = f"the user ID ({number} in '{name}': a number, not the user name)"
    else:
        which = f"the group ID ({number} in '{name}': the number in the group's web address)"
    if exc.status in (401, 403):
        return (
            f"the Zotero web API refused access to {name} (HTTP {exc.status}: {exc}): check "
            f"ZOTERO_API_KEY, a key allowed to read this library, and {which}. Find your "
            f"user ID and make keys at {KEYS_URL}"
        )
    if exc.status == 404:
        return (
            f"the Zotero web API has no library {name} (HTTP 404): check {which}. "
            f"Find your user ID at {KEYS_URL}"
        )
    return f"the Zotero web API at {endpoint} could not give {name}: {exc}; try again later"


def _parse_library(library: str) -> tuple[str, str]:
    kind, _, number = library.strip().strip("/").partition("/")
    if kind not in ("users", "groups") or not number.isdigit():
        raise ConfigError(
            f"a Zotero library is 'users/<id>' or 'groups/<id>' with a numeric id, not "
            f"'{library}'. Find your user ID at {KEYS_URL}"
        )
    return kind, number
