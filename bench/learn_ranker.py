"""Learn the sentence-ranking weights of rag/answer/rank.py from a dev set with key facts.

For every answerable question with key facts (single questions and conversation turns, a
follow-up carrying the conversation's subject), the question is retrieved as the engine
would; each sentence of the retrieved abstracts becomes a candidate with rank.features(),
a positive when it belongs to a gold paper and contains one of the question's key facts.
A logistic regression (L2) is fitted by Newton's method. For the weights learnt on each
half of the questions (ids hashed as in bench/answers.py) and scored on the other, it
reports how often the top-ranked sentence is a positive, against MiniLM similarity alone;
then it prints the weights learnt on all questions, to paste into rank.WEIGHTS.

    python bench/learn_ranker.py --corpus data/sample --questions bench/data/answers_dev.jsonl

Saves bench/results/ranker.json (with the weights learnt on each half, which
``bench/answers.py --weights bench/results/ranker.json a`` uses to read the other half).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import half, load_items  # noqa: E402
from rag.answer import rank  # noqa: E402
from rag.answer.extractive import sentence_vectors_for, stored_rows  # noqa: E402
from rag.answer.followup import Turn, rewrite_followup  # noqa: E402
from rag.answer.question import Names, analyse  # noqa: E402
from rag.index.layout import sentence_vectors  # noqa: E402
from rag.sentences import split_sentences  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from ui.app import App  # noqa: E402


def examples(app: App, items: list[dict], k: int) -> list[dict[str, Any]]:
    """Per question: its features, labels and half."""
    engine = app.engine
    catalogue = engine.retriever.index.catalogue
    names = Names(catalogue[p] for p in catalogue)
    out = []
    for item in items:
        history: list[Turn] = []
        for turn in item["turns"] if item["type"] == "conversation" else [item]:
            example = _example(engine, names, turn, history, k)
            if example is not None:
                out.append(example | {"id": item["id"], "half": half(item["id"])})
            gold = turn.get("gold") or []
            cited = tuple([gold] if isinstance(gold, str) else gold)
            history += [Turn("user", turn["question"]), Turn("assistant", "...", cited)]
    return out


def _example(
    engine: Any, names: Names, turn: dict, history: list[Turn], k: int
) -> dict[str, Any] | None:
    """One question's candidates, features and labels, asked as the engine would (a follow-up
    carries the conversation's subject)."""
    facts = turn.get("key_facts") or []
    gold = turn.get("gold") or []
    gold = [gold] if isinstance(gold, str) else gold
    if not (turn.get("answerable") and facts and gold):
        return None
    query = rewrite_followup(turn["question"], history, names)
    question = analyse(query, names)
    hits = engine.search(query, k=k)
    firsts = engine.store.first_chunks([h.paper.id for h in hits])
    candidates, labels, stored = [], [], []
    for r, hit in enumerate(hits, 1):
        first = firsts.get(hit.paper.id, {})
        sentences = split_sentences(str(first.get("abstract", "")))
        rows = sentence_vectors(first)
        stored += stored_rows(rows, len(sentences))
        for i, s in enumerate(sentences):
            candidates.append(
                rank.Candidate(s, hit.paper.id, hit.paper.label, i, len(sentences), r)
            )
            text = s.casefold()
            labels.append(
                hit.paper.label in gold and any(a.casefold() in text for f in facts for a in f)
            )
    if not any(labels):
        return None  # retrieval missed the gold paper: nothing to learn about ranking
    qvec = engine.answer_embedder.embed_query(query)
    # The vectors answers use: stored at ingest (pooled in context), else embedded alone.
    vecs = sentence_vectors_for([c.text for c in candidates], stored, engine.answer_embedder)
    x = rank.features(question, candidates, vecs @ qvec)
    return {"x": x, "y": np.asarray(labels, dtype=np.float32)}


def fit(data: list[dict[str, Any]], l2: float, iterations: int = 50) -> np.ndarray:
    x = np.concatenate([d["x"] for d in data]).astype(np.float64)
    y = np.concatenate([d["y"] for d in data]).astype(np.float64)
    w = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[0] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + reg * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(reg + 1e-6)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def top_hit(data: list[dict[str, Any]], w: np.ndarray, n: int = 1) -> float:
    hits = [float(d["y"][np.argsort(-(d["x"] @ w), kind="stable")[:n]].max()) for d in data]
    return round(float(np.mean(hits)), 4) if hits else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", default=[ROOT / "data" / "sample"])
    ap.add_argument("--questions", type=Path, nargs="+",
                    default=[ROOT / "bench/data/answers_dev.jsonl"])  # fmt: skip
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/ranker.json")
    args = ap.parse_args()
    os.environ["PAPERCHAT_DATA_DIR"] = tempfile.mkdtemp(prefix="paperchat-ranker-")
    app = App.from_settings(load_settings())
    app.ingester.ingest(args.corpus)
    items = [i for p in args.questions for i in load_items(p)]
    data = examples(app, items, args.k)
    dense_only = np.zeros(len(rank.FEATURES))
    dense_only[rank.FEATURES.index("dense")] = 1.0
    result: dict[str, Any] = {"questions": len(data), "l2": args.l2, "halves": {}}
    for train, test in (("a", "b"), ("b", "a")):
        w = fit([d for d in data if d["half"] == train], args.l2)
        held = [d for d in data if d["half"] == test]
        result["halves"][f"learn {train}, score {test}"] = {
            "questions": len(held),
            "top1": top_hit(held, w),
            "top2": top_hit(held, w, 2),
            "dense_only_top1": top_hit(held, dense_only),
            "dense_only_top2": top_hit(held, dense_only, 2),
            "weights": {f: round(float(v), 3) for f, v in zip(rank.FEATURES, w, strict=True)},
        }
    w = fit(data, args.l2)
    result["weights"] = {f: round(float(v), 3) for f, v in zip(rank.FEATURES, w, strict=True)}
    result["all"] = {"top1": top_hit(data, w), "dense_only_top1": top_hit(data, dense_only)}
    shown = {h: {k: v for k, v in r.items() if k != "weights"} for h, r in result["halves"].items()}
    print(json.dumps({**result, "halves": shown, "weights": "below"}, indent=2))
    print("WEIGHTS = " + json.dumps(result["weights"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
