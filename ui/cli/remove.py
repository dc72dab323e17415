"""``paperchat remove``: take papers out of the library by id."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ui.app import App
from ui.cli.output import print_json

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["register"]


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "remove",
        parents=[common],
        help="remove papers by id (chunks, lexical entries, catalogue row)",
        description="Remove papers by their ids (as `paperchat papers` lists them). Removing "
        "a paper that is not stored is no error, so running it twice is safe; a removal cut "
        "short is finished by the next paperchat command.",
    )
    p.add_argument("paper_ids", nargs="+", metavar="PAPER_ID", help="a stored paper's id")
    p.add_argument("--json", action="store_true", help="print {removed, not_found} as JSON")
    p.set_defaults(run=remove)


def remove(args: argparse.Namespace, settings: Settings) -> int:
    wanted = list(dict.fromkeys(args.paper_ids))
    removed = App.from_settings(settings).engine.remove(wanted)
    absent = [pid for pid in wanted if pid not in removed]
    if args.json:
        print_json({"removed": removed, "not_found": absent})
        return 0
    if removed:
        print(f"removed {len(removed)} paper(s): {', '.join(removed)}")
    if absent:
        print(f"not stored (nothing to remove): {', '.join(absent)}", file=sys.stderr)
    return 0
