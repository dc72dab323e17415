"""Candidate engines for a lexical index that grows and shrinks in place (issue #17).

    python bench/lexical_engines.py quality --data-dir DATA/eval/corpus-dec31c8182f3 \\
        --queries ../shared/bench/scifact/queries_train.jsonl \\
        --qrels ../shared/bench/scifact/qrels/train.tsv
    python bench/lexical_engines.py scale --corpus ../shared/bench/scifact/corpus.jsonl \\
        --queries ../shared/bench/scifact/queries_train.jsonl --sizes 5000 100000 \\
        --work /tmp/lexwork/scale

``DATA/eval/corpus-...`` is the SciFact index `paperchat eval retrieval` made (embedded once).

Every engine is fed the same terms, made by the product's ``Analyzer`` (lowercase, stopwords,
Snowball stems) and joined by spaces, so the engines differ only in how they store and
score them:

- ``bm25s``: today's index (Lucene BM25, k1 0.9, b 0.4), rebuilt whole and saved on a change;
- ``fts5``: SQLite FTS5 (stdlib), ``bm25()`` (k1 1.2, b 0.75, fixed), one transaction a change;
- ``tantivy``: tantivy's Python bindings (BM25 k1 1.2, b 0.75, fixed), one commit a change.

``quality``: SciFact train nDCG@10, lexical and hybrid, through the product's own
``Retriever`` (its dense side and fusion unchanged; only the lexical search is swapped).
``scale``: for each size (chunks of real SciFact plus synthetic papers, bench/scale/synth.py)
and engine, in a process of its own: build, on-disk size, query p50/p95 (k=400, the
retriever's lexical pool, 500 SciFact claims), add 100 papers, delete 1 paper, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.index.lexical import Analyzer, Bm25Params, LexicalIndex, paper_text  # noqa: E402
from rag.records import PaperRow  # noqa: E402

POOL = 400  # the retriever's lexical candidates (Settings.retrieval_pool)
ENGINES = ("bm25s", "fts5", "tantivy", "product")
Docs = Sequence[tuple[str, list[str]]]


class Engine:
    """Rows in, text queries: each engine analyses with the product's analyzer."""

    def __init__(self, params: Bm25Params) -> None:
        self.analyze = Analyzer(params)

    def docs(self, rows: Sequence[PaperRow]) -> Docs:
        return [(r.id, self.analyze(paper_text(r))) for r in rows]


class Bm25sEngine(Engine):
    """Until issue #17: a change rebuilds the whole index from every paper's terms and saves
    it (here from terms kept in memory: the product also re-read and re-analysed the store)."""

    def __init__(self, directory: Path, params: Bm25Params) -> None:
        super().__init__(params)
        self.dir, self.params = directory, params
        self.terms: dict[str, list[str]] = {}

    def _rebuild(self) -> None:
        import bm25s

        self.ids = list(self.terms)
        self.r = bm25s.BM25(k1=0.9, b=0.4, method="lucene")  # the settings' defaults until #17
        self.r.index(list(self.terms.values()), show_progress=False)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.r.save(str(self.dir), show_progress=False)

    def build(self, rows: Sequence[PaperRow]) -> None:
        self.terms = dict(self.docs(rows))
        self._rebuild()

    def add(self, rows: Sequence[PaperRow]) -> None:
        self.terms.update(self.docs(rows))
        self._rebuild()

    def delete(self, pid: str) -> None:
        del self.terms[pid]
        self._rebuild()

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        terms = self.analyze(text)
        vocab = self.r.vocab_dict
        ids = [vocab[t] for t in terms if t in vocab]
        if not ids:
            return []
        scores = self.r.get_scores(ids)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]


class Fts5Engine(Engine):
    """SQLite FTS5 over the space-joined terms; bm25() ranks (lower is better: negated)."""

    def __init__(self, directory: Path, params: Bm25Params) -> None:
        super().__init__(params)
        directory.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(directory / "fts.sqlite3", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(body, "
            "tokenize=\"unicode61 remove_diacritics 0 tokenchars '_'\")"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ids(pid TEXT PRIMARY KEY, docid INTEGER UNIQUE)"
        )

    def _insert(self, rows: Sequence[PaperRow]) -> None:
        for pid, terms in self.docs(rows):
            cur = self.db.execute("INSERT INTO docs(body) VALUES (?)", (" ".join(terms),))
            self.db.execute("INSERT INTO ids VALUES (?, ?)", (pid, cur.lastrowid))

    def build(self, rows: Sequence[PaperRow]) -> None:
        self.db.execute("BEGIN")
        self._insert(rows)
        self.db.execute("COMMIT")

    add = build

    def delete(self, pid: str) -> None:
        self.db.execute("BEGIN")
        (docid,) = self.db.execute("SELECT docid FROM ids WHERE pid = ?", (pid,)).fetchone()
        self.db.execute("DELETE FROM docs WHERE rowid = ?", (docid,))
        self.db.execute("DELETE FROM ids WHERE pid = ?", (pid,))
        self.db.execute("COMMIT")

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        terms = self.analyze(text)
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        rows = self.db.execute(
            "WITH top AS (SELECT rowid AS docid, -bm25(docs) AS s FROM docs WHERE docs MATCH ? "
            "ORDER BY bm25(docs) LIMIT ?) SELECT ids.pid, top.s FROM top JOIN ids USING (docid) "
            "ORDER BY top.s DESC",
            (match, k),
        ).fetchall()
        return [(p, float(s)) for p, s in rows if s > 0]


class TantivyEngine(Engine):
    """tantivy: body indexed with the whitespace tokenizer (our terms as they are), term
    frequencies without positions; the paper id a raw, stored, fast field."""

    def __init__(self, directory: Path, params: Bm25Params) -> None:
        super().__init__(params)
        import tantivy

        self.t = tantivy
        directory.mkdir(parents=True, exist_ok=True)
        sb = tantivy.SchemaBuilder()
        sb.add_text_field("pid", stored=True, tokenizer_name="raw", fast=True)
        sb.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
        self.index = tantivy.Index(sb.build(), path=str(directory))
        self.writer = self.index.writer(heap_size=64_000_000, num_threads=1)

    def _commit(self) -> None:
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()

    def build(self, rows: Sequence[PaperRow]) -> None:
        for pid, terms in self.docs(rows):
            self.writer.add_document(self.t.Document(pid=pid, body=" ".join(terms)))
        self._commit()

    add = build

    def delete(self, pid: str) -> None:
        self.writer.delete_documents_by_term("pid", pid)
        self._commit()

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        terms = self.analyze(text)
        if not terms:
            return []
        q = self.t.Query.boolean_query(
            [
                (self.t.Occur.Should, self.t.Query.term_query(self.index.schema, "body", t))
                for t in terms
            ]
        )
        hits = self.searcher.search(q, k).hits
        return [(self.searcher.doc(a)["pid"][0], float(s)) for s, a in hits if s > 0]


class ProductEngine:
    """The product's :class:`LexicalIndex` (tantivy postings, catalogue snapshot + journal):
    each change is :meth:`LexicalIndex.apply`, saved crash-safely, catalogue included."""

    def __init__(self, directory: Path, params: Bm25Params) -> None:
        self.dir, self.params = directory, params
        self.n = 0

    def build(self, rows: Sequence[PaperRow]) -> None:
        self.index = LexicalIndex.build(rows, params=self.params, generation="g0",
                                        directory=self.dir)  # fmt: skip

    def _apply(self, rows: Sequence[PaperRow], removed: Sequence[str]) -> None:
        self.n += 1
        index = self.index.apply(rows, removed, generation=f"g{self.n}")
        assert index is not None
        self.index = index

    def add(self, rows: Sequence[PaperRow]) -> None:
        self._apply(rows, [])

    def delete(self, pid: str) -> None:
        self._apply([], [pid])

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        return self.index.search(text, k=k)


def make(engine: str, directory: Path, params: Bm25Params) -> Any:
    kinds = {"bm25s": Bm25sEngine, "fts5": Fts5Engine, "tantivy": TantivyEngine,
             "product": ProductEngine}  # fmt: skip
    return kinds[engine](directory, params)


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _hwm_mb() -> float:
    line = next(
        x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM:")
    )
    return round(int(line.split()[1]) / 1024, 1)


# -- quality --------------------------------------------------------------------------------


def quality(args: argparse.Namespace) -> dict[str, Any]:
    from rag.index.connect import open_store
    from rag.index.embed import make_embedder
    from rag.metrics import evaluate
    from rag.retrieve import Retriever
    from rag.settings import load_settings
    from ui.cli.evaluate import load_qrels, load_queries

    settings = load_settings(data_dir=args.data_dir, chroma_host="")
    store = open_store(settings)
    params = Bm25Params()
    rows = list(store.iter_papers())
    base = LexicalIndex.build(rows, params=params, generation=store.generation(),
                              directory=args.work / "base")  # fmt: skip
    retriever = Retriever(store, make_embedder(settings), index_dir=args.work / "unused",
                          refresh_seconds=1e9)  # fmt: skip
    retriever._index, retriever._checked = base, time.monotonic()
    judgements = load_qrels(args.qrels)
    queries = load_queries(args.queries)
    judged = {q: queries[q] for q in judgements}
    out: dict[str, Any] = {"papers": len(rows), "queries": len(judged)}
    for engine in ENGINES:
        shutil.rmtree(args.work / engine, ignore_errors=True)
        e = make(engine, args.work / engine, params)
        e.build(rows)
        base.search = lambda q, *, k, allowed=None, e=e: e.search(q, k)  # type: ignore[method-assign]
        out[engine] = {}
        for mode in ("lexical", "hybrid"):
            run = {
                qid: [h.paper.id for h in retriever.search(text, k=100, mode=mode, passages=0)]
                for qid, text in judged.items()
            }
            out[engine][mode] = {k: round(v, 4) for k, v in evaluate(run, judgements).items()}
        print(engine, json.dumps(out[engine]), flush=True)
    return out


# -- scale ----------------------------------------------------------------------------------


def _rows(corpus: Path, n_chunks: int) -> list[PaperRow]:
    """The first SciFact papers (2.28 chunks each, as ingested) up to ``n_chunks``, then
    synthetic ones (bench/scale/synth.py, ~1.9 chunks each) until ``n_chunks``: the same
    mix bench/scale/run.py stores (5k chunks: 2,193 papers; 1M: ~526k)."""
    from bench.scale.synth import Anchor, Synthesizer

    real = []
    with corpus.open() as fh:
        for line in fh:
            r = json.loads(line)
            real.append((f"sf{r['_id']}", r.get("title", ""), r["text"]))
    n_real = min(len(real), int(min(n_chunks, 5000) / 2.28))
    rows = [_row(pid, title, text, i, 2) for i, (pid, title, text) in enumerate(real[:n_real])]
    remaining = n_chunks - int(n_real * 2.28)
    if remaining > 0:
        dim4 = np.ones(4, dtype=np.float32)
        synth = Synthesizer([Anchor(f"{t}\n{a}", dim4) for _, t, a in real])
        for p, chunks, _ in synth.papers(remaining):
            rows.append(_row(p.id, p.title, p.abstract, p.position, len(chunks), p.year))
    return rows


def _row(pid: str, title: str, text: str, i: int, n: int, year: int | None = None) -> PaperRow:
    return PaperRow(id=pid, label="", title=title, authors=(), year=year, source="bench",
                    position=i, n_chunks=n, abstract=text)  # fmt: skip


def scale_one(args: argparse.Namespace) -> dict[str, Any]:
    """One engine at one size, in this process (so its peak RSS is its own; it includes
    the bench's own rows, abstracts and all, held in memory)."""
    import pickle

    params = Bm25Params()
    cache = args.work / f"rows-{args.size}.pickle"
    if cache.exists():
        rows = pickle.loads(cache.read_bytes())
    else:
        rows = _rows(args.corpus, args.size)
        cache.write_bytes(pickle.dumps(rows))
    from bench.scale.synth import Anchor, Synthesizer

    dim4 = np.ones(4, dtype=np.float32)
    extra_synth = Synthesizer([Anchor(r.abstract, dim4) for r in rows[:2000]], seed=7)
    extra = []
    for i in range(100):
        p, chunks, _ = extra_synth.paper(i)
        extra.append(_row(f"new-{p.id}", p.title, p.abstract, 10**7 + i, len(chunks), p.year))
    queries = [json.loads(x)["text"] for x in args.queries.open()][:500]
    directory = args.work / f"{args.engine}-{args.size}"
    shutil.rmtree(directory, ignore_errors=True)
    e = make(args.engine, directory, params)
    out: dict[str, Any] = {"engine": args.engine, "chunks": args.size, "papers": len(rows)}
    t = time.perf_counter()
    e.build(rows)
    out["build_s"] = round(time.perf_counter() - t, 2)
    out["disk_mb"] = round(_du(directory) / 1e6, 1)
    e.search(queries[0], POOL)
    times = []
    for q in queries:
        t = time.perf_counter()
        e.search(q, POOL)
        times.append(time.perf_counter() - t)
    ms = np.array(times) * 1000
    out["query_p50_ms"] = round(float(np.percentile(ms, 50)), 2)
    out["query_p95_ms"] = round(float(np.percentile(ms, 95)), 2)
    t = time.perf_counter()
    e.add(extra)
    out["add100_s"] = round(time.perf_counter() - t, 3)
    out["added_found"] = extra[0].id in [p for p, _ in e.search(extra[0].abstract, 5)]
    victim = rows[len(rows) // 2]
    t = time.perf_counter()
    e.delete(victim.id)
    out["delete1_s"] = round(time.perf_counter() - t, 3)
    out["deleted_gone"] = victim.id not in [p for p, _ in e.search(victim.abstract, 50)]
    out["disk_after_mb"] = round(_du(directory) / 1e6, 1)
    out["peak_rss_mb"] = _hwm_mb()
    return out


def catalogue_io(args: argparse.Namespace) -> dict[str, Any]:
    """The catalogue's disk costs at one size: folding the journal into a new snapshot (the
    occasional extra cost of a change) and reading it back (start-up, or another process's
    change seen by a process on the same machine)."""
    import pickle

    from rag.index import journal
    from rag.index.catalogue import Catalogue

    rows = pickle.loads((args.work / f"rows-{args.size}.pickle").read_bytes())
    directory = args.work / f"catalogue-{args.size}"
    directory.mkdir(parents=True, exist_ok=True)
    catalogue = Catalogue.from_rows(rows)
    del rows
    t = time.perf_counter()
    journal.write_snapshot(directory, catalogue, "g0")
    write_s = time.perf_counter() - t
    t = time.perf_counter()
    changed = catalogue.changed([], [catalogue.ids[len(catalogue) // 2]])
    changed_s = time.perf_counter() - t
    t = time.perf_counter()
    journal.read(directory)
    read_s = time.perf_counter() - t
    out = {"papers": len(catalogue), "snapshot_mb": round(_du(directory) / 1e6, 1),
           "compact_s": round(write_s, 2), "read_s": round(read_s, 2),
           "changed_s": round(changed_s, 3)}  # fmt: skip
    shutil.rmtree(directory)
    assert len(changed) == len(catalogue) - 1
    return out


def scale(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    for size in args.sizes:
        for engine in args.engines:
            cmd = [sys.executable, __file__, "scale-one", "--engine", engine, "--size", str(size),
                   "--corpus", str(args.corpus), "--queries", str(args.queries),
                   "--work", str(args.work)]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode:
                print(done.stderr[-2000:], file=sys.stderr)
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(json.dumps(row), flush=True)
            results.append(row)
            shutil.rmtree(args.work / f"{engine}-{size}", ignore_errors=True)
    return results


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("what", choices=["quality", "scale", "scale-one", "catalogue"])
    p.add_argument("--data-dir", type=Path)
    p.add_argument("--corpus", type=Path)
    p.add_argument("--queries", type=Path)
    p.add_argument("--qrels", type=Path)
    p.add_argument("--sizes", type=int, nargs="+", default=[5000, 100000])
    p.add_argument("--engines", nargs="+", default=list(ENGINES))
    p.add_argument("--engine")
    p.add_argument("--size", type=int)
    p.add_argument("--work", type=Path, default=Path("/tmp/lexwork/engines"))
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.what in ("scale-one", "catalogue"):
        out = scale_one(args) if args.what == "scale-one" else catalogue_io(args)
        print(json.dumps(out))
        if args.out and args.what == "catalogue":
            old = json.loads(args.out.read_text()) if args.out.exists() else {}
            old[f"catalogue {args.size}"] = out
            args.out.write_text(json.dumps(old, indent=1))
        return
    result = quality(args) if args.what == "quality" else scale(args)
    if args.out:
        old = json.loads(args.out.read_text()) if args.out.exists() else {}
        key = args.what if args.what == "quality" else "scale " + " ".join(map(str, args.sizes))
        old[key] = result
        args.out.write_text(json.dumps(old, indent=1))


if __name__ == "__main__":
    main()
