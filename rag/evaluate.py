"""``paperchat eval retrieval``: index a BEIR-style corpus once, then score retrieval modes.

The corpus is indexed into its own data directory under ``<data_dir>/eval/``, keyed by the
corpus file's hash; the collection inside is named from the settings as usual, so a second
run with the same corpus and settings embeds nothing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import IngestError
from rag.metrics import evaluate

if TYPE_CHECKING:
    from rag.embed import Embedder
    from rag.retrieve import Mode
    from rag.settings import Settings

__all__ = ["EvalResult", "eval_retrieval", "load_qrels", "load_queries"]


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
    embedder: Embedder,
    modes: Sequence[Mode],
    on_status: Callable[[str], None] | None = None,
) -> list[EvalResult]:
    """Index ``corpus`` (once), run every judged query in each mode, and score the runs."""
    from ingest.chunk import Chunker
    from ingest.pipeline import ingest_paths
    from rag.retrieve import Retriever
    from rag.store import open_store

    status = on_status or (lambda _msg: None)
    local = eval_settings(settings, corpus)
    store = open_store(local)
    marker = local.data_dir / f"indexed-{store.collection_name}.json"
    if not marker.exists():
        status(f"indexing {corpus} into {local.data_dir} (once; later runs reuse it)")
        chunker = Chunker.from_settings(local, embedder)
        report = ingest_paths([corpus], store=store, embedder=embedder, chunker=chunker)
        marker.write_text(json.dumps(report.to_json() | {"corpus": str(corpus)}))
    retriever = Retriever.from_settings(local, store, embedder)
    status(f"{len(retriever.index)} papers indexed")

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
            qid: [h.paper.id for h in retriever.search(text, k=100, mode=mode, passages=0)]
            for qid, text in judged.items()
        }
        seconds = time.perf_counter() - t0
        results.append(EvalResult(mode, len(judged), evaluate(run, judgements), seconds))
    return results
