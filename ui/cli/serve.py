"""``paperchat serve``: the chat UI, the JSON API and the OpenAI-compatible API."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rag.errors import PaperchatError

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["MAX_SYNC_MINUTES", "register"]

MAX_SYNC_MINUTES = 525_600


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="the chat UI, the JSON API and the OpenAI-compatible API in one server",
        description="Serve the Gradio chat at /, the JSON API under /api, the "
        "OpenAI-compatible API under /v1 (model 'paperchat'), OpenAPI docs at /docs and "
        "/healthz. Without PAPERCHAT_API_KEY it serves on loopback only.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (more than 1 needs a Chroma server: PAPERCHAT_CHROMA_HOST)",
    )
    p.add_argument("--llm", choices=["extractive", "openai"], help="who writes answers")
    p.add_argument(
        "--no-ui",
        action="store_true",
        help="serve only the APIs and /healthz (no gradio import: a faster start)",
    )
    p.add_argument(
        "--zotero-sync-every",
        type=float,
        default=0,
        metavar="MINUTES",
        help="sync the Zotero library ($PAPERCHAT_ZOTERO_DIR) at start and every MINUTES "
        "while serving (as `paperchat zotero sync`; one worker only)",
    )
    # Papers can come in while it runs (POST /api/ingest), so an empty data dir is fine.
    p.set_defaults(run=serve, creates_index=True)


def serve(args: argparse.Namespace, settings: Settings) -> int:
    from ui.http.server import serve as run_server

    if args.workers < 1:
        raise PaperchatError("--workers must be at least 1")
    if args.no_ui:
        settings = settings.model_copy(update={"ui": False})
    every = args.zotero_sync_every
    if every and not 0.01 <= every <= MAX_SYNC_MINUTES:  # nan fails this too
        raise PaperchatError(
            f"--zotero-sync-every must be between 0.01 and {MAX_SYNC_MINUTES} minutes (a year)"
        )
    run_server(settings, host=args.host, port=args.port, workers=args.workers,
               zotero_sync_every=args.zotero_sync_every)  # fmt: skip
    return 0
