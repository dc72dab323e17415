"""``paperchat zotero sync``: a Zotero library, read where it lives, kept in step."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ui.app import App
from ui.cli.library import EXIT_OK, EXIT_PARTIAL
from ui.cli.output import print_json

if TYPE_CHECKING:
    from ingest.zotero.sync import SyncProgress, SyncReport
    from rag.settings import Settings

__all__ = ["print_sync", "register"]


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    top = sub.add_parser("zotero", help="chat with your Zotero library: sync it")
    zsub = top.add_subparsers(dest="zotero_command", metavar="COMMAND", required=True)
    p = zsub.add_parser(
        "sync",
        parents=[common],
        help="add, update and remove papers to match a Zotero library",
        description="Read a Zotero library and bring the index in step: new items are added "
        "(with their PDF attachments' full text), changed ones updated, items deleted or in "
        "Zotero's trash removed, and Zotero's collections (as 'Parent/Child') kept. Only "
        "papers that came from this library are touched; unchanged items are not read "
        "again. The local library is read without writing to it, also while Zotero runs. "
        "Exit 3 if some items or PDF attachments could not be read (listed); 1 if the "
        "library cannot be read at all (nothing is changed).",
    )
    p.add_argument(
        "zotero_dir",
        nargs="?",
        type=Path,
        metavar="ZOTERO_DIR",
        help="Zotero's data directory, holding zotero.sqlite and storage/ (default: "
        "$PAPERCHAT_ZOTERO_DIR or ~/Zotero)",
    )
    web = p.add_mutually_exclusive_group()
    web.add_argument(
        "--user",
        metavar="ID",
        help="sync this user's library through Zotero's web API instead (key in "
        "ZOTERO_API_KEY; the ID is shown at https://www.zotero.org/settings/keys)",
    )
    web.add_argument("--group", metavar="ID", help="sync this group library through the web API")
    p.add_argument(
        "--collection",
        metavar="PATH",
        help="only this collection and its sub-collections, by path ('Thesis/Chapter 2')",
    )
    p.add_argument(
        "--abstract-only",
        action="store_true",
        help="PDF attachments: read the first pages only, not the body",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=sync, creates_index=True)


def sync(args: argparse.Namespace, settings: Settings) -> int:
    if (args.user or args.group) and args.zotero_dir:
        print("paperchat zotero sync: give ZOTERO_DIR or --user/--group, not both", file=sys.stderr)
        return 2
    web = f"users/{args.user}" if args.user else f"groups/{args.group}" if args.group else ""
    if web and not web.split("/")[1].isdigit():
        print(f"paperchat zotero sync: {web.split('/')[1]!r} is not a Zotero library id "
              "(a number)", file=sys.stderr)  # fmt: skip
        return 2
    app = App.from_settings(settings)
    with _progress(args.json) as on_progress:
        report = app.ingester.sync_zotero(
            args.zotero_dir,
            web_library=web,
            collection=args.collection or "",
            abstract_only=args.abstract_only,
            on_progress=on_progress,
        )
    engine = app.engine
    if args.json:
        print_json(report.to_json() | {"collection": engine.index_name})
    else:
        print_sync(report, engine.where)
    return EXIT_OK if report.ok else EXIT_PARTIAL


def print_sync(report: SyncReport, where: str) -> None:
    """What a sync did, for people: one summary line on stdout, the rest on stderr."""
    data = report.to_json()
    trash = f", {report.trashed} in the trash" if report.trashed else ""
    print(
        f"Zotero {report.source}: {report.items} items{trash}, {report.collections} "
        f"collections -> {where}\n"
        f"{data['added']} added, {data['updated']} updated, {data['unchanged']} unchanged, "
        f"{len(report.removed)} removed, {report.moved} moved between collections; "
        f"{data['chunks_written']} chunks written in {report.seconds:.1f}s"
    )
    for notice in report.ingest.notices:
        print(f"note: {notice}", file=sys.stderr)
    for skipped in report.ingest.skipped:
        print(f"skipped: {skipped}", file=sys.stderr)
    count = data["skipped_count"]
    if count or report.unread:
        print(
            f"{count} item(s) skipped, {report.unread} PDF attachment(s) not read (their "
            "items are stored from Zotero's metadata). Fix them in Zotero and sync again.",
            file=sys.stderr,
        )


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[SyncProgress], None] | None]:
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(unit=" items", desc="zotero", file=sys.stderr, dynamic_ncols=True)

    def on_progress(p: SyncProgress) -> None:
        bar.total = p.total
        bar.set_postfix_str(p.item[:40])
        bar.update(p.done - bar.n)

    try:
        yield on_progress
    finally:
        bar.close()
