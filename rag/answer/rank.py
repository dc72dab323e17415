"""Which abstract sentence answers the question: several signals, weighed by learnt weights.

MiniLM similarity alone favours background sentences ("LLMs have had a profound impact ...",
"The aim of this study was ...") over the one holding the answer. A sentence is scored on
its similarity to the question, the question's rare words it contains (an acronym its paper
defines standing for its long form, both ways: "CVD" holds "cardiovascular disease"),
whether it is in the paper the question names and its paper's retrieval rank, the part it
plays in its abstract (:mod:`rag.answer.roles`: a result when the question asks what was
found or how much, a method when it asks how something was done, the aim only when it asks
for the aim), and what the question asks for: a figure with its comparison for "how much",
of the kind asked (:mod:`rag.answer.quantities`: a share for "what share", a dose for "which
doses", not the sample size stated beside the question's words), the sentence introducing
a system or spelling out an acronym for "what is X", the problem for "what problem", the
sentence saying whether a difference was found for a yes or no question.

The weights are a logistic regression (a sentence is a positive when it holds one of the
question's key facts) learnt by ``bench/fit_answers.py`` on libraries of three fields and
kept in :mod:`rag.answer.params`; that script also reports them fitted on two libraries and
scored on the third. The score is a log-odds: above 0 the sentence more likely than not
holds what was asked.
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

from rag.aliases import glossary, glossed
from rag.answer import params
from rag.answer.quantities import FIGURE, WORD_NUMBER, asked_quantity, near, states_quantity, stems
from rag.answer.question import SPELL_OUT, Question
from rag.terms import share, terms

__all__ = [
    "FEATURES",
    "Candidate",
    "asked_terms",
    "asks_code",
    "asks_result",
    "asks_yes_no",
    "features",
    "gives_code",
    "score",
    "spells_out",
    "states_figure",
    "states_verdict",
]

_INTRO = re.compile(
    r"\b(we|this (paper|work|article|study)|in this (paper|work))\b[^.]{0,60}?\b(propose|present|"
    r"introduce|develop|design|build|describe|release|construct|call|name|report)|"
    r"\b(called|named|dubbed|termed)\b|^[A-Z][\w.-]*[\w] (is|are) (a|an|the)\b|"
    r", (a|an) (new|novel)\b",
    re.IGNORECASE,
)
_BACKGROUND = re.compile(
    r"^(in recent years|recently|with the|as the|nowadays|however|despite|although)|"
    r"\b(has|have) (attracted|become|achieved|shown|gained)|\b(challeng\w*|problem|issue|"
    r"bottleneck|suffer\w*|limit\w*|difficult\w*|costly|expensive)\b",
    re.IGNORECASE,
)
# What a system's mechanism reads like ("we design", "consists of", "via").
_METHOD = re.compile(
    r"\b(specifically|in particular|we (design|adopt|leverage|employ|use|devise|utili[sz]e|"
    r"formulate|decompose|combine|incorporate|exploit)|by (using|leveraging|introducing|"
    r"applying|combining|exploiting)|consists? of|composed of|mechanism|algorithm|strategy|"
    r"module|component|scheme|protocol|via|through)\b",
    re.IGNORECASE,
)
_ASKS_CODE = re.compile(r"\b(code|github|repository|repo|download|open[- ]source|link|url)\b", re.I)
_URL = re.compile(r"https?://|github|\bcode (is|and)\b.{0,40}\bavailable\b|available at", re.I)
_ASKS_PROBLEM = re.compile(
    r"\b(problem|challenge|issue|why|motivat\w*|limitation|bottleneck|address|solve|tackle)\b",
    re.IGNORECASE,
)

_ASKS_RESULT = re.compile(
    r"\b(find|found|finding|effect|effects|associat\w*|differ\w*|compar\w*|chang\w*|"
    r"outcomes?|results?|predict\w*|improv\w*|increas\w*|reduc\w*|decreas\w*|risks?|"
    r"likely|more|less|higher|lower|better|worse|survival|mortality|rates?|shows?|showed|"
    r"happen\w*|impact|influence|benefit\w*|respon\w*|correlat\w*|relationship|lead to|"
    r"cause\w*|affect\w*|depend\w*|role|linked|matter|work|perform\w*|accura\w*)\b",
    re.IGNORECASE,
)
# A question a yes or no answers: it opens with its auxiliary (after a clause, or "and").
_YES_NO = re.compile(
    r"^(?:[^,?]{0,120},\s*)?(?:(?:and|but|so)\s+)?(?:did|does|do|is|are|was|were|can|could|"
    r"has|have|had|will|would|should|may|might)\b",
    re.IGNORECASE,
)
_ASKS_METHOD = re.compile(
    r"\bhow (was|were|did|do|does|is|are)\b.{0,60}\b(measur\w*|assess\w*|evaluat\w*|"
    r"test\w*|diagnos\w*|select\w*|recruit\w*|defin\w*|calculat\w*|collect\w*|done|"
    r"perform\w*|train\w*|design\w*|identif\w*|detect\w*|treat\w*|randomi\w*|"
    r"stud(y|ied)|analy[sz]\w*|estimat\w*|model\w*|built|made|obtain\w*|compar\w*)\b|"
    r"\b(what|which) (kind of |type of )?(methods?|techniques?|approach\w*|design|"
    r"instruments?|tools?|scales?|questionnaires?|criteria|tests?|assays?|data|datasets?|"
    r"models?|samples?|cohorts?|populations?)\b",
    re.IGNORECASE,
)
_ASKS_AIM = re.compile(
    r"\b(aims?|purposes?|objectives?|goals?|why did|what did .{1,40} (set out|want|try))\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(vs\.?|versus|compared|than|from \S+ to|increas\w*|decreas\w*|reduc\w*|rose|fell|"
    r"higher|lower|more|less|times)\b",
    re.IGNORECASE,
)
# A sentence saying whether a difference or effect was found, as a yes or no question asks
# ("No significant difference was found between groups", "was not associated with", "is not
# required for granuloma formation").
_VERDICT = re.compile(
    r"\b(?:statistically |not |non-?)?significan(?:t|tly|ce)\b|\bno (?:\w+ ){0,2}"
    r"(?:difference|change|effect|association|correlation|relationship|benefit|improvement)s?\b|"
    r"\b(?:did|does|do|was|were|is|are) not (?:\w+ )?(?:differ\w*|change\w*|improv\w*|"
    r"affect\w*|reduc\w*|increas\w*|associated|related|correlated|predict\w*|required|"
    r"necessary|needed|essential|sufficient)\b|\bdispensable\b",
    re.IGNORECASE,
)

_WHAT_IS = re.compile(r"\bwhat (?:is|are|was|were)\b", re.IGNORECASE)
_ACRONYM = re.compile(r"\b[A-Za-z]*[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*\b")

FEATURES = (
    "bias",
    "dense",
    "dense_gap",
    "lexical",
    "lexical_local",
    "names_paper",
    "named_paper",
    "paper_rank",
    "top_paper",
    "aim",
    "method",
    "result",
    "conclusion",
    "result_asked",
    "first_result",
    "method_asked",
    "aim_asked",
    "conclusion_how",
    "figure",
    "figure_numeric",
    "comparison_numeric",
    "figure_near",
    "unit_asked",
    "rarest",
    "intro",
    "intro_definition",
    "defines_asked",
    "background_problem",
    "url",
    "url_asked",
    "mechanism_how",
    "verdict_yes_no",
    "first",
    "position",
    "short",
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence of a source's abstract, where it sits, the part it plays there
    (:mod:`rag.answer.roles`), and its paper's retrieval rank."""

    text: str
    paper_id: str
    label: str
    position: int  # index among its abstract's sentences
    of: int  # how many sentences the abstract has
    rank: int  # its paper's 1-based retrieval rank
    role: str = "background"


class _Traits(NamedTuple):
    """What a sentence is, whatever the question: computed once per text."""

    terms: frozenset[str]
    intro: bool
    figure: bool
    word_number: bool
    url: bool
    mechanism: bool
    background: bool
    comparison: bool
    verdict: bool
    short: bool
    tokens: tuple[str, ...]  # the stems of its words in order, numbers as "#"


@functools.lru_cache(maxsize=65_536)
def _traits(text: str) -> _Traits:
    """A sentence's words and kinds. Cached: the same abstracts' sentences come back from
    question to question, and their regular expressions were most of a ranking's time."""
    return _Traits(
        frozenset(terms(text)),
        bool(_INTRO.search(text)),
        bool(FIGURE.search(text)),
        bool(WORD_NUMBER.search(text)),
        bool(_URL.search(text)),
        bool(_METHOD.search(text)),
        bool(_BACKGROUND.search(text)),
        bool(_COMPARISON.search(text)),
        bool(_VERDICT.search(text)),
        len(text.split()) < 8,
        stems(text),
    )


def states_figure(text: str, wanted: Set[str]) -> bool:
    """Whether ``text`` gives a figure by one of the question's words (``wanted``: stems),
    within NEAR words ("we use 2.8 billion tokens as input"), or a number in words ("five
    orders of magnitude"): what a "how much / how many" question asks for."""
    t = _traits(text)
    return (t.figure and near(t.tokens, wanted)) or t.word_number


def _idf(sentences: Sequence[Set[str]]) -> dict[str, float]:
    df = Counter(t for s in sentences for t in s)
    n = len(sentences)
    return {t: math.log(1 + n / c) for t, c in df.items()}


def _defines(text: str, asked: Sequence[str]) -> bool:
    """The sentence spells out an acronym or term of the question: "programmed cell death
    (PCD)", "PCD (programmed cell death)", "procollagen type I N-terminal propeptide [PINP]"
    (brackets, inside parentheses), "X is defined as / refers to / stands for", "RHR, the
    ratio of ...", "the DAR, which is a measure of ..." ("These cells, designated as
    AG-haESCs" is left: it says what they are in the sentence before)."""
    for term in asked:
        t = re.escape(term)
        if re.search(rf"[(\[]\s*{t}\s*[)\],;]|\b{t}\s*[(\[]|\b{t}\s+(?:is defined as|refers to|"
                     rf"stands for|means|denotes)\b|\b{t},\s+(?:the|a|an)\s|"
                     rf"\b{t},\s+which (?:is|are) (?:a|an|the)\s", text):  # fmt: skip
            return True
    return False


def asks_code(question: Question) -> bool:
    """Whether the question asks where the code or data can be had."""
    return bool(_ASKS_CODE.search(question.own or question.text))


def gives_code(text: str) -> bool:
    """Whether the sentence says where code or data can be had (a URL, "available at")."""
    return _traits(text).url


def asked_terms(text: str) -> list[str]:
    """The acronyms or coined terms a definition question asks about: the one it asks to spell
    out ("What does SHSe mean in the NICU study?" asks for SHSe, not NICU), else those after
    its last "what is / what are" ("In the BRCA1/2 study, what is RHR?"), else all."""
    spell = SPELL_OUT.search(text)
    if spell:
        found = _ACRONYM.findall(spell.group(1) or spell.group(2) or "")
        if found:
            return found
    asks = list(_WHAT_IS.finditer(text))
    if asks:
        found = _ACRONYM.findall(text[asks[-1].end() :])
        if found:
            return found
    return _ACRONYM.findall(text)


def spells_out(question: Question, text: str) -> bool:
    """Whether the sentence spells out an acronym or term the question asks about."""
    return _defines(text, asked_terms(question.own or question.text))


def asks_result(question: Question) -> bool:
    """Whether the question asks what was found or how much (a result answers it): a "how"
    question with a word of findings, or one a yes or no answers ("Did treadmill training
    beat a weekly phone call on depression?": what the study found says yes or no); a
    definition ("what does SLT stand for in the paper comparing grafts?") does not."""
    if question.kind == "numeric" or asks_yes_no(question):
        return True
    return question.kind == "how" and bool(_ASKS_RESULT.search(question.own or question.text))


def states_verdict(text: str) -> bool:
    """Whether the sentence says whether a difference or effect was found ("No significant
    difference was found between groups", "was not associated with")."""
    return _traits(text).verdict


def asks_yes_no(question: Question) -> bool:
    """Whether a yes or no answers the question ("Did treadmill training beat a weekly phone
    call?"; not "Did they say what SHSe means?", a definition, nor "Did many ...?" numeric)."""
    return bool(_YES_NO.match(question.own or question.text)) and question.kind == "how"


def features(question: Question, candidates: Sequence[Candidate], dense: np.ndarray) -> np.ndarray:
    """One row of FEATURES per candidate; ``dense`` is each one's cosine to the question."""
    if not candidates:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    traits = [_traits(c.text) for c in candidates]
    # Each paper's acronyms, as its own sentences define them, read into all its sentences.
    texts: dict[str, list[str]] = {}
    for c in candidates:
        texts.setdefault(c.paper_id, []).append(c.text)
    glossaries = {pid: glossary(" ".join(ts)) for pid, ts in texts.items()}
    words = [
        glossed(t.terms, glossaries[c.paper_id]) for c, t in zip(candidates, traits, strict=True)
    ]
    idf = _idf(words)
    text = question.own or question.text
    asked = frozenset(terms(text))
    wanted = {t for t in asked if t in idf}
    close = {pid: {t for t in glossed(asked, g) if t in idf} for pid, g in glossaries.items()}
    quantity = asked_quantity(text)
    kind = question.kind
    problem = bool(_ASKS_PROBLEM.search(text))
    code = asks_code(question)
    numeric = kind == "numeric"
    result_wanted = asks_result(question)
    asks_method = bool(_ASKS_METHOD.search(text))
    asks_aim = bool(_ASKS_AIM.search(text))
    how = kind == "how"
    yes_no = asks_yes_no(question)
    acronyms = asked_terms(text)
    rarest = max(wanted, key=lambda t: (idf[t], t)) if wanted else ""
    best = float(np.max(dense))
    # The question's words weighed by how rare they are among the sentences of the same
    # paper: what sets one sentence apart from the rest of its abstract.
    by_paper: dict[str, list[frozenset[str]]] = {}
    first_result: dict[str, int] = {}
    for c, w in zip(candidates, words, strict=True):
        by_paper.setdefault(c.paper_id, []).append(w)
        if c.role == "result" and c.position < first_result.get(c.paper_id, c.of):
            first_result[c.paper_id] = c.position
    local_idf = {pid: _idf(sents) for pid, sents in by_paper.items()}
    rows = []
    for c, t, w, sim in zip(candidates, traits, words, dense, strict=True):
        figure = t.figure or (numeric and t.word_number)
        named = c.paper_id in question.named
        role = c.role
        local = local_idf[c.paper_id]
        rows.append(
            [
                1.0,
                float(sim),
                float(sim) - best,
                share({q: idf[q] for q in wanted}, w),
                share({q: local[q] for q in wanted if q in local}, w),
                float(named and c.label.casefold() in c.text.casefold()),
                float(named),
                1.0 / c.rank,
                float(c.rank == 1),
                float(role == "aim"),
                float(role == "method"),
                float(role == "result"),
                float(role == "conclusion"),
                float(role in ("result", "conclusion") and result_wanted),
                float(first_result.get(c.paper_id) == c.position and result_wanted),
                float(role == "method" and asks_method),
                float(role == "aim" and asks_aim),
                float(role == "conclusion" and how),
                float(figure),
                float(figure and numeric),
                float(figure and numeric and t.comparison),
                float(numeric and near(t.tokens, close[c.paper_id])),
                float(numeric and states_quantity(c.text, quantity)),
                float(rarest in w),
                float(t.intro),
                float(t.intro and kind == "definition"),
                float(kind == "definition" and _defines(c.text, acronyms)),
                float(t.background and problem),
                float(t.url),
                float(t.url and code),
                float(t.mechanism and kind in ("how", "definition")),
                float(t.verdict and yes_no),
                float(c.position == 0),
                c.position / max(c.of - 1, 1),
                float(t.short and not t.figure),
            ]
        )
    return np.asarray(rows, dtype=np.float32)


def score(rows: np.ndarray, weights: dict[str, float] | None = None) -> np.ndarray:
    """Each row's log-odds of holding the answer."""
    w = weights or params.current().ranker
    vector = np.asarray([w.get(f, 0.0) for f in FEATURES], dtype=np.float32)
    scores: np.ndarray = rows @ vector
    return scores
