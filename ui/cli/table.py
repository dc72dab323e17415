"""``paperchat table``: a review table, papers as rows and questions as columns."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rag.answer import tablefmt
from rag.answer.table import MAX_COLUMNS, MAX_PAPERS, PRESETS
from ui.app import App
from ui.cli.output import print_json

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["register"]

EXIT_OK = 0


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    presets = ", ".join(c.name for c in PRESETS.values())
    p = sub.add_parser(
        "table",
        parents=[common],
        help="a review table: papers as rows, questions as columns",
        description="Line papers up and read across them: each cell is the sentence of that "
        "paper (its abstract, or its full text with page and section) that best states what "
        "the column asks, quoted verbatim, or 'not stated' when none does. Rows are printed "
        "as they are filled. Pick the papers by id, collection, search query (-k best) or "
        f"saved conversation (its cited papers); at most {MAX_PAPERS} papers and "
        f"{MAX_COLUMNS} columns.",
    )
    p.add_argument(
        "--columns",
        required=True,
        metavar="LIST",
        help=f"comma-separated column names: presets ({presets}) or any short question, "
        "e.g. 'Method,Main result,Which species?'",
    )
    p.add_argument("--paper-id", action="append", default=[], metavar="ID", dest="paper_ids",
                   help="a paper as a row (repeat for several)")  # fmt: skip
    p.add_argument("--collection", metavar="NAME", help="the papers of collection NAME")
    p.add_argument("--query", metavar="TEXT", help="the papers a search for TEXT finds first")
    p.add_argument("-k", type=int, default=10, metavar="N",
                   help="with --query: how many papers (default 10)")  # fmt: skip
    p.add_argument("--conversation", metavar="ID",
                   help="the papers saved conversation ID cited")  # fmt: skip
    p.add_argument("--llm", choices=["extractive", "openai"], default="extractive",
                   help="openai: a language model also writes each stated cell as a short "
                   "phrase from the paper's text, kept when attribution finds it supported "
                   "(one call per cell); default extractive: the sentences only")  # fmt: skip
    p.add_argument("--model", metavar="NAME",
                   help="a model `paperchat models` lists; implies --llm openai")  # fmt: skip
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="print {columns, rows} as JSON (each cell with its quote, page, "
                     "section and number)")  # fmt: skip
    out.add_argument("--format", choices=["markdown", "csv"], default="markdown",
                     help="how rows are printed (default markdown)")  # fmt: skip
    p.add_argument("--bibtex", type=Path, metavar="FILE",
                   help="also write the table's papers as BibTeX entries to FILE")  # fmt: skip
    p.set_defaults(run=table)


def table(args: argparse.Namespace, settings: Settings) -> int:
    engine = App.from_settings(settings).engine
    plan = engine.table(
        args.columns.split(","),
        paper_ids=tuple(dict.fromkeys(args.paper_ids)),
        collection=(args.collection or "").strip(),
        query=(args.query or "").strip(),
        k=args.k,
        conversation_id=args.conversation or "",
        llm="openai" if args.model else args.llm,
        model=args.model,
    )
    names = [c.name for c in plan.columns]
    progress = sys.stderr.isatty() and not args.json
    rows = []
    if not args.json:
        head = tablefmt.markdown_header(names) if args.format == "markdown" else None
        print(head or tablefmt.csv_header(names), end="\n" if head else "", flush=True)
    for n, row in enumerate(plan.rows(), 1):
        rows.append(row)
        if args.json:
            continue
        if args.format == "markdown":
            print(tablefmt.markdown_row(row), flush=True)
        else:
            print(tablefmt.csv_row(row), end="", flush=True)
        if progress:
            print(f"\r{n}/{len(plan.papers)} papers", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    if args.json:
        print_json({"columns": names, "rows": [r.to_json() for r in rows]})
    if args.bibtex:
        args.bibtex.write_text(tablefmt.bibtex(plan.papers) + "\n", encoding="utf-8")
        print(f"{len(plan.papers)} BibTeX entries -> {args.bibtex}", file=sys.stderr)
    return EXIT_OK
