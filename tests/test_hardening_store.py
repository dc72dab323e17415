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
