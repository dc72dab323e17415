"""Which abstract sentence answers the question: several signals, weighed by learnt weights.

MiniLM similarity alone favours background sentences ("LLMs have had a profound impact
...") over the one holding the answer. A sentence is scored on its similarity to the
question, the question's rare words it contains, whether it names the paper the question
names, whether it is of the kind the question asks for (a figure for "how much", the
sentence introducing the system for "what is X", the problem for "what problem"), whether
it reads as a contribution or result rather than background, and its paper's rank.

The weights are a logistic regression learnt by ``bench/learn_ranker.py`` on
``bench/data/answers_dev.jsonl`` (a sentence is a positive when it holds one of the
question's key facts); that script also reports them learnt on one half of the questions
and scored on the other. The score is a log-odds: above 0 the sentence more likely than
not holds what was asked.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rag.answer.question import Question
from rag.terms import terms

__all__ = ["FEATURES", "WEIGHTS", "Candidate", "features", "score"]

_INTRO = re.compile(
    r"\b(we|this (paper|work|article|study)|in this (paper|work))\b[^.]{0,60}?\b(propose|present|"
    r"introduce|develop|design|build|describe|release|construct|call|name|report)|"
    r"\b(called|named|dubbed|termed)\b|^[A-Z][\w.-]*[\w] (is|are) (a|an|the)\b|"
    r", (a|an) (new|novel)\b",
    re.IGNORECASE,
)
_RESULT = re.compile(
    r"\b(outperform\w*|achiev\w*|improv\w*|reduc\w*|speed ?ups?|faster|higher|lower|"
    r"increas\w*|decreas\w*|sav(e|es|ing)|gains?|boost\w*|surpass\w*|state-of-the-art|"
    r"experiments?|evaluations?|results?|shows?|demonstrat\w*)\b",
    re.IGNORECASE,
)
_BACKGROUND = re.compile(
    r"^(in recent years|recently|with the|as the|nowadays|however|despite|although)|"
    r"\b(has|have) (attracted|become|achieved|shown|gained)|\b(challeng\w*|problem|issue|"
    r"bottleneck|suffer\w*|limit\w*|difficult\w*|costly|expensive)\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(
    r"\d+(\.\d+)?\s*(%|x\b|×|times|fold|percent|[KMGT]B|billion|million|B\b)|"
    r"\b\d+(\.\d+)?x\b|\b\d{2,}(\.\d+)?\b",
    re.IGNORECASE,
)
_METHOD = re.compile(
    r"\b(specifically|in particular|we (design|adopt|leverage|employ|use|devise|utili[sz]e|"
    r"formulate|decompose|combine|incorporate|exploit)|by (using|leveraging|introducing|"
    r"applying|combining|exploiting)|consists? of|composed of|mechanism|algorithm|strategy|"
    r"module|component|scheme|protocol|via|through)\b",
    re.IGNORECASE,
)
_WORD_NUMBER = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|twelve|dozens?|hundreds?|thousands?)\b",
    re.IGNORECASE,
)
_ASKS_CODE = re.compile(r"\b(code|github|repository|repo|download|open[- ]source|link|url)\b", re.I)
_ASKS_EVALUATION = re.compile(
    r"\b(evaluat\w*|experiment\w*|test(ed|s)?|benchmark\w*|measur\w*|compar\w*|baseline)\b",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://|github|\bcode (is|and)\b.{0,40}\bavailable\b|available at", re.I)
_ASKS_PROBLEM = re.compile(
    r"\b(problem|challenge|issue|why|motivat\w*|limitation|bottleneck|address|solve|tackle)\b",
    re.IGNORECASE,
)

FEATURES = (
    "bias",
    "dense",
    "dense_gap",
    "lexical",
    "names_paper",
    "named_paper",
    "intro",
    "intro_definition",
    "figure",
    "figure_numeric",
    "result",
    "background",
    "background_problem",
    "url",
    "url_asked",
    "method",
    "method_how",
    "result_evaluation",
    "after_intro",
    "after_intro_how",
    "background_how",
    "first",
    "position",
    "paper_rank",
    "short",
)

# Learnt by bench/learn_ranker.py (logistic regression, L2 1.0) on bench/data/answers_dev.jsonl.
WEIGHTS = {
    "bias": -6.355,
    "dense": 0.827,
    "dense_gap": 1.153,
    "lexical": 1.836,
    "names_paper": 0.011,
    "named_paper": 1.412,
    "intro": -0.47,
    "intro_definition": 1.129,
    "figure": 0.104,
    "figure_numeric": 0.919,
    "result": -0.013,
    "background": -0.032,
    "background_problem": 0.522,
    "url": -0.558,
    "url_asked": 0.591,
    "method": -0.144,
    "method_how": 0.548,
    "result_evaluation": 0.258,
    "after_intro": -1.04,
    "after_intro_how": 0.217,
    "background_how": -1.281,
    "first": -0.558,
    "position": 0.536,
    "paper_rank": 3.536,
    "short": -1.47,
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence of a source's abstract, where it sits, and its paper's retrieval rank."""

    text: str
    paper_id: str
    label: str
    position: int  # index among its abstract's sentences
    of: int  # how many sentences the abstract has
    rank: int  # its paper's 1-based retrieval rank


class _Traits(NamedTuple):
    """What a sentence is, whatever the question: computed once per text."""

    terms: frozenset[str]
    intro: bool
    figure: bool
    word_number: bool
    url: bool
    method: bool
    result: bool
    background: bool
    short: bool


@functools.lru_cache(maxsize=65_536)
def _traits(text: str) -> _Traits:
    """A sentence's words and kinds. Cached: the same abstracts' sentences come back from
    question to question, and their regular expressions were most of a ranking's time."""
    return _Traits(
        frozenset(terms(text)),
        bool(_INTRO.search(text)),
        bool(_FIGURE.search(text)),
        bool(_WORD_NUMBER.search(text)),
        bool(_URL.search(text)),
        bool(_METHOD.search(text)),
        bool(_RESULT.search(text)),
        bool(_BACKGROUND.search(text)),
        len(text.split()) < 8,
    )


def _idf(sentences: Sequence[Set[str]]) -> dict[str, float]:
    df = Counter(t for s in sentences for t in s)
    n = len(sentences)
    return {t: math.log(1 + n / c) for t, c in df.items()}


def features(question: Question, candidates: Sequence[Candidate], dense: np.ndarray) -> np.ndarray:
    """One row of FEATURES per candidate; ``dense`` is each one's cosine to the question."""
    if not candidates:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    traits = [_traits(c.text) for c in candidates]
    words = [t.terms for t in traits]
    idf = _idf(words)
    wanted = {t for t in terms(question.text) if t in idf}
    total = sum(idf[t] for t in wanted) or 1.0
    kind = question.kind
    problem = bool(_ASKS_PROBLEM.search(question.text))
    code = bool(_ASKS_CODE.search(question.text))
    evaluation = bool(_ASKS_EVALUATION.search(question.text))
    best = float(np.max(dense))
    # Where each abstract introduces its system: what follows is how it works and what it does.
    intro_at: dict[str, int] = {}
    for c, t in zip(candidates, traits, strict=True):
        if t.intro and c.position < intro_at.get(c.paper_id, c.of):
            intro_at[c.paper_id] = c.position
    how = kind == "how"
    rows = []
    for c, t, sim in zip(candidates, traits, dense, strict=True):
        figure = t.figure or (kind == "numeric" and t.word_number)
        named = c.paper_id in question.named
        after_intro = c.position > intro_at.get(c.paper_id, c.of)
        rows.append(
            [
                1.0,
                float(sim),
                float(sim) - best,
                sum(idf[w] for w in wanted & t.terms) / total,
                float(named and c.label.casefold() in c.text.casefold()),
                float(named),
                float(t.intro),
                float(t.intro and kind == "definition"),
                float(figure),
                float(figure and kind == "numeric"),
                float(t.result),
                float(t.background),
                float(t.background and problem),
                float(t.url),
                float(t.url and code),
                float(t.method),
                float(t.method and kind in ("how", "definition")),
                float(t.result and evaluation),
                float(after_intro),
                float(how and after_intro),
                float(how and t.background),
                float(c.position == 0),
                c.position / max(c.of - 1, 1),
                1.0 / c.rank,
                float(t.short),
            ]
        )
    return np.asarray(rows, dtype=np.float32)


def score(rows: np.ndarray, weights: dict[str, float] | None = None) -> np.ndarray:
    """Each row's log-odds of holding the answer."""
    w = weights or WEIGHTS
    vector = np.asarray([w[f] for f in FEATURES], dtype=np.float32)
    scores: np.ndarray = rows @ vector
    return scores
