"""Fit the reader's gate on the reader and where the question's words sit, leaving each field
out.

The gate (:mod:`rag.answer.gate`) refuses a question that the evidence model lets through
when no sentence of its closest papers is read as stating what it asks. Alone, the reader's
best log-odds tell an answerable question of the library's field from one it cannot answer
poorly: a sentence of a paper the question barely touches is read as stating "the Dice score
on ISIC 2018" as surely as the paper the question describes. This script weighs three
signals, each known when the gate is reached:

- ``read``: the reader's best log-odds over the closest papers' first sentences;
- ``local``: the idf-weighted share of the question's words that two adjacent sentences of
  the closest paper hold (the evidence's feature of that name);
- ``absent``: the question names what no paper of the library holds.

A share, not a score: the evidence model's score (how far it rose above its threshold) told
the ten fields' unanswerable questions apart better still, held out, but runs lower for a
library of claims (SciFact's answerable claims: median 5.5 against 8.6 for the ten fields'
questions), and the gate fitted on it refused 216 of SciFact's 906 answerable claims against
69 (docs/benchmarks.md).

``collect`` asks the ten fields' training-only questions (train_questions.jsonl: never the
bench's questions; conversation turns left out) and as many of every other field's as
off-topic questions, each field with the parameters and the reader fitted without it
(``--held-out``: bench/fit_reader.py's output), with the reader's gate open, and saves, per
question that reaches the gate, the three signals.

``fit`` fits a logistic model (answerable: the field's own question with an answer; not:
its questions no paper answers and other fields' questions) on nine fields and sets its
threshold where ``--max-refused`` of those nine fields' answerable questions are refused; it
reports the tenth, side by side with the gate fitted today (the reader alone) on the same
questions. The libraries outside the ten (sample, PubMedQA, SciFact) get the model fitted on
all ten. Writes ``--out`` (``--held-out`` with each library's gate added, for
bench/answers.py --held-out) and, with ``--write``, the model fitted on all ten into
rag/answer/params.json.

    python bench/fit_gate.py collect --held-out bench/results/reader_params.json \\
        --out bench/results/gate_rows.jsonl
    python bench/fit_gate.py fit --rows bench/results/gate_rows.jsonl \\
        --held-out bench/results/reader_params.json --out bench/results/gate_params.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import open_domain  # noqa: E402
from bench.domains import FIELDS, domains  # noqa: E402
from bench.fit_answers import fit  # noqa: E402
from bench.machine import save_result  # noqa: E402
from rag.answer import params, reader  # noqa: E402
from rag.answer.gate import best_read_of, gate_score, gated_out  # noqa: E402
from rag.answer.gather import gather  # noqa: E402
from rag.answer.question import analyse  # noqa: E402

SIGNALS = ("read", "local", "absent")
OFFTOPIC = 15  # other fields' questions asked of each library, from each field
L2 = 1.0
FLOOR = -20.0  # the reader's log-odds when no sentence states the figure asked for (-inf)
GATE_KEYS = ("gate", "gate_absent")


def open_gate(fitted: dict[str, Any]) -> dict[str, Any]:
    """The parameters with the reader's gate removed: every question is read."""
    reader_params = {k: v for k, v in fitted["reader"].items()
                     if k not in GATE_KEYS and not k.startswith("gate_w_")}  # fmt: skip
    return fitted | {"reader": reader_params}


def collect(args: argparse.Namespace) -> None:
    held = json.loads(args.held_out.read_text())["held_out"]
    every = domains(list(FIELDS), pubmedqa=None, scifact=None,
                    question_file="train_questions.jsonl")  # fmt: skip
    with args.out.open("w", encoding="utf-8") as out:
        for name in args.fields:
            fitted = held[name]
            params.use(open_gate(fitted["params"]))
            reader.use(reader.Reader(Path(fitted["reader"]) / "model.onnx"))
            app = open_domain(every[name], args.index_dir)
            engine = app.engine
            names, noise = engine.names(), engine.noise_floor()
            items = [i for i in every[name].items if i["type"] != "conversation"]
            for other in every.values():
                if other.name != name:
                    items += [i | {"type": f"offtopic:{other.name}", "answerable": False}
                              for i in other.offtopic()[:OFFTOPIC]]  # fmt: skip
            for item in items:
                text = item["question"]
                asked = analyse(text, names, own=text)
                found = gather(
                    asked,
                    text,
                    retriever=engine.retriever,
                    names=names,
                    filters=None,
                    k=engine.settings.answer_k,
                    min_relevance=engine.settings.min_relevance,
                    noise=noise,
                )
                row = {"field": name, "id": item.get("id", ""), "type": item["type"],
                       "answerable": bool(item.get("answerable")), "reached": False}  # fmt: skip
                if found.answerable and found.reason == "relevant" and not gated_out(asked):
                    best = best_read_of(asked, text, found.sources, engine.retriever.embedder)
                    ev = found.evidence
                    if best is not None:
                        row |= {"reached": True, "read": max(best, FLOOR),
                                "local": round(ev.local if ev else 1.0, 4),
                                "absent": bool(ev and ev.absent)}  # fmt: skip
                out.write(json.dumps(row) + "\n")
            print(f"{name}: {len(items)} questions", flush=True)


def kind(row: dict[str, Any]) -> str:
    if row["answerable"]:
        return "answerable"
    return "unanswerable" if row["type"] == "unanswerable" else "other field"


def signals(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([[1.0, r["read"], r["local"], float(r["absent"])] for r in rows])


def fit_gate(rows: list[dict[str, Any]], max_refused: float) -> dict[str, float]:
    """The gate's weights (``gate_w_*``) fitted on ``rows``, its bias moved so that
    ``max_refused`` of their answerable questions are refused."""
    x = signals(rows)
    y = np.array([kind(r) == "answerable" for r in rows], dtype=float)
    w = fit(x, y, L2)
    scores = np.sort(x[y == 1] @ w)
    cut = scores[int(max_refused * len(scores))]
    w[0] -= cut
    return {f"gate_w_{k}": round(float(v), 4) for k, v in zip(("bias", *SIGNALS), w, strict=True)}


def decide(rows: list[dict[str, Any]], weights: dict[str, float]) -> list[bool]:
    """Whether each row is answered by the gate ``weights``."""
    w = {k.removeprefix("gate_w_"): v for k, v in weights.items()}
    return [gate_score(r["read"], r["local"], r["absent"], w) >= 0 for r in rows]


def decide_today(rows: list[dict[str, Any]], reader_params: dict[str, float]) -> list[bool]:
    """Whether each row is answered by the reader-alone gate fitted today."""
    gate = reader_params["gate"]
    absent = reader_params.get("gate_absent", gate)
    return [r["read"] >= (absent if r["absent"] else gate) for r in rows]


def tally(rows: list[dict[str, Any]], answered: list[bool]) -> dict[str, int]:
    c = Counter((kind(r), a) for r, a in zip(rows, answered, strict=True))
    return {"answerable refused": c["answerable", False], "answerable": sum(
        c["answerable", a] for a in (True, False)),
        "unanswerable answered": c["unanswerable", True],
        "unanswerable": sum(c["unanswerable", a] for a in (True, False)),
        "other field answered": c["other field", True],
        "other field": sum(c["other field", a] for a in (True, False))}  # fmt: skip


def fit_all(args: argparse.Namespace) -> None:
    every = [json.loads(line) for line in args.rows.read_text().splitlines() if line]
    rows = [r for r in every if r["reached"]]
    held = json.loads(args.held_out.read_text())
    fields = sorted({r["field"] for r in rows})
    report: dict[str, Any] = {}
    for name in fields:
        train = [r for r in rows if r["field"] != name]
        test = [r for r in rows if r["field"] == name]
        weights = fit_gate(train, args.max_refused)
        today = held["held_out"][name]["params"]["reader"]
        report[name] = {"weights": weights,
                        "today": tally(test, decide_today(test, today)),
                        "fitted": tally(test, decide(test, weights))}  # fmt: skip
        held["held_out"][name]["params"]["reader"] = today | weights
    shipped = fit_gate(rows, args.max_refused)
    for name, entry in held["held_out"].items():
        if name not in fields:  # a library outside the ten: the gate fitted on all ten
            entry["params"]["reader"] = entry["params"]["reader"] | shipped
    held["gate"] = {"max_refused": args.max_refused, "rows": str(args.rows), "shipped": shipped}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(held, indent=1) + "\n")
    total = {side: Counter() for side in ("today", "fitted")}
    for side in total:
        for name in fields:
            total[side].update(report[name][side])
    result = {"max_refused": args.max_refused, "signals": list(SIGNALS), "fields": report,
              "all": {k: dict(v) for k, v in total.items()}, "shipped": shipped}  # fmt: skip
    if args.write:
        current = params.load()
        reader_params = {k: v for k, v in current.reader.items() if not k.startswith("gate_w_")}
        data = current.to_json() | {"reader": reader_params | shipped}
        params.PATH.write_text(json.dumps(data, indent=1) + "\n")
    lines = [f"{n:18} today {r['today']['answerable refused']:>2}/{r['today']['answerable']:<3} "
             f"refused, {r['today']['unanswerable answered']:>2}/{r['today']['unanswerable']:<2} "
             f"unans. answered, {r['today']['other field answered']:>2} other | fitted "
             f"{r['fitted']['answerable refused']:>2} refused, "
             f"{r['fitted']['unanswerable answered']:>2} unans. answered, "
             f"{r['fitted']['other field answered']:>2} other"
             for n, r in report.items()]  # fmt: skip
    save_result(args.result, result, {"held out, per field": lines, "all": result["all"]})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="the gate's signals on the training-only questions")
    c.add_argument("--held-out", type=Path, required=True, help="bench/fit_reader.py's output")
    c.add_argument("--fields", nargs="+", default=list(FIELDS), choices=FIELDS)
    c.add_argument("--index-dir", type=Path, default=Path("/tmp/paperchat-bench-indexes"))
    c.add_argument("--out", type=Path, default=ROOT / "bench/results/gate_rows.jsonl")
    f = sub.add_parser("fit", help="fit the gate leaving each field out")
    f.add_argument("--rows", type=Path, default=ROOT / "bench/results/gate_rows.jsonl")
    f.add_argument("--held-out", type=Path, required=True, help="bench/fit_reader.py's output")
    f.add_argument("--max-refused", type=float, default=0.01,
                   help="share of the training fields' answerable questions refused")  # fmt: skip
    f.add_argument("--out", type=Path, default=ROOT / "bench/results/gate_params.json",
                   help="--held-out with each library's gate, for answers.py")  # fmt: skip
    f.add_argument("--result", type=Path, default=ROOT / "bench/results/gate_fit.json")
    f.add_argument("--write", action="store_true", help="save the gate fitted on all ten")
    args = ap.parse_args()
    collect(args) if args.command == "collect" else fit_all(args)


if __name__ == "__main__":
    main()
