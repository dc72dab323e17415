"""Wire formats of the HTTP API (JSON and OpenAI-compatible), kept apart from internal types.

Requests are validated here (unknown fields are refused on /api, tolerated on /v1 as
OpenAI clients send many); responses are built from the events' own ``to_json``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rag.retrieve import Filters

__all__ = [
    "AskRequest",
    "ChatCompletionRequest",
    "ChatMessage",
    "FiltersIn",
    "HistoryMessage",
    "SearchRequest",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FiltersIn(_Strict):
    year_from: int | None = Field(default=None, ge=0, le=9999)
    year_to: int | None = Field(default=None, ge=0, le=9999)
    author: str = Field(default="", max_length=200)
    source: str = Field(default="", max_length=500)

    def to_filters(self) -> Filters:
        return Filters(self.year_from, self.year_to, self.author.strip(), self.source.strip())


class HistoryMessage(_Strict):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=20_000)
    cited: list[str] = Field(default_factory=list, max_length=50)


class AskRequest(_Strict):
    question: str = Field(min_length=1)
    history: list[HistoryMessage] = Field(default_factory=list, max_length=50)
    filters: FiltersIn | None = None
    llm: Literal["extractive", "openai"] | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    k: int | None = Field(default=None, ge=1, le=50)
    stream: bool = False


class SearchRequest(_Strict):
    query: str = Field(min_length=1)
    k: int = Field(default=10, ge=1, le=100)
    mode: Literal["hybrid", "dense", "lexical"] = "hybrid"
    filters: FiltersIn | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "user", "assistant", "developer", "tool"]
    content: str | list[dict[str, Any]] | None = None

    @field_validator("content")
    @classmethod
    def _text(cls, value: str | list[dict[str, Any]] | None) -> str:
        """OpenAI's content parts ([{"type": "text", "text": ...}]) -> one string."""
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        return "\n".join(str(p.get("text", "")) for p in value if p.get("type") == "text")


class ChatCompletionRequest(BaseModel):
    """The OpenAI request; paperchat reads ``messages``, ``stream`` and its own extras
    ``filters`` and ``llm``, and accepts (and ignores) the other OpenAI fields."""

    model_config = ConfigDict(extra="allow")

    model: str = "paperchat"
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    filters: FiltersIn | None = None
    llm: Literal["extractive", "openai"] | None = None
