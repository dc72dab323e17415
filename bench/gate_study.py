"""Whether one model weighing the evidence and the reader together refuses better than the
two thresholds in turn (the evidence's model, then the reader's gate: rag.answer.gather,
rag.answer.gate). A study; the product keeps the two thresholds (docs/benchmarks.md).

``dump``: every library's single questions (its written and public ones, 15 of each other
library's as off-topic ones, and a field's training-only questions) are gathered as a face
asks them, with the parameters and the reader held out from the library (``--held-out``,
bench/fit_reader.py's file), the evidence's refusal lifted so that the reader reads every
question; each row keeps the evidence's features and its own refusal, the reader's best
log-odds over the closest papers' sentences, whether the question names what no paper holds
and whether it asks for a figure, and the product's reason.

``compare``: for each fold of fields, a logistic model of (reader log-odds, names absent and
that times the log-odds, the evidence's seven features, asks a figure) -> answerable, fitted
on the *other* fold's rows (log-odds read by the reader trained without them), its threshold
at the ``--max-refused`` quantile of that fold's answerable own questions; the floors (no
paper, the noise floor) and the figure rule kept. Prints and saves, per library held out and
for each ``--max-refused``, answerable questions refused, in-field unanswerable and
other-field ones answered: as the product stands and with the model.

    python bench/gate_study.py dump --pubmedqa ../shared/bench/pubmedqa \\
        --scifact ../shared/bench/scifact --out /tmp/gate_rows.jsonl          # ~25 min
    python bench/gate_study.py compare --rows /tmp/gate_rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fit_answers import fit  # noqa: E402
from bench.fit_reader import FOLDS, fold_of  # noqa: E402

READ_FLOOR = -8.0  # log-odds: a figure question whose read sentences hold no figure
FEATURES = (
    "read",
    "absent",
    "absent_read",
    "margin",
    "coverage",
    "focus",
    "gap",
    "local",
    "sentence",
    "unknown_name",
    "figure",
)
FLOORS = ("it comes no closer", "no paper")  # refusals no model weighs
NO_FIGURE = "the question asks for a figure"
NOT_STATED = "no sentence of the closest papers"
L2 = 1.0


def dump(args: argparse.Namespace) -> None:
    import rag.answer.candidates as cand
    import rag.answer.gather as g
    from bench.answers import open_domain
    from bench.domains import FIELDS, domains
    from rag.answer import params, reader
    from rag.answer.question import Names, analyse

    fitted = json.loads(args.held_out.read_text())["held_out"]
    libraries = ["sample", "pubmedqa", "scifact", *FIELDS]
    every = domains(libraries, pubmedqa=args.pubmedqa, scifact=args.scifact)
    state: dict[str, Any] = {}
    refusal, best_read = g._refusal, cand.best_read

    def lifted(ev, least, floor=True):  # type: ignore[no-untyped-def]
        state["ev_reason"], state["ev"] = refusal(ev, least, floor), ev
        return ""

    def read(question, sentences, qvec, keep=None):  # type: ignore[no-untyped-def]
        state["best"] = best_read(question, sentences, qvec, keep)
        return state["best"]

    g._refusal, cand.best_read = lifted, read
    with args.out.open("w") as out:
        for name in libraries:
            params.use(fitted[name]["params"])
            reader.use(reader.Reader(Path(fitted[name]["reader"]) / "model.onnx"))
            engine = open_domain(
                every[name], Path(tempfile.gettempdir()) / "paperchat-bench-indexes"
            ).engine
            catalogue = engine.retriever.index.catalogue
            mentions = engine.retriever.index.mentions
            names = Names((catalogue[p] for p in catalogue), mentions=mentions)
            items = [("bench", r) for r in every[name].items]
            items += [("off", r) for o in libraries if o != name for r in every[o].offtopic()[:15]]
            extra = ROOT / "bench/data/fields" / name / "train_questions.jsonl"
            if extra.exists():
                items += [("train", json.loads(line)) for line in extra.open()]
            for split, item in items:
                if item.get("type") in ("conversation", "overview") or "turns" in item:
                    continue
                state.clear()
                q = analyse(item["question"], names)
                got = g.gather(
                    q,
                    item["question"],
                    retriever=engine.retriever,
                    names=names,
                    filters=None,
                    k=5,
                    min_relevance=-1.0,
                    noise=engine.noise_floor(),
                )
                ev, best = state.get("ev"), state.get("best")
                row = {
                    "field": name,
                    "split": split,
                    "id": item.get("id"),
                    "type": item.get("type"),
                    "answerable": item.get("answerable", True),
                    "reason": got.reason,
                    "ev_reason": state.get("ev_reason"),
                    "ev": ev.features() if ev else None,
                    "absent": bool(ev and ev.absent),
                    "figure": q.asks_figure,
                    "best": None if best is None else READ_FLOOR if math.isinf(best) else best,
                }
                out.write(json.dumps(row) + "\n")
    print(f"saved {args.out}")


def _as_it_stands(r: dict[str, Any]) -> bool:
    refused = r["reason"].startswith((NO_FIGURE, NOT_STATED)) or r["reason"] == "no paper matches"
    return not r["ev_reason"] and not refused


def _weighed(r: dict[str, Any]) -> bool:
    floored = (r["ev_reason"] or "").startswith(FLOORS)
    return r["ev"] is not None and r["best"] is not None and not floored


def _features(r: dict[str, Any]) -> list[float]:
    read, absent = max(r["best"], READ_FLOOR), float(r["absent"])
    x = dict(r["ev"]) | {
        "read": read,
        "absent": absent,
        "absent_read": absent * read,
        "figure": float(r["figure"]),
    }
    return [1.0, *(x[k] for k in FEATURES)]


def _fit(rows: list[dict[str, Any]], max_refused: float) -> tuple[np.ndarray, float]:
    """The logistic model (bench/fit_answers.py's Newton fit, L2 1 on the weights) and its
    threshold: the ``max_refused`` quantile of the answerable own questions' scores."""
    kept = [r for r in rows if _weighed(r) and not r["reason"].startswith(NO_FIGURE)]
    x, y = np.array([_features(r) for r in kept]), np.array([float(r["answerable"]) for r in kept])
    w = fit(x, y, L2)
    own = np.array([r["split"] != "off" and r["answerable"] for r in kept])
    scores = np.sort((x @ w)[own])
    return w, float(scores[int(max_refused * len(scores))])


def compare(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in args.rows.open()]
    result: dict[str, Any] = {"rows": str(args.rows), "runs": {}}
    for m in args.max_refused:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for fold in FOLDS:
            w, t = _fit([r for r in rows if fold_of(r["field"]) != fold], m)
            for r in rows:
                if fold_of(r["field"]) != fold or r["split"] == "train":
                    continue
                model = not r["reason"].startswith(NO_FIGURE) and (
                    float(np.array(_features(r)) @ w) >= t if _weighed(r) else _as_it_stands(r)
                )
                kind = "off" if r["split"] == "off" else "ans" if r["answerable"] else "unans"
                if r["type"] == "everyday":
                    kind = "everyday"
                c = counts[r["field"]]
                c[kind + "_n"] += 1
                c[kind + "_now"] += _as_it_stands(r)
                c[kind + "_model"] += model
        fields = sorted(f for f in counts if f not in ("sample", "pubmedqa", "scifact"))
        mean = {
            k: {
                v: float(np.mean([counts[f][f"{k}_{v}"] / counts[f][f"{k}_n"] for f in fields]))
                for v in ("now", "model")
            }
            for k in ("ans", "unans", "off")
        }
        result["runs"][str(m)] = {
            "per_library": {f: dict(c) for f, c in counts.items()},
            "ten_fields_mean": mean,
        }
        a, u, o = mean["ans"], mean["unans"], mean["off"]
        print(
            f"--max-refused {m}, the ten fields' mean, product -> model:"
            f" answerable refused {1 - a['now']:.3f} -> {1 - a['model']:.3f};"
            f" in-field unanswerable answered {u['now']:.3f} -> {u['model']:.3f};"
            f" other fields answered {o['now']:.3f} -> {o['model']:.3f}"
        )
        for f in ("sample", "pubmedqa", "scifact", *fields):
            c = counts[f]
            print(
                f"  {f:18s} answerable refused {c['ans_n'] - c['ans_now']:3d} -> "
                f"{c['ans_n'] - c['ans_model']:3d} of {c['ans_n']:3d}; unanswerable answered "
                f"{c['unans_now']:2d} -> {c['unans_model']:2d} of {c['unans_n']:2d}; "
                "other answered "
                f"{c['off_now']:2d} -> {c['off_model']:2d} of {c['off_n']}"
            )
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"saved {args.out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("dump", help="gather every library's questions held out; save rows")
    d.add_argument("--held-out", type=Path, default=ROOT / "bench/results/reader_params.json")
    d.add_argument("--pubmedqa", type=Path, required=True)
    d.add_argument("--scifact", type=Path, required=True)
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="the model against the product, leaving folds out")
    c.add_argument("--rows", type=Path, required=True)
    c.add_argument("--max-refused", type=float, nargs="+", default=[0.01, 0.015, 0.02, 0.03])
    c.add_argument("--out", type=Path, default=ROOT / "bench/results/gate_study.json")
    args = ap.parse_args()
    dump(args) if args.step == "dump" else compare(args)


if __name__ == "__main__":
    main()
