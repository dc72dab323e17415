"""Split an abstract (and a full text's sections) into token windows that fit the embedder,
on sentence boundaries.

Sizes are counted with tiktoken (``chunk_tokens`` is the budget for the whole embedded
text: heading + passage), then every chunk is checked with the embedder's own tokenizer,
whose limit is the hard one; a chunk over it is split again with a smaller budget.
Chunks of one paper are balanced (similar sizes) rather than filled greedily, and
consecutive chunks share whole trailing sentences up to ``overlap`` tokens.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rag.records import Chunk, Paper
from rag.sentences import split_sentences
from rag.tokens import get_encoding

if TYPE_CHECKING:
    from rag.index.embed import Embedder
    from rag.settings import Settings

__all__ = ["Chunker", "sentence_spans"]

CountTokens = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class Chunker:
    """Turns papers into chunks. ``embedder_tokens``/``embedder_limit`` are the embedder's
    token counter and its limit (incl. special tokens); both optional for tests."""

    chunk_tokens: int = 224
    overlap: int = 32
    encoding: str = "cl100k_base"
    embedder_tokens: CountTokens | None = None
    embedder_limit: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder) -> Chunker:
        """The chunker the settings ask for, held to ``embedder``'s own token limit."""
        return cls(
            chunk_tokens=settings.chunk_tokens,
            overlap=settings.chunk_overlap,
            encoding=settings.tiktoken_encoding,
            embedder_tokens=embedder.count_tokens,
            embedder_limit=embedder.max_tokens,
        )

    def __post_init__(self) -> None:
        if not 0 <= self.overlap < self.chunk_tokens:
            raise ValueError("overlap must be >= 0 and smaller than chunk_tokens")

    def _count(self, text: str) -> int:
        return len(get_encoding(self.encoding).encode(text, disallowed_special=()))

    def chunk(self, paper: Paper) -> list[Chunk]:
        """A paper without an abstract is one chunk of its keywords (else its title), so it
        is found by them; its abstract stays empty and is never quoted. A paper's body (full
        text) follows as further chunks of the same paper, after the abstract's, each within
        one section and carrying its heading and page."""
        heading = paper.title or paper.label
        budget = self.chunk_tokens
        opening = paper.abstract or "; ".join(paper.extra.get("keywords") or ()) or heading
        while True:
            texts: list[tuple[str, str, int | None]] = [
                (text, "", None) for text in self._windows(opening, heading, budget)
            ]
            for section in paper.sections:
                texts += [
                    (text, section.title, section.page)
                    for text in self._windows(
                        section.text, "\n".join(x for x in (heading, section.title) if x), budget
                    )
                ]
            drafts = [
                Chunk(
                    f"{paper.id}#{i}",
                    paper.id,
                    i,
                    text,
                    n_tokens=0,
                    heading=heading,
                    section=title,
                    page=page,
                )
                for i, (text, title, page) in enumerate(texts)
            ]
            chunks = [replace(c, n_tokens=self._count(c.embed_text)) for c in drafts]
            if self._fits_embedder(chunks) or budget <= 16:
                return chunks
            budget = int(budget * 0.85)

    def _fits_embedder(self, chunks: list[Chunk]) -> bool:
        if self.embedder_tokens is None or self.embedder_limit is None:
            return True
        counts = self.embedder_tokens([c.embed_text for c in chunks])
        return max(counts, default=0) <= self.embedder_limit

    def _windows(self, abstract: str, heading: str, budget: int) -> list[str]:
        heading_tokens = self._count(heading) + 1 if heading else 0
        room = max(budget - heading_tokens, 16)
        pieces: list[tuple[str, int]] = []
        for sentence in split_sentences(abstract):
            pieces.extend(self._fit_sentence(sentence, room))
        if not pieces:
            return []
        total = sum(n for _, n in pieces)
        if total <= room:
            return [" ".join(text for text, _ in pieces)]
        # Balanced: aim every window at total/n tokens instead of filling greedily, which
        # would leave a tiny last chunk. Overlap makes windows longer, so aim a bit lower.
        n_windows = math.ceil(total / max(room - self.overlap, 1))
        target = min(room, math.ceil(total / n_windows) + self.overlap)
        windows: list[str] = []
        i = 0
        while i < len(pieces):
            start = i
            used = 0
            if windows:
                # Carry whole trailing sentences of the previous window, up to overlap tokens.
                back, carried = start, 0
                while back > 0 and carried + pieces[back - 1][1] <= self.overlap:
                    back -= 1
                    carried += pieces[back][1]
                if back < start and carried + pieces[start][1] <= room:
                    used = carried
                    start = back
            j = i
            while j < len(pieces) and (j == i or used + pieces[j][1] <= target):
                if used + pieces[j][1] > room:
                    break
                used += pieces[j][1]
                j += 1
            j = max(j, i + 1)
            windows.append(" ".join(text for text, _ in pieces[start:j]))
            i = j
        return windows

    def _fit_sentence(self, sentence: str, room: int) -> list[tuple[str, int]]:
        """A sentence longer than the room is cut into token windows (rare: tables, lists)."""
        enc = get_encoding(self.encoding)
        tokens = enc.encode(sentence, disallowed_special=())
        if len(tokens) <= room:
            return [(sentence, len(tokens))]
        parts = []
        for k in range(0, len(tokens), room):
            text = enc.decode(tokens[k : k + room]).strip()
            if text:
                parts.append((text, self._count(text)))
        return parts


def sentence_spans(
    paper: Paper, chunks: Sequence[Chunk]
) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int] | None]]:
    """Where each sentence of ``paper``'s abstract lies in its chunks' embedded texts, so
    the embedder can pool a vector per sentence from the chunks' own pass: the character
    spans to pool in each chunk, and per sentence (in :func:`split_sentences` order) its
    (chunk, span) or None when no chunk holds it whole (a sentence cut for length). A
    sentence in two chunks (overlap) is taken from the first."""
    spans: list[list[tuple[int, int]]] = [[] for _ in chunks]
    where: list[tuple[int, int] | None] = []
    c, cursor = 0, -1
    for sentence in split_sentences(paper.abstract):
        found = None
        for k in range(c, len(chunks)):
            text, heading = chunks[k].embed_text, chunks[k].heading
            start = cursor if k == c and cursor >= 0 else (len(heading) + 1 if heading else 0)
            i = text.find(sentence, start)
            if i >= 0:
                spans[k].append((i, i + len(sentence)))
                found = (k, len(spans[k]) - 1)
                c, cursor = k, i + len(sentence)
                break
        where.append(found)
    return spans, where
