"""`paperchat serve`: one FastAPI app under uvicorn, the API and the Gradio UI together.

/api and /v1 come from :mod:`rag.api`; the chat UI (:mod:`ui.app`) is mounted at /. With
PAPERCHAT_API_KEY set the UI asks for it at login (any user name, the key as password).
Without a key the server binds to loopback only. Several workers need a Chroma server.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from typing import TYPE_CHECKING

from rag.errors import ConfigError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from rag.engine import Engine
    from rag.settings import Settings

__all__ = ["app_factory", "check_bind", "create_app", "serve"]

log = logging.getLogger("paperchat.server")


def create_app(settings: Settings) -> FastAPI:
    """The whole server for ``settings``: engine loaded and warm, API, UI at / (unless
    ``settings.ui`` is off: gradio is then never imported, which saves most of start-up)."""
    from concurrent.futures import ThreadPoolExecutor

    from rag.api import create_api
    from rag.engine import Engine

    engine = Engine.from_settings(settings)
    # Ready means ready: the first question loads no model and no index. Loading Chroma's
    # vector index is mostly native code, importing gradio mostly Python, so the two
    # overlap on two cores (1M chunks, one run each: 7.8 s one after the other, 6.4 s together).
    with ThreadPoolExecutor(1, thread_name_prefix="paperchat-warm-up") as pool:
        warm = pool.submit(engine.warm_up)
        app = create_api(engine)
        if settings.ui:
            app = _with_ui(app, engine, settings)
        else:

            @app.get("/", include_in_schema=False)
            def root() -> dict[str, str]:
                return {"paperchat": "API only (PAPERCHAT_UI=false)", "docs": "/docs"}

        warm.result()  # raises what warming up raised
    return app


def _with_ui(app: FastAPI, engine: Engine, settings: Settings) -> FastAPI:
    """``app`` with the chat UI mounted at /."""
    from ui.app import CSS, build_ui
    from ui.gradio_import import gr

    key = settings.api_key.get_secret_value()

    def login(_user: str, password: str) -> bool:
        return hmac.compare_digest(password.encode(), key.encode())

    return gr.mount_gradio_app(
        app,
        build_ui(engine),
        path="/",
        auth=login if key else None,
        auth_message="Sign in with any user name and the server's PAPERCHAT_API_KEY as password."
        if key
        else None,
        css=CSS,
        ssr_mode=False,
        mcp_server=False,
        enable_monitoring=False,
        footer_links=["api"],
    )


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


def serve(settings: Settings, *, host: str, port: int, workers: int) -> None:
    """Run the server until interrupted."""
    import os

    import uvicorn

    from rag.engine import require_shared_store

    check_bind(host, settings)
    require_shared_store(settings, workers)
    if workers > 1:
        # Each worker re-reads the settings from the environment: pass on what the CLI set.
        os.environ["PAPERCHAT_DATA_DIR"] = str(settings.data_dir)
        os.environ["PAPERCHAT_LLM"] = settings.llm
        os.environ["PAPERCHAT_UI"] = str(settings.ui).lower()
        uvicorn.run("rag.server:app_factory", factory=True, host=host, port=port,
                    workers=workers, log_level="info")  # fmt: skip
    else:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
