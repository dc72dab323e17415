"""Commands that ask the library: ``search``, ``ask`` and ``chat``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from rag.answer.followup import Turn
from rag.answer.references import format_references
from rag.errors import QueryError
from ui.app import App
from ui.cli.args import add_answer_args, add_filter_args, answer_options, filters
from ui.cli.output import meta_line, print_answer, print_json, print_notes, shorten

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["register"]

EXIT_OK = 0


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "search",
        parents=[common],
        help="find the papers most relevant to a query",
        description="Hybrid (dense + BM25) search over the stored papers, each paper once.",
    )
    p.add_argument("query", metavar="QUERY", help="a question or keywords")
    p.add_argument("-k", type=int, default=10, metavar="N", help="papers to return (default 10)")
    p.add_argument("--mode", choices=["hybrid", "dense", "lexical"], default="hybrid")
    add_filter_args(p)
    p.add_argument("--json", action="store_true", help="print hits as JSON")
    p.set_defaults(run=search)

    p = sub.add_parser(
        "ask",
        parents=[common],
        help="answer a question from the papers, citing them",
        description="Answer from the most relevant abstracts, each claim cited [n]. Offline "
        "the answer is extractive: the abstracts' own sentences, no language model. Questions "
        "the papers do not cover are refused (PAPERCHAT_MIN_RELEVANCE). With OPENAI_API_KEY "
        "or OPENAI_BASE_URL set, an OpenAI-compatible model writes it, and every [n] it "
        "writes is checked against the sources.",
    )
    p.add_argument("question", metavar="QUESTION", help="a question about the papers")
    add_answer_args(p)
    p.add_argument(
        "--refs",
        choices=["markdown", "bibtex"],
        help="print only the cited papers, as a Markdown list or BibTeX entries",
    )
    p.add_argument("--json", action="store_true", help="print the answer and citations as JSON")
    p.set_defaults(run=ask)

    p = sub.add_parser(
        "chat",
        parents=[common],
        help="a conversation: one question per line, follow-ups see earlier turns",
        description="Read questions from standard input, one per line, and answer each like "
        "`ask`; a follow-up such as 'and how fast is it?' is searched with the earlier turns "
        "in mind. An empty line or end of input ends the chat.",
    )
    add_answer_args(p)
    p.set_defaults(run=chat)


def search(args: argparse.Namespace, settings: Settings) -> int:
    chosen = filters(args)
    engine = App.from_settings(settings).engine
    hits = engine.search(args.query, k=args.k, filters=chosen, mode=args.mode)
    if args.json:
        print_json([h.to_json() for h in hits])
        return EXIT_OK
    if not hits:
        print("no papers match" + (" these filters" if chosen else ""))
    for rank, hit in enumerate(hits, 1):
        p = hit.paper
        meta = meta_line(p.authors, p.year, p.source)
        print(f"[{rank}] {p.name}  ({hit.score:.3f})\n    {meta}\n    {shorten(hit.snippet, 220)}")
    return EXIT_OK


def ask(args: argparse.Namespace, settings: Settings) -> int:
    engine = App.from_settings(settings).engine
    answer = engine.ask(args.question, **answer_options(args))
    print_notes(answer)
    final = answer.final
    if args.json:
        out = final.to_json()
        del out["type"]
        print_json(out)
    elif args.refs:
        text = format_references(final.citations, args.refs)
        if text:
            print(text)
        if final.refused:
            print(f"paperchat: {final.answer}", file=sys.stderr)
    else:
        print_answer(answer, args.question)
    return EXIT_OK


def chat(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None) -> int:
    """A conversation on the terminal: follow-up questions see the earlier turns."""
    stdin = stdin or sys.stdin
    engine = App.from_settings(settings).engine
    options = answer_options(args)
    interactive = stdin.isatty()
    if interactive:
        print(f"paperchat ({engine.answerer}); an empty line or Ctrl-D ends the chat.")
    history: list[Turn] = []
    while True:
        if interactive:
            print("\n> ", end="", flush=True)
        line = stdin.readline()
        if not line.strip():
            return EXIT_OK
        try:
            answer = engine.ask(line, history=tuple(history), **options)
        except QueryError as exc:
            print(f"paperchat: error: {exc}", file=sys.stderr)
            continue
        print_notes(answer)
        print_answer(answer, line)
        cited = tuple(c.source.label for c in answer.final.citations)
        history += [Turn("user", line.strip()), Turn("assistant", answer.final.answer, cited)]
