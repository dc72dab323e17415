"""Which papers an answer draws on, and whether they can answer at all.

The question's type decides where its sources come from: an overview reads the library
itself, an author question the author's papers from the metadata, a question naming papers
starts from those papers, and every other question from hybrid retrieval (more papers for a
list, of which those close to the best are kept).

Whether to answer is decided on evidence, not on one cosine. A question that names a paper
of the library (:class:`rag.answer.question.Names`: by a distinctive name), or an author in
it, or asks what an acronym a paper defines means (and no term it asks about is missing from
the library), or is asked of papers the user picked, is answerable; an overview is, when the
library holds papers. Any other question is weighed on the evidence of its best paper
(:class:`Evidence`): how far its dense cosine rises above the library's noise floor
(:mod:`rag.answer.probes`: cosines run higher in some libraries than in others), how far its
sentence nearest the question rises above the same floor (a sentence that says what is asked,
not an abstract that shares its words), how much of the question's vocabulary, weighted by
rarity, the paper holds (in all, in two adjacent sentences, of its rarest words), how
clearly it beats the second paper, and how many mixed-case names of the question ("vLLM")
no paper of the library holds. A logistic model of these, fitted by bench/fit_answers.py on
libraries of different fields and kept in :mod:`rag.answer.params`, refuses below its
threshold; what it lets through meets the reader's gate (:mod:`rag.answer.gate`), a
stricter one when the question names what no paper holds. A question whose best dense
score does not rise above the noise floor is refused whatever words it shares with a paper
("What is the capital of Australia?" in a library holding the "Australian Capital
Territory"): of the bench libraries' own questions whose gold paper retrieval brings, 7 of
1,371 fall below it, against 88-100% of other fields' questions; a list question ("Are there
any surveys?") and one with a name the top paper holds ("What is AM404 chemically?") are not
held to it. So is a best dense score below ``min_relevance``."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import candidates as cand
from rag.answer import missing, params
from rag.answer.cite import Source
from rag.answer.gate import unread
from rag.answer.question import Names, Question
from rag.answer.rank import asked_terms
from rag.index.layout import sentence_vectors
from rag.passages import body_passages
from rag.sentences import split_sentences
from rag.terms import STOPWORDS, share

if TYPE_CHECKING:
    from rag.records import PaperRow
    from rag.retrieve import Filters, Hit, Retriever

__all__ = [
    "Evidence",
    "Gathered",
    "covered",
    "evidence",
    "gather",
    "held_to_floor",
    "refusal_score",
]

OVERVIEW_PAPERS = 60  # an overview of a larger library reads an even sample of it
LIST_K = 10  # a list question looks at this many papers...
LIST_SHARE = 0.7  # ...and keeps those whose fused score is at least this share of the best
RELATED = 3  # papers offered as related reading beside a refusal
# Words that say what kind of answer is wanted, not what it is about: no evidence either way.
_ASKING = re.compile(
    r"\b(papers?|collection|library|corpus|abstracts?|stud(y|ies)|works?|articles?|any|there|"
    r"which|list|summari[sz]e|tell|explain|describe|please)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Evidence:
    """How well the best retrieved paper covers a question (the refusal model's inputs)."""

    dense: float  # the best dense cosine among the hits
    margin: float  # how far it rises above the library's noise floor (rag.answer.probes)
    coverage: float  # idf-weighted share of the question's words the top paper holds
    focus: float  # the same over the question's FOCUS rarest words only
    gap: float  # the best dense cosine less the second best
    local: float  # the coverage of the top paper's two adjacent sentences that cover most
    sentence: float  # the top paper's sentence nearest the question: its cosine less the floor
    unknown: tuple[str, ...]  # mixed-case names ("vLLM") no paper of the library holds
    known: tuple[str, ...] = ()  # names of the question ("AM404", "GATA3") the top paper holds
    # Names of any kind ("GPT-4", "A100", "vLLM"; not "400mg") no paper of the library holds:
    # what the answer says first, and what holds the question to the reader's stricter gate
    # (rag.answer.gate). In the evidence model only the mixed-case ones weigh: counting the
    # others too, refitted and held out, refused more of SciFact's answerable claims (26 ->
    # 29 of 729) and answered more other-field questions of the sample (6 -> 9 of 892).
    absent: tuple[str, ...] = ()

    def features(self) -> dict[str, float]:
        return {
            "margin": self.margin,
            "coverage": self.coverage,
            "focus": self.focus,
            "gap": self.gap,
            "local": self.local,
            "sentence": self.sentence,
            "unknown_name": float(min(len(self.unknown), 2)),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Gathered:
    """The numbered sources, whether they can answer, and the evidence that decided it."""

    sources: tuple[Source, ...]
    answerable: bool
    reason: str  # "named", "author", "overview", "relevant", or why not
    library: int = 0  # for an overview: how many papers the (filtered) library holds
    evidence: Evidence | None = None  # what decided it, when the evidence did
    # Refused, but the question is of the library's field (it rises above the noise floor):
    # its closest papers, offered as reading beside the refusal, never cited.
    related: tuple[Source, ...] = ()


def _numbered(
    rows: Sequence[PaperRow],
    retriever: Retriever,
    query: str = "",
    shares: Mapping[str, float] | None = None,
) -> tuple[Source, ...]:
    """Rows as sources 1..n, each with its whole stored abstract, its share of the best
    retrieval score (``shares``; 1.0 without) and (given the ``query``) the body passages of
    those whose full text is stored. A reference stored without an abstract has nothing to
    quote: search lists it, answers draw only on the others."""
    rows = [r for r in rows if r.has_abstract]
    firsts = retriever.store.first_chunks([r.id for r in rows])
    full = [r for r in rows if r.n_chunks > 1 and firsts.get(r.id, {}).get("body")]
    passages = body_passages(retriever.store, retriever.embedder, query, full) if query else {}
    return tuple(
        Source(
            n,
            replace(r, abstract=str(firsts.get(r.id, {}).get("abstract", r.abstract))),
            sentence_vectors(firsts.get(r.id, {})),
            passages.get(r.id, ()),
            shares.get(r.id, 0.0) if shares is not None else 1.0,
        )
        for n, r in enumerate(rows, 1)
    )


def _rows(ids: Sequence[str], retriever: Retriever, filters: Filters | None) -> list[PaperRow]:
    catalogue = retriever.index.catalogue
    rows = [catalogue[pid] for pid in dict.fromkeys(ids) if pid in catalogue]
    return [r for r in rows if not filters or filters.matches(r)]


def gather(
    question: Question,
    query: str,
    *,
    retriever: Retriever,
    names: Names | None,
    filters: Filters | None,
    k: int,
    min_relevance: float,
    trust_names: bool = True,
    noise: float = 0.0,
) -> Gathered:
    """The sources for ``question`` (searched as ``query``) and whether to answer.
    ``trust_names=False`` weighs the evidence even when the question names a paper (for a
    query that had a name added from the conversation); ``noise`` is the library's noise
    floor (:mod:`rag.answer.probes`)."""
    if question.kind == "overview":
        catalogue = retriever.index.catalogue
        ids = sorted(catalogue.select(filters.keeps)) if filters else list(catalogue.ids)
        step = max(1, len(ids) // OVERVIEW_PAPERS)
        rows = _rows(ids[::step][:OVERVIEW_PAPERS], retriever, None)
        return Gathered(
            sources=_numbered(rows, retriever),
            answerable=bool(rows),
            reason="overview",
            library=len(ids),
        )
    if question.kind == "author" and names is not None:
        ids = [pid for a in question.authors for pid in names.papers_by(a)]
        rows = _rows(ids, retriever, filters)
        if rows:
            sources = _numbered(rows, retriever, query)
            return Gathered(sources=sources, answerable=True, reason="author")
    wide = max(k, LIST_K) if question.kind == "list" else k
    # Answers quote the whole abstracts read below, never the chunk passages: none read.
    hits = retriever.search(query, k=wide, filters=filters, passages=0)
    named = _rows(question.named, retriever, filters)
    if question.kind == "list":
        hits = _close_to_best(hits)
    if question.kind == "comparison":
        rows = named  # one line per system compared, and nothing else
    else:
        keep = max(k, len(named), len(hits) if question.kind == "list" else 0)
        rows = [*named, *(h.paper for h in hits if h.paper.id not in question.named)][:keep]
    # "What does PCD stand for?": the papers defining it, after what retrieval ranked.
    defining = question.defined if question.kind == "definition" else ()
    found = {r.id for r in rows}
    rows += _rows([p for p in defining if p not in found], retriever, filters)[:2]
    top = max((h.score for h in hits), default=0.0)
    shares = {h.paper.id: h.score / top if top > 0 else 1.0 for h in hits}
    sources = _numbered(rows, retriever, query, shares | dict.fromkeys(question.named, 1.0))
    if named and trust_names:
        return Gathered(sources=sources, answerable=True, reason="named")
    if defining and sources and not _unheard(asked_terms(question.own or question.text), retriever):
        return Gathered(sources=sources, answerable=True, reason="defines the acronym")
    if filters is not None and filters.paper_ids and sources:  # papers the user picked
        return Gathered(sources=sources, answerable=True, reason="chosen papers")
    ev = evidence(query, hits, sources, retriever, noise, asked=question.own)
    why_not = _refusal(ev, min_relevance, ev is not None and held_to_floor(question, ev))
    if why_not:
        floor = params.current().evidence.get("min_margin", 0.0)
        in_field = ev is not None and ev.margin >= floor and ev.dense >= min_relevance
        related = sources[:RELATED] if in_field else ()
        return Gathered(sources=(), answerable=False, reason=why_not, evidence=ev,
                        related=related)  # fmt: skip
    why_not = unread(question, query, sources, retriever.embedder, absent=bool(ev and ev.absent),
                     local=ev.local if ev else 1.0)  # fmt: skip
    if why_not:
        return Gathered(sources=(), answerable=False, reason=why_not, evidence=ev,
                        related=sources[:RELATED])  # fmt: skip
    return Gathered(sources=sources, answerable=True, reason="relevant", evidence=ev)


FOCUS = 2
# A full-text paper's sentences weighed are its abstract's and those of its body passage
# nearest the question: on the real PDFs (bench/pdf_answers.py) the abstract's alone refused
# a question its body answers ("how long does the VM wait before recording again?"); one
# passage answers it and the rest as before, at 0.07 s median (0.05 s without, 0.09 s for two).
NEAR_PASSAGES = 1


def evidence(
    query: str,
    hits: Sequence[Hit],
    sources: Sequence[Source],
    retriever: Retriever,
    noise: float = 0.0,
    asked: str = "",
) -> Evidence | None:
    """The evidence for answering ``query`` from ``sources`` (None when there is none);
    only names in ``asked``, the user's own words of a rewritten follow-up, can be missing."""
    if not hits or not sources:
        return None
    index = retriever.index
    df, idf = _rarity(query, retriever)
    # The question's names ("vLLM", "AM404", "GPT-4") and those no paper holds.
    found = missing.names(asked or query, retriever)
    absent, unknown = missing.missing(found, df, query, sources, retriever)
    denses = sorted((h.dense for h in hits if h.dense is not None), reverse=True)
    dense = denses[0] if denses else -1.0
    top = sources[0]
    have = _words_of(top, retriever)
    rare = sorted(idf, key=lambda t: (-idf[t], t))[:FOCUS]
    gap = dense - denses[1] if len(denses) > 1 else 0.0
    # The question's words found together: in two adjacent sentences, not anywhere.
    sentences = [set(index.analyze_one(s)) for s in split_sentences(top.abstract)] or [set()]
    windows = [a | b for a, b in zip(sentences, [*sentences[1:], set()], strict=True)]
    # Whether one sentence says what is asked, not only shares its words: the best cosine of
    # a sentence of the top paper to the question, its abstract's or (full text stored) its
    # body passage's nearest the question (the best dense cosine when it has none).
    near = replace(top, passages=top.passages[:NEAR_PASSAGES])
    quotable = cand.sentences([top]) + cand.sentences([near], body=True)
    nearest = dense
    if quotable:
        qvec = np.asarray(retriever.embedder.embed_query(query), dtype=np.float32)
        nearest = float(np.max(cand.with_vectors_of(quotable, retriever.embedder) @ qvec))
    known = tuple(
        word
        for word, key in found.items()
        if len(word) > 2 and key in have  # "QA", "US": two capitals stand for too many things
    )
    return Evidence(dense, dense - noise, share(idf, have), share({t: idf[t] for t in rare}, have),
                    gap, max(share(idf, w) for w in windows), nearest - noise, unknown, known,
                    absent)  # fmt: skip


def _unheard(terms: Sequence[str], retriever: Retriever) -> bool:
    """Whether a term the question asks about is in no paper of the library: "What is the
    CGRM method for knowledge base QA?" asks about CGRM, whatever paper defines QA."""
    heads = {key for t in terms if (key := missing.key(t, retriever))}
    return any(n == 0 for n in retriever.index.document_frequency(heads).values())


def held_to_floor(question: Question, ev: Evidence) -> bool:
    """Whether the question must rise above the library's noise floor to be answered: a list
    asks what kind of papers the library holds ("Are there any surveys?"), and a name the
    top paper holds is evidence of its own, so neither is."""
    return question.kind != "list" and not ev.known


def covered(text: str, source: Source, retriever: Retriever) -> float:
    """The idf-weighted share of ``text``'s words that the source's title or abstract holds
    (words that only say what is asked, such as "papers", "tell", "what" or "did", left
    out)."""
    return share(_rarity(text, retriever, only_content=True)[1], _words_of(source, retriever))


def _content(text: str) -> str:
    """``text`` without the words that only ask: "papers", "tell", and the English function
    words the BM25 analyzer keeps ("what", "how", "did", "were": its stop list is Lucene's
    33 words), which a question holds and an abstract seldom does, so they would weigh as
    its rarest words. An acronym in capitals ("WHO", "IT") stays."""
    text = _ASKING.sub(" ", text)
    return _WORD.sub(
        lambda m: " " if m[0].casefold() in STOPWORDS and not m[0].isupper() else m[0], text
    )


def _rarity(
    text: str, retriever: Retriever, *, only_content: bool = False
) -> tuple[dict[str, int], dict[str, float]]:
    """The document frequency and idf in the library of ``text``'s words (asking words
    out; with ``only_content`` the function words the analyzer keeps too). The refusal
    model's evidence keeps those: it was fitted on them, and leaving them out there, refitted
    and held out, refused more answerable questions (SciFact 40 -> 61 of 906) and answered
    more off-topic ones in every library (docs/benchmarks.md)."""
    index = retriever.index
    kept = _content(text) if only_content else _ASKING.sub(" ", text)
    df = index.document_frequency(set(index.analyze_one(kept)))
    n = max(len(index), 1)
    return df, {t: math.log(1 + n / (c + 0.5)) for t, c in df.items()}


def _words_of(source: Source, retriever: Retriever) -> set[str]:
    return set(retriever.index.analyze_one(f"{source.name} {source.abstract}"))


def refusal_score(ev: Evidence, weights: Mapping[str, float]) -> float:
    """The log-odds that the question can be answered (its sign decides, less the
    threshold): a logistic model of the evidence, weights from :mod:`rag.answer.params`."""
    return weights["bias"] + sum(weights.get(k, 0.0) * v for k, v in ev.features().items())


def _refusal(ev: Evidence | None, min_relevance: float, gated: bool = True) -> str:
    """Why the papers cannot answer the question ("" when they can): see the module doc."""
    if ev is None:
        return "no paper matches"
    if ev.dense < min_relevance:
        return "no paper is similar enough"
    w = params.current().evidence
    if gated and ev.margin < w.get("min_margin", 0.0):  # no closer than everyday questions
        return "it comes no closer to any paper than everyday questions do"
    if refusal_score(ev, w) > w["threshold"]:
        return ""
    if ev.unknown:
        return f"the library has no paper on {', '.join(ev.unknown[:2])}"
    return "the best paper does not cover the question"


def _close_to_best(hits: list[Hit]) -> list[Hit]:
    """The hits of a list question that belong in the list: a fused score of at least
    LIST_SHARE of the best one (on the dev set's list questions: precision 0.75, recall
    0.69; bench/answers.py reports both)."""
    if not hits:
        return []
    floor = LIST_SHARE * hits[0].score
    return [h for h in hits if h.score >= floor][:8]
