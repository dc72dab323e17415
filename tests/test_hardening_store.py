"""Calls to Chroma are bounded (issue #16, 1): a stuck call fails after the timeout, the
next ones fail at once while it is stuck, and calls go through again once it ends."""

from __future__ import annotations

import threading
import time

import pytest

from rag.errors import StoreError
from rag.index.calls import BoundedCalls
from rag.index.connect import open_store
from rag.settings import load_settings


def test_a_stuck_call_times_out_and_the_next_fail_fast_until_it_ends() -> None:
    calls = BoundedCalls(location="test", timeout=0.2, threads=2)
    thaw = threading.Event()
    ran: list[str] = []

    with pytest.raises(StoreError, match=r"did not answer within 0\.2 s"):
        calls("read", thaw.wait)
    with pytest.raises(StoreError, match="not tried"):
        calls("read", ran.append, "second")  # not even started: the store is stuck
    assert ran == []
    thaw.set()
    for _ in range(100):  # the stuck call ends
        try:
            calls("read", ran.append, "third")
            break
        except StoreError:
            time.sleep(0.05)
    assert ran == ["third"]


def test_chromas_own_errors_are_store_errors(tmp_path: object) -> None:
    store = open_store(load_settings())
    with pytest.raises(StoreError, match="Chroma read failed"):
        store._call("read", store._collection.get, ids="not a list of ids", where=42)


def test_responses_read_through_the_bounded_session_are_freed_at_once() -> None:
    """An httpx response and its stream refer to each other; chromadb's pages of first
    chunks (~5 MB each) piled up until a full garbage collection (memory against size,
    issue #17). Through bound_http, a response read is freed when its last user lets go."""
    import gc
    import weakref
    from types import SimpleNamespace

    import httpx

    from rag.index.calls import bound_http

    body = b'{"ids": ["x"]}' * 1000
    session = httpx.Client(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body))
    )
    client = SimpleNamespace(_server=SimpleNamespace(_session=session))
    gc.disable()
    try:
        plain = httpx.Client(transport=session._transport).request("GET", "http://chroma/")
        held_plain = weakref.ref(plain)
        bound_http(client, 5.0)  # type: ignore[arg-type]
        response = session.request("GET", "http://chroma/")
        assert response.text.startswith('{"ids"') and session.timeout.read == 5.0
        held = weakref.ref(response)
        del plain, response
        assert held() is None  # freed by its reference count
        assert held_plain() is not None  # without bound_http: kept by the cycle
    finally:
        gc.enable()
        session.close()
