"""``paperchat conversations``: the saved conversations (list, show, export, rename, delete),
and how ``chat --resume`` shows the turns it goes on from."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rag.answer.prompts import EXTRACTIVE_NOTE
from rag.answer.references import conversation_bibtex, conversation_markdown
from ui.app import App
from ui.cli.output import print_json, shorten

if TYPE_CHECKING:
    from rag.answer.saved import Conversation, SavedTurn
    from rag.conversations import Conversations
    from rag.settings import Settings

__all__ = ["print_past", "register", "show_notice"]

EXIT_OK = 0
PAST_SHOWN = 10  # turns printed when a chat is resumed


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "conversations",
        parents=[common],
        help="the saved conversations: list, show, export, rename, delete",
        description="Every `paperchat chat` session is saved (unless --no-save), as is every "
        "question asked in the web UI or through POST /api/ask, and `ask --save`. Without an "
        "action: list them, newest first (id, turns, last update, title). Go on with one "
        "with `paperchat chat --resume ID`.",
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument("--search", metavar="TEXT", default="", help="only titles holding TEXT")
    p.add_argument("--limit", type=int, default=50, metavar="N", help="at most N (default 50)")
    p.set_defaults(run=listing)
    # The actions' own --data-dir must not reset one given before the action's name.
    here = argparse.ArgumentParser(add_help=False)
    here.add_argument("--data-dir", type=Path, metavar="DIR", default=argparse.SUPPRESS,
                      help="as for every command")  # fmt: skip
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    a = actions.add_parser("show", parents=[here], help="a conversation's turns in full")
    a.add_argument("id", metavar="ID")
    a.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="its turns as JSON, each answer as the API returns it")  # fmt: skip
    a.set_defaults(run=show)
    a = actions.add_parser(
        "export", parents=[here], help="a conversation as Markdown, or its cited papers as BibTeX"
    )
    a.add_argument("id", metavar="ID")
    a.add_argument("--format", choices=["markdown", "bibtex"], default="markdown",
                   help="markdown: the questions, answers and references (default); bibtex: "
                   "an entry for every paper it cited")  # fmt: skip
    a.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")
    a.set_defaults(run=export)
    a = actions.add_parser("rename", parents=[here], help="give a conversation a new title")
    a.add_argument("id", metavar="ID")
    a.add_argument("title", metavar="TITLE")
    a.set_defaults(run=rename)
    a = actions.add_parser("delete", parents=[here], help="delete a conversation")
    a.add_argument("id", metavar="ID")
    a.set_defaults(run=delete)


def _store(settings: Settings) -> Conversations:
    return App.from_settings(settings).engine.conversations


def show_notice(store: Conversations) -> None:
    """A damaged conversations file set aside, said once on stderr."""
    if store.notice:
        print(f"paperchat: note: {store.notice}", file=sys.stderr)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def listing(args: argparse.Namespace, settings: Settings) -> int:
    store = _store(settings)
    total, rows = store.listing(args.search, limit=max(1, args.limit))
    show_notice(store)
    if args.json:
        print_json({"total": total, "conversations": [c.to_json() for c in rows]})
        return EXIT_OK
    if not rows:
        what = f"whose title holds {args.search!r}" if args.search else "saved yet"
        print(f"no conversations {what}", file=sys.stderr)
        return EXIT_OK
    print(f"{'ID':<16}  {'TURNS':>5}  {'UPDATED':<16}  TITLE")
    for c in rows:
        print(f"{c.id:<16}  {c.turns:>5}  {_when(c.updated):<16}  {c.title}")
    if total > len(rows):
        print(f"({len(rows)} of {total}: --limit N shows more)", file=sys.stderr)
    return EXIT_OK


def _answer_text(turn: SavedTurn) -> str:
    return str(turn.answer.get("answer", "")).removeprefix(EXTRACTIVE_NOTE).strip()


def print_past(conversation: Conversation, turns: list[SavedTurn]) -> None:
    """The turns a resumed chat goes on from, briefly: each question and the start of its
    answer (the last ten turns)."""
    print(f'Resuming "{conversation.title}" ({conversation.turns} turns, last '
          f"{_when(conversation.updated)}; id {conversation.id})")  # fmt: skip
    if len(turns) > PAST_SHOWN:
        print(f"  … {len(turns) - PAST_SHOWN} earlier turns")
    for turn in turns[-PAST_SHOWN:]:
        print(f"> {turn.question}\n  {shorten(' '.join(_answer_text(turn).split()), 200)}")


def show(args: argparse.Namespace, settings: Settings) -> int:
    conversation, turns = _store(settings).get(args.id)
    if getattr(args, "json", False):
        print_json(conversation.to_json() | {"turns": [t.to_json() for t in turns]})
        return EXIT_OK
    print(f"{conversation.title}  ({conversation.turns} turns, id {conversation.id})")
    for turn in turns:
        print(f"\n> {turn.question}\n\n{_answer_text(turn)}")
        for c in turn.answer.get("citations", ()):
            print(f"  [{c['n']}] {c.get('title') or c.get('label') or c.get('paper_id')}")
    return EXIT_OK


def export(args: argparse.Namespace, settings: Settings) -> int:
    conversation, turns = _store(settings).get(args.id)
    exchanges = [(t.question, str(t.answer.get("answer", "")), t.citations()) for t in turns]
    if args.format == "markdown":
        text = conversation_markdown(conversation.title, exchanges)
    else:
        text = conversation_bibtex(exchanges)
        if not text:
            print("paperchat: note: this conversation cites no paper", file=sys.stderr)
    if args.output:
        args.output.write_text(text + "\n" if text else "", encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    elif text:
        print(text)
    return EXIT_OK


def rename(args: argparse.Namespace, settings: Settings) -> int:
    conversation = _store(settings).rename(args.id, args.title)
    print(f"renamed {conversation.id}: {conversation.title}")
    return EXIT_OK


def delete(args: argparse.Namespace, settings: Settings) -> int:
    _store(settings).delete(args.id)
    print(f"deleted {args.id}")
    return EXIT_OK
