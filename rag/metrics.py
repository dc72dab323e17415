"""Retrieval metrics computed the standard way (trec_eval / BEIR semantics).

``qrels``: {query_id: {doc_id: relevance}} with graded relevance as given (> 0 is
relevant). ``run``: {query_id: [doc_id, ...]} best first. Queries without a positive qrel
are left out of the averages, as trec_eval does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["evaluate", "mrr_at", "ndcg_at", "recall_at"]


def ndcg_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    """nDCG@k with gain = relevance and a log2(rank + 1) discount."""
    dcg = sum(rels.get(doc, 0.0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(rank + 2) for rank, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    relevant = {doc for doc, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    for rank, doc in enumerate(ranked[:k]):
        if rels.get(doc, 0) > 0:
            return 1.0 / (rank + 1)
    return 0.0


def evaluate(
    run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]
) -> dict[str, float]:
    """Mean nDCG@10, recall@10, recall@100 and MRR@10 over the judged queries in ``qrels``.

    A judged query missing from ``run`` scores 0 (it retrieved nothing)."""
    judged = [q for q, rels in qrels.items() if any(r > 0 for r in rels.values())]
    if not judged:
        raise ValueError("no query has a relevant document in the qrels")
    totals = {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    for q in judged:
        ranked, rels = run.get(q, ()), qrels[q]
        totals["ndcg@10"] += ndcg_at(ranked, rels, 10)
        totals["recall@10"] += recall_at(ranked, rels, 10)
        totals["recall@100"] += recall_at(ranked, rels, 100)
        totals["mrr@10"] += mrr_at(ranked, rels, 10)
    return {name: value / len(judged) for name, value in totals.items()}
