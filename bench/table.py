"""Review tables (issue #45): how well cells state what their column asks, fitted leaving
one field out, and how fast a table fills.

The labelled set (bench/data/table/: papers.jsonl from bench/table_set.py, labels_a/b.jsonl
written by helpers who saw only the papers and RULES.md) gives, for 48 papers of four fields
and five preset columns, the sentences of each abstract that state what the column asks;
576 papers of six other fields, labelled the same way (papers_train*.jsonl,
labels_train*_*.jsonl), are only trained on.
Each field's papers are read from that field's own bench library, as a user's table over
their library would read them (rag.tables), and every sentence of every cell gets the
features rag.answer.table scores (the reader's log-odds, the hand ranker's score, role fit,
cue words, a count). The weights (a logistic model: is this sentence the cell?, one bias per
column) are fitted on the six training fields and three of the four reported ones, and
reported on the fourth, for each; ``--write`` saves the weights fitted on all ten in
rag/answer/params.json ("table").

Reported per field and column, held out: a cell states what the column asks (of the cells
whose label is not empty, the cell quotes one of the labelled sentences), "not stated" right
(of the cells saying "not stated", the label is empty), a wrong sentence quoted (of the cells
that quote, the sentence is not labelled). ``--time`` fills a 100-paper x 5-column table of
one field's library (extractive) and reports the first row's and the whole table's time;
``--share`` reads one such table's rows in one thread and reports the share of its time
spent in the table reader (bench/results/table_share.json).

    python bench/table.py [--write] [--time] [--share]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import table_cut, table_stop  # noqa: E402
from bench.answers import open_domain  # noqa: E402
from bench.domains import domains  # noqa: E402
from bench.machine import cpu_model, save_result  # noqa: E402
from rag.answer import params, reader  # noqa: E402
from rag.answer.table import FEATURES, PRESETS, TableReader, _bias_key, columns  # noqa: E402
from rag.sentences import split_sentences  # noqa: E402
from rag.tables import plan  # noqa: E402

DATA = ROOT / "bench/data/table"
COLUMNS = ["Method", "Data set", "Main result", "Sample size", "Limitations"]
L2 = 1.0


def load_set() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The papers and their labels: the four reported fields' (papers.jsonl, labels_a/b)
    and the six training fields' (papers_train.jsonl, labels_train_*), each paper marked
    ``train`` or not."""
    papers = {}
    for path in [DATA / "papers.jsonl", *sorted(DATA.glob("papers_train*.jsonl"))]:
        train = path.name != "papers.jsonl"
        for line in path.open(encoding="utf-8"):
            if line.strip():
                p = json.loads(line)
                papers[p["id"]] = p | {"train": train}
    labels = {}
    for path in sorted(DATA.glob("labels_*.jsonl")):
        for line in path.open(encoding="utf-8"):
            if line.strip():
                lab = json.loads(line)
                labels[lab["id"]] = lab
    return papers, labels


def _norm(text: str) -> str:
    return " ".join(text.split())


def collect(index_dir: Path, only: set[str] | None = None) -> list[dict[str, Any]]:
    """One record per (paper, column): its sentences' features and which are labelled (of
    the fields ``only`` names, when given)."""
    papers, labels = load_set()
    fields = sorted({p["field"] for p in papers.values() if only is None or p["field"] in only})
    cols = columns(COLUMNS)
    out = []
    for field in fields:
        app = open_domain(domains([field], pubmedqa=None, scifact=None)[field], index_dir)
        ids = [pid for pid, p in papers.items() if p["field"] == field and pid in labels]
        table = plan(app.engine, COLUMNS, paper_ids=ids)
        reader = TableReader(cols, app.engine.answer_embedder)
        for source, passages in table.sources():
            p = papers[source.paper_id]
            for c, pool in enumerate(reader.pools(source, passages)):
                cell = labels[source.paper_id]["columns"][cols[c].name]
                # Labelled in the sentences the set was written with; a labelled sentence
                # the splitter now cuts in two ("...adolescents.This was") labels each piece.
                gold = {
                    _norm(piece)
                    for i in cell["sentences"]
                    for piece in [p["sentences"][i], *split_sentences(p["sentences"][i])]
                }
                x = reader.features(c, pool) if pool else np.zeros((0, len(FEATURES)))
                out.append({
                    "order": reader.order(x) if pool else np.zeros(0, dtype=int),
                    "field": field, "train": p["train"], "paper": source.paper_id,
                    "column": cols[c].name,
                    "texts": [s.text for s in pool], "x": x, "name": source.name,
                    "question": cols[c].question,
                    "y": np.array([_norm(s.text) in gold for s in pool], dtype=float),
                    "labelled": bool(gold),
                })  # fmt: skip
    return out


def write_pairs(records: list[dict[str, Any]], path: Path) -> int:
    """The training fields' sentences as reader pairs (bench/train_reader.py's format): the
    column's question and the sentence (no paper name: a column asks the same of every
    paper, and the pair reads faster without it), labelled 1 when it states what the column
    asks. The reported fields are never written."""
    n = 0
    with path.open("w", encoding="utf-8") as out:
        for r in records:
            if not r["train"]:
                continue
            for i, text in enumerate(r["texts"]):
                out.write(json.dumps({
                    "library": r["field"], "qid": f"{r['paper']}#{r['column']}",
                    "question": r["question"], "name": "", "text": text,
                    "label": int(r["y"][i]), "hand": round(float(r["x"][i][1]), 4),
                    "answerable": r["labelled"], "type": "table", "retrieved": True,
                    "named": False, "kind": "",
                }, ensure_ascii=False) + "\n")  # fmt: skip
                n += 1
    return n


def _design(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for r in records:
        if not len(r["x"]):
            continue
        onehot = np.zeros((len(r["x"]), len(BIASES)))
        onehot[:, BIASES.index(_bias_key(PRESETS[r["column"].casefold()]))] = 1.0
        xs.append(np.hstack([onehot, r["x"]]))
        ys.append(r["y"])
    return np.vstack(xs), np.concatenate(ys)


BIASES = [_bias_key(PRESETS[c.casefold()]) for c in COLUMNS]


def fit(records: list[dict[str, Any]], l2: float = L2) -> dict[str, float]:
    """Logistic regression (Newton) of "this sentence is the cell", one unshrunk bias per
    column, L2 on the feature weights."""
    x, y = _design(records)
    w = np.zeros(x.shape[1])
    reg = np.r_[np.zeros(len(BIASES)), np.full(len(FEATURES), l2)]
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + reg * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(reg + 1e-6)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    out = {k: float(v) for k, v in zip(BIASES, w[: len(BIASES)], strict=True)}
    out |= {f"w_{f}": float(v) for f, v in zip(FEATURES, w[len(BIASES) :], strict=True)}
    # Whether a cell is stated is decided on its best sentence, not on each sentence: each
    # column's bias is moved so that the training fields' cells come out right most often.
    wv = np.array([out[f"w_{f}"] for f in FEATURES])
    for key in BIASES:
        best = [(float((r["x"] @ wv).max()) + out[key], r) for r in records
                if len(r["x"]) and _bias_key(PRESETS[r["column"].casefold()]) == key]  # fmt: skip
        if not best:
            continue

        def right(t: float, best: list = best) -> int:
            return sum(
                (r["y"][int(np.argmax(r["x"] @ wv))] > 0) if s >= t else not r["labelled"]
                for s, r in best
            )

        cuts = sorted({s for s, _ in best})
        mids = [(a + b) / 2 for a, b in itertools.pairwise(cuts)]
        options = [cuts[0] - 1.0, *mids, cuts[-1] + 1.0]
        shift = max(options, key=lambda t: (right(t), t))
        out[key] -= shift
    return {k: round(v, 4) for k, v in out.items()}


def judge(records: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, Any]:
    """Cells chosen with ``weights`` against the labels (module doc)."""
    wv = np.array([weights.get(f"w_{f}", 1.0 if f == "reader" else 0.0) for f in FEATURES])
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in records:
        bias = weights.get(_bias_key(PRESETS[r["column"].casefold()]), 1.0)
        quoted = None
        if len(r["x"]):
            s = r["x"] @ wv + bias
            best = int(np.argmax(s))
            quoted = best if s[best] >= 0 else None
        table_cut.count(tally, r, quoted)
    return {k: _rates(dict(v)) for k, v in tally.items()}


def _rates(t: dict[str, int]) -> dict[str, Any]:
    def rate(a: str, b: str) -> float | None:
        return round(t.get(a, 0) / t[b], 3) if t.get(b) else None

    return t | {"stated": rate("stated_right", "labelled"),
                "not_stated_right_rate": rate("not_stated_right", "not_stated"),
                "wrong_quoted": rate("quoted_wrong", "quoted")}  # fmt: skip


def _warmed(index_dir: Path, field: str) -> tuple[Any, list[str]]:
    """One field's library and its papers' ids, after one small table that loads the
    models, as a running server would have."""
    app = open_domain(domains([field], pubmedqa=None, scifact=None)[field], index_dir)
    ids = list(app.engine.retriever.index.catalogue)
    list(plan(app.engine, COLUMNS, paper_ids=ids[-5:]).rows())  # models loaded
    return app, ids


def _filled(app: Any, ids: list[str]) -> tuple[float, float]:
    """A table of these papers x the five columns: seconds to its first row and to its end."""
    clock = time.perf_counter()
    first = None
    for _row in plan(app.engine, COLUMNS, paper_ids=ids).rows():
        first = first or time.perf_counter() - clock
    return first or 0.0, time.perf_counter() - clock


def timing(index_dir: Path, field: str, n: int) -> dict[str, Any]:
    """A table of ``n`` papers x the five columns, three times on three different sets of
    papers (nothing read before: no remembered sentence or score helps), the models loaded."""
    app, ids = _warmed(index_dir, field)
    runs = []
    for k in range(3):
        chosen = ids[k * n : (k + 1) * n]
        first, total = _filled(app, chosen)
        runs.append({"papers": len(chosen), "first_row_s": round(first, 3),
                     "total_s": round(total, 3)})  # fmt: skip
    return {"field": field, "columns": len(COLUMNS), "runs": runs}


def timing_ways(index_dir: Path, field: str, n: int, ways: dict[str, dict[str, float | None]]
                ) -> dict[str, Any]:  # fmt: skip
    """:func:`timing`, side by side: on each of the three sets of papers, one table per way
    (``params.table`` entries to set, or drop when None), alternating, the table reader's
    remembered scores forgotten before each (so each reads every pair)."""
    app, ids = _warmed(index_dir, field)
    base = dict(params.current().table)
    runs: dict[str, list[float]] = {way: [] for way in ways}
    for k in range(3):
        for way, entries in ways.items():
            table = {key: v for key, v in base.items() if key not in entries}
            table |= {key: v for key, v in entries.items() if v is not None}
            params.use(replace(params.current(), table=table))
            used = reader.table_reader()
            if used is not None:
                used.forget()
            runs[way].append(round(_filled(app, ids[k * n : (k + 1) * n])[1], 3))
    params.use(replace(params.current(), table=base))
    return {"field": field, "columns": len(COLUMNS), "papers": n, "total_s": runs}


def reader_share(index_dir: Path, field: str, n: int) -> dict[str, Any]:
    """One table of ``n`` papers x the five columns, its rows read one after another in one
    thread (nothing read before): its time, and the share of it in the table reader's ONNX
    runs (each pair read alone), with the pairs read."""
    app, ids = _warmed(index_dir, field)
    table = plan(app.engine, COLUMNS, paper_ids=ids[n : 2 * n])
    items, cells = list(table.sources()), TableReader(table.columns, app.engine.answer_embedder)
    used = reader.table_reader()
    assert used is not None, "no table reader is shipped"
    spent, run = [0.0, 0], used._read

    def timed(pairs: list[tuple[str, str]], todo: list[int], out: Any) -> None:
        clock = time.perf_counter()
        run(pairs, todo, out)
        spent[0] += time.perf_counter() - clock
        spent[1] += len(todo)

    used._read = timed  # type: ignore[method-assign]
    try:
        clock = time.perf_counter()
        for source, passages in items:
            cells.row(source, passages)
        total = time.perf_counter() - clock
    finally:
        used._read = run  # type: ignore[method-assign]
    return {"field": field, "papers": len(items), "columns": len(COLUMNS),
            "one_thread_s": round(total, 3), "reader_runs_s": round(spent[0], 3),
            "reader_share": round(spent[0] / total, 3), "pairs": spent[1],
            "ms_per_pair": round(spent[0] / max(spent[1], 1) * 1000, 3)}  # fmt: skip


_MEMORY = """
import os, json
from rag.settings import load_settings
from rag.engine import Engine
def rss():
    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 1e6
e = Engine.from_settings(load_settings(data_dir={data!r}))
e.warm_up()
e.ask("How do systems reduce KV cache memory in LLM inference?")
before = rss()
list(e.table(["Method", "Main result"], query="KV cache", k=5).rows())
print(json.dumps({{"after_an_answer_mb": round(before), "after_a_table_mb": round(rss())}}))
"""


def memory(data_dir: Path) -> dict[str, Any]:
    """Resident memory of a fresh process that has answered once, then made a small table
    (the table reader loaded): what a table adds to a running server."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", _MEMORY.format(data=str(data_dir))],
                          capture_output=True, text=True, check=True, cwd=ROOT)  # fmt: skip
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    out["added_mb"] = out["after_a_table_mb"] - out["after_an_answer_mb"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--write", action="store_true", help="save the weights fitted on all fields")
    ap.add_argument("--time", action="store_true", help="time a 100 x 5 table")
    ap.add_argument("--share", action="store_true",
                    help="only read one 100 x 5 table's rows in one thread and report the "
                    "share of its time in the table reader; saves table_share.json")  # fmt: skip
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/table.json")
    ap.add_argument("--memory", type=Path, metavar="DATA_DIR",
                    help="only measure what a table adds to resident memory, over the sample "
                    "corpus ingested in DATA_DIR; prints and saves table_memory.json")  # fmt: skip
    ap.add_argument("--table-reader", type=Path, metavar="DIR",
                    help="read cells with the table reader in DIR (model.onnx, card.json) "
                    "instead of the shipped one; its training fields are left out of the "
                    "second stage's fit")  # fmt: skip
    ap.add_argument(
        "--no-table-reader",
        action="store_true",
        help="read cells with the answers' reader (as before the table reader)",
    )
    ap.add_argument("--read", type=int, help="sentences per cell the reader reads")
    ap.add_argument("--fold", type=Path, action="append", default=[], metavar="DIR",
                    help="a table reader trained without some training fields (its card "
                    "says which): those fields' cells are read by it, so that the second "
                    "stage can be fitted on them too (repeat for each fold)")  # fmt: skip
    ap.add_argument("--choose", action="store_true",
                    help="with --fold: the choice between the second stage and the table "
                    "reader alone, on the training fields only (each read by the fold reader "
                    "that did not see it, the second stage fitted leaving it out); no "
                    "reported field is read for it. With --write, the chosen one is "
                    "shipped (params.table 'alone')")  # fmt: skip
    ap.add_argument("--choose-cut", action="store_true",
                    help="with --fold: where the table reader alone says 'stated' and whether "
                    "a sentence may fill several columns of a row (bench/table_cut.py), chosen "
                    "on the training fields only; the reported fields are then read each way. "
                    "With --write, the chosen way is shipped (params.table 'cut.*', "
                    "'exclusive')")  # fmt: skip
    ap.add_argument("--choose-stop", action="store_true",
                    help="with --fold: whether the table reader may stop reading a cell's "
                    "sentences once one is sure (bench/table_stop.py), chosen on the training "
                    "fields only; the reported fields are then read each way. The records "
                    "are read in full. With --write, the chosen way is shipped "
                    "(params.table 'read_first', 'sure')")  # fmt: skip
    ap.add_argument("--pairs", type=Path, metavar="FILE",
                    help="only write the training fields' reader pairs to FILE")  # fmt: skip
    args = ap.parse_args()
    if args.memory:
        result = memory(args.memory)
        print(json.dumps(result))
        (ROOT / "bench/results/table_memory.json").write_text(json.dumps(result) + "\n")
        return
    if args.share:
        share = reader_share(args.index_dir, "economics", 100) | {"cpu": cpu_model()}
        save_result(ROOT / "bench/results/table_share.json", share, share)
        return
    if args.table_reader:
        reader.use_table(reader.Reader(args.table_reader / "model.onnx",
                                       threads=reader.TABLE_THREADS))  # fmt: skip
    elif args.no_table_reader:
        reader.use_table(None)
    if args.read:
        params.use(replace(params.current(), table={**params.current().table,
                                                    "read": float(args.read)}))  # fmt: skip
    if args.choose_stop:  # every cell's sentences read in full, each way judged on them
        params.use(replace(params.current(), table=_reading_all(params.current().table)))
    used = reader.table_reader()
    seen = set(used.card.get("trained_on", ())) if used is not None else set()
    if args.pairs:
        n = write_pairs(collect(args.index_dir), args.pairs)
        print(f"{n} pairs -> {args.pairs}", file=sys.stderr)
        return

    # Features read with the reader's default use (no fitted table weights yet matter here).
    records = collect(args.index_dir)
    folds = []
    for fold in args.fold:  # the training fields read out of sample, fold by fold
        other = reader.Reader(fold / "model.onnx", threads=reader.TABLE_THREADS)
        unseen = seen - set(other.card.get("trained_on", ()))
        reader.use_table(other)
        redone = collect(args.index_dir, unseen)
        records = [r for r in records if r["field"] not in unseen] + redone
        seen -= unseen
        folds.append({"reader": str(fold), "fields": sorted(unseen), "card": other.card})
    reader.use_table(used)
    fields = sorted({r["field"] for r in records if not r["train"]})
    if (args.choose or args.choose_cut or args.choose_stop) and (not args.fold or seen):
        ap.error(
            "--choose, --choose-cut and --choose-stop need a --fold reader for every training field"
        )
    result: dict[str, Any] = {
        "columns": COLUMNS,
        "features": list(FEATURES),
        "fields": {},
        "trained_on": sorted({r["field"] for r in records if r["train"]}),
    }
    result["table_reader"] = used.card if used is not None else None
    result["folds"] = folds
    for field in fields:
        # A field the table reader was trained on reads its cells too well to weigh it by.
        train = [r for r in records if r["field"] != field and r["field"] not in seen]
        held = [r for r in records if r["field"] == field]
        weights = fit(train)
        result["fields"][field] = {
            "weights": weights,
            "held_out": judge(held, weights),
            "reader_alone": judge(held, {}),
        }
    if args.choose:
        result["choice"] = choose([r for r in records if r["train"]])
    if args.choose_cut:
        result["cut_choice"] = table_cut.choose([r for r in records if r["train"]])
        result["cut_reported"] = cut_reported(result["cut_choice"]["cuts"],
                                              [r for r in records if not r["train"]])  # fmt: skip
    if args.choose_stop:
        result["stop_choice"] = table_stop.choose([r for r in records if r["train"]])
        result["stop_reported"] = table_stop.reported([r for r in records if not r["train"]])
    result["held_out_all"] = _pool(result, "held_out")
    result["reader_alone_all"] = _pool(result, "reader_alone")
    shipped = fit([r for r in records if r["field"] not in seen])
    result["shipped"] = shipped
    if args.time and args.choose_stop:
        got = result["stop_choice"]
        result["time_ways"] = timing_ways(
            args.index_dir,
            "economics",
            100,
            {
                "all": {"read_first": None, "sure": None},
                got["chosen"]: {"read_first": got["read_first"], "sure": got["sure"]},
            },
        )
    elif args.time:
        result["time"] = timing(args.index_dir, "economics", 100)
    _print(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.write:
        current = params.load()
        table = {"read": float(params.current().table.get("read", 3))} | shipped
        if args.choose_cut:
            way = result["cut_choice"]["chosen"]
            kept = {k: v for k, v in params.current().table.items()
                    if not k.startswith("cut.") and k != "exclusive"}  # fmt: skip
            cuts = result["cut_choice"]["cuts"] if way.startswith("cuts") else {}
            table = kept | {f"cut.{c.casefold()}": v for c, v in cuts.items()}
            table |= {"exclusive": 1.0} if way.endswith("exclusive") else {}
        elif args.choose_stop:
            got = result["stop_choice"]
            table = _reading_all(params.load().table) | (
                {"read_first": float(got["read_first"]), "sure": got["sure"]}
                if got["sure"] is not None else {})  # fmt: skip
        elif args.choose and result["choice"]["chosen"] == "reader_alone":
            # the reader's log-odds decide; the weights the records were read with (what
            # the reader reads) stay as they were measured
            kept = {k: v for k, v in params.current().table.items() if k != "alone"}
            table = kept | {"alone": 1.0}
        path = params.PATH
        data = current.to_json() | {"table": table}
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


def _reading_all(table: Mapping[str, float]) -> dict[str, float]:
    """``params.table`` without a stop: every cell's sentences read (bench/table_stop.py)."""
    return {k: v for k, v in table.items() if k not in ("read_first", "sure")}


def choose(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The second stage against the table reader alone on the training fields (read out of
    sample: ``--fold``), each field judged with the second stage fitted on the other five.
    The criterion, fixed before it was first measured (docs/benchmarks.md, "Review tables"):
    more cells right (a labelled cell quoting a labelled sentence, or an empty one said "not
    stated"), pooled; a tie keeps the second stage."""
    out: dict[str, Any] = {"fields": {}}
    for field in sorted({r["field"] for r in records}):
        held = [r for r in records if r["field"] == field]
        weights = fit([r for r in records if r["field"] != field])
        out["fields"][field] = {"second_stage": judge(held, weights),
                                "reader_alone": judge(held, {})}  # fmt: skip
    for which in ("second_stage", "reader_alone"):
        out[which] = _pool(out, which)
        t = out[which]["all"]
        t["right"] = t.get("stated_right", 0) + t.get("not_stated_right", 0)
        t["worst_field_right"] = min(
            (f[which]["all"].get("stated_right", 0) + f[which]["all"].get("not_stated_right", 0))
            / f[which]["all"]["cells"] for f in out["fields"].values())  # fmt: skip
    second, alone = out["second_stage"]["all"]["right"], out["reader_alone"]["all"]["right"]
    out["chosen"] = "reader_alone" if alone > second else "second_stage"
    return out


def cut_reported(cuts: dict[str, float], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Each way of bench/table_cut.py on the reported fields (cuts fitted on the training
    fields), per field and pooled."""
    out: dict[str, Any] = {}
    for way in table_cut.WAYS:
        use = cuts if way.startswith("cuts") else {}
        per = {f: table_cut.judge([r for r in records if r["field"] == f], use,
                                  way.endswith("exclusive"))
               for f in sorted({r["field"] for r in records})}  # fmt: skip
        out[way] = {"fields": per, "all": table_cut.judge(records, use, way.endswith("exclusive"))}
    return out


def _pool(result: dict[str, Any], which: str) -> dict[str, Any]:
    total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for f in result["fields"].values():
        for key, t in f[which].items():
            for k, v in t.items():
                if isinstance(v, int):
                    total[key][k] += v
    return {k: _rates(dict(v)) for k, v in total.items()}


def _print(result: dict[str, Any]) -> None:
    def line(name: str, t: dict[str, Any]) -> str:
        return (f"{name:28} stated {t.get('stated_right', 0)}/{t['labelled']} ({t['stated']})  "
                f"not stated right {t.get('not_stated_right', 0)}/{t.get('not_stated', 0)} "
                f"({t['not_stated_right_rate']})  wrong quoted {t.get('quoted_wrong', 0)}/"
                f"{t.get('quoted', 0)} ({t['wrong_quoted']})")  # fmt: skip

    for field, f in result["fields"].items():
        print(line(f"{field} held out", f["held_out"]["all"]))
        print(line(f"{field} reader alone", f["reader_alone"]["all"]))
    for key in ["all", *COLUMNS]:
        print(line(f"pooled held out: {key}", result["held_out_all"][key]))
    print(line("pooled reader alone", result["reader_alone_all"]["all"]))
    if "choice" in result:
        for which in ("second_stage", "reader_alone"):
            t = result["choice"][which]["all"]
            print(line(f"training fields, {which}", t), f"right {t['right']}/{t['cells']}",
                  f"worst field right {t['worst_field_right']:.3f}")  # fmt: skip
        print("chosen:", result["choice"]["chosen"])
    if "cut_choice" in result:
        got = result["cut_choice"]
        for way in table_cut.WAYS:
            t = {**got["pooled"][way]["all"]}
            print(line(f"training fields, {way}", _rates(t)), f"right {t['right']}/{t['cells']}",
                  f"worst field right {got['pooled'][way]['worst_field_right']:.3f}")  # fmt: skip
        print("chosen:", got["chosen"], "cuts fitted on the six:", got["cuts"])
        for way in table_cut.WAYS:
            rep = result["cut_reported"][way]
            print(line(f"reported fields, {way}", _rates({**rep["all"]["all"]})))
            for field, t in rep["fields"].items():
                print(line(f"  {field}", _rates({**t["all"]})))
            for c in COLUMNS:
                if c in rep["all"]:
                    print(line(f"  column {c}", _rates({**rep["all"][c]})))
    if "stop_choice" in result:
        got = result["stop_choice"]
        for way, c in got["candidates"].items():
            t = c["pooled"]
            print(
                line(f"training fields, {way}", _rates(t)),
                f"right {t['right']}/{t['cells']}",
                f"pairs {t['pairs']}",
                f"worst field right {t['worst_field_right']:.3f}",
            )
        print("chosen:", got["chosen"], "floor:", got["floor"])
        for way, rep in result["stop_reported"].items():
            t = rep["all"]["all"]
            print(line(f"reported fields, {way}", _rates(t)), f"pairs {t['pairs']}")
    print("shipped weights:", result["shipped"])
    if "time" in result:
        print("time:", result["time"])
    if "time_ways" in result:
        print("time, side by side:", result["time_ways"])


if __name__ == "__main__":
    main()
