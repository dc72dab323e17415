"""``paperchat eval retrieval``: index a BEIR-style corpus once, then score retrieval modes.

The command goes through the same two doors as every face: the corpus comes in by the
ingester, queries go to the engine's retriever; the metrics are :mod:`rag.metrics`.

The corpus is indexed into its own data directory under ``<data_dir>/eval/``, keyed by the
corpus file's hash; the collection inside is named from the settings as usual, so a second
run with the same corpus and settings embeds nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import IngestError
from rag.metrics import evaluate
from ui.app import App
from ui.cli.output import print_json

if TYPE_CHECKING:
    from rag.retrieve import Mode
    from rag.settings import Settings

__all__ = [
    "EvalResult",
    "eval_retrieval",
    "eval_settings",
    "load_qrels",
    "load_queries",
    "register",
]


@dataclass(frozen=True, slots=True)
class EvalResult:
    mode: str
    queries: int
    metrics: dict[str, float]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "queries": self.queries,
            **{k: round(v, 4) for k, v in self.metrics.items()},
            "seconds": round(self.seconds, 2),
        }


def load_queries(path: Path) -> dict[str, str]:
    """BEIR queries.jsonl: one {"_id", "text"} per line."""
    queries: dict[str, str] = {}
    try:
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    queries[str(row["_id"])] = str(row["text"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise IngestError(
                        f"{path}:{n}: expected a JSON object with '_id' and 'text' ({exc})"
                    ) from exc
    except OSError as exc:
        raise IngestError(f"cannot read queries file {path}: {exc.strerror}") from exc
    return queries


def load_qrels(path: Path) -> dict[str, dict[str, float]]:
    """BEIR qrels TSV: query-id, corpus-id, score, with or without a header line."""
    qrels: dict[str, dict[str, float]] = {}
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            for n, line in enumerate(fh, 1):
                parts = line.strip().split("\t")
                if not parts or not parts[0]:
                    continue
                if n == 1 and parts[-1].lower() == "score":
                    continue
                if len(parts) != 3:
                    raise IngestError(
                        f"{path}:{n}: expected 3 tab-separated columns (query-id, corpus-id, score)"
                    )
                try:
                    qrels.setdefault(parts[0], {})[parts[1]] = float(parts[2])
                except ValueError as exc:
                    raise IngestError(f"{path}:{n}: score {parts[2]!r} is not a number") from exc
    except OSError as exc:
        raise IngestError(f"cannot read qrels file {path}: {exc.strerror}") from exc
    return qrels


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def eval_settings(settings: Settings, corpus: Path) -> Settings:
    """The settings of the corpus's own cached index (always embedded)."""
    digest = _digest(corpus)[:12]
    data_dir = settings.data_dir / "eval" / f"{corpus.stem}-{digest}"
    return settings.model_copy(update={"data_dir": data_dir, "chroma_host": ""})


def eval_retrieval(
    *,
    corpus: Path,
    queries: Path,
    qrels: Path,
    settings: Settings,
    modes: Sequence[Mode],
    on_status: Callable[[str], None] | None = None,
) -> list[EvalResult]:
    """Index ``corpus`` (once), run every judged query in each mode, and score the runs."""
    status = on_status or (lambda _msg: None)
    app = App.from_settings(eval_settings(settings, corpus))
    marker = app.settings.data_dir / f"indexed-{app.engine.index_name}.json"
    if not marker.exists():
        status(f"indexing {corpus} into {app.settings.data_dir} (once; later runs reuse it)")
        report = app.ingester.ingest([corpus])
        marker.write_text(json.dumps(report.to_json() | {"corpus": str(corpus)}))
    engine = app.engine
    status(f"{engine.indexed()} papers indexed")

    all_queries = load_queries(queries)
    judgements = load_qrels(qrels)
    missing = [q for q in judgements if q not in all_queries]
    if missing:
        raise IngestError(
            f"{len(missing)} judged query id(s) are not in {queries} (e.g. {missing[0]!r}): "
            "are the queries and qrels from the same split?"
        )
    judged = {q: all_queries[q] for q in judgements}
    results = []
    for mode in modes:
        t0 = time.perf_counter()
        run = {
            qid: [h.paper.id for h in engine.search(text, k=100, mode=mode, passages=0)]
            for qid, text in judged.items()
        }
        seconds = time.perf_counter() - t0
        results.append(EvalResult(mode, len(judged), evaluate(run, judgements), seconds))
    return results


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
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
    p.set_defaults(run=run_eval, creates_index=True)  # its own index under <data dir>/eval/


def run_eval(args: argparse.Namespace, settings: Settings) -> int:
    modes: list[Mode] = ["dense", "lexical", "hybrid"] if args.mode == "all" else [args.mode]
    results = eval_retrieval(
        corpus=args.corpus,
        queries=args.queries,
        qrels=args.qrels,
        settings=settings,
        modes=modes,
        on_status=None if args.json else lambda msg: print(msg, file=sys.stderr),
    )
    if args.json:
        print_json([r.to_json() for r in results])
        return 0
    print(f"{'mode':<8}{'queries':>8}{'nDCG@10':>9}{'R@10':>8}{'R@100':>8}{'MRR@10':>8}{'s':>7}")
    for r in results:
        m = r.metrics
        print(
            f"{r.mode:<8}{r.queries:>8}{m['ndcg@10']:>9.4f}{m['recall@10']:>8.4f}"
            f"{m['recall@100']:>8.4f}{m['mrr@10']:>8.4f}{r.seconds:>7.1f}"
        )
    return 0
