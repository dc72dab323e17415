"""The real-PDF sets of the bench (bench/data/real_pdfsN, issue #44) and the paper the
reader makes of one of their files, for the tests of each round of rules."""

from __future__ import annotations

from pathlib import Path

from ingest.parse.dispatch import parse_file
from rag.records import Paper

SETS = Path(__file__).parents[1] / "bench/data"


def held_out(n: int) -> Path:
    """The held-out folder of the ``n``-th real set."""
    return SETS / f"real_pdfs{n}/heldout"


def read(path: Path) -> Paper:
    """The paper parsed from one PDF (the first record it gives)."""
    return next(i for i in parse_file(path) if isinstance(i, Paper))
