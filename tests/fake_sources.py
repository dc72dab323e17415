"""A fake arXiv / OpenAlex / Crossref on loopback, replaying tests/data/sources/.

``/arxiv/api/query`` answers ``id_list`` and ``search_query`` from arxiv_entries.xml,
``/openalex/works?filter=doi:A|B`` from openalex_works.json, ``/crossref/works/{doi}`` from
crossref_work.json (404 for other DOIs). ``fail(prefix, ...)`` queues failures (a status, a
body, a delay) that the next requests under that prefix get first. Every request is kept.
"""

from __future__ import annotations

import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

DATA = Path(__file__).parent / "data" / "sources"
_ATOM = "{http://www.w3.org/2005/Atom}"
ET.register_namespace("", "http://www.w3.org/2005/Atom")


@dataclass
class Failure:
    status: int = 500
    body: bytes = b""
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()


class FakeSources:
    def __init__(self) -> None:
        self.requests: list[tuple[float, str]] = []
        self.failures: dict[str, list[Failure]] = {}
        self.lock = threading.Lock()
        self.url = ""

    def fail(self, prefix: str, *failures: Failure) -> None:
        with self.lock:
            self.failures.setdefault(prefix, []).extend(failures)

    def settings_env(self) -> dict[str, str]:
        return {
            "PAPERCHAT_ARXIV_API_URL": f"{self.url}/arxiv/api/query",
            "PAPERCHAT_OPENALEX_API_URL": f"{self.url}/openalex",
            "PAPERCHAT_CROSSREF_API_URL": f"{self.url}/crossref",
            "PAPERCHAT_CONTACT_EMAIL": "tests@example.org",
            "PAPERCHAT_ARXIV_DELAY_SECONDS": "0.3",
            "PAPERCHAT_SOURCES_TIMEOUT": "1",
            "PAPERCHAT_SOURCES_RETRIES": "2",
        }

    def paths(self, prefix: str) -> list[str]:
        return [p for _, p in self.requests if p.startswith(prefix)]

    # -- answers -------------------------------------------------------------------------

    def answer(self, path: str) -> tuple[int, str, bytes]:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/arxiv/api/query":
            return 200, "application/atom+xml", _arxiv(query)
        if parts.path == "/openalex/works":
            wanted = {d.lower() for d in query.get("filter", "").removeprefix("doi:").split("|")}
            doc = json.loads((DATA / "openalex_works.json").read_text())
            doc["results"] = [
                w
                for w in doc["results"]
                if w["doi"].lower().removeprefix("https://doi.org/") in wanted
            ]
            return 200, "application/json", json.dumps(doc).encode()
        if parts.path.startswith("/crossref/works/"):
            doi = unquote(parts.path.removeprefix("/crossref/works/")).lower()
            doc = json.loads((DATA / "crossref_work.json").read_text())
            if doc["message"]["DOI"].lower() != doi:
                return 404, "text/plain", b"Resource not found."
            return 200, "application/json", json.dumps(doc).encode()
        return 404, "text/plain", b"no such path"


def _arxiv(query: dict[str, str]) -> bytes:
    root = ET.fromstring((DATA / "arxiv_entries.xml").read_bytes())
    entries = root.findall(f"{_ATOM}entry")
    for entry in entries:
        root.remove(entry)
    if "id_list" in query:
        wanted = set(query["id_list"].split(","))
        keep = []
        for entry in entries:
            found = re.search(r"abs/(.+?)(v\d+)?$", entry.findtext(f"{_ATOM}id") or "")
            if found and found.group(1) in wanted:
                keep.append(entry)
    else:
        start, size = int(query.get("start", 0)), int(query.get("max_results", 10))
        keep = entries[start : start + size]
    for entry in keep:
        root.append(entry)
    return ET.tostring(root, xml_declaration=True, encoding="utf-8")


@contextmanager
def fake_sources() -> Iterator[FakeSources]:
    fake = FakeSources()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            fake.requests.append((time.monotonic(), self.path))
            failure = None
            with fake.lock:
                for prefix, queue in fake.failures.items():
                    if self.path.startswith(prefix) and queue:
                        failure = queue.pop(0)
                        break
            if failure is not None:
                time.sleep(failure.delay)
                status, kind, body = failure.status, "text/plain", failure.body
                headers = failure.headers
                if failure.status == 200:
                    status, kind, body = 200, "application/json", failure.body
            else:
                status, kind, body = fake.answer(self.path)
                headers = ()
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
