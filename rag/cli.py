"""The ``paperchat`` command line: thin commands over the library.

Exit codes: 0 = done; 1 = error (one line on stderr says what and what to do);
2 = bad usage; 3 = ingest finished but some records were skipped (listed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rag.errors import PaperchatError

if TYPE_CHECKING:
    from rag.settings import Settings
    from rag.store import Store

__all__ = ["main"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="where the embedded index lives (default: $PAPERCHAT_DATA_DIR or ~/.paperchat)",
    )
    parser = argparse.ArgumentParser(
        prog="paperchat",
        description="Cited answers over a collection of scientific abstracts.",
        epilog="Settings come from the environment and .env (see .env.example).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
        choices=["seed", "jsonl", "csv", "bibtex"],
        help="force the input format (default: detect from extension and content)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")

    p = sub.add_parser("stats", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("papers", parents=[common], help="list the stored papers")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument("--limit", type=int, metavar="N", help="show at most N papers")

    p = sub.add_parser("reset", parents=[common], help="delete the index for the current settings")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        from rag.settings import load_settings

        settings = load_settings(data_dir=args.data_dir)
        handler = {"ingest": _ingest, "stats": _stats, "papers": _papers, "reset": _reset}
        return handler[args.command](args, settings)
    except PaperchatError as exc:
        print(f"paperchat: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("paperchat: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


def _open(settings: Settings) -> Store:
    from rag.store import open_store

    return open_store(settings)


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from ingest.chunk import Chunker
    from ingest.pipeline import Progress, ingest_paths
    from rag.embed import make_embedder

    embedder = make_embedder(settings)
    chunker = Chunker(
        chunk_tokens=settings.chunk_tokens,
        overlap=settings.chunk_overlap,
        encoding=settings.tiktoken_encoding,
        embedder_tokens=embedder.count_tokens,
        embedder_limit=embedder.max_tokens,
    )
    store = _open(settings)
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit=" papers", desc="ingest", file=sys.stderr, dynamic_ncols=True)

    def on_progress(p: Progress) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{p.chunks_written} chunks, {Path(p.current_file).name}")
            bar.update(p.papers_seen - bar.n)

    try:
        report = ingest_paths(
            args.paths,
            store=store,
            embedder=embedder,
            chunker=chunker,
            format=args.format,
            batch_papers=max(settings.embed_batch_size * 4, 32),
            on_progress=on_progress,
        )
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        out = report.to_json() | {"collection": store.collection_name, "store": store.location}
        _print_json(out)
    else:
        total = sum(report.seconds.values())
        print(
            f"{report.files} file(s): {report.papers} papers "
            f"({report.added} added, {report.updated} updated, {report.unchanged} unchanged), "
            f"{report.chunks_written} chunks written in {total:.1f}s "
            f"-> {store.collection_name} at {store.location}"
        )
        for notice in report.notices:
            print(f"note: {notice}", file=sys.stderr)
        for skipped in report.skipped:
            print(f"skipped: {skipped}", file=sys.stderr)
        if report.skipped:
            print(
                f"{len(report.skipped)} record(s) skipped; the rest is stored. Fix them and "
                "re-run: stored papers are not embedded again.",
                file=sys.stderr,
            )
    return EXIT_OK if report.ok else EXIT_PARTIAL


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    store = _open(settings)
    info = {
        "papers": store.count_papers(),
        "chunks": store.count_chunks(),
        "collection": store.collection_name,
        "embedder": settings.embedder_id,
        "chunk_tokens": settings.chunk_tokens,
        "chunk_overlap": settings.chunk_overlap,
        "store": store.location,
        "data_dir": str(settings.data_dir),
    }
    if args.json:
        _print_json(info)
    else:
        width = max(map(len, info))
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
        if not info["papers"]:
            print("\nThe index is empty: run `paperchat ingest data/sample` (or your files).")
    return EXIT_OK


def _papers(args: argparse.Namespace, settings: Settings) -> int:
    rows = list(_open(settings).iter_papers())
    if args.limit is not None:
        rows = rows[: max(args.limit, 0)]
    if args.json:
        _print_json([r.to_json() for r in rows])
        return EXIT_OK
    for row in rows:
        authors = ", ".join(row.authors[:3]) + (" et al." if len(row.authors) > 3 else "")
        year = str(row.year) if row.year else "----"
        name = row.title or row.label
        print(
            f"{row.id:<22} {year}  {name[:48]:<48}  {authors[:40]:<40}  "
            f"{Path(row.source).name}:{row.position}"
        )
    return EXIT_OK


def _reset(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None) -> int:
    store = _open(settings)
    if not args.yes:
        stdin = stdin or sys.stdin
        if not stdin.isatty():
            raise PaperchatError("reset deletes the index; pass --yes to confirm")
        print(f"Delete {store.count_chunks()} chunks in {store.collection_name}? [y/N] ", end="")
        if stdin.readline().strip().lower() not in {"y", "yes"}:
            print("nothing deleted")
            return EXIT_OK
    store.reset()
    print(f"reset {store.collection_name} at {store.location}")
    return EXIT_OK


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    raise SystemExit(main())
