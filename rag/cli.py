"""The ``paperchat`` command line: thin commands over the library.

Exit codes: 0 = done; 1 = error (one line on stderr says what and what to do);
2 = bad usage; 3 = ingest finished but some records were skipped (listed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rag.errors import PaperchatError

if TYPE_CHECKING:
    from rag.engine import Engine
    from rag.events import Event, FinalEvent
    from rag.retrieve import Filters
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

    p = sub.add_parser(
        "search",
        parents=[common],
        help="find the papers most relevant to a query",
        description="Hybrid (dense + BM25) search over the stored papers, each paper once.",
    )
    p.add_argument("query", metavar="QUERY", help="a question or keywords")
    p.add_argument("-k", type=int, default=10, metavar="N", help="papers to return (default 10)")
    p.add_argument("--mode", choices=["hybrid", "dense", "lexical"], default="hybrid")
    _filter_args(p)
    p.add_argument("--json", action="store_true", help="print hits as JSON")

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
    _answer_args(p)
    p.add_argument(
        "--refs",
        choices=["markdown", "bibtex"],
        help="print only the cited papers, as a Markdown list or BibTeX entries",
    )
    p.add_argument("--json", action="store_true", help="print the answer and citations as JSON")

    p = sub.add_parser(
        "chat",
        parents=[common],
        help="a conversation: one question per line, follow-ups see earlier turns",
        description="Read questions from standard input, one per line, and answer each like "
        "`ask`; a follow-up such as 'and how fast is it?' is searched with the earlier turns "
        "in mind. An empty line or end of input ends the chat.",
    )
    _answer_args(p)

    p = sub.add_parser(
        "serve",
        parents=[common],
        help="the chat UI, the JSON API and the OpenAI-compatible API in one server",
        description="Serve the Gradio chat at /, the JSON API under /api, the "
        "OpenAI-compatible API under /v1 (model 'paperchat'), OpenAPI docs at /docs and "
        "/healthz. Without PAPERCHAT_API_KEY it serves on loopback only.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (more than 1 needs a Chroma server: PAPERCHAT_CHROMA_HOST)",
    )
    p.add_argument("--llm", choices=["extractive", "openai"], help="who writes answers")
    p.add_argument(
        "--no-ui",
        action="store_true",
        help="serve only the APIs and /healthz (no gradio import: a faster start)",
    )

    p = sub.add_parser("eval", parents=[common], help="measure retrieval quality")
    eval_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    p = eval_sub.add_parser(
        "retrieval",
        parents=[common],
        help="nDCG@10, recall@10/100 and MRR@10 on a BEIR-style dataset",
        description="Index a BEIR-style corpus into its own cached data directory (a second "
        "run reuses it), run every judged query and print standard retrieval metrics.",
    )
    p.add_argument("--corpus", type=Path, required=True, help="corpus.jsonl (_id, title, text)")
    p.add_argument("--queries", type=Path, required=True, help="queries.jsonl (_id, text)")
    p.add_argument(
        "--qrels", type=Path, required=True, help="qrels TSV (query-id, corpus-id, score)"
    )
    p.add_argument(
        "--mode",
        choices=["hybrid", "dense", "lexical", "all"],
        default="hybrid",
        help="'all' reports dense, lexical and hybrid side by side",
    )
    p.add_argument("--json", action="store_true", help="print results as JSON")

    p = sub.add_parser("stats", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("papers", parents=[common], help="list the stored papers")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument("--limit", type=int, metavar="N", help="show at most N papers")

    p = sub.add_parser("reset", parents=[common], help="delete the index for the current settings")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    return parser


def _filter_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--year-from", type=int, metavar="Y", help="only papers from year Y on")
    p.add_argument("--year-to", type=int, metavar="Y", help="only papers up to year Y")
    p.add_argument("--author", metavar="A", help="only papers with an author containing A")
    p.add_argument("--source", metavar="S", help="only papers whose source file contains S")


def _answer_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-k", type=int, metavar="N", help="papers to draw on (default $PAPERCHAT_ANSWER_K, 5)"
    )
    p.add_argument(
        "--llm",
        choices=["extractive", "openai"],
        help="who writes the answer (default $PAPERCHAT_LLM: the API if OPENAI_API_KEY or "
        "OPENAI_BASE_URL is set, else extractive)",
    )
    p.add_argument(
        "--no-fallback",
        action="store_true",
        help="if the language model fails, exit 1 instead of answering extractively",
    )
    _filter_args(p)


def _filters(args: argparse.Namespace) -> Filters:
    from rag.retrieve import Filters

    return Filters(
        year_from=args.year_from,
        year_to=args.year_to,
        author=args.author or "",
        source=args.source or "",
    )


def _authors(authors: Sequence[str]) -> str:
    """'A, B, C et al.' for display."""
    return ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        from rag.settings import load_settings

        settings = load_settings(data_dir=args.data_dir, llm=getattr(args, "llm", None))
        handler = {
            "ingest": _ingest,
            "search": _search,
            "ask": _ask,
            "chat": _chat,
            "serve": _serve,
            "eval": _eval,
            "stats": _stats,
            "papers": _papers,
            "reset": _reset,
        }
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
    chunker = Chunker.from_settings(settings, embedder)
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
    from rag.retrieve import Retriever

    Retriever.from_settings(settings, store, embedder).index  # noqa: B018 - bring BM25 up to date
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


def _search(args: argparse.Namespace, settings: Settings) -> int:
    from rag.embed import make_embedder
    from rag.retrieve import Retriever

    filters = _filters(args)
    retriever = Retriever.from_settings(settings, _open(settings), make_embedder(settings))
    hits = retriever.search(args.query, k=args.k, filters=filters, mode=args.mode)
    if args.json:
        _print_json([h.to_json() for h in hits])
        return EXIT_OK
    if not hits:
        print("no papers match" + (" these filters" if filters else ""))
    for rank, hit in enumerate(hits, 1):
        p = hit.paper
        authors = _authors(p.authors)
        head = f"[{rank}] {p.title or p.label}"
        meta = " · ".join(x for x in (authors, str(p.year or ""), Path(p.source).name) if x)
        print(f"{head}  ({hit.score:.3f})\n    {meta}\n    {_shorten(hit.snippet, 220)}")
    return EXIT_OK


def _engine(args: argparse.Namespace, settings: Settings) -> tuple[Engine, dict[str, Any]]:
    """The engine, and the answer options the flags set."""
    from rag.engine import Engine

    options = {
        "filters": _filters(args),
        "k": args.k,
        "fallback": False if args.no_fallback else None,
    }
    return Engine.from_settings(settings), options


def _final(events: Iterator[Event]) -> FinalEvent:
    """The stream's FinalEvent; a model failure is a note (with fallback) or an error."""
    from rag.events import ErrorEvent, FinalEvent

    for event in events:
        if isinstance(event, ErrorEvent):
            if not event.fallback:
                raise PaperchatError(event.message)
            print(f"paperchat: note: {event.message}; answering extractively", file=sys.stderr)
        elif isinstance(event, FinalEvent):
            return event
    raise AssertionError("an answer stream ended without a final event")


def _print_answer(final: FinalEvent) -> None:
    print(final.answer)
    if final.citations:
        print("\nReferences")
    for c in final.citations:
        s = c.source
        authors = _authors(s.authors)
        meta = " · ".join(x for x in (authors, str(s.year or ""), Path(s.source).name) if x)
        print(f'[{c.n}] {s.title or s.label}\n    {meta}\n    "{_shorten(c.quote, 300)}"')


def _ask(args: argparse.Namespace, settings: Settings) -> int:
    from rag.answer import format_references

    engine, options = _engine(args, settings)
    final = _final(engine.answer(args.question, **options))
    if args.json:
        out = final.to_json()
        del out["type"]
        _print_json(out)
    elif args.refs:
        text = format_references(final.citations, args.refs)
        if text:
            print(text)
        if final.refused:
            print(f"paperchat: {final.answer}", file=sys.stderr)
    else:
        _print_answer(final)
    return EXIT_OK


def _chat(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None) -> int:
    """A conversation on the terminal: follow-up questions see the earlier turns."""
    from rag.answer import Turn
    from rag.errors import QueryError

    stdin = stdin or sys.stdin
    engine, options = _engine(args, settings)
    interactive = stdin.isatty()
    if interactive:
        print(f"paperchat ({engine.mode}); an empty line or Ctrl-D ends the chat.")
    history: list[Turn] = []
    while True:
        if interactive:
            print("\n> ", end="", flush=True)
        line = stdin.readline()
        if not line.strip():
            return EXIT_OK
        try:
            final = _final(engine.answer(line, history=tuple(history), **options))
        except QueryError as exc:
            print(f"paperchat: error: {exc}", file=sys.stderr)
            continue
        _print_answer(final)
        history.append(Turn("user", line.strip()))
        history.append(
            Turn("assistant", final.answer, tuple(c.source.label for c in final.citations))
        )


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from rag.server import serve

    if args.workers < 1:
        raise PaperchatError("--workers must be at least 1")
    if args.no_ui:
        settings = settings.model_copy(update={"ui": False})
    serve(settings, host=args.host, port=args.port, workers=args.workers)
    return EXIT_OK


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from rag.embed import make_embedder
    from rag.evaluate import eval_retrieval

    modes = ["dense", "lexical", "hybrid"] if args.mode == "all" else [args.mode]
    results = eval_retrieval(
        corpus=args.corpus,
        queries=args.queries,
        qrels=args.qrels,
        settings=settings,
        embedder=make_embedder(settings),
        modes=modes,
        on_status=None if args.json else lambda msg: print(msg, file=sys.stderr),
    )
    if args.json:
        _print_json([r.to_json() for r in results])
        return EXIT_OK
    print(f"{'mode':<8}{'queries':>8}{'nDCG@10':>9}{'R@10':>8}{'R@100':>8}{'MRR@10':>8}{'s':>7}")
    for r in results:
        m = r.metrics
        print(
            f"{r.mode:<8}{r.queries:>8}{m['ndcg@10']:>9.4f}{m['recall@10']:>8.4f}"
            f"{m['recall@100']:>8.4f}{m['mrr@10']:>8.4f}{r.seconds:>7.1f}"
        )
    return EXIT_OK


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + " …"


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
        authors = _authors(row.authors)
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
