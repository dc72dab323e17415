"""A review table: papers as rows, the questions a researcher reads across them as columns.

Each cell is evidence from that paper alone: the sentence of its abstract (or of its body,
for a paper whose full text is stored, with page and section) that best states what the
column asks, quoted verbatim, or "not stated" when no sentence does. A column is a short
question: a preset (:data:`PRESETS`: "Method", "Data set", "Main result", "Sample size",
"Limitations", "Code", "Aim") or any text the user gives, read as the question itself.

Every sentence of the paper gets five features for each column (:data:`FEATURES`): the
table reader's log-odds (:func:`rag.answer.reader.table_reader`, a cross-encoder trained
on labelled tables; it reads the ``read`` sentences the other features put first), the
hand ranker's score for the column's question (:mod:`rag.answer.rank`), how well its role in
the abstract fits the column (:mod:`rag.answer.roles`), whether it has the column's cue
words, and for "Sample size" a count of what was studied. The reader reads the sentences a
logistic model of the other features puts first (``params.table``, fitted leaving fields
out by ``bench/table.py`` on papers labelled blind to the code), and its log-odds score them
(``alone``; or, as a second stage, the logistic model of all five with one bias per column):
the best is the cell when its log-odds pass the threshold, else the cell says "not stated"
rather than quote a sentence that does not say it. The reader reads them in that order and
may stop once one is sure (``params.table`` ``sure``): a sentence read later could change
the cell only by outscoring it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.answer import candidates as cand
from rag.answer import params, rank
from rag.answer import reader as reader_module
from rag.answer.cite import Source
from rag.answer.question import Question, analyse
from rag.errors import QueryError

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = [
    "MAX_COLUMNS",
    "MAX_PAPERS",
    "NOT_STATED",
    "PRESETS",
    "Cell",
    "Column",
    "Row",
    "TableReader",
    "columns",
    "number_of",
]

MAX_PAPERS = 500
MAX_COLUMNS = 12
NOT_STATED = "not stated"
READ = 3  # sentences per cell the reader reads, unless params.table says
THRESHOLD = -1.0  # without fitted weights: the reader's log-odds a cell's sentence must reach


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its heading, the question its cells answer, and for a preset what a
    sentence answering it looks like in any field: the roles such a sentence plays in an
    abstract (:mod:`rag.answer.roles`, each with a weight: negative for the roles that
    cannot answer it, a result for "Method") and the words that say it
    (``cue``); ``count``: it asks how many."""

    name: str
    question: str
    roles: tuple[tuple[str, float], ...] = ()
    cue: re.Pattern[str] | None = None
    count: bool = False


def _cue(words: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{words})", re.IGNORECASE)


PRESETS: dict[str, Column] = {
    c.name.casefold(): c
    for c in (
        Column("Method", "What method, design or technique did the study use?",
               (("method", 1.0), ("aim", 0.5), ("background", -0.5), ("result", -1.0),
                ("conclusion", -1.0)),
               _cue(r"methods?\b|approach|models?\b|modell?ing|design|techniques?|framework|"
                    r"algorithms?|procedures?|using\b|used\b|based on|we (?:propose|develop|"
                    r"introduce|present|use|employ|apply|estimate|conduct|combine|adopt)|"
                    r"analy[sz]\w*|simulat\w+|regressions?|experiments?|synthesi[sz]\w*|"
                    r"measured|surveyed|interview\w*|trials?\b|estimat\w+")),
        Column("Data set", "What data set or data did the study use or collect?",
               (("method", 1.0), ("background", -0.5), ("conclusion", -0.5)),
               _cue(r"data\b|datasets?|databases?|data sets?|surveys?|census|regist(?:er|ry)|"
                    r"records|corpus|corpora|benchmarks?|cohorts?|panel|collected|"
                    r"interviews|observations|archives?|repositor\w+|drawn from|sourced")),
        Column("Main result", "What was the main result or finding of the study?",
               (("result", 1.0), ("conclusion", 1.0), ("background", -1.0), ("aim", -1.0),
                ("method", -0.5)),
               _cue(r"shows?\b|showed|shown|finds?\b|found|results? (?:show|indicate|suggest|"
                    r"reveal|demonstrate)|reveal\w*|demonstrat\w+|indicat\w+|suggest\w*|"
                    r"achiev\w+|outperform\w*|improv\w+|increas\w+|decreas\w+|reduc\w+|"
                    r"significant\w*|higher|lower|associated")),
        Column("Sample size", "How many participants, samples or cases were studied?",
               (("method", 1.0), ("result", 0.5), ("background", -0.5)), None, True),
        Column("Limitations", "What limitations of the study do the authors state?",
               (("conclusion", 0.5), ("result", 0.5), ("background", -1.0), ("aim", -1.0)),
               _cue(r"limitations?|limited by|caveats?|bias(?:es|ed)?\b|cannot\b|could not|"
                    r"unable|small sample|generali[sz]\w*|further (?:research|studies|study|"
                    r"work) (?:is|are) (?:needed|required|warranted)|interpreted with caution|"
                    r"remains? unclear|weakness\w*|drawbacks?")),
        Column("Code", "Is the code or software of the study available, and where?", (),
               _cue(r"github|gitlab|source code|code (?:is|and)|software|open[- ]source|"
                    r"available (?:at|online|from)|publicly available|https?://|we release")),
        Column("Aim", "What is the aim of the study?",
               (("aim", 1.0), ("background", -0.5), ("result", -1.0)),
               _cue(r"aims?\b|objectives?|purpose|goal|we (?:sought|investigate|examine|"
                    r"study|ask)|this (?:study|paper|work) (?:examines|investigates|explores)")),
    )
}  # fmt: skip
_ALIASES = {
    "methods": "method", "approach": "method", "design": "method",
    "dataset": "data set", "datasets": "data set", "data": "data set", "data sets": "data set",
    "result": "main result", "results": "main result", "finding": "main result",
    "findings": "main result", "main finding": "main result", "main results": "main result",
    "n": "sample size", "participants": "sample size", "sample": "sample size",
    "limitation": "limitations", "limits": "limitations",
    "software": "code", "code availability": "code",
    "aims": "aim", "objective": "aim", "goal": "aim", "purpose": "aim",
}  # fmt: skip


def columns(names: Iterable[str]) -> list[Column]:
    """The columns ``names`` ask for: a preset by its name (or a usual other name:
    "Dataset", "Findings", "N"), else the text as its own question; repeats dropped. No
    column, or more than :data:`MAX_COLUMNS`, is a QueryError."""
    out: dict[str, Column] = {}
    for raw in names:
        name = " ".join(str(raw).split())
        if not name:
            continue
        key = _ALIASES.get(name.casefold().rstrip("?"), name.casefold().rstrip("?"))
        column = PRESETS.get(key) or Column(name, name if name.endswith("?") else f"{name}?")
        out.setdefault(column.name.casefold(), column)
    if not out:
        raise QueryError(
            "no columns: name at least one, e.g. 'Method, Main result' (presets: "
            + ", ".join(c.name for c in PRESETS.values()) + ")"
        )  # fmt: skip
    if len(out) > MAX_COLUMNS:
        raise QueryError(f"{len(out)} columns: a table has at most {MAX_COLUMNS}")
    return list(out.values())


_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)")
_YEAR = re.compile(r"^(1[89]\d\d|20\d\d)$")


def number_of(text: str) -> float | None:
    """The first figure a cell states ("n = 1,099" -> 1099, "92.5% accuracy" -> 92.5), for
    sorting and filtering a column; years ("in 2019") and reference numbers are skipped."""
    for m in _NUMBER.finditer(text):
        if _YEAR.match(m[1]):
            continue
        return float(m[1].replace(",", ""))
    return None


@dataclass(frozen=True, slots=True)
class Cell:
    """One paper's answer to one column: the quoted sentence and where it is, or not
    stated (``stated`` false, ``quote`` empty)."""

    column: str
    quote: str = ""
    page: int | None = None
    section: str = ""
    score: float = 0.0  # the log-odds that the quote is the cell (rag.answer.params)
    text: str = ""  # what the cell shows: the quote (extractive), a phrase (a model)
    before: str = ""  # the sentence before the quote in its abstract or passage
    after: str = ""  # ... and the one after: the quote in context

    @property
    def stated(self) -> bool:
        return bool(self.quote)

    @property
    def shown(self) -> str:
        return self.text or self.quote or NOT_STATED

    @property
    def number(self) -> float | None:
        """The figure the cell states (:func:`number_of`), for sorting and filtering."""
        return number_of(self.text or self.quote) if self.stated else None

    def to_json(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "text": self.shown,
            "quote": self.quote,
            "page": self.page,
            "section": self.section,
            "stated": self.stated,
            "number": self.number,
            "context": {"before": self.before, "after": self.after},
        }


@dataclass(frozen=True, slots=True)
class Row:
    """One paper and its cells, in the columns' order."""

    paper_id: str
    label: str
    title: str
    year: int | None
    authors: tuple[str, ...] = ()
    cells: tuple[Cell, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "paper_id": self.paper_id,
            "label": self.label,
            "title": self.title,
            "year": self.year,
            "authors": list(self.authors),
            "cells": [c.to_json() for c in self.cells],
        }


# A count of what was studied: "1,099 women", "twelve countries", "n = 153" (not a share, a
# year, a duration or a measured quantity: "40%", "in 2019", "5 years", "600 mg").
_COUNT = re.compile(
    r"\b[nN]\s*=\s*\d[\d,]*|"
    r"(?<![\w.,-])(?:\d{1,3}(?:,\d{3})+|\d+|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundreds?|thousands?)"
    r"(?![\d.,]*\s*(?:%|per ?cent))\s+(?:\S+\s+){0,3}?"
    r"(?!(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|times|fold|percent|"
    r"degrees?|decades?|centuries)\b)[A-Za-z][a-z-]{3,}",
    re.IGNORECASE,
)
_YEARISH = re.compile(r"^(?:1[89]\d\d|20\d\d)\b")
FEATURES = ("reader", "hand", "role", "cue", "count")


def has_count(text: str) -> bool:
    """Whether the sentence counts what was studied (:data:`_COUNT`), a year aside."""
    return any(not _YEARISH.match(m[0]) for m in _COUNT.finditer(text))


@dataclass(frozen=True, slots=True)
class _Asked:
    column: Column
    question: Question
    vector: np.ndarray


def _bias_key(column: Column) -> str:
    return f"bias.{column.name.casefold()}" if column.name.casefold() in PRESETS else "bias.other"


class TableReader:
    """Fills rows for a set of columns: each column's question is analysed and embedded
    once, then each paper's sentences are scored against every column."""

    def __init__(self, cols: Sequence[Column], embedder: Embedder) -> None:
        self.columns = list(cols)
        self.embedder = embedder
        self._asked = [
            _Asked(c, analyse(c.question), np.asarray(embedder.embed_query(c.question),
                                                      dtype=np.float32))
            for c in self.columns
        ]  # fmt: skip
        self.weights = dict(params.current().table)
        self.read = int(self.weights.get("read", READ))
        # what orders the sentences the reader reads: the other features' weights
        self._rest = np.array([0.0] + [self.weights.get(f"w_{f}", 0.0) for f in FEATURES[1:]])

    def empty_row(self, source: Source) -> Row:
        """The row of a paper with nothing to quote (a reference stored without abstract)."""
        paper = source.paper
        return Row(paper.id, paper.label, paper.title, paper.year, tuple(paper.authors),
                   tuple(Cell(c.name) for c in self.columns))  # fmt: skip

    def pools(self, source: Source, passages: dict[str, Source] | None = None
              ) -> list[list[cand.Sentence]]:  # fmt: skip
        """Per column, the sentences a cell may quote: the abstract's, and the body passages
        nearest the column's question (``passages``: the paper with them, by column name)."""
        abstract = cand.sentences([source])
        if abstract:
            vectors = cand.with_vectors_of(abstract, self.embedder)
            abstract = [replace(s, vector=v) for s, v in zip(abstract, vectors, strict=True)]
        out = []
        for asked in self._asked:
            pool = list(abstract)
            with_body = (passages or {}).get(asked.column.name)
            if with_body is not None and with_body.passages:
                body = cand.sentences([with_body], body=True)
                if body:
                    vectors = cand.with_vectors_of(body, self.embedder)
                    pool += [replace(s, vector=v) for s, v in zip(body, vectors, strict=True)]
            out.append(pool)
        return out

    def row(self, source: Source, passages: dict[str, Source] | None = None) -> Row:
        """The paper's row (see :meth:`pools` for ``passages``)."""
        pools = self.pools(source, passages)
        xs = self.features_all(pools)
        cells = [self._cell(c, pool, x) for c, (pool, x) in enumerate(zip(pools, xs, strict=True))]
        paper = source.paper
        return Row(paper.id, paper.label, paper.title, paper.year, tuple(paper.authors),
                   tuple(cells))  # fmt: skip

    def features(self, column: int, pool: Sequence[cand.Sentence]) -> np.ndarray:
        """Each sentence's features for one column (:meth:`features_all`)."""
        pools: list[Sequence[cand.Sentence]] = [[] for _ in self._asked]
        pools[column] = pool
        return self.features_all(pools)[column]

    def features_all(self, pools: Sequence[Sequence[cand.Sentence]]) -> list[np.ndarray]:
        """Per column, each sentence's features (:data:`FEATURES`): the reader's log-odds,
        the hand ranker's score, how well its role fits the column, whether it has the
        column's cue words, and (for a column asking how many) a count. The reader reads the
        ``read`` sentences the other features score highest (:meth:`order`), every column's
        at once, each column's until one is sure (``params.table`` ``sure``, after at least
        ``read_first``; the unread get a hair under the least read): the table reader
        (:func:`rag.answer.reader.table_reader`) where there is one, else the answers'."""
        out = []
        for asked, pool in zip(self._asked, pools, strict=True):
            col = asked.column
            fits = dict(col.roles)
            x = np.zeros((len(pool), len(FEATURES)), dtype=np.float32)
            if pool:
                x[:, 1] = rank.score(cand.features_of(asked.question, pool, asked.vector))
                x[:, 2] = [fits.get(s.role, 0.0) for s in pool]
                x[:, 3] = [bool(col.cue and col.cue.search(s.text)) for s in pool]
                x[:, 4] = [col.count and has_count(s.text) for s in pool]
                x[:, 0] = x[:, 1]
            out.append(x)
        tops = [self.order(x) for x in out]
        table = reader_module.table_reader()
        reader = table or reader_module.shipped()
        if reader is None:
            return out
        # The table reader reads the column's question and the sentence alone; the answers'
        # reader, the sentence after its paper's name, as it was trained.
        lists = [
            [(a.column.question, "" if table else pool[i].source.name, pool[i].text) for i in top]
            for a, pool, top in zip(self._asked, pools, tops, strict=True)
        ]
        sure = self.weights.get("sure")
        first = int(self.weights.get("read_first", self.read))
        for x, top, got in zip(out, tops, reader.score_until(lists, first, sure), strict=True):
            if len(got):
                # (the unread a hair under the least read: never quoted over one read)
                x[:, 0] = float(got.min()) - 1e-3
                x[top[: len(got)], 0] = got
        return out

    def order(self, x: np.ndarray) -> np.ndarray:
        """The sentences (rows of features ``x``) the reader reads, best first by the other
        features' weights (``params.table`` ``w_*``; the hand ranker's score without them)."""
        prior = x @ self._rest if self._rest.any() else x[:, 1]
        return np.argsort(-prior, kind="stable")[: self.read]

    def scores(self, column: int, x: np.ndarray) -> np.ndarray:
        """The log-odds that each sentence (features ``x``) is the column's cell: the
        table reader's own, a cell stated from THRESHOLD, when ``params.table`` says
        ``alone`` (its weights then only choose what the reader reads); else the second
        stage's, the weighted features and the column's bias."""
        w = self.weights
        if w.get("alone"):
            return np.asarray(x[:, 0] - THRESHOLD, dtype=np.float32)
        weights = np.array([w.get(f"w_{f}", 1.0 if f == "reader" else 0.0) for f in FEATURES])
        bias = w.get(_bias_key(self._asked[column].column), -THRESHOLD)
        return np.asarray(x @ weights + bias, dtype=np.float32)

    def _cell(self, column: int, pool: Sequence[cand.Sentence], x: np.ndarray) -> Cell:
        name = self._asked[column].column.name
        if not pool:
            return Cell(name)
        score = self.scores(column, x)
        best = max(range(len(pool)), key=lambda i: (score[i], -pool[i].position))
        if score[best] < 0:
            return Cell(name, score=float(score[best]))
        s = pool[best]
        page, section = None, ""
        if s.passage >= 0:
            p = s.source.passages[s.passage]
            page, section = p.page, p.section
        near = {t.position: t.text for t in pool if t.passage == s.passage}
        before, after = near.get(s.position - 1, ""), near.get(s.position + 1, "")
        return Cell(name, s.text, page, section, float(score[best]), before=before, after=after)
