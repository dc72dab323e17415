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

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rag.cite import Citation, Source

__all__ = ["DeltaEvent", "ErrorEvent", "Event", "FinalEvent", "SourcesEvent", "refusal"]


@dataclass(frozen=True, slots=True)
class SourcesEvent:
    """The numbered sources offered to the answer (empty when the answer is refused)."""

    type: ClassVar[str] = "sources"
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "sources": [s.to_json() for s in self.sources]}


@dataclass(frozen=True, slots=True)
class DeltaEvent:
    """A piece of the checked answer; its markers are numbered as in the FinalEvent."""

    type: ClassVar[str] = "delta"
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
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
class FinalEvent:
    """The checked answer: every marker in ``answer`` is within 1..len(citations), and
    ``citations[n - 1].source.n`` is the number that source had in the SourcesEvent. Show
    this text: it equals the deltas joined, except after a refusal that follows text."""

    type: ClassVar[str] = "final"
    answer: str
    citations: tuple[Citation, ...]
    refused: bool
    dropped: tuple[str, ...]  # markers removed by the check, e.g. "[7]"
    mode: str  # "extractive" or "llm"
    timings: dict[str, float]
    query: str = ""  # what was searched (the question, or its follow-up rewrite)
    model: str = ""  # the language model's name; "" for extractive answers
    # prompt_tokens, completion_tokens, and estimated=True when counted by us, not the server
    usage: dict[str, int | bool] = field(default_factory=dict)
    fallback_reason: str = ""  # set when this extractive answer stands in for a failed LLM

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "refused": self.refused,
            "dropped_citations": list(self.dropped),
            "mode": self.mode,
            "model": self.model,
            "query": self.query,
            "usage": dict(self.usage),
            "fallback_reason": self.fallback_reason,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


Event = SourcesEvent | DeltaEvent | ErrorEvent | FinalEvent


def refusal(query: str, timings: dict[str, float], *, mode: str, model: str = "") -> list[Event]:
    """The events of a refused answer: nothing offered, the sentinel, no citations."""
    from rag.prompts import NO_ANSWER

    return [
        SourcesEvent(()),
        DeltaEvent(NO_ANSWER),
        FinalEvent(NO_ANSWER, (), True, (), mode, timings, query, model),
    ]
