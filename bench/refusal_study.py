"""Which evidence could tell a library's own questions from other fields': candidate
features for the refusal model (rag.answer.gather), read leaving one library out and within
each library.

For every library (bench.domains) the refusal examples of bench/fit_answers.py are collected
(its own questions whose gold paper retrieval brings; other fields' questions), each with the
product's evidence and candidate features of three families:

- agreement: whether dense and BM25 retrieval agree (the same paper first, the overlap of
  their top 5, the answer's top paper in both top 3), BM25's best score over the query's
  summed idf, and its gap to the second (query-performance predictors);
- technical: how many of the question's technical words the top paper holds, a word being
  technical when it is rare in English (wordfreq's Zipf frequency below 3.5) or when tiktoken
  splits it into two tokens or more;
- static: a second embedder of another kind (WordLlama's bundled l2_supercat, 256 dims): the
  question's best cosine to a paper, to the top paper and to the top paper's nearest
  sentence, each less the library's noise floor for it (rag.answer.probes).

For the product's features alone, with each family, and with all of them:

- held out: fitted on the other two libraries (each library and class weighed alike, the
  threshold where 1% of their own questions are refused, as bench/fit_answers.py does):
  answerable refused and other fields' questions answered at that threshold, and other
  fields' answered when the threshold refuses 1% and 2% of the library's own questions;
- within: fitted on the library itself, 5-fold cross-validated (each fold read with the
  model fitted on the other four): other fields' answered at 1% and 2% refused.

Held out says what carries from one library to another; within says what the features
could give if a library's own labelled questions were at hand. Every reading keeps the
noise-floor gate (a question held to the floor and below it is refused whatever the model).

    python bench/refusal_study.py --pubmedqa ../shared/bench/pubmedqa \\
        --scifact ../shared/bench/scifact

wordfreq and WordLlama come with the bench extra (pip install -e '.[bench]'); a family
whose package is missing is left out and says so. Saves bench/results/refusal_study.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import open_domain  # noqa: E402
from bench.domains import NAMES, domains  # noqa: E402
from bench.fit_answers import collect, fit_balanced, gated_out, refusing  # noqa: E402
from rag.answer.probes import NOISE_QUANTILE, PROBES  # noqa: E402
from rag.sentences import split_sentences  # noqa: E402
from rag.tokens import get_encoding  # noqa: E402
from ui.app import App  # noqa: E402

Features = Callable[[str, Any], dict[str, float]]  # (query, what gather found) -> values
ZIPF_TECHNICAL = 3.5  # below this a word is rare in English (wordfreq: "the" is 7.7)
_WORD = re.compile(r"[^\W\d_][\w-]*")


def agreement(app: App) -> Features:
    """Whether the two retrievers agree on the question, and how clearly BM25 finds it."""
    retriever = app.engine.retriever
    index = retriever.index

    def values(query: str, found: Any) -> dict[str, float]:
        dense = [h.paper.id for h in retriever.search(query, k=5, mode="dense", passages=0)]
        lexical = retriever.search(query, k=5, mode="lexical", passages=0)
        ids = [h.paper.id for h in lexical]
        scores = [h.lexical or 0.0 for h in lexical]
        top = found.sources[0].paper_id
        df = index.document_frequency(set(index.analyze_one(query)))
        n = max(len(index), 1)
        idf = sum(math.log(1 + n / (c + 0.5)) for c in df.values()) or 1.0
        return {
            "agree_first": float(bool(dense) and bool(ids) and dense[0] == ids[0]),
            "agree_top5": len(set(dense) & set(ids)) / 5,
            "top_in_both": float(top in dense[:3] and top in ids[:3]),
            "bm25_over_idf": scores[0] / idf if scores else 0.0,
            "bm25_gap": (scores[0] - scores[1]) / scores[0]
            if len(scores) > 1 and scores[0]
            else 0.0,
        }

    return values


def technical(app: App) -> Features:
    """How many of the question's technical words (rare in English, or split by tiktoken)
    the top paper holds, each count capped at 3."""
    from wordfreq import zipf_frequency

    retriever = app.engine.retriever
    index = retriever.index
    encoding = get_encoding("cl100k_base")

    def values(query: str, found: Any) -> dict[str, float]:
        top = found.sources[0]
        have = set(index.analyze_one(f"{top.name} {top.abstract}"))
        rare, split = set(), set()
        for word in _WORD.findall(query):
            keys = index.analyze_one(word)
            if not keys:
                continue
            key = max(keys, key=len)
            if zipf_frequency(word.casefold(), "en") < ZIPF_TECHNICAL:
                rare.add(key)
            if tokens_of(word, encoding) >= 2:
                split.add(key)
        return {
            "rare_words_held": float(min(len(rare & have), 3)),
            "split_words_held": float(min(len(split & have), 3)),
        }

    return values


def tokens_of(word: str, encoding: Any) -> int:
    """How many tokens ``word`` takes in running text (lower case, after a space)."""
    return len(encoding.encode(" " + word.casefold()))


def static(app: App) -> Features:
    """Cosines of WordLlama (its bundled weights; no download) less the library's noise
    floor for it, read as rag.answer.probes reads the dense one."""
    import wordllama
    from wordllama import WordLlama

    logging.getLogger("wordllama").setLevel(logging.WARNING)
    # The tokenizer ships in the package but is looked for under cache_dir/tokenizers.
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    engine = app.engine
    _, rows = engine.papers()
    papers = engine.store.papers([r.id for r in rows])
    ids = [p.id for p in papers]
    where = {pid: i for i, pid in enumerate(ids)}
    vectors = model.embed([f"{p.title}. {p.abstract}" for p in papers], norm=True)
    floor = float(np.percentile((model.embed(list(PROBES), norm=True) @ vectors.T).max(1),
                                NOISE_QUANTILE))  # fmt: skip

    def values(query: str, found: Any) -> dict[str, float]:
        q = model.embed([query], norm=True)[0]
        cosines = vectors @ q
        top = found.sources[0]
        sentences = split_sentences(top.abstract) or [top.abstract or top.name]
        nearest = float(np.max(model.embed(sentences, norm=True) @ q))
        at = where.get(top.paper_id)
        return {
            "static_best": float(cosines.max()) - floor,
            "static_top": (float(cosines[at]) if at is not None else float(cosines.max())) - floor,
            "static_sentence": nearest - floor,
        }

    return values


# Each family: what makes its features for a library, and the names of those features.
FAMILIES: dict[str, tuple[Callable[[App], Features], tuple[str, ...]]] = {
    "agreement": (
        agreement,
        ("agree_first", "agree_top5", "top_in_both", "bm25_over_idf", "bm25_gap"),
    ),
    "technical": (technical, ("rare_words_held", "split_words_held")),
    "static": (static, ("static_best", "static_top", "static_sentence")),
}


def _row(e: dict[str, Any], keys: Sequence[str]) -> np.ndarray:
    return np.concatenate([e["x"], [e["extra"][k] for k in keys]])


def _score(e: dict[str, Any], w: np.ndarray, keys: Sequence[str]) -> float:
    """The model's score, -inf for a question the noise-floor gate refuses."""
    return float("-inf") if gated_out(e) else float(_row(e, keys) @ w)


def fit_on(groups: Sequence[list[dict[str, Any]]], keys: Sequence[str]) -> tuple[np.ndarray, float]:
    """The refusal model over the evidence and ``keys``, fitted as bench/fit_answers.py
    fits the product's (threshold at 1% of every library's own questions refused)."""
    return fit_balanced(list(groups), lambda e: _row(e, keys), l2=1.0, max_refused=0.01)


def answered_at(own: np.ndarray, other: np.ndarray, refused: float) -> int:
    """How many of ``other`` score above the threshold that refuses ``refused`` of ``own``
    (-inf: refused by the gate; when the gate alone refuses more, every other one it lets
    through is answered)."""
    return int(np.sum(other > refusing(np.sort(own), refused)))


def _split(examples: list[dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    own = [e for e in examples if e["y"] == 1.0]
    other = [e for e in examples if e["y"] == 0.0 and e.get("other_field")]
    return own, other


def held_out(data: dict[str, list[dict[str, Any]]], keys: Sequence[str]) -> dict[str, Any]:
    """Each library read with the model fitted on the others."""
    out = {}
    for name, examples in data.items():
        w, threshold = fit_on([data[n] for n in data if n != name], keys)
        own, other = _split(examples)
        s_own = np.asarray([_score(e, w, keys) for e in own])
        s_other = np.asarray([_score(e, w, keys) for e in other])
        out[name] = {
            "refused": f"{int(np.sum(s_own <= threshold))}/{len(own)}",
            "other_answered": f"{int(np.sum(s_other > threshold))}/{len(other)}",
            "other_answered_at_1pct": answered_at(s_own, s_other, 0.01),
            "other_answered_at_2pct": answered_at(s_own, s_other, 0.02),
        }
    return out


def within(examples: list[dict[str, Any]], keys: Sequence[str], folds: int = 5,
           seed: int = 0) -> dict[str, Any]:  # fmt: skip
    """The library's own model, cross-validated: each fold read with the model fitted on
    the others."""
    order = np.random.default_rng(seed).permutation(len(examples))
    s_own: list[float] = []
    s_other: list[float] = []
    for part in np.array_split(order, folds):
        test = set(part.tolist())
        w, _ = fit_on([[e for i, e in enumerate(examples) if i not in test]], keys)
        for i in part:
            e = examples[i]
            if e["y"] == 1.0:
                s_own.append(_score(e, w, keys))
            elif e.get("other_field"):
                s_other.append(_score(e, w, keys))
    own, other = np.asarray(s_own), np.asarray(s_other)
    return {
        "other_answered_at_1pct": f"{answered_at(own, other, 0.01)}/{len(other)}",
        "other_answered_at_2pct": f"{answered_at(own, other, 0.02)}/{len(other)}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pubmedqa", type=Path, required=True)
    ap.add_argument("--scifact", type=Path, required=True)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/refusal_study.json")
    args = ap.parse_args()

    started = time.perf_counter()
    every = domains(list(NAMES), pubmedqa=args.pubmedqa, scifact=args.scifact)
    data: dict[str, list[dict[str, Any]]] = {}
    available: dict[str, list[str]] = {}
    for name, domain in every.items():
        app = open_domain(domain, args.index_dir)
        makers: dict[str, Features] = {}
        for family, (make, _) in FAMILIES.items():
            try:
                makers[family] = make(app)
            except ImportError as exc:
                print(f"{family}: left out ({exc.name} is missing: pip install -e '.[bench]')")

        def extra(query: str, found: Any, makers: dict[str, Features] = makers) -> dict[str, float]:
            return {k: v for f in makers.values() for k, v in f(query, found).items()}

        off = [q for other in every.values() if other.name != name for q in other.offtopic()]
        data[name] = collect(app, domain, off, args.k, extra)["refusal"]
        available[name] = list(makers)
        print(f"{name}: {len(data[name])} refusal examples", flush=True)
    families = [f for f in FAMILIES if all(f in a for a in available.values())]
    variants = {"evidence only": [], **{f: list(FAMILIES[f][1]) for f in families}}
    variants["all"] = [k for f in families for k in FAMILIES[f][1]]
    result: dict[str, Any] = {"variants": {}, "keys": variants}
    for variant, keys in variants.items():
        result["variants"][variant] = {
            "held_out": held_out(data, keys),
            "within": {name: within(examples, keys) for name, examples in data.items()},
        }
        for name in data:
            h = result["variants"][variant]["held_out"][name]
            c = result["variants"][variant]["within"][name]
            print(f"{variant:14s} {name:9s} held out: refused {h['refused']}, other fields "
                  f"answered {h['other_answered']} ({h['other_answered_at_1pct']} at 1% "
                  f"refused, {h['other_answered_at_2pct']} at 2%); within: "
                  f"{c['other_answered_at_1pct']} at 1%, "
                  f"{c['other_answered_at_2pct']} at 2%")  # fmt: skip
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
