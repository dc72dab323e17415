"""Arguments several commands share: the data directory, filters, answer options."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rag.retrieve import Filters

__all__ = ["add_answer_args", "add_filter_args", "answer_options", "common_parser", "filters"]


def common_parser() -> argparse.ArgumentParser:
    """The parent parser of every command: ``--data-dir``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="where the embedded index lives (default: $PAPERCHAT_DATA_DIR or ~/.paperchat); "
        "it must hold one, except for ingest, zotero sync, serve and eval, which create it",
    )
    return common


def add_filter_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--year-from", type=int, metavar="Y", help="only papers from year Y on")
    p.add_argument("--year-to", type=int, metavar="Y", help="only papers up to year Y")
    p.add_argument("--author", metavar="A", help="only papers with an author containing A")
    p.add_argument("--source", metavar="S", help="only papers whose source file contains S")
    p.add_argument("--collection", metavar="NAME", help="only papers in collection NAME")
    p.add_argument(
        "--paper-id",
        action="append",
        default=[],
        metavar="ID",
        dest="paper_ids",
        help="only this paper (repeat for several hand-picked papers)",
    )


def add_answer_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-k", type=int, metavar="N", help="papers to draw on (default $PAPERCHAT_ANSWER_K, 5)"
    )
    p.add_argument(
        "--llm",
        choices=["extractive", "openai"],
        help="who writes the answer (default $PAPERCHAT_LLM: the API if OPENAI_API_KEY or "
        "OPENAI_BASE_URL is set, else a local Ollama or llama.cpp server if one answers, "
        "else extractive)",
    )
    p.add_argument(
        "--model",
        metavar="NAME",
        help="a model the language model server lists (see `paperchat models`); implies "
        "--llm openai",
    )
    p.add_argument(
        "--no-fallback",
        action="store_true",
        help="if the language model fails, exit 1 instead of answering extractively",
    )
    add_filter_args(p)


def filters(args: argparse.Namespace) -> Filters:
    return Filters(
        year_from=args.year_from,
        year_to=args.year_to,
        author=args.author or "",
        source=args.source or "",
        collection=(args.collection or "").strip(),
        paper_ids=tuple(dict.fromkeys(args.paper_ids)),
    )


def answer_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :meth:`rag.engine.Engine.answer` that the flags set."""
    return {
        "filters": filters(args),
        "k": args.k,
        "fallback": False if args.no_fallback else None,
        "model": args.model,
    }
