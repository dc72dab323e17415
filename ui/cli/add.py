"""``paperchat add`` (papers by arXiv id or DOI, or an arXiv search) and ``paperchat enrich``
(fill in what stored papers lack), both from arXiv, OpenAlex and Crossref."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ui.app import App
from ui.cli.library import EXIT_OK, EXIT_PARTIAL, print_report
from ui.cli.output import print_json

if TYPE_CHECKING:
    from ingest.pipeline import IngestReport, Progress
    from rag.settings import Settings

__all__ = ["register"]

_NETWORK = (
    "Needs the network: PAPERCHAT_ARXIV_API_URL, PAPERCHAT_OPENALEX_API_URL and "
    "PAPERCHAT_CROSSREF_API_URL say where; when a source cannot be reached nothing is "
    "changed and the exit code is 1. Exit 3 if some identifiers were not found."
)


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "add",
        parents=[common],
        help="add papers by arXiv id or DOI, or from an arXiv search",
        description="Add papers by identifier: arXiv ids (2406.03243, arXiv:2406.03243v2, "
        "https://arxiv.org/abs/...) from the arXiv API, DOIs (10.1145/..., "
        "https://doi.org/...) from OpenAlex, Crossref as the fallback. " + _NETWORK,
    )
    p.add_argument("identifiers", nargs="*", metavar="ID", help="an arXiv id or a DOI")
    p.add_argument("--arxiv-query", metavar="QUERY", help="also add the results of this search")
    p.add_argument(
        "--max", type=int, default=10, metavar="N", help="results of --arxiv-query (default 10)"
    )
    p.add_argument("--collection", metavar="NAME", help="also put the papers in collection NAME")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=add)

    p = sub.add_parser(
        "enrich",
        parents=[common],
        help="fill in missing abstracts, titles, years and DOIs from the sources",
        description="Fill in the missing abstract, title, year, DOI or authors of stored papers "
        "(all that lack one, or the given ids) by their DOI or arXiv id. " + _NETWORK,
    )
    p.add_argument("paper_ids", nargs="*", metavar="PAPER_ID", help="only these papers")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=enrich)


def add(args: argparse.Namespace, settings: Settings) -> int:
    if not args.identifiers and not args.arxiv_query:
        print("paperchat add: give arXiv ids or DOIs, or --arxiv-query QUERY", file=sys.stderr)
        return 2
    if args.max < 1:
        print("paperchat add: --max must be at least 1", file=sys.stderr)
        return 2
    app = App.from_settings(settings)
    with _progress(args.json, "add") as on_progress:
        report = app.ingester.add(
            args.identifiers,
            arxiv_query=args.arxiv_query or "",
            max_results=args.max,
            collection=args.collection or "",
            on_progress=on_progress,
        )
    return _done(app, report, args.json)


def enrich(args: argparse.Namespace, settings: Settings) -> int:
    app = App.from_settings(settings)
    with _progress(args.json, "enrich") as on_progress:
        report = app.ingester.enrich(args.paper_ids, on_progress=on_progress)
    return _done(app, report, args.json)


def _done(app: App, report: IngestReport, as_json: bool) -> int:
    engine = app.engine
    if as_json:
        print_json(report.to_json() | {"collection": engine.index_name})
    else:
        print_report(report, engine.where)
    return EXIT_OK if report.ok else EXIT_PARTIAL


@contextlib.contextmanager
def _progress(quiet: bool, desc: str) -> Iterator[Callable[[Progress], None] | None]:
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(unit=" papers", desc=desc, file=sys.stderr, dynamic_ncols=True)

    def on_progress(p: Progress) -> None:
        bar.set_postfix_str(f"{p.chunks_written} chunks")
        bar.update(p.papers_seen - bar.n)

    try:
        yield on_progress
    finally:
        bar.close()
