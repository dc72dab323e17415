"""The ``paperchat`` command line: thin commands over the engine and the ingester.

Each command group lives in its own module and registers its subcommands here; every
command is ``run(args, settings) -> exit code``. Errors are translated only here.

Exit codes: 0 = done; 1 = error (one line on stderr says what and what to do);
2 = bad usage; 3 = ingest finished but some records were skipped (listed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rag.errors import PaperchatError
from rag.settings import load_settings
from ui.cli import add, evaluate, library, query, remove, serve
from ui.cli.args import common_parser

__all__ = ["main", "parser"]

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
    query.register(sub, common)
    serve.register(sub, common)
    evaluate.register(sub, common)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    if args.command is None:
        top.print_help()
        return EXIT_USAGE
    try:
        settings = load_settings(data_dir=args.data_dir, llm=getattr(args, "llm", None))
        return int(args.run(args, settings))
    except PaperchatError as exc:
        print(f"paperchat: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("paperchat: interrupted; re-run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
