"""Fit how the reader is used (the blend with the hand ranker, the refusal gate) leaving
fields out, and write the held-out parameters bench/answers.py reads.

The bench's libraries are split into two folds of fields (:data:`FOLDS`, each with a
biomedical, a computing, a physical and a social-science library). For each fold a reader
is trained on the *other* fold only (``bench/train_reader.py train --leave-out ...``);
its log-odds on its own fold's pairs are then out of sample. Each fold's parameters are
fitted on the other fold's out-of-sample log-odds (read by the reader trained without
them) and never see the fold they are used on:

- the blend of (reader log-odds, hand score): its direction a conditional logit ranking
  each answerable question's sentences (those holding a key fact first) over the hand
  ranker's ``top`` first, its scale and bias a logistic fit of that score to the labels;
- the gate, the reader's best log-odds among those sentences below which a question is
  refused: the ``--max-refused`` quantile over the answerable questions whose gold paper
  retrieval brings (questions naming a paper, lists and comparisons are not gated);
- the gate of questions naming what no paper of their library holds (``--absent``, from
  ``bench/train_reader.py absent``): no lower than the gate, the threshold best telling
  such questions the library answers from such questions it cannot (Youden's J).

The shipped parameters are fitted the same way on both folds' out-of-sample log-odds.

    python bench/fit_reader.py --pairs bench/results/reader_pairs.jsonl \\
        --reader a=/tmp/reader-a --reader b=/tmp/reader-b --write
    python bench/answers.py ... --held-out bench/results/reader_params.json

Prints, per library held out, the top-1 of the hand ranker and of the blend (does the best
scored sentence hold a key fact), the answerable questions the gate refuses and the
in-field unanswerable and other-field ones it lets through; saves
bench/results/reader_params.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fit_answers import fit  # noqa: E402
from bench.train_reader import load_pairs  # noqa: E402
from rag.answer import params  # noqa: E402
from rag.answer.reader import Reader  # noqa: E402

FOLDS = {
    "a": ("sample", "scifact", "chemistry", "ecology-evolution", "economics",
          "computer-vision", "psychology"),
    "b": ("pubmedqa", "materials-science", "public-health", "political-science",
          "condensed-matter", "mathematics"),
}  # fmt: skip
TOP = 8  # sentences the blend and the gate are fitted on (the ranker's first), the gate's reading
READ = 12  # sentences an answer reads (chosen on the training-only questions; docs/benchmarks.md)
UNGATED_KINDS = ("list", "comparison")


def fold_of(library: str) -> str:
    return next((f for f, libs in FOLDS.items() if library in libs), "")


def questions(pairs: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Each question's pairs, the hand ranker's first TOP only, best first."""
    by_q: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for p in pairs:
        by_q[(p["library"], p["qid"])].append(p)
    return {q: sorted(rows, key=lambda r: -r["hand"])[:TOP] for q, rows in by_q.items()}


def read_out_of_fold(
    qs: dict[tuple[str, str], list[dict[str, Any]]], readers: dict[str, Path]
) -> None:
    """Each pair's ``read``: the log-odds of the reader trained without its fold."""
    loaded = {f: Reader(path / "model.onnx") for f, path in readers.items()}
    for (library, _), rows in qs.items():
        reader = loaded.get(fold_of(library))
        if reader is None:
            raise SystemExit(f"no reader for {library}'s fold {fold_of(library)!r}")
        scores = reader.score(rows[0]["question"], [(r["name"], r["text"]) for r in rows])
        for r, v in zip(rows, scores, strict=True):
            r["read"] = float(v)


def fit_ranking(groups: list[tuple[np.ndarray, np.ndarray]], l2: float) -> np.ndarray:
    """Weights of a conditional logit: each question's sentences compete in one softmax and
    the share its sentences holding a key fact take of it is maximised (L2 ``l2``). The
    blend ranks one question's sentences against each other, so this is what it is fitted
    for; a pointwise fit over all pairs also spends its weights on telling one question's
    sentences from another's, which ranking never asks."""

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for x, y in groups:
            s = x @ w
            e = np.exp(s - s.max())
            p, pos = e / e.sum(), e[y]
            total -= float(np.log(pos.sum()) - np.log(e.sum()))
            grad -= (pos / pos.sum()) @ x[y] - p @ x
        return total + l2 * float(w @ w) / 2, grad + l2 * w

    w = np.full(groups[0][0].shape[1], 0.5)
    value, grad = loss(w)
    step = 1.0 / len(groups)
    for _ in range(500):  # gradient descent with backtracking: a handful of weights
        while step > 1e-12:
            tried = w - step * grad
            new_value, new_grad = loss(tried)
            if new_value <= value - 0.5 * step * float(grad @ grad):
                break
            step /= 2
        else:
            break
        converged = value - new_value < 1e-7 * abs(value)
        w, value, grad, step = tried, new_value, new_grad, step * 2
        if converged:
            break
    return w


def ranking_groups(
    questions: list[list[dict[str, Any]]],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each question's (reader log-odds, hand score) rows and which hold a key fact, for the
    questions with one at least (:func:`fit_ranking`'s input)."""
    return [
        (np.asarray([[r["read"], r["hand"]] for r in rs]), np.asarray([r["label"] for r in rs]) > 0)
        for rs in questions
        if any(r["label"] for r in rs)
    ]


def fit_blend(qs: dict[tuple[str, str], list[dict[str, Any]]], l2: float) -> dict[str, float]:
    """The reader's and the hand ranker's weights as a ranking of each answerable question's
    sentences (:func:`fit_ranking`), then scaled and shifted by a logistic fit of that
    score to the labels, so the blend stays a log-odds (``params.prose["floor"]`` is one)."""
    answerable = [rs for rs in qs.values() if rs[0]["answerable"]]
    direction = fit_ranking(ranking_groups(answerable), l2)
    rows = [r for rs in answerable for r in rs]
    score = np.asarray([[r["read"], r["hand"]] for r in rows]) @ direction
    y = np.asarray([float(r["label"]) for r in rows])
    bias, scale = fit(np.column_stack([np.ones_like(score), score]), y, l2)
    w = scale * direction
    return {"bias": round(float(bias), 4), "reader": round(float(w[0]), 4),
            "hand": round(float(w[1]), 4), "top": float(READ), "gate_top": float(TOP)}  # fmt: skip


def gated(rows: list[dict[str, Any]]) -> bool:
    first = rows[0]
    return not first.get("named") and first.get("kind") not in UNGATED_KINDS


def fit_gate(qs: dict[tuple[str, str], list[dict[str, Any]]], max_refused: float) -> float:
    best = [max(r["read"] for r in rs) for rs in qs.values()
            if rs[0]["answerable"] and rs[0].get("retrieved") and gated(rs)]  # fmt: skip
    return round(float(np.quantile(best, max_refused)), 4)


def attach_absent(qs: dict[tuple[str, str], list[dict[str, Any]]], path: Path) -> None:
    """Each question's ``absent``: whether it names what no paper of its library holds
    (bench/train_reader.py absent)."""
    absent = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        absent[(rec["library"], rec["qid"])] = bool(rec["absent"])
    for q, rows in qs.items():
        rows[0]["absent"] = absent.get(q, False)


def fit_gate_absent(qs: dict[tuple[str, str], list[dict[str, Any]]], gate: float) -> float:
    """The gate of questions naming what no paper holds: the threshold, no lower than
    ``gate``, that best tells such questions of the library answered by its papers from
    such questions no paper answers (in-field and other fields'), by Youden's J (the share
    of the second refused less the share of the first)."""
    pos, neg = [], []
    for rs in qs.values():
        if not (rs[0].get("absent") and gated(rs)):
            continue
        best = max(r["read"] for r in rs)
        if rs[0]["answerable"] and rs[0].get("retrieved"):
            pos.append(best)
        elif not rs[0]["answerable"]:
            neg.append(best)
    if not pos or not neg:
        return gate
    p, n = np.asarray(pos), np.asarray(neg)
    cuts = np.unique(np.concatenate([p, n, [gate]]))
    cuts = cuts[cuts >= gate]
    j = [(n < t).mean() - (p < t).mean() for t in cuts]
    return round(float(cuts[int(np.argmax(j))]), 4)


def top1(rows_by_q: list[list[dict[str, Any]]], score: Any) -> float:
    hits = [max(rs, key=score)["label"] for rs in rows_by_q if any(r["label"] for r in rs)]
    return round(float(np.mean(hits)), 4) if hits else 0.0


def report(
    library: str, qs: dict[tuple[str, str], list[dict[str, Any]]], blend: dict[str, float],
    gate: float, gate_absent: float | None = None,
) -> dict[str, Any]:  # fmt: skip
    mine = [rs for (lib, _), rs in qs.items() if lib == library]
    answerable = [rs for rs in mine if rs[0]["answerable"]]

    def blended(r: dict[str, Any]) -> float:
        return blend["bias"] + blend["reader"] * r["read"] + blend["hand"] * r["hand"]

    def refused(rs: list[dict[str, Any]]) -> bool:
        held = gate_absent if rs[0].get("absent") and gate_absent is not None else gate
        return gated(rs) and max(r["read"] for r in rs) < held

    asked = [rs for rs in answerable if rs[0].get("retrieved")]
    unanswerable = [rs for rs in mine if rs[0]["type"] == "unanswerable"]
    other = [rs for rs in mine if rs[0]["type"].startswith("offtopic")]
    naming = [rs for rs in asked if rs[0].get("absent")]  # name what no paper holds
    naming_not = [rs for rs in unanswerable + other if rs[0].get("absent")]
    return {
        "top1_hand": top1(answerable, lambda r: r["hand"]),
        "top1_reader": top1(answerable, lambda r: r["read"]),
        "top1_blend": top1(answerable, blended),
        "answerable_refused": [sum(map(refused, asked)), len(asked)],
        "unanswerable_passed": [sum(not refused(rs) for rs in unanswerable), len(unanswerable)],
        "other_field_passed": [sum(not refused(rs) for rs in other), len(other)],
        "naming_absent": {
            "answerable_refused": [sum(map(refused, naming)), len(naming)],
            "unanswerable_passed": [sum(not refused(rs) for rs in naming_not), len(naming_not)],
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=ROOT / "bench/results/reader_pairs.jsonl")
    ap.add_argument("--reader", action="append", default=[], metavar="FOLD=DIR",
                    help="the reader trained without FOLD's libraries")  # fmt: skip
    ap.add_argument("--shipped", type=Path, default=ROOT / "rag/answer/reader",
                    help="the reader trained on every library (what ships)")  # fmt: skip
    ap.add_argument("--answer-params", type=Path,
                    default=ROOT / "bench/results/answer_params.json",
                    help="bench/fit_answers.py's output: a library it held out keeps the "
                    "ranker and refusal model fitted without it")  # fmt: skip
    ap.add_argument(
        "--absent",
        type=Path,
        default=ROOT / "bench/results/reader_absent.jsonl",
        help="bench/train_reader.py absent's output: fit a gate of its own for "
        "questions naming what no paper holds (none when the file is missing)",
    )
    ap.add_argument("--max-refused", type=float, default=0.01)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--write", action="store_true", help="save the shipped params.json")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/reader_params.json")
    args = ap.parse_args()
    readers = {k: Path(v) for k, v in (r.split("=", 1) for r in args.reader)}
    qs = questions(load_pairs(args.pairs))
    read_out_of_fold(qs, readers)
    naming = args.absent.exists()
    if naming:
        attach_absent(qs, args.absent)
    base = params.load()
    earlier = (
        json.loads(args.answer_params.read_text())["held_out"]
        if args.answer_params.exists()
        else {}
    )
    out: dict[str, Any] = {"folds": {k: list(v) for k, v in FOLDS.items()}, "held_out": {},
                           "max_refused": args.max_refused}  # fmt: skip
    for fold, libs in FOLDS.items():
        train = {q: rs for q, rs in qs.items() if fold_of(q[0]) != fold}
        blend = fit_blend(train, args.l2)
        gate = fit_gate(train, args.max_refused)
        gates = {"gate": gate} | ({"gate_absent": fit_gate_absent(train, gate)} if naming else {})
        for lib in libs:
            if not any(q[0] == lib for q in qs):
                continue
            own = earlier.get(lib, {}).get("params") or base.to_json()
            fitted = own | {"reader": blend | gates}
            rep = report(lib, qs, blend, gate, gates.get("gate_absent"))
            out["held_out"][lib] = {"params": fitted, "reader": str(readers[fold]),
                                    "fitted_on": [f for f in FOLDS if f != fold],
                                    "report": rep}  # fmt: skip
            print(f"{lib:<20} top1 hand {rep['top1_hand']:.3f} reader {rep['top1_reader']:.3f} "
                  f"blend {rep['top1_blend']:.3f}  refused {rep['answerable_refused']}  "
                  f"unanswerable passed {rep['unanswerable_passed']}  other-field passed "
                  f"{rep['other_field_passed']}  naming what no paper holds "
                  f"{rep['naming_absent']}")  # fmt: skip
    blend = fit_blend(qs, args.l2)
    gate = fit_gate(qs, args.max_refused)
    gates = {"gate": gate} | ({"gate_absent": fit_gate_absent(qs, gate)} if naming else {})
    out["shipped"] = {"reader": blend | gates}
    print(f"shipped: {out['shipped']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"saved {args.out}")
    if args.write:
        shipped = base.to_json() | {"reader": blend | gates}
        params.PATH.write_text(json.dumps(shipped, indent=1) + "\n")
        print(f"wrote {params.PATH}")


if __name__ == "__main__":
    main()
