"""One answer engine for every face: a question -> a stream of small typed events.

``answer_stream`` rewrites a follow-up into a standalone query (:mod:`rag.answer.followup`),
retrieves the ``k`` best papers, decides whether they can answer at all, and hands the
numbered sources to one answerer: the language model when ``chat`` is given
(:mod:`rag.answer.generate`), else the extractive answerer (:mod:`rag.answer.extractive`);
if the model fails, it falls back here. The events are described in
:mod:`rag.answer.events`; every marker in a FinalEvent has been checked by
:func:`rag.answer.cite.check_citations`.

Refusal: when the best retrieved paper's dense score (cosine of its best chunk to the
query) is below ``min_relevance`` the answer is :data:`rag.answer.prompts.NO_ANSWER`, with no
citations and an *empty* SourcesEvent, and no language model is called: a refused answer
offers nothing to cite. On the sample questions (tests/data/sample_questions.jsonl) the
dense score separated answerable from unanswerable questions with a wider margin (0.24 vs
0.37) than the best single sentence's cosine did (0.49 vs 0.51): one sentence can share a
word or two with an off-topic question ("transformer architecture"), a whole chunk rarely
does. Hits found only by the lexical side carry no dense score; if no hit has one, the
extractive answerer's best sentence stands in (the model has its own sentinel).

When the language model fails (unreachable, timeout, 401, 429, 5xx, a broken stream, an
answer that cites nothing), an ErrorEvent says so; with ``fallback`` an extractive answer
of the same sources follows, its FinalEvent carrying ``fallback_reason``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from rag.answer.events import DeltaEvent, ErrorEvent, Event, FinalEvent, refusal
from rag.answer.extractive import extractive_answer
from rag.answer.followup import (
    HistoryItem,
    condense_question,
    may_follow,
    own_topic,
    points_back,
    rewrite_followup,
    switches,
)
from rag.answer.gather import covered, gather
from rag.answer.generate import LLMOptions, llm_answer
from rag.answer.prompts import EXTRACTIVE_MODE, LLM_MODE
from rag.answer.question import Names, analyse
from rag.answer.related import related_reading
from rag.errors import LLMError, QueryError

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.index.embed import Embedder
    from rag.retrieve import Filters, Retriever

__all__ = ["answer_stream"]

HELD = 0.5  # the share of a short question's words the conversation's study must hold


def answer_stream(
    question: str,
    *,
    retriever: Retriever,
    embedder: Embedder,
    chat: ChatModel | None = None,
    history: Sequence[HistoryItem] = (),
    filters: Filters | None = None,
    k: int = 5,
    min_relevance: float = 0.30,
    names: Names | None = None,
    noise: float = 0.0,
    llm: LLMOptions | None = None,
    fallback: bool = True,
) -> Iterator[Event]:
    """Answer ``question`` from the ``k`` best papers, as a stream of events (module doc).

    Raises :class:`rag.errors.QueryError` for an empty question or bad options, before any
    event is yielded. ``min_relevance`` is normally ``settings.min_relevance`` and
    ``noise`` the library's noise floor (:meth:`rag.engine.Engine.noise_floor`).
    """
    question = " ".join(question.split())
    if not question:
        raise QueryError("the question is empty: type a question about the papers")
    if k < 1:
        raise QueryError("k must be at least 1")
    return _answer(
        question,
        retriever=retriever,
        embedder=embedder,
        chat=chat,
        history=history,
        filters=filters,
        k=k,
        min_relevance=min_relevance,
        names=names,
        noise=noise,
        llm=llm or LLMOptions(),
        fallback=fallback,
    )


def _answer(
    question: str,
    *,
    retriever: Retriever,
    embedder: Embedder,
    chat: ChatModel | None,
    history: Sequence[HistoryItem],
    filters: Filters | None,
    k: int,
    min_relevance: float,
    names: Names | None,
    noise: float,
    llm: LLMOptions,
    fallback: bool,
) -> Iterator[Event]:
    start = time.perf_counter()
    timings: dict[str, float] = {}
    if names is None:
        catalogue = retriever.index.catalogue
        names = Names((catalogue[pid] for pid in catalogue), mentions=retriever.index.mentions)
    if chat is not None and history:
        query = condense_question(question, history, model=chat, names=names)
        timings["rewrite"] = time.perf_counter() - start
    else:
        query = rewrite_followup(question, history, names)
    clock = time.perf_counter()
    look = functools.partial(
        gather,
        retriever=retriever,
        names=names,
        filters=filters,
        k=k,
        min_relevance=min_relevance,
        noise=noise,
    )
    asked = analyse(query, names, own=question)
    found = look(asked, query)
    topic = own_topic(question) if query != question and not points_back(question) else []
    if topic and (not found.sources or covered(" ".join(topic), found.sources[0], retriever) == 0):
        # Rewritten for being short only: a question whose own words the conversation's
        # study holds none of starts a new topic ("What is the capital of France?" after a
        # turn on KCache), and is asked on its own, refused there if nothing answers it.
        query, asked = question, analyse(question, names, own=question)
        found = look(asked, query)
    if history and query == question and (not found.answerable or may_follow(question, names)):
        # Too weak on its own ("Whose capabilities did the classifier distill?"), or a short
        # question that names no paper and may still be about the study just discussed
        # ("What was the median follow-up?"): try it in the conversation's subject, on
        # evidence alone since the name was not the user's. It is kept when that study holds
        # HELD of the question's own words, or as many as what the question found alone ("How
        # long do I bake a cake?" shares no word with it and stays on its own).
        retry = rewrite_followup(question, history, names, force=True)
        if retry != query:
            asked_again = analyse(retry, names, own=question)
            again = look(asked_again, retry, trust_names=False)
            held = covered(question, again.sources[0], retriever) if again.answerable else 0.0
            # A turn that describes a subject of its own ("And the quantum-computing
            # adaptation of Landau-Zener surface hopping, ...?") keeps the conversation's
            # study only when that holds at least as much of it as the paper it found,
            # answered or not: a paper it describes better is its subject even when no
            # sentence of it states the answer (then it is refused, not answered from the
            # study before).
            switch = switches(question)
            alone_in = found.sources or (found.related if switch else ())
            alone = covered(question, alone_in[0], retriever) if alone_in else 0.0
            enough = alone if switch else min(alone, HELD)
            if held > 0 and held >= enough:
                query, asked, found = retry, asked_again, again
    sources = found.sources
    timings["retrieve"] = time.perf_counter() - clock

    def extractive(reason: str = "") -> Iterator[Event]:
        return extractive_answer(
            query,
            sources,
            embedder=embedder,
            question=asked,
            timings=timings,
            fallback_reason=reason,
            paper_vectors=retriever.store.paper_vectors,
            library=found.library,
            unknown=found.evidence.absent if found.evidence else (),
        )

    events: Iterator[Event]
    if not found.answerable:
        mode, model = (LLM_MODE, chat.name) if chat else (EXTRACTIVE_MODE, "")
        missing = found.evidence.absent if found.evidence else ()
        related = related_reading(question, found.related, embedder)
        events = iter(refusal(query, timings, answerer=mode, model=model, reason=found.reason,
                              missing=missing, related=related))  # fmt: skip
    elif chat is None:
        events = extractive()
    else:
        primary = llm_answer(
            question,
            query,
            sources,
            model=chat,
            history=history,
            options=llm,
            timings=timings,
            kind=asked.kind,
        )
        events = _with_fallback(primary, extractive if fallback else None)
    first = True
    for event in events:
        if first and isinstance(event, DeltaEvent):
            timings["first_token"] = time.perf_counter() - start
            first = False
        elif isinstance(event, ErrorEvent):
            first = True  # the fallback's first delta is the one a reader waits for
        if isinstance(event, FinalEvent):
            timings["total"] = time.perf_counter() - start
        yield event


def _with_fallback(
    primary: Iterator[Event], fallback_for: Callable[[str], Iterator[Event]] | None
) -> Iterator[Event]:
    """``primary``'s events; if it raises LLMError, an ErrorEvent and then, when there is
    a ``fallback_for``, the stream it gives for that reason."""
    try:
        yield from primary
        return
    except LLMError as exc:
        error = ErrorEvent(message=str(exc), kind=exc.kind, fallback=fallback_for is not None)
    yield error
    if fallback_for is not None:
        yield from fallback_for(error.message)
