"""`paperchat serve`: one FastAPI app under uvicorn, the API and the Gradio UI together.

/api and /v1 come from :mod:`ui.http.api`; the chat UI (:mod:`ui.web.page`) is mounted at /;
both are built over one :class:`ui.app.App`. With
PAPERCHAT_API_KEY set the UI asks for it at login (any user name, the key as password).
Without a key the server binds to loopback only. Several workers need a Chroma server.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from rag.errors import ConfigError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from rag.settings import Settings
    from ui.app import App

__all__ = ["app_factory", "check_bind", "create_app", "require_shared_store", "serve"]

log = logging.getLogger("paperchat.server")


def create_app(settings: Settings, *, zotero_sync_every: float = 0) -> FastAPI:
    """The whole server for ``settings``: engine loaded and warm, API, UI at / (unless
    ``settings.ui`` is off: gradio is then never imported, which saves most of start-up);
    with ``zotero_sync_every`` minutes, the Zotero library synced at start and that often
    (``app.state.zotero``)."""
    from concurrent.futures import ThreadPoolExecutor

    from ui.app import App
    from ui.http.api import create_api
    from ui.http.uploads import tidy_data_dir

    tidy_data_dir(settings.data_dir)  # what a crashed process left behind
    parts = App.from_settings(settings)
    # Ready means ready: the first question loads no model and no index. Loading Chroma's
    # vector index is mostly native code, importing gradio mostly Python, so the two
    # overlap on two cores (1M chunks, one run each: 7.8 s one after the other, 6.4 s together).
    with ThreadPoolExecutor(1, thread_name_prefix="paperchat-warm-up") as pool:
        warm = pool.submit(parts.engine.warm_up)
        app = create_api(parts)
        if settings.ui:
            app = _with_ui(app, parts)
        else:

            @app.get("/", include_in_schema=False)
            def root() -> dict[str, str]:
                return {"paperchat": "API only (PAPERCHAT_UI=false)", "docs": "/docs"}

        warm.result()  # raises what warming up raised
    if zotero_sync_every > 0:
        from ui.http.zotero import PeriodicSync

        app.state.zotero = sync = PeriodicSync(parts.ingester, zotero_sync_every).start()
        _stop_on_shutdown(app, sync.stop)
    return app


def _stop_on_shutdown(app: FastAPI, stop: Callable[[], None]) -> None:
    """Call ``stop`` when the server shuts down (after the app's own lifespan ends), so a
    sync in progress finishes its item rather than dying with the process."""
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state:
            yield state
        await asyncio.to_thread(stop)

    app.router.lifespan_context = lifespan


def _with_ui(app: FastAPI, parts: App) -> FastAPI:
    """``app`` with the chat UI mounted at /."""
    from ui.web.gradio_import import gr
    from ui.web.page import CSS, HEAD, build_ui

    key = parts.settings.api_key.get_secret_value()

    def login(_user: str, password: str) -> bool:
        return hmac.compare_digest(password.encode(), key.encode())

    mounted: FastAPI = gr.mount_gradio_app(
        app,
        build_ui(parts),
        path="/",
        auth=login if key else None,
        auth_message="Sign in with any user name and the server's PAPERCHAT_API_KEY as password."
        if key
        else None,
        css=CSS,
        head=HEAD,
        ssr_mode=False,
        mcp_server=False,
        enable_monitoring=False,
        footer_links=["api"],
        max_file_size=int(parts.settings.max_upload_mb * 1e6),
    )
    return mounted


def app_factory() -> FastAPI:
    """For uvicorn workers (each a process of its own): settings from the environment."""
    from rag.settings import load_settings

    return create_app(load_settings())


def check_bind(host: str, settings: Settings) -> None:
    """Refuse to serve beyond loopback without an API key."""
    if settings.api_key.get_secret_value():
        return
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"refusing to serve on {host} without an API key: anyone on the network could use "
            "it. Set PAPERCHAT_API_KEY (clients then send 'Authorization: Bearer <key>'), or "
            "serve on 127.0.0.1"
        )


def require_shared_store(settings: Settings, workers: int) -> None:
    """Several worker processes need a Chroma server: the embedded store is one process's."""
    if workers > 1 and not settings.chroma_host:
        raise ConfigError(
            f"--workers {workers} needs a Chroma server: the embedded store cannot be shared "
            "by several processes. Start `chroma run` and set PAPERCHAT_CHROMA_HOST, or use "
            "--workers 1"
        )


def serve(
    settings: Settings, *, host: str, port: int, workers: int, zotero_sync_every: float = 0
) -> None:
    """Run the server until interrupted."""
    import os

    import uvicorn

    check_bind(host, settings)
    if zotero_sync_every > 0 and workers > 1:
        raise ConfigError(
            "--zotero-sync-every syncs from one process: serve with --workers 1, or run "
            "`paperchat zotero sync` on a schedule (cron) beside the workers"
        )
    require_shared_store(settings, workers)
    if zotero_sync_every > 0:  # its outcome every time, beside uvicorn's lines
        logger = logging.getLogger("paperchat")
        if not logger.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
            logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    if workers > 1:
        # Each worker re-reads the settings from the environment: pass on what the CLI set.
        os.environ["PAPERCHAT_DATA_DIR"] = str(settings.data_dir)
        os.environ["PAPERCHAT_LLM"] = settings.llm
        os.environ["PAPERCHAT_UI"] = str(settings.ui).lower()
        uvicorn.run("ui.http.server:app_factory", factory=True, host=host, port=port,
                    workers=workers, log_level="info")  # fmt: skip
    else:
        app = create_app(settings, zotero_sync_every=zotero_sync_every)
        uvicorn.run(app, host=host, port=port, log_level="info")
