"""The sentences a prose answer quotes from a full-text paper's body, after its abstract's:
what the abstract does not say (a method's parts, a training detail, a definition in the
background section). Each is printed with the page and section it is on
(:mod:`rag.answer.extractive`); the passages are ranked by :mod:`rag.passages`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from rag.answer import candidates as cand
from rag.answer import rank
from rag.answer.cite import Source
from rag.answer.question import Question
from rag.passages import naming_terms
from rag.terms import terms

__all__ = [
    "BODY_SENTENCES",
    "FIGURE_WEIGHT",
    "MAX_BODY_SENTENCE_WORDS",
    "PASSAGE_WEIGHT",
    "from_body",
    "is_term_list",
]

# A prose answer about a paper whose full text is stored adds this many sentences of its body
# passages, after the abstract's (bench/pdf_answers.py): each sentence ranked by PASSAGE_WEIGHT
# times its passage's rank (rag.passages.body_passages) plus the share of the question's rare
# words it holds, a weight fitted on the questions of half the real PDFs and reported on the
# other half.
BODY_SENTENCES = 2
PASSAGE_WEIGHT = 2.0
# ... and, for a "how much / how many" question, this much more for a sentence giving a
# figure by one of the question's words (rag.answer.rank.states_figure), fitted the same way.
FIGURE_WEIGHT = 0.5
MAX_BODY_SENTENCE_WORDS = 60  # longer "sentences" of a PDF are tables or lists run together
_QUOTED = re.compile(r"[\"“‘'][^\"“”‘’']{1,40}[\"”’']")


def from_body(question: Question, sources: Sequence[Source]) -> list[cand.Sentence]:
    """The best BODY_SENTENCES sentences of the body passages of the paper retrieval ranked
    first (and of the papers the question names): a detail of one paper is asked of that
    paper. A sentence scores PASSAGE_WEIGHT times its passage's rank, plus the share of the
    question's words it holds (the words naming the paper aside), each weighted by its
    rarity among these sentences, plus FIGURE_WEIGHT when a numeric question's figure is in
    it (the sentence ranker, fitted on abstracts, adds nothing here: bench/pdf_answers.py).
    A definition the abstract does not give is answered first by the body sentence that
    spells it out."""
    lead = min((s.n for s in sources), default=0)
    readers = [s for s in sources if s.passages and (s.n == lead or s.paper_id in question.named)]
    every = cand.sentences(readers, body=True)
    body = [
        s
        for s in every
        if len(s.text.split()) <= MAX_BODY_SENTENCE_WORDS and not is_term_list(s.text)
    ]
    # "What do FIDD and SIDD stand for?", when the abstract does not say: the body sentence
    # spelling them out answers it, first, even when it is a long enumeration ("we present
    # (1) ..., (2) FIDD (First ...), ...").
    spelled = []
    if question.kind == "definition" and not any(
        rank.spells_out(question, s.text) for s in cand.sentences(readers)
    ):
        spelled = [s for s in every if rank.spells_out(question, s.text)]
    if not body and not spelled:
        return []
    wanted = terms(question.own or question.text)
    for s in readers:
        wanted -= naming_terms(s.title, s.authors)
    held = [wanted & terms(s.text) for s in body]
    df = Counter(t for words in held for t in words)
    idf = {t: math.log(1 + len(body) / c) for t, c in df.items()}
    total = sum(idf.values()) or 1.0
    numeric = question.kind == "numeric"
    body = [
        replace(
            s,
            score=PASSAGE_WEIGHT * s.source.passages[s.passage].score
            + sum(idf[t] for t in words) / total
            + (FIGURE_WEIGHT if numeric and rank.states_figure(s.text, wanted) else 0.0),
        )
        for s, words in zip(body, held, strict=True)
    ]
    picked: list[cand.Sentence] = []
    spelling = min(spelled, key=lambda s: (s.passage, s.position), default=None)
    if spelling is not None:
        picked.append(spelling)
    while len(picked) < BODY_SENTENCES and (best := cand.best(body, picked)) is not None:
        picked.append(best)
    return picked


def is_term_list(text: str) -> bool:
    """A list of quoted terms, not a statement ('Search terms included: "DVT", "deep
    venous thrombosis", "trauma", ...'): five quoted items or more."""
    return len(_QUOTED.findall(text)) >= 5
