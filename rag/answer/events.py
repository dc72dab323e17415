"""The small typed events an answer is streamed as; every face (CLI, API, UI) reads these.

A stream is, in order:

- one :class:`SourcesEvent`: the numbered sources offered (``[1]..[k]``, retrieval order);
- :class:`DeltaEvent` pieces of the *checked* answer: whole sentences whose markers have
  been checked and renumbered exactly as in the final answer, so the deltas join to the
  FinalEvent's text (and a client that only concatenates them, as OpenAI clients do, shows
  true citations);
- then either one :class:`FinalEvent` (the checked answer and its citations), or one
  :class:`ErrorEvent` with ``fallback=False`` and nothing after it.

When the language model fails and fallback is on, an :class:`ErrorEvent` with
``fallback=True`` comes first and a whole extractive stream follows it (a new
SourcesEvent, deltas, a FinalEvent): a face drops what the failed model had streamed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rag.answer.attribute import AnswerSentence, answer_sentences
from rag.answer.cite import Citation, Source
from rag.answer.prompts import NO_ANSWER
from rag.errors import LLMError

__all__ = [
    "Answer",
    "DeltaEvent",
    "ErrorEvent",
    "Event",
    "FinalEvent",
    "Related",
    "SourcesEvent",
    "collect",
    "refusal",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class SourcesEvent:
    """The numbered sources offered to the answer (empty when the answer is refused)."""

    type: ClassVar[str] = "sources"
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "sources": [s.to_json() for s in self.sources]}


@dataclass(frozen=True, slots=True, kw_only=True)
class DeltaEvent:
    """A piece of the checked answer; its markers are numbered as in the FinalEvent."""

    type: ClassVar[str] = "delta"
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent:
    """The language model failed. ``fallback``: an extractive answer follows; otherwise the
    stream ends here. ``message`` says what failed and what to do (never the API key)."""

    type: ClassVar[str] = "error"
    message: str
    kind: str  # unreachable | timeout | auth | rate_limit | server | bad_request | stream
    fallback: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message,
            "kind": self.kind,
            "fallback": self.fallback,
        }


@dataclass(frozen=True, slots=True)
class Related:
    """A paper offered as related reading beside a refusal: the closest the library holds,
    with its sentence nearest the question. It is no citation: nothing in the answer rests
    on it, and it carries no marker number."""

    source: Source
    sentence: str

    def to_json(self) -> dict[str, Any]:
        out = self.source.to_json()
        del out["n"]
        return out | {"sentence": self.sentence}


@dataclass(frozen=True, slots=True, kw_only=True)
class FinalEvent:
    """The checked answer: every marker in ``answer`` is within 1..len(citations), and
    ``citations[n - 1].source.n`` is the number that source had in the SourcesEvent. Show
    this text: it equals the deltas joined, except after a refusal that follows text."""

    type: ClassVar[str] = "final"
    answer: str
    citations: tuple[Citation, ...] = ()
    refused: bool = False
    dropped: tuple[str, ...] = ()  # markers removed by the check, e.g. "[7]"
    answerer: str  # who wrote it: "extractive" or "llm" (sent as "mode" on the wire)
    timings: dict[str, float]
    query: str = ""  # what was searched (the question, or its follow-up rewrite)
    model: str = ""  # the language model's name; "" for extractive answers
    # prompt_tokens, completion_tokens, and estimated=True when counted by us, not the server
    usage: dict[str, int | bool] = field(default_factory=dict)
    fallback_reason: str = ""  # set when this extractive answer stands in for a failed LLM
    refusal_reason: str = ""  # why a refused answer was refused ("no paper matches", ...)
    # A refusal's closest papers, as reading: never cited, shown apart from the answer.
    related: tuple[Related, ...] = ()
    # The answer's sentences in order, each with its citation numbers and whether a source
    # supports it (rag.answer.attribute); filled from ``answer`` when not given.
    sentences: tuple[AnswerSentence, ...] = ()
    removed: tuple[str, ...] = ()  # sentences PAPERCHAT_ATTRIBUTION=strict left out

    def __post_init__(self) -> None:
        if not self.sentences and self.answer:
            object.__setattr__(self, "sentences", answer_sentences(self.answer))

    @property
    def unsupported(self) -> tuple[AnswerSentence, ...]:
        """The sentences no source offered supports (shown apart by every face)."""
        return tuple(s for s in self.sentences if not s.supported)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "refused": self.refused,
            "dropped_citations": list(self.dropped),
            "mode": self.answerer,
            "model": self.model,
            "query": self.query,
            "usage": dict(self.usage),
            "fallback_reason": self.fallback_reason,
            "refusal_reason": self.refusal_reason,
            "related": [r.to_json() for r in self.related],
            "sentences": [s.to_json() for s in self.sentences],
            "removed_sentences": list(self.removed),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


Event = SourcesEvent | DeltaEvent | ErrorEvent | FinalEvent


def refusal(
    query: str,
    timings: dict[str, float],
    *,
    answerer: str,
    model: str = "",
    reason: str = "",
    missing: Sequence[str] = (),
    related: Sequence[Related] = (),
) -> list[Event]:
    """The events of a refused answer: nothing offered, the sentinel (and, given the names
    of the question no paper mentions, one line naming them), no citations; the closest
    papers, if any, as ``related`` reading."""
    text = NO_ANSWER
    if missing:
        text += f" No paper in the library mentions {_listed(missing)}."
    return [
        SourcesEvent(sources=()),
        DeltaEvent(text=text),
        FinalEvent(
            answer=text,
            refused=True,
            answerer=answerer,
            timings=timings,
            query=query,
            model=model,
            refusal_reason=reason,
            related=tuple(related),
        ),
    ]


def _listed(names: Sequence[str]) -> str:
    shown = list(names[:3])
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """A whole answer stream collapsed: the final event, the sources offered with it, and
    the model failures an extractive fallback stood in for."""

    final: FinalEvent
    sources: tuple[Source, ...]
    errors: tuple[ErrorEvent, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = self.final.to_json()
        del out["type"]
        return out | {
            "sources": [s.to_json() for s in self.sources],
            "errors": [e.to_json() for e in self.errors],
        }


def collect(events: Iterable[Event]) -> Answer:
    """The one way a stream becomes an answer. Raises :class:`rag.errors.LLMError` when the
    model failed and nothing stood in for it (an ErrorEvent without fallback)."""
    sources: tuple[Source, ...] = ()
    errors: list[ErrorEvent] = []
    for event in events:
        if isinstance(event, SourcesEvent):
            sources = event.sources
        elif isinstance(event, ErrorEvent):
            if not event.fallback:
                raise LLMError(event.message, kind=event.kind)
            errors.append(event)
        elif isinstance(event, FinalEvent):
            return Answer(final=event, sources=sources, errors=tuple(errors))
    raise AssertionError("an answer stream ended without a final event")
