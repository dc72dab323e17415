"""Related reading beside a refusal: the library's closest papers, each with the sentence
of its abstract nearest the question, offered as papers to read, never as an answer.

A question of the library's field that no paper answers ("Which instrument measured the
jet's speed?" where no abstract names one) is refused; quoting the closest sentences with
markers would read as an answer to someone who skims. Instead the refusal says so, and the
closest papers come apart from it (``related`` in the API, a list the UI and the command
line show under their own heading).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import candidates as cand
from rag.answer.cite import Source
from rag.answer.events import Related

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = ["related_reading"]


def related_reading(
    question: str, sources: Sequence[Source], embedder: Embedder
) -> tuple[Related, ...]:
    """Each source with its abstract's sentence nearest ``question`` (its first sentence
    when none can be compared)."""
    if not sources:
        return ()
    sentences = cand.sentences(sources)
    if not sentences:
        return tuple(Related(s, "") for s in sources)
    vectors = cand.with_vectors_of(sentences, embedder)
    qvec = np.asarray(embedder.embed_query(question), dtype=np.float32)
    sims = vectors @ qvec
    best: dict[str, tuple[float, str]] = {}
    for s, sim in zip(sentences, sims, strict=True):
        pid = s.source.paper_id
        if pid not in best or float(sim) > best[pid][0]:
            best[pid] = (float(sim), s.text)
    return tuple(Related(s, best.get(s.paper_id, (0.0, ""))[1]) for s in sources)
