"""Commands that fill and show the library: ``ingest``, ``papers``, ``stats``, ``reset``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rag.errors import NotFoundError, PaperchatError
from rag.records import format_authors
from ui.app import App
from ui.cli.output import meta_line, print_json

if TYPE_CHECKING:
    from ingest.pipeline import IngestReport, Progress
    from rag.settings import Settings

__all__ = ["EXIT_OK", "EXIT_PARTIAL", "print_report", "register"]

EXIT_OK, EXIT_PARTIAL = 0, 3


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "ingest",
        parents=[common],
        help="parse, chunk, embed and store papers",
        description="Ingest files or folders of abstracts. Re-running is safe: unchanged "
        "papers are skipped, changed ones replaced. Exit 3 if some records were skipped.",
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="file or folder")
    p.add_argument(
        "--format",
        choices=["seed", "jsonl", "csv", "bibtex", "csljson", "ris"],
        help="force the input format (default: detect from extension and content)",
    )
    p.add_argument("--collection", metavar="NAME", help="also put the papers in collection NAME")
    p.add_argument(
        "--abstract-only",
        action="store_true",
        help="PDFs: read the first pages only (title, authors, abstract), not the body; "
        "by default the full text up to the references is indexed and quoted",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=ingest, creates_index=True)

    p = sub.add_parser("stats", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(run=stats)

    p = sub.add_parser(
        "papers",
        parents=[common],
        help="list the stored papers, or show one as stored",
        description="Without an action: the stored papers (id, year, title, authors, source). "
        "`papers show ID`: what was stored for one paper: its metadata, whole abstract, "
        "venue and the sections of its full text with their pages (--text: the full text "
        "itself, as stored and quoted).",
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument("--limit", type=int, metavar="N", help="show at most N papers")
    p.set_defaults(run=papers)
    # The action's own --data-dir must not reset one given before the action's name.
    here = argparse.ArgumentParser(add_help=False)
    here.add_argument("--data-dir", type=Path, metavar="DIR", default=argparse.SUPPRESS,
                      help="as for every command")  # fmt: skip
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    a = actions.add_parser("show", parents=[here], help="one paper as stored")
    a.add_argument("id", metavar="ID", help="the paper's id (as `paperchat papers` lists it)")
    a.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print as JSON (GET /api/papers/ID gives the same)")  # fmt: skip
    a.add_argument(
        "--text", action="store_true", help="also the full text as stored, chunk by chunk"
    )
    a.set_defaults(run=show_paper)

    p = sub.add_parser("reset", parents=[common], help="delete the index for the current settings")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=reset)


def ingest(args: argparse.Namespace, settings: Settings) -> int:
    app = App.from_settings(settings)
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit=" papers", desc="ingest", file=sys.stderr, dynamic_ncols=True)

    def on_progress(p: Progress) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{p.chunks_written} chunks, {Path(p.current_file).name}")
            bar.update(p.papers_seen - bar.n)

    try:
        report = app.ingester.ingest(
            args.paths,
            format=args.format,
            collection=args.collection or "",
            abstract_only=args.abstract_only,
            on_progress=on_progress,
        )
    finally:
        if bar is not None:
            bar.close()
    engine = app.engine
    if args.json:
        print_json(report.to_json() | {"collection": engine.index_name, "store": engine.location})
    else:
        print_report(report, engine.where)
    return EXIT_OK if report.ok else EXIT_PARTIAL


def print_report(report: IngestReport, where: str) -> None:
    total = sum(report.seconds.values())
    files = f"{report.files} file(s): " if report.files else ""
    print(
        f"{files}{report.papers} papers "
        f"({report.added} added, {report.updated} updated, {report.unchanged} unchanged), "
        f"{report.chunks_written} chunks written in {total:.1f}s -> {where}"
    )
    if report.replaced:
        print(
            f"replaced: {len(report.replaced)} paper(s) stored before from the same PDF "
            f"under another id ({', '.join(report.replaced[:3])})",
            file=sys.stderr,
        )
    for notice in report.notices:
        print(f"note: {notice}", file=sys.stderr)
    for skipped in report.skipped:
        print(f"skipped: {skipped}", file=sys.stderr)
    count = report.to_json()["skipped_count"]
    if count > len(report.skipped):
        print(f"skipped: ... and {count - len(report.skipped)} more", file=sys.stderr)
    if count:
        print(
            f"{count} record(s) skipped; the rest is stored. Fix them and "
            "re-run: stored papers are not embedded again.",
            file=sys.stderr,
        )


def stats(args: argparse.Namespace, settings: Settings) -> int:
    info = App.from_settings(settings).engine.stats()
    if args.json:
        print_json(info)
        return EXIT_OK
    width = max(map(len, info))
    for key, value in info.items():
        print(f"{key:<{width}}  {value}")
    if not info["papers"]:
        print("\nThe index is empty: run `paperchat ingest data/sample` (or your files).")
    return EXIT_OK


def papers(args: argparse.Namespace, settings: Settings) -> int:
    limit = None if args.limit is None else max(args.limit, 0)
    _, rows = App.from_settings(settings).engine.papers(0, limit)
    if args.json:
        print_json([r.to_json() for r in rows])
        return EXIT_OK
    print(f"{'id':<22} {'year':<4}  {'title':<48}  {'authors':<40}  source:record")
    for row in rows:
        authors = format_authors(row.authors)
        year = str(row.year) if row.year else "----"
        flag = "" if row.has_abstract else "  (no abstract)"
        print(
            f"{row.id:<22} {year}  {row.name[:48]:<48}  {authors[:40]:<40}  "
            f"{Path(row.source).name}:{row.position}{flag}"
        )
    return EXIT_OK


def show_paper(args: argparse.Namespace, settings: Settings) -> int:
    engine = App.from_settings(settings).engine
    details = engine.paper_details(args.id, text=args.text)
    if details is None:
        raise NotFoundError(
            f"no paper with id {args.id!r} is stored: `paperchat papers` lists the ids"
        )
    if getattr(args, "json", False):
        out = details.to_json()
        if args.text:
            out["text"] = [t.to_json() for t in details.text]
        print_json(out)
        return EXIT_OK
    paper = details.paper
    print(paper.name)
    print(meta_line(paper.authors, paper.year, paper.source))
    for label, value in (
        ("id", paper.id),
        ("venue", details.venue),
        ("doi", paper.doi),
        ("url", paper.url),
        ("collections", ", ".join(paper.collections)),
    ):
        if value:
            print(f"{label}: {value}")  # fmt: skip
    print(f"\nAbstract\n{paper.abstract or '(none stored)'}")
    if details.sections:
        print("\nSections")
        for s in details.sections:
            pages = f"p. {s.first}" if s.first == s.last else f"pp. {s.first}-{s.last}"
            print(f"  {s.heading or '(before the first heading)'}  ({pages})")
    elif not args.text:
        print("\n(no full text stored: abstract only)")
    for t in details.text:
        where = f"p. {t.page}" + (f", {t.section}" if t.section else "")
        print(f"\n[{where}]\n{t.text}")
    return EXIT_OK


def reset(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None) -> int:
    engine = App.from_settings(settings).engine
    if not args.yes:
        stdin = stdin or sys.stdin
        if not stdin.isatty():
            raise PaperchatError("reset deletes the index; pass --yes to confirm")
        print(f"Delete {engine.count_chunks()} chunks in {engine.index_name}? [y/N] ", end="")
        if stdin.readline().strip().lower() not in {"y", "yes"}:
            print("nothing deleted")
            return EXIT_OK
    engine.reset()
    print(f"reset {engine.where}")
    return EXIT_OK
