"""A Chroma server beyond the defaults: another tenant and database (a real `chroma run`),
and a token (sent as the server asks, never shown in an error)."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from rag.errors import ConfigError, StoreError
from rag.index.connect import open_store
from rag.retrieve import Retriever, lexical_dir
from rag.settings import load_settings
from tests.fakes import HashEmbedder

TOKEN = "ck-secret-0123456789"


@pytest.mark.integration
def test_a_tenant_and_database_of_their_own(
    on_chroma_server: tuple[str, int], tmp_path: Path, sample_dir: Path
) -> None:
    import chromadb

    from ingest.chunk import Chunker
    from ingest.pipeline import ingest_paths

    host, port = on_chroma_server
    tenant, database = f"lab-{uuid.uuid4().hex[:8]}", "papers"
    admin = chromadb.AdminClient(chromadb.Settings(
        chroma_api_impl="chromadb.api.fastapi.FastAPI", chroma_server_host=host,
        chroma_server_http_port=port, anonymized_telemetry=False,
    ))  # fmt: skip
    admin.create_tenant(tenant)
    admin.create_database(database, tenant=tenant)

    lab = load_settings(chroma_tenant=tenant, chroma_database=database)
    default = load_settings()
    store, other = open_store(lab), open_store(default)
    try:
        assert store.collection_name == other.collection_name  # same name, two places
        assert store.location.endswith(f"/{tenant}/{database}")
        ingest_paths([sample_dir], store=store, embedder=HashEmbedder(), chunker=Chunker(64, 8))
        assert store.count_papers() == 32 and other.count_papers() == 0
        # Each place has its own lexical index on this machine.
        assert lexical_dir(lab, store) != lexical_dir(default, other)
        retriever = Retriever(store, HashEmbedder(), index_dir=lexical_dir(lab, store))
        assert len(retriever.index) == 32
        empty = Retriever(other, HashEmbedder(), index_dir=lexical_dir(default, other))
        assert len(empty.index) == 0
    finally:
        store.reset()
        other.reset()


@pytest.mark.integration
def test_a_database_that_does_not_exist_is_a_clear_error(
    on_chroma_server: tuple[str, int],
) -> None:
    with pytest.raises(StoreError) as err:
        open_store(load_settings(chroma_database=f"nope-{uuid.uuid4().hex[:6]}"))
    message = str(err.value)
    assert "nope-" in message
    assert "_TENANT, _DATABASE" in message


class _Guarded(BaseHTTPRequestHandler):
    """Answers every request 401 and remembers its headers, as a server wanting a token."""

    seen: ClassVar[list[dict[str, str]]] = []

    def _deny(self) -> None:
        self.seen.append({k.lower(): v for k, v in self.headers.items()})
        body = json.dumps({"error": "Unauthorized", "message": "Unauthorized"}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _deny

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def guarded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, str]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Guarded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Guarded.seen = []
    monkeypatch.setenv("PAPERCHAT_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERCHAT_CHROMA_PORT", str(server.server_address[1]))
    monkeypatch.setenv("PAPERCHAT_CHROMA_TOKEN", TOKEN)
    try:
        yield _Guarded.seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("header", "expected"),
    [("Authorization", f"Bearer {TOKEN}"), ("X-Chroma-Token", TOKEN)],
)
def test_the_token_is_sent_as_asked_and_never_shown(
    guarded: list[dict[str, str]], header: str, expected: str
) -> None:
    with pytest.raises(StoreError) as err:
        open_store(load_settings(chroma_token_header=header))
    assert guarded and all(h.get(header.lower()) == expected for h in guarded)
    assert TOKEN not in str(err.value) and "_TOKEN" in str(err.value)


def test_without_a_token_none_is_sent(guarded: list[dict[str, str]], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("PAPERCHAT_CHROMA_TOKEN")
    with pytest.raises(StoreError):
        open_store(load_settings())
    assert guarded and not any("authorization" in h or "x-chroma-token" in h for h in guarded)


@pytest.mark.parametrize("token", ["has space", "tab\there", "ünïcode"])
def test_a_token_chroma_could_not_send_is_refused_up_front(
    token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERCHAT_CHROMA_TOKEN", token)
    with pytest.raises(ConfigError, match=r"chroma_token.*printable ASCII") as err:
        load_settings()
    assert token not in str(err.value)
