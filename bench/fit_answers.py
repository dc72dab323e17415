"""Fit the answerer's learnt parameters on libraries of different fields; read each one held
out.

Two models are learnt (both logistic regressions, fitted by Newton's method with an L2
penalty that spares the bias):

- the sentence ranker (:mod:`rag.answer.rank`): for every answerable question with key facts
  (conversation turns asked with the conversation before them, as the engine asks them),
  each quotable sentence of the sources the engine gathers is a row of rank.FEATURES, a
  positive when it belongs to a gold paper and holds a key fact;
- the refusal model (:mod:`rag.answer.gather`): for every question whose answer is decided
  on evidence (it names no paper), the evidence's features, a positive when the question
  is the library's own and retrieval brings its gold paper among the sources (the library,
  as retrieved, can answer it), a negative when it is another field's (off-topic; questions
  of another library of the same field, PubMedQA's asked of SciFact, are left out of the
  fit: a good part of them the library does answer). Its threshold sits where at most
  ``--max-refused`` of the training libraries' positives are refused, in each library.
  Whatever the model says, a question whose best dense score stays below the library's
  noise floor is refused (MIN_MARGIN, fixed, not fitted; a list question, and one with a
  name the top paper holds, are exempt): the printed refusal rates count that too.

Leave one domain out: for each domain, both models are fitted on the other two and kept as
that domain's held-out parameters; the ranker's top-1 (does the best-scored sentence hold a
key fact) and the refusal rates are printed on the held-out domain, with the trade-off as its
threshold moves (answerable refused against other fields' questions answered, saved and
plotted in answer_refusal.png beside ``--out``), and beside it the same trade-off with the
refusal model fitted on the domain itself, in sample: the most its features can give there
(``refusal_ceiling``). Then both are fitted on all domains;
``--write`` saves those to rag/answer/params.json.

    python bench/fit_answers.py --pubmedqa ../shared/bench/pubmedqa \\
        --scifact ../shared/bench/scifact --write
    python bench/answers.py --pubmedqa ... --scifact ... --held-out bench/results/answer_params.json

Saves bench/results/answer_params.json.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import cited_as, gold_of, open_domain  # noqa: E402
from bench.domains import NAMES, Domain, domains  # noqa: E402
from rag.answer import params, rank  # noqa: E402
from rag.answer.extractive import MAX_SENTENCES, MAX_WORDS, sentence_features  # noqa: E402
from rag.answer.followup import Turn, rewrite_followup  # noqa: E402
from rag.answer.gather import Evidence, gather, held_to_floor  # noqa: E402
from rag.answer.question import analyse  # noqa: E402
from ui.app import App  # noqa: E402

EVIDENCE_FEATURES = ("margin", "coverage", "focus", "gap", "local", "sentence", "unknown_name")
WORD_COST = 0.001
# Below the library's noise floor a question is refused whatever the model says (rag.answer.
# gather): a fixed cut, not fitted: the floor itself says how close everyday questions come.
MIN_MARGIN = 0.0
FLOORS = [round(float(f), 2) for f in np.arange(-8.0, 0.01, 0.25)]


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _ask(app: App, question: str, history: list[Turn], k: int) -> tuple[Any, Any, str]:
    """(the analysed question, what gather found, the query) as the engine would ask."""
    engine = app.engine
    names = engine.names()
    query = rewrite_followup(question, history, names)
    asked = analyse(query, names, own=question)
    found = gather(asked, query, retriever=engine.retriever, names=names, filters=None, k=k,
                   min_relevance=-1.0, noise=engine.noise_floor())  # fmt: skip
    return asked, found, query


def collect(
    app: App,
    domain: Domain,
    offtopic: list[dict],
    k: int,
    extra: Callable[[str, Any], dict[str, float]] | None = None,
) -> dict[str, Any]:
    """The domain's ranker examples and refusal examples (nothing refused meanwhile: every
    question gets its sources, so that a positive can be told by its gold paper). Given
    ``extra`` (the query and what gather found -> named values), each refusal example keeps
    those too (candidate features: bench/refusal_study.py)."""
    ranker: list[dict[str, Any]] = []
    refusal: list[dict[str, Any]] = []
    engine = app.engine
    base = params.current()
    # No reader either: its gate would refuse, and its blend is fitted on the hand scores
    # (bench/fit_reader.py).
    params.use(replace(base, evidence={**base.evidence, "threshold": -1e9, "min_margin": -1e9},
                       reader={}))  # fmt: skip
    for item in domain.items:
        history: list[Turn] = []
        for n, turn in enumerate(item["turns"] if item["type"] == "conversation" else [item]):
            asked, found, query = _ask(app, turn["question"], history, k)
            gold = gold_of(turn)
            ids = {src.paper_id for src in found.sources} | {s.label for s in found.sources}
            if n == 0 and found.evidence is not None and set(gold) & ids:
                # The library answers it, as retrieved: its gold paper is among the sources.
                refusal.append({"x": _evidence_row(found.evidence), "y": 1.0,
                                "gated": held_to_floor(asked, found.evidence)})  # fmt: skip
                if extra is not None:
                    refusal[-1]["extra"] = extra(query, found)
            facts = turn.get("key_facts") or []
            if turn.get("answerable") and facts and gold and found.sources:
                pairs, x = sentence_features(asked, found.sources, engine.answer_embedder, query)
                labels = {s.paper_id: s.label for s in found.sources}
                holds = [
                    frozenset(
                        i
                        for i, f in enumerate(facts)
                        if (pid in gold or labels.get(pid) in gold)
                        and any(_norm(a) in _norm(text) for a in f)
                    )
                    for pid, text in pairs
                ]
                y = np.asarray([bool(h) for h in holds], dtype=np.float64)
                if y.any():
                    ranker.append({
                        "x": x.astype(np.float64), "y": y, "id": item["id"], "holds": holds,
                        "facts": len(facts), "words": [len(t.split()) for _, t in pairs],
                        "lead": [pid == found.sources[0].paper_id for pid, _ in pairs],
                    })  # fmt: skip
            history += [
                Turn("user", turn["question"]),
                Turn("assistant", "...", cited_as(app, gold_of(turn))),
            ]
    for item in offtopic:
        asked, found, query = _ask(app, item["question"], [], k)
        if found.evidence is not None:
            refusal.append({"x": _evidence_row(found.evidence), "y": 0.0, "type": item["type"],
                            "other_field": item["field"] != domain.field,
                            "gated": held_to_floor(asked, found.evidence)})  # fmt: skip
            if extra is not None:
                refusal[-1]["extra"] = extra(query, found)
    params.use(base)
    return {"ranker": ranker, "refusal": refusal}


def _evidence_row(ev: Evidence) -> np.ndarray:
    f = ev.features()
    return np.asarray([1.0, *(f[k] for k in EVIDENCE_FEATURES)], dtype=np.float64)


def fit(x: np.ndarray, y: np.ndarray, l2: float, weight: np.ndarray | None = None) -> np.ndarray:
    """Logistic regression by Newton's method; the first column is the bias (not shrunk)."""
    w = np.zeros(x.shape[1])
    sw = np.ones(len(y)) if weight is None else weight
    reg = np.full(x.shape[1], l2)
    reg[0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (sw * (p - y)) + reg * w
        hess = (x * (sw * p * (1 - p))[:, None]).T @ x + np.diag(reg + 1e-6)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def top1(data: list[dict[str, Any]], w: np.ndarray) -> float:
    hits = [float(d["y"][int(np.argmax(d["x"] @ w))]) for d in data]
    return round(float(np.mean(hits)), 4) if hits else 0.0


def fit_ranker(data: list[dict[str, Any]], l2: float) -> dict[str, float]:
    x = np.concatenate([d["x"] for d in data])
    y = np.concatenate([d["y"] for d in data])
    w = fit(x, y, l2)
    return {f: round(float(v), 3) for f, v in zip(rank.FEATURES, w, strict=True)}


def prose_facts(data: list[dict[str, Any]], w: np.ndarray, floor: float) -> tuple[float, float]:
    """(key facts held, words) per question of a prose answer as the extractive answerer
    composes it (rag.answer.extractive: the best sentence, the lead paper's best, then more
    while their score is at least ``floor``, at most MAX_SENTENCES and MAX_WORDS)."""
    facts = words = 0.0
    for d in data:
        scores = d["x"] @ w
        order = [int(i) for i in np.argsort(-scores, kind="stable")]
        picked = [order[0]]
        if not d["lead"][order[0]]:
            lead = next((i for i in order if d["lead"][i]), None)
            if lead is not None:
                picked.append(lead)
        for i in order:
            if len(picked) >= MAX_SENTENCES or scores[i] < floor:
                break
            if i not in picked and sum(d["words"][j] for j in picked) + d["words"][i] <= MAX_WORDS:
                picked.append(i)
        facts += len(set().union(*(d["holds"][i] for i in picked))) / d["facts"]
        words += sum(d["words"][i] for i in picked)
    return facts / len(data), words / len(data)


def fit_floor(data: list[dict[str, Any]], w: np.ndarray, word_cost: float = WORD_COST) -> float:
    """The score a further sentence needs to be added: the floor with the most key facts
    per answer less WORD_COST for each word (a sentence of ~25 words must add 0.025 of a
    fact on average), on these questions."""
    values = [prose_facts(data, w, f) for f in FLOORS]
    best = max(range(len(FLOORS)), key=lambda i: values[i][0] - word_cost * values[i][1])
    return FLOORS[best]


def fit_balanced(
    groups: list[list[dict[str, Any]]],
    row: Callable[[dict[str, Any]], np.ndarray],
    l2: float,
    max_refused: float,
) -> tuple[np.ndarray, float]:
    """Refusal weights over ``row`` of each example (its first column the bias) on these
    libraries' examples, each library and class weighed alike (other fields' questions only
    as negatives), and the threshold that refuses at most ``max_refused`` of every library's
    own questions."""
    rows, ys, ws = [], [], []
    for examples in groups:
        for label in (0.0, 1.0):
            group = [e for e in examples if e["y"] == label and (label or e["other_field"])]
            for e in group:
                rows.append(row(e))
                ys.append(label)
                ws.append(1.0 / len(group))
    x, y, sw = np.stack(rows), np.asarray(ys), np.asarray(ws) * len(ys) / (2 * len(groups))
    w = fit(x, y, l2, sw)
    threshold = float("inf")
    for examples in groups:
        scores = np.sort([float(row(e) @ w) for e in examples if e["y"] == 1.0])
        if len(scores):
            cut = scores[int(np.floor(max_refused * len(scores)))]
            threshold = min(threshold, cut - 1e-6)
    return w, threshold


def fit_refusal(by_domain: dict[str, list[dict[str, Any]]], l2: float, max_refused: float) -> dict:
    """The refusal model on these domains' examples, each domain and class weighed alike;
    its threshold refuses at most ``max_refused`` of the answerable questions of every
    training domain."""
    w, threshold = fit_balanced(list(by_domain.values()), lambda e: e["x"], l2, max_refused)
    weights = {"bias": round(float(w[0]), 3)}
    weights |= {f: round(float(v), 3) for f, v in zip(EVIDENCE_FEATURES, w[1:], strict=True)}
    return weights | {"threshold": round(threshold, 3), "min_margin": MIN_MARGIN}


def gated_out(e: dict[str, Any], min_margin: float = MIN_MARGIN) -> bool:
    """Whether the noise-floor gate refuses the example whatever the model says: it is held
    to the floor (rag.answer.gather.held_to_floor) and its margin stays below it."""
    return bool(e.get("gated", True)) and e["x"][1 + EVIDENCE_FEATURES.index("margin")] < min_margin


def refusal_rates(examples: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, Any]:
    w = np.asarray([weights["bias"], *(weights[f] for f in EVIDENCE_FEATURES)])
    t, floor = weights["threshold"], weights["min_margin"]

    def answered(e: dict[str, Any]) -> bool:
        return float(e["x"] @ w) > t and not gated_out(e, floor)

    ans = [answered(e) for e in examples if e["y"] == 1.0]
    out = {"answerable_refused": f"{ans.count(False)}/{len(ans)}"}
    for kind in sorted({e["type"] for e in examples if e["y"] == 0.0}):
        off = [answered(e) for e in examples if e["y"] == 0.0 and e["type"] == kind]
        out[f"{kind} answered"] = f"{sum(off)}/{len(off)}"
    return out


REFUSED_STEPS = [round(float(q), 3) for q in np.arange(0.0, 0.1001, 0.005)]


def refusing(own: np.ndarray, share: float) -> float:
    """The threshold that refuses ``share`` of a library's own questions (``own``: their
    scores, sorted; a question is refused at or below the threshold)."""
    return float(own[min(int(np.floor(share * len(own))), len(own) - 1)]) - 1e-9


def refusal_curve(examples: list[dict[str, Any]], weights: dict[str, float]) -> dict[str, Any]:
    """The held-out trade-off, the weights kept and the threshold moved: at the thresholds
    that refuse a share of REFUSED_STEPS of the library's answerable questions (its own, gold
    paper retrieved), [answerable refused, other fields' questions answered], and the same
    pair at the fitted threshold. The noise-floor gate stands throughout."""
    w = np.asarray([weights["bias"], *(weights[f] for f in EVIDENCE_FEATURES)])

    def score(e: dict[str, Any]) -> float:  # -inf: refused by the gate whatever the threshold
        return float("-inf") if gated_out(e, weights["min_margin"]) else float(e["x"] @ w)

    pos = np.sort([score(e) for e in examples if e["y"] == 1.0])
    off = np.asarray([score(e) for e in examples if e["y"] == 0.0 and e.get("other_field")])
    if not len(pos) or not len(off):
        return {"curve": [], "fitted": []}

    def pair(t: float) -> list[float]:
        return [round(float(np.mean(pos <= t)), 4), round(float(np.mean(off > t)), 4)]

    cuts = [refusing(pos, q) for q in REFUSED_STEPS]
    return {"curve": [pair(t) for t in cuts], "fitted": pair(weights["threshold"])}


def refusal_ceiling(examples: list[dict[str, Any]], l2: float, max_refused: float) -> dict:
    """The most a library's own examples could give: :func:`refusal_curve` with the refusal
    model fitted on them and read on them (in sample, so optimistic). Where even this curve
    misses a target pair, no weights or threshold over these features meet it there."""
    return refusal_curve(examples, fit_refusal({"self": examples}, l2, max_refused))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pubmedqa", type=Path, required=True)
    ap.add_argument("--scifact", type=Path, required=True)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--max-refused", type=float, default=0.01)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--write", action="store_true", help="save the all-domain fit as the "
                    "product's rag/answer/params.json")  # fmt: skip
    ap.add_argument("--examples", type=Path, help="keep the collected examples in this "
                    "file, and read them from it when it exists (refit, no asking)")  # fmt: skip
    ap.add_argument("--word-cost", type=float, default=WORD_COST)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/answer_params.json")
    args = ap.parse_args()

    every = domains(list(NAMES), pubmedqa=args.pubmedqa, scifact=args.scifact)
    data: dict[str, dict[str, Any]] = {}
    if args.examples and args.examples.exists():
        data = pickle.loads(args.examples.read_bytes())
    for name, domain in every.items():
        if name not in data:
            app = open_domain(domain, args.index_dir)
            off = [q for other in every.values() if other.name != name for q in other.offtopic()]
            data[name] = collect(app, domain, off, args.k)
        print(f"{name}: {len(data[name]['ranker'])} ranker questions, "
              f"{len(data[name]['refusal'])} refusal examples", flush=True)  # fmt: skip
    if args.examples:
        args.examples.write_bytes(pickle.dumps(data))

    base = params.load()
    result: dict[str, Any] = {"held_out": {}, "l2": args.l2, "max_refused": args.max_refused,
                              "length_curve": {}}  # fmt: skip
    dense_only = np.zeros(len(rank.FEATURES))
    dense_only[rank.FEATURES.index("dense")] = 1.0
    for held in every:
        train = [n for n in every if n != held]
        ranker = fit_ranker([d for n in train for d in data[n]["ranker"]], args.l2)
        refusal = fit_refusal({n: data[n]["refusal"] for n in train}, args.l2, args.max_refused)
        w = np.asarray([ranker[f] for f in rank.FEATURES])
        floor = fit_floor([d for n in train for d in data[n]["ranker"]], w, args.word_cost)
        prose = {"floor": floor}
        fitted = replace(base, ranker=ranker, evidence=refusal, prose=prose, fitted_on=tuple(train))
        result["length_curve"][held] = [
            [floor_, *prose_facts(data[held]["ranker"], w, floor_)] for floor_ in FLOORS
        ]
        result["held_out"][held] = {
            "fitted_on": train,
            "params": fitted.to_json(),
            "ranker_top1": top1(data[held]["ranker"], w),
            "prose_facts_words": prose_facts(data[held]["ranker"], w, floor),
            "dense_only_top1": top1(data[held]["ranker"], dense_only),
            "refusal": refusal_rates(data[held]["refusal"], refusal),
            "refusal_curve": refusal_curve(data[held]["refusal"], refusal),
            "refusal_ceiling": refusal_ceiling(data[held]["refusal"], args.l2, args.max_refused),
        }
        print(f"held out {held} (fitted on {', '.join(train)}): ranker top-1 "
              f"{result['held_out'][held]['ranker_top1']}, floor {floor}, prose facts/words "
              f"{result['held_out'][held]['prose_facts_words']} (dense only "
              f"{result['held_out'][held]['dense_only_top1']}), refusal "
              f"{result['held_out'][held]['refusal']}")  # fmt: skip
    ranker = fit_ranker([d for n in every for d in data[n]["ranker"]], args.l2)
    refusal = fit_refusal({n: data[n]["refusal"] for n in every}, args.l2, args.max_refused)
    w = np.asarray([ranker[f] for f in rank.FEATURES])
    prose = {"floor": fit_floor([d for n in every for d in data[n]["ranker"]], w, args.word_cost)}
    final = replace(base, ranker=ranker, evidence=refusal, prose=prose, fitted_on=tuple(every))
    result["all"] = final.to_json()
    print("fitted on all:", json.dumps({"evidence": refusal}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.write:
        params.PATH.write_text(json.dumps(final.to_json(), indent=1) + "\n")
        print(f"wrote {params.PATH}")
    print(f"saved {args.out}")
    plot_length(result, args.out.with_name("answer_length.png"))
    plot_refusal(result, args.out.with_name("answer_refusal.png"))


def plot_length(result: dict[str, Any], path: Path) -> None:
    """Key facts held against words per answer as the floor moves, each domain held out,
    the fitted floor marked (needs matplotlib, the bench extra)."""
    plt = _pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, curve in result["length_curve"].items():
        words = [c[2] for c in curve]
        facts = [100 * c[1] for c in curve]
        line = ax.plot(words, facts, label=f"{name} (held out)")[0]
        chosen = result["held_out"][name]["params"]["prose"]["floor"]
        at = next(c for c in curve if c[0] == chosen)
        ax.plot([at[2]], [100 * at[1]], "o", color=line.get_color())
    ax.set_xlabel("words per answer (mean)")
    ax.set_ylabel("key facts held by the quoted sentences (%)")
    ax.set_title("Longer extractive answers hold more facts; dots: the fitted floor")
    _save(fig, ax, path)


def plot_refusal(result: dict[str, Any], path: Path) -> None:
    """Each domain held out: other fields' questions answered against its own answerable
    questions refused, as the threshold moves (the weights fitted on the other domains);
    the issue's target is the box at 1% and 1%, the fitted threshold a dot. Dashed: the
    same with the weights fitted on the domain itself (its ceiling)."""
    plt = _pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, held in result["held_out"].items():
        curve, fitted = held["refusal_curve"]["curve"], held["refusal_curve"]["fitted"]
        if not curve:
            continue
        line = ax.plot([100 * c[0] for c in curve], [100 * c[1] for c in curve],
                       label=f"{name} (held out)")[0]  # fmt: skip
        ax.plot([100 * fitted[0]], [100 * fitted[1]], "o", color=line.get_color())
        ceiling = held.get("refusal_ceiling", {}).get("curve")
        if ceiling:
            ax.plot([100 * c[0] for c in ceiling], [100 * c[1] for c in ceiling], "--",
                    color=line.get_color(), label=f"{name} (fitted on itself)")  # fmt: skip
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, linestyle="--", color="grey"))
    ax.set_xlabel("answerable questions refused (%)")
    ax.set_ylabel("other fields' questions answered (%)")
    ax.set_title("Refusal held out: the threshold moved; dots: the fitted one")
    _save(fig, ax, path)


def _pyplot() -> Any:
    """matplotlib's pyplot drawing to files; None (and says so) without the bench extra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot")
        return None
    return plt


def _save(fig: Any, ax: Any, path: Path) -> None:
    """A plot's grid and legend, saved to ``path``."""
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"saved {path}")


if __name__ == "__main__":
    main()
