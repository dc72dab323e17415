"""Our API (no UI) over a real socket on loopback, for tests that build their own App."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import uvicorn

from tests.conftest import free_port
from ui.http.api import create_api

if TYPE_CHECKING:
    from ui.app import App


@contextlib.contextmanager
def serve_api(app: App) -> Iterator[str]:
    """Serve ``create_api(app)`` with uvicorn in a thread; yields its base URL."""
    config = uvicorn.Config(
        create_api(app), host="127.0.0.1", port=free_port(), log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
