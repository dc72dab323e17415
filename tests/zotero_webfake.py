"""A fake Zotero web API (v3) on loopback: just enough of it for pyzotero and
ingest/zotero/web.py, modelled on https://www.zotero.org/support/dev/web_api/v3/basics and
.../syncing.

Served, for ``/users/<id>`` and ``/groups/<id>`` libraries:

- ``items``, ``items/top``, ``items/trash``, ``collections``, ``collections/top``: lists
  of ``{"key", "version", "library", "links", "meta", "data"}`` (``format=json``, the
  default) or ``{key: version}`` (``format=versions``); ``since``, ``itemKey``,
  ``includeTrashed``, ``start``, ``limit`` (25 by default, at most 100); headers
  ``Last-Modified-Version`` (the library's), ``Total-Results`` and ``Link`` (``rel="next"``
  while there are more, ``rel="last"``); 304 when ``If-Modified-Since-Version`` is current;
- ``deleted?since=V``: ``{"collections", "items", "searches", "tags", "settings"}`` keys
  deleted after V (400 without ``since``, as the API);
- ``items/<key>`` and ``items/<key>/file``: the file is a 302 to ``/storage/...`` (the API
  sends one to its S3 storage) that answers the bytes, or 404 when none was uploaded.

The key is read from ``Zotero-API-Key``, ``Authorization: Bearer`` or ``?key=``; a wrong
key is 403 "Invalid key", no key on a private library 403 "Forbidden", an unknown library
404. Every change to a :class:`FakeLibrary` is one write: the library version goes up by
one and the changed objects take it, as on the real server. Every request is kept in
``requests``; ``fail()`` queues failures that matching requests get first; ``before`` is
called with each request's path before it is answered (to change the library mid-read).
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

KEY_CHARS = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"  # Zotero's object keys: 8 of these
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass
class Failure:
    status: int = 500
    body: bytes = b"An error occurred"
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0  # seconds before answering


@dataclass
class Request:
    method: str
    path: str  # without the query
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names

    @property
    def url(self) -> str:
        return self.path + ("?" + urlencode(self.query) if self.query else "")


@dataclass
class StoredFile:
    body: bytes
    content_type: str = "application/pdf"


@dataclass
class FakeLibrary:
    """One library: its version, items and collections (their ``data`` as the API gives
    it), the files uploaded for attachments, and the log of deletions."""

    kind: str  # "users" or "groups"
    id: int
    name: str
    lock: threading.RLock
    version: int = 0
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, StoredFile] = field(default_factory=dict)
    deleted: dict[str, dict[str, int]] = field(
        default_factory=lambda: {"items": {}, "collections": {}}
    )
    public: bool = False
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.prefix)  # the same keys on every run

    @property
    def prefix(self) -> str:
        return f"{self.kind}/{self.id}"

    # -- writes: each is one new library version ----------------------------------------

    def _write(self) -> tuple[int, str]:
        self.version += 1
        stamp = (EPOCH + timedelta(minutes=self.version)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return self.version, stamp

    def _new_key(self) -> str:
        while True:
            key = "".join(self.rng.choice(KEY_CHARS) for _ in range(8))
            if key not in self.items and key not in self.collections:
                return key

    def add_collection(self, name: str, parent: str = "") -> str:
        with self.lock:
            version, _ = self._write()
            key = self._new_key()
            self.collections[key] = {
                "key": key,
                "version": version,
                "name": name,
                "parentCollection": parent or False,
                "relations": {},
            }
            return key

    def add_item(
        self,
        item_type: str = "journalArticle",
        *,
        title: str = "",
        creators: Sequence[Mapping[str, str]] = (),
        tags: Sequence[str] = (),
        collections: Sequence[str] = (),
        **fields: str,
    ) -> str:
        """A regular item; ``creators`` as the API has them (``creatorType`` with
        ``firstName``/``lastName`` or ``name``). Fields not given are empty strings."""
        with self.lock:
            version, stamp = self._write()
            key = self._new_key()
            data: dict[str, Any] = {"key": key, "version": version, "itemType": item_type}
            data["title"] = title
            data["creators"] = [dict(c) for c in creators]
            data |= {"abstractNote": "", "date": "", "url": "", "extra": "", "language": ""}
            data |= fields
            data |= {
                "tags": [{"tag": t} for t in tags],
                "collections": list(collections),
                "relations": {},
                "dateAdded": stamp,
                "dateModified": stamp,
            }
            self.items[key] = data
            return key

    def add_note(self, parent: str, note: str) -> str:
        with self.lock:
            version, stamp = self._write()
            key = self._new_key()
            self.items[key] = {
                "key": key,
                "version": version,
                "itemType": "note",
                "parentItem": parent,
                "note": note,
                "tags": [],
                "relations": {},
                "dateAdded": stamp,
                "dateModified": stamp,
            }
            return key

    def add_attachment(
        self,
        parent: str,
        *,
        pdf: bytes | None = None,
        filename: str = "paper.pdf",
        title: str = "Full Text PDF",
        link_mode: str = "imported_file",
        content_type: str = "application/pdf",
        path: str = "",
    ) -> str:
        """An attachment under ``parent`` (or standalone with ``parent=""``). ``pdf`` is
        the uploaded file: None leaves ``md5`` null, as before an upload. ``linked_file``
        attachments have a ``path`` on the computer that added them, and no file."""
        with self.lock:
            version, stamp = self._write()
            key = self._new_key()
            data: dict[str, Any] = {
                "key": key,
                "version": version,
                "itemType": "attachment",
                "linkMode": link_mode,
                "title": title,
                "accessDate": "",
                "url": "",
                "note": "",
                "contentType": content_type,
                "charset": "",
            }
            if parent:
                data["parentItem"] = parent
            if link_mode == "linked_file":
                data["path"] = path or f"/home/ada/papers/{filename}"
            else:
                data["filename"] = filename
                data["md5"] = hashlib.md5(pdf).hexdigest() if pdf is not None else None
                data["mtime"] = 1700000000000 if pdf is not None else None
                if pdf is not None:
                    self.files[key] = StoredFile(pdf, content_type)
            data |= {"tags": [], "relations": {}, "dateAdded": stamp, "dateModified": stamp}
            self.items[key] = data
            return key

    def modify(self, key: str, **changes: Any) -> None:
        """Changes fields of an item or a collection (``tags`` as names)."""
        with self.lock:
            version, stamp = self._write()
            if key in self.collections:
                self.collections[key] |= changes | {"version": version}
                return
            data = self.items[key]
            if "tags" in changes:
                changes["tags"] = [{"tag": t} for t in changes["tags"]]
            data |= changes | {"version": version, "dateModified": stamp}

    def replace_file(self, key: str, pdf: bytes, filename: str = "") -> None:
        """A new file uploaded for an attachment: its md5 and mtime change."""
        with self.lock:
            version, stamp = self._write()
            data = self.items[key]
            data |= {"md5": hashlib.md5(pdf).hexdigest(), "mtime": 1700000000000 + version}
            data |= {"version": version, "dateModified": stamp}
            if filename:
                data["filename"] = filename
            self.files[key] = StoredFile(pdf, data.get("contentType", "application/pdf"))

    def serve_file(self, key: str, body: bytes | None, content_type: str = "") -> None:
        """What the storage answers for ``key``, its metadata unchanged: other bytes, or
        nothing (None: a 404). Not a write."""
        with self.lock:
            if body is None:
                self.files.pop(key, None)
            else:
                self.files[key] = StoredFile(body, content_type or "application/pdf")

    def trash(self, key: str) -> None:
        """An item, or a collection (Zotero 7), moved to the trash."""
        with self.lock:
            version, stamp = self._write()
            if key in self.collections:
                self.collections[key] |= {"deleted": True, "version": version}
                return
            self.items[key] |= {"deleted": 1, "version": version, "dateModified": stamp}

    def restore(self, key: str) -> None:
        with self.lock:
            version, stamp = self._write()
            self.items[key].pop("deleted", None)
            self.items[key] |= {"version": version, "dateModified": stamp}

    def delete(self, *keys: str) -> None:
        """Items deleted for good (emptied from the trash), with their child items."""
        with self.lock:
            version, _ = self._write()
            doomed = set(keys)
            doomed |= {k for k, d in self.items.items() if d.get("parentItem") in doomed}
            for key in doomed:
                del self.items[key]
                self.files.pop(key, None)
                self.deleted["items"][key] = version

    def delete_collection(self, key: str) -> None:
        with self.lock:
            version, _ = self._write()
            del self.collections[key]
            self.deleted["collections"][key] = version
            for data in self.items.values():
                if key in data.get("collections", ()):
                    data["collections"].remove(key)
                    data["version"] = version

    # -- reads ---------------------------------------------------------------------------

    def envelope(self, data: Mapping[str, Any], base: str) -> dict[str, Any]:
        key = data["key"]
        kind = "collections" if key in self.collections else "items"
        links: dict[str, Any] = {
            "self": {"href": f"{base}/{self.prefix}/{kind}/{key}", "type": "application/json"},
            "alternate": {
                "href": f"https://www.zotero.org/{self.prefix}/{kind}/{key}",
                "type": "text/html",
            },
        }
        meta: dict[str, Any] = {}
        if kind == "collections":
            meta["numCollections"] = sum(
                c["parentCollection"] == key for c in self.collections.values()
            )
            meta["numItems"] = sum(key in d.get("collections", ()) for d in self.items.values())
        elif data.get("parentItem"):
            links["up"] = {
                "href": f"{base}/{self.prefix}/items/{data['parentItem']}",
                "type": "application/json",
            }
        else:
            meta["numChildren"] = sum(d.get("parentItem") == key for d in self.items.values())
        if key in self.files and data.get("linkMode") in ("imported_file", "imported_url"):
            links["enclosure"] = {
                "type": data.get("contentType", ""),
                "href": f"{base}/{self.prefix}/items/{key}/file/view",
                "title": data.get("filename", ""),
                "length": len(self.files[key].body),
            }
        return {
            "key": key,
            "version": data["version"],
            "library": {
                "type": self.kind.removesuffix("s"),
                "id": self.id,
                "name": self.name,
                "links": {
                    "alternate": {
                        "href": f"https://www.zotero.org/{self.prefix}",
                        "type": "text/html",
                    }
                },
            },
            "links": links,
            "meta": meta,
            "data": json.loads(json.dumps(data)),
        }


class FakeZotero:
    """The server's state: its libraries, the valid key, the requests served."""

    def __init__(self, api_key: str = "zotero-test-key") -> None:
        self.api_key = api_key
        self.lock = threading.RLock()
        self.libraries: dict[str, FakeLibrary] = {}
        self.requests: list[Request] = []
        self.failures: list[tuple[str, Failure]] = []
        self.before: Callable[[Request], None] | None = None
        self.url = ""

    def library(self, kind: str = "users", id: int = 1, name: str = "Ada") -> FakeLibrary:
        lib = FakeLibrary(kind, id, name, self.lock)
        self.libraries[lib.prefix] = lib
        return lib

    def fail(self, path_contains: str, *failures: Failure) -> None:
        """The next requests whose path contains ``path_contains`` get these answers."""
        with self.lock:
            self.failures.extend((path_contains, f) for f in failures)

    def served(self, path_contains: str = "") -> list[Request]:
        return [r for r in self.requests if path_contains in r.path]

    def downloads(self) -> list[Request]:
        """The file requests (``items/<key>/file``)."""
        return [r for r in self.requests if r.path.endswith("/file")]

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()

    # -- answers -------------------------------------------------------------------------

    def answer(self, request: Request, base: str) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            queued = [i for i, (needle, _) in enumerate(self.failures) if needle in request.path]
            failure = self.failures.pop(queued[0])[1] if queued else None
        if failure is not None:
            time.sleep(failure.delay)
            return failure.status, dict(failure.headers), failure.body
        if self.before is not None:
            self.before(request)
        with self.lock:
            return self._answer(request, base)

    def _answer(self, request: Request, base: str) -> tuple[int, dict[str, str], bytes]:
        parts = request.path.strip("/").split("/")
        if parts[0] == "storage" and len(parts) == 4:
            lib = self.libraries.get(f"{parts[1].replace('-', '/')}")
            stored = lib.files.get(parts[2]) if lib else None
            if stored is None:
                return _text(404, "Not found")
            return 200, {"Content-Type": stored.content_type}, stored.body
        if len(parts) < 3 or parts[0] not in ("users", "groups"):
            return _text(404, "Not found")
        key = request.headers.get("zotero-api-key") or request.query.get("key", "")
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            key = auth.removeprefix("Bearer ")
        if key and key != self.api_key:
            return _text(403, "Invalid key")
        lib = self.libraries.get(f"{parts[0]}/{parts[1]}")
        if lib is None:
            return _text(404, "Not found")
        if not key and not lib.public:
            return _text(403, "Forbidden")
        rest = parts[2:]
        if rest[0] == "deleted":
            return self._deleted(lib, request)
        if rest in (["items"], ["items", "top"], ["items", "trash"]):
            return self._many(lib, request, base, "items", rest[-1])
        if rest in (["collections"], ["collections", "top"]):
            return self._many(lib, request, base, "collections", rest[-1])
        if rest[0] == "items" and len(rest) in (2, 3):
            data = lib.items.get(rest[1])
            if data is None:
                return _text(404, "Not found")
            if len(rest) == 2:
                body = _json(lib.envelope(data, base))
                headers = {"Last-Modified-Version": str(data["version"])}
                return 200, {"Content-Type": "application/json"} | headers, body
            if rest[2] == "file" and rest[1] in lib.files:
                where = f"{base}/storage/{lib.kind}-{lib.id}/{rest[1]}/{data.get('md5')}"
                return 302, {"Location": where, "Content-Type": "text/plain"}, b""
        return _text(404, "Not found")

    def _many(
        self, lib: FakeLibrary, request: Request, base: str, what: str, which: str
    ) -> tuple[int, dict[str, str], bytes]:
        q = request.query
        version_headers = {"Last-Modified-Version": str(lib.version), "Zotero-API-Version": "3"}
        known = request.headers.get("if-modified-since-version", "")
        if known.isdigit() and lib.version <= int(known):
            return 304, version_headers, b""
        fmt = q.get("format", "json")
        if fmt not in ("json", "versions", "keys"):
            return _text(400, f"Invalid 'format' value '{fmt}'")
        since = int(q.get("since", "0") or 0)
        objects = list((lib.items if what == "items" else lib.collections).values())
        objects = [o for o in objects if o["version"] > since]
        if what == "items":
            if which == "trash":
                objects = [o for o in objects if o.get("deleted")]
            elif q.get("includeTrashed") not in ("1", "true"):
                objects = [o for o in objects if not o.get("deleted")]
            if which == "top":
                objects = [o for o in objects if not o.get("parentItem")]
            if q.get("itemKey"):
                wanted = set(q["itemKey"].split(","))
                objects = [o for o in objects if o["key"] in wanted]
        else:
            if q.get("includeTrashed") not in ("1", "true"):
                objects = [o for o in objects if not o.get("deleted")]
            if which == "top":
                objects = [o for o in objects if not o["parentCollection"]]
        total = len(objects)
        headers = {"Content-Type": "application/json", "Total-Results": str(total)}
        headers |= version_headers
        if fmt == "versions":
            return 200, headers, _json({o["key"]: o["version"] for o in objects})
        if fmt == "keys":
            return (
                200,
                headers | {"Content-Type": "text/plain"},
                "\n".join(o["key"] for o in objects).encode(),
            )
        start = int(q.get("start", "0") or 0)
        limit = min(int(q.get("limit", "25") or 25), 100)
        page = objects[start : start + limit]
        links = []
        if start + limit < total:
            links.append(f'<{base}{_with(request, start=start + limit)}>; rel="next"')
            last = (total - 1) // limit * limit
            links.append(f'<{base}{_with(request, start=last)}>; rel="last"')
        links.append(f'<https://www.zotero.org/{lib.prefix}/{what}>; rel="alternate"')
        headers["Link"] = ", ".join(links)
        return 200, headers, _json([lib.envelope(o, base) for o in page])

    def _deleted(self, lib: FakeLibrary, request: Request) -> tuple[int, dict[str, str], bytes]:
        since = request.query.get("since", "")
        if not since.isdigit():
            return _text(400, "'since' parameter must be provided")
        known = request.headers.get("if-modified-since-version", "")
        headers = {"Last-Modified-Version": str(lib.version), "Zotero-API-Version": "3"}
        if known.isdigit() and lib.version <= int(known):
            return 304, headers, b""
        body = {
            "collections": [k for k, v in lib.deleted["collections"].items() if v > int(since)],
            "items": [k for k, v in lib.deleted["items"].items() if v > int(since)],
            "searches": [],
            "tags": [],
            "settings": [],
        }
        return 200, headers | {"Content-Type": "application/json"}, _json(body)


def _with(request: Request, **changes: object) -> str:
    query = {**request.query, **{k: str(v) for k, v in changes.items()}}
    return f"{request.path}?{urlencode(query)}"


def _json(value: object) -> bytes:
    return json.dumps(value).encode()


def _text(status: int, message: str) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "text/plain"}, message.encode()


@contextmanager
def fake_zotero(api_key: str = "zotero-test-key") -> Iterator[FakeZotero]:
    """A running fake; its ``url`` is the endpoint to give pyzotero."""
    fake = FakeZotero(api_key)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            request = Request(
                "GET",
                parts.path,
                dict(parse_qsl(parts.query, keep_blank_values=True)),
                {k.lower(): v for k, v in self.headers.items()},
            )
            with fake.lock:
                fake.requests.append(request)
            status, headers, body = fake.answer(request, fake.url)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
