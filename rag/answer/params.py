"""The answerer's learnt parameters, in one file written by ``bench/fit_answers.py``.

``params.json`` beside this module holds every weight and threshold the answer stage learnt
from data: the sentence ranker's weights (:mod:`rag.answer.rank`), the refusal model's
weights and threshold (:mod:`rag.answer.gather`) and how far a prose answer reaches past its
best sentence (:mod:`rag.answer.extractive`), with the libraries they were fitted on. The
fitting script fits them on some libraries and reports them on another before writing the
ones fitted on all (docs/benchmarks.md, "Answers").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PATH", "Params", "current", "load", "use"]

PATH = Path(__file__).with_name("params.json")


@dataclass(frozen=True, slots=True)
class Params:
    """Learnt weights and thresholds (see the module doc)."""

    ranker: Mapping[str, float]
    evidence: Mapping[str, float]
    prose: Mapping[str, float]
    fitted_on: tuple[str, ...] = ()
    # How the reader's log-odds and the ranker's score combine, and the reader's gate
    # (rag.answer.reader; empty: answers are made without the reader).
    reader: Mapping[str, float] = field(default_factory=dict)
    # How a review table's cells are chosen (rag.answer.table: sentences read per cell, the
    # features' weights, one bias per preset column), fitted by bench/table.py.
    table: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Params:
        return cls(
            ranker={k: float(v) for k, v in data["ranker"].items()},
            evidence={k: float(v) for k, v in data["evidence"].items()},
            prose={k: float(v) for k, v in data["prose"].items()},
            fitted_on=tuple(data.get("fitted_on", ())),
            reader={k: float(v) for k, v in data.get("reader", {}).items()},
            table={k: float(v) for k, v in data.get("table", {}).items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "fitted_on": list(self.fitted_on),
            "ranker": dict(self.ranker),
            "evidence": dict(self.evidence),
            "prose": dict(self.prose),
            "reader": dict(self.reader),
            "table": dict(self.table),
        }


def load(path: Path = PATH) -> Params:
    """The parameters saved at ``path``."""
    return Params.from_json(json.loads(path.read_text(encoding="utf-8")))


_current = [load()]


def current() -> Params:
    """The parameters answers use now."""
    return _current[0]


def use(params: Params | Mapping[str, Any]) -> None:
    """Answer with other parameters from now on (the benches: parameters fitted without the
    library being measured, to read it held out)."""
    _current[0] = params if isinstance(params, Params) else Params.from_json(params)
