"""The ``paperchat`` command line: thin commands over the engine and the ingester.

Each command group lives in its own module and registers its subcommands here; every
command is ``run(args, settings) -> exit code``. Errors are translated only here.

Exit codes: 0 = done; 1 = error (one line on stderr says what and what to do);
2 = bad usage; 3 = ingest finished but some records were skipped (listed).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rag.errors import ConfigError, PaperchatError
from rag.settings import load_settings
from ui.cli import add, conversations, evaluate, library, query, remove, serve, table, zotero
from ui.cli.args import common_parser

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["check_index", "main", "parser"]

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def parser() -> argparse.ArgumentParser:
    common = common_parser()
    top = argparse.ArgumentParser(
        prog="paperchat",
        description="Cited answers over a collection of scientific abstracts.",
        epilog="Settings come from the environment and .env (see .env.example).",
    )
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    library.register(sub, common)
    remove.register(sub, common)
    add.register(sub, common)
    zotero.register(sub, common)
    query.register(sub, common)
    table.register(sub, common)
    conversations.register(sub, common)
    serve.register(sub, common)
    evaluate.register(sub, common)
    return top


def check_index(args: argparse.Namespace, settings: Settings) -> None:
    """Refuse, before anything is created, a data directory that holds no index, unless the
    command makes one (``creates_index``): a mistyped --data-dir is an error, not an empty
    library. A Chroma server holds the index elsewhere, so nothing is checked then."""
    if getattr(args, "creates_index", False) or settings.chroma_host:
        return
    where = settings.data_dir
    if not (where / "chroma").is_dir():
        what = "does not exist" if not where.exists() else "holds no paperchat index"
        raise ConfigError(
            f"data directory {where} {what}: create an index there with `paperchat ingest "
            f"PATH --data-dir {where}` (e.g. PATH = data/sample), or point --data-dir (or "
            "PAPERCHAT_DATA_DIR) at an existing index"
        )


def _quiet_broken_pipe() -> int:
    """The reader went away (``paperchat papers | head -1``): stop quietly, and point stdout
    at /dev/null so the interpreter's final flush does not complain either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    if args.command is None:
        top.print_help()
        return EXIT_USAGE
    try:
        settings = load_settings(data_dir=args.data_dir, llm=getattr(args, "llm", None))
        check_index(args, settings)
        code = int(args.run(args, settings))
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except PaperchatError as exc:
        print(f"paperchat: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("paperchat: interrupted; re-run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
