"""Synthetic papers for the scale benchmark: realistic text and vectors, no embedding.

Embedding a million chunks on 2 cores is not feasible, so large indexes are made of
synthetic papers, each anchored on a real one (a SciFact abstract and its real vector):

- **text**: words drawn half from the anchor's own abstract and half from the corpus's
  word frequencies, in sentences of real lengths, so BM25 sees the corpus's vocabulary and
  Zipf curve, and a paper shares its anchor's distinctive terms;
- **vectors**: each chunk's vector is the anchor's plus Gaussian noise, normalised, at a
  cosine of about ``cosine`` to it, so dense neighbours of a real query are meaningful
  (they cluster around the real papers a query is near).

Deterministic for a seed: the same arguments give the same papers, chunks and vectors.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from rag.records import Chunk, Paper

__all__ = ["Anchor", "Synthesizer"]

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Anchor:
    """A real paper: its abstract and one unit vector (e.g. its first chunk's)."""

    text: str
    vector: np.ndarray


class Synthesizer:
    """Makes synthetic papers ``(Paper, [Chunk], vectors)`` from real anchors."""

    def __init__(
        self,
        anchors: Sequence[Anchor],
        *,
        seed: int = 0,
        cosine: float = 0.85,
        chunk_words: int = 110,
        own_share: float = 0.5,
    ) -> None:
        if not anchors:
            raise ValueError("at least one anchor is needed")
        self.anchors = list(anchors)
        self.seed = seed
        self.chunk_words = chunk_words
        self.own_share = own_share
        self.dim = int(anchors[0].vector.shape[0])
        # Noise of per-coordinate sd s has norm ~ s*sqrt(dim): cos = 1/sqrt(1 + s^2 * dim).
        self.sigma = float(np.sqrt((1.0 / cosine**2 - 1.0) / self.dim))
        counts: Counter[str] = Counter()
        self._own: list[np.ndarray] = []
        self._lengths: list[int] = []
        words_of = [_WORD.findall(a.text) for a in self.anchors]
        for words in words_of:
            counts.update(w.lower() for w in words)
        self.vocab = np.array(sorted(counts), dtype=object)
        index = {w: i for i, w in enumerate(self.vocab)}
        freq = np.array([counts[w] for w in self.vocab], dtype=np.float64)
        self._cdf = np.cumsum(freq / freq.sum())
        for words in words_of:
            self._own.append(np.array([index[w.lower()] for w in words] or [0], dtype=np.int64))
            self._lengths.append(max(len(words), 20))
        sentence_lengths = [
            len(_WORD.findall(s)) for a in self.anchors for s in re.split(r"[.!?]\s+", a.text)
        ]
        self._sentence = max(int(np.median([n for n in sentence_lengths if n] or [20])), 5)

    def papers(
        self, n_chunks: int, *, start: int = 0
    ) -> Iterator[tuple[Paper, list[Chunk], np.ndarray]]:
        """Synthetic papers until at least ``n_chunks`` chunks are made. Paper ``i`` is the
        same whichever ``start`` the stream began at (its own random generator)."""
        made, i = 0, start
        while made < n_chunks:
            paper, chunks, vectors = self.paper(i)
            made += len(chunks)
            i += 1
            yield paper, chunks, vectors

    def paper(self, i: int) -> tuple[Paper, list[Chunk], np.ndarray]:
        rng = np.random.default_rng((self.seed, i))
        a = int(rng.integers(len(self.anchors)))
        n_words = int(self._lengths[a] * rng.uniform(0.7, 1.3))
        own = self._own[a][rng.integers(len(self._own[a]), size=n_words)]
        common = np.searchsorted(self._cdf, rng.random(n_words))
        words = np.where(rng.random(n_words) < self.own_share, own, common)
        text = _sentences(self.vocab[words].tolist(), self._sentence, rng)
        pid = f"syn{self.seed}-{i}"
        title = " ".join(self.vocab[own[:6]].tolist()).capitalize()
        paper = Paper(id=pid, abstract=text, source="synthetic", position=i + 1, title=title,
                      year=int(1990 + rng.integers(35)))  # fmt: skip
        pieces = _split_words(text, self.chunk_words)
        chunks = [
            Chunk(
                f"{pid}#{k}", pid, k, piece, n_tokens=int(len(piece.split()) * 1.3), heading=title
            )
            for k, piece in enumerate(pieces)
        ]
        noise = rng.normal(0.0, self.sigma, size=(len(chunks), self.dim))
        vectors = self.anchors[a].vector[None, :] + noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return paper, chunks, vectors.astype(np.float32)


def _sentences(words: list[str], mean_len: int, rng: np.random.Generator) -> str:
    out, pos = [], 0
    while pos < len(words):
        n = max(3, int(rng.normal(mean_len, mean_len / 3)))
        part = words[pos : pos + n]
        out.append(part[0].capitalize() + (" " + " ".join(part[1:]) if len(part) > 1 else "") + ".")
        pos += n
    return " ".join(out)


def _split_words(text: str, size: int) -> list[str]:
    words = text.split()
    n = max(1, round(len(words) / size))
    step = -(-len(words) // n)
    return [" ".join(words[k : k + step]) for k in range(0, len(words), step)]
