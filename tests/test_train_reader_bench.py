"""bench/train_reader.py's batches and listwise loss, on made-up pairs: a question's pairs are
never split across batches (the loss compares them), and the loss falls as a question's
positive rises above its negatives."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.train_reader import _batches, _listwise, _refuse


def _pairs(spec: dict[str, tuple[int, int]]) -> list[dict[str, Any]]:
    """``spec``: question id -> (positives, negatives); each text's length its question's."""
    out = []
    for n, (qid, (pos, neg)) in enumerate(spec.items()):
        out += [{"library": "lib", "qid": qid, "text": "w " * (n + 1), "label": int(i < pos)}
                for i in range(pos + neg)]  # fmt: skip
    return out


def test_batches_hold_whole_questions_up_to_the_size_and_every_pair_once() -> None:
    pairs = _pairs({"a": (1, 8), "b": (2, 8), "c": (0, 2), "d": (1, 3), "e": (0, 2), "f": (1, 12)})
    batches = _batches(pairs, 20, random.Random(0), by_question=True)
    assert sorted(i for b in batches for i in b) == list(range(len(pairs)))
    for b in batches:
        asked = {pairs[i]["qid"] for i in b}
        # a question is wholly in its batch
        assert all(sum(p["qid"] == q for p in pairs) == sum(pairs[i]["qid"] == q for i in b)
                   for q in asked)  # fmt: skip
        assert len(b) <= 20 or len(asked) == 1  # only a question larger than a batch fills one
    pointwise = _batches(pairs, 4, random.Random(0), by_question=False)
    assert [len(b) for b in sorted(pointwise, key=len)][-1] == 4
    assert sorted(i for b in pointwise for i in b) == list(range(len(pairs)))


def test_the_listwise_loss_falls_as_the_positive_leads_and_skips_questions_without_one() -> None:
    torch = pytest.importorskip("torch")  # the [train] extra
    batch = _pairs({"a": (1, 2), "u": (0, 2)})
    labels = torch.tensor([float(p["label"]) for p in batch])
    behind = _listwise(torch.tensor([0.0, 2.0, 2.0, 9.0, 9.0]), labels, batch)
    ahead = _listwise(torch.tensor([4.0, 0.0, 0.0, 9.0, 9.0]), labels, batch)
    assert float(ahead) < float(behind)
    # -log softmax of the positive among its own question's three (the other question,
    # with no positive, counts for nothing)
    assert float(ahead) == pytest.approx(float(torch.logsumexp(torch.tensor([4.0, 0, 0]), 0)) - 4)
    none = _listwise(torch.tensor([0.0, 1.0]), torch.tensor([0.0, 0.0]), _pairs({"u": (0, 2)}))
    assert float(none) == 0.0


def test_the_refusal_loss_falls_with_each_questions_hardest_negative() -> None:
    """Each question read without its answer is one to refuse: softplus of the log-sum-exp
    of its negatives, whose positives count for nothing; a question no paper answers (only
    negatives) counts whole."""
    torch = pytest.importorskip("torch")  # the [train] extra
    batch = _pairs({"a": (1, 2), "u": (0, 2)})
    labels = torch.tensor([float(p["label"]) for p in batch])
    hard = _refuse(torch.tensor([5.0, 3.0, -4.0, 2.0, -4.0]), labels, batch)
    soft = _refuse(torch.tensor([5.0, -3.0, -4.0, -2.0, -4.0]), labels, batch)
    assert float(soft) < float(hard)
    # the positive's log-odds do not enter it
    again = _refuse(torch.tensor([-9.0, -3.0, -4.0, -2.0, -4.0]), labels, batch)
    assert float(again) == pytest.approx(float(soft))
    softplus = torch.nn.functional.softplus
    expected = (
        softplus(torch.logsumexp(torch.tensor([-3.0, -4.0]), 0))
        + softplus(torch.logsumexp(torch.tensor([-2.0, -4.0]), 0))
    ) / 2
    assert float(soft) == pytest.approx(float(expected))
    only = _refuse(torch.tensor([2.0]), torch.tensor([1.0]), _pairs({"p": (1, 0)}))
    assert float(only) == 0.0  # a question of positives only has nothing to refuse
