"""Wire formats of the HTTP API (JSON and OpenAI-compatible), kept apart from internal types.

Requests are validated here (unknown fields are refused on /api, tolerated on /v1 as
OpenAI clients send many); responses are built from the events' own ``to_json``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from rag.retrieve import Filters

__all__ = [
    "AddRequest",
    "AskRequest",
    "ChatCompletionRequest",
    "ChatMessage",
    "FiltersIn",
    "HistoryMessage",
    "RenameRequest",
    "SearchRequest",
    "Text",
    "well_formed",
]


_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(value: str) -> str:
    """``value`` unchanged, or a ``malformed_text`` error (answered with 400) when it holds a
    lone UTF-16 surrogate (JSON allows ``"\\ud800"``; no text can be encoded with one)."""
    if _SURROGATE.search(value):
        raise PydanticCustomError(
            "malformed_text", "malformed text: a lone UTF-16 surrogate (\\ud800-\\udfff)"
        )
    return value


Text = Annotated[str, AfterValidator(well_formed)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FiltersIn(_Strict):
    year_from: int | None = Field(default=None, ge=0, le=9999)
    year_to: int | None = Field(default=None, ge=0, le=9999)
    author: Text = Field(default="", max_length=200)
    source: Text = Field(default="", max_length=500)
    collection: Text = Field(default="", max_length=100)
    paper_ids: list[Annotated[str, Field(max_length=300)]] = Field(
        default_factory=list, max_length=500
    )

    def to_filters(self) -> Filters:
        return Filters(
            self.year_from,
            self.year_to,
            self.author.strip(),
            self.source.strip(),
            " ".join(self.collection.split()),
            tuple(dict.fromkeys(self.paper_ids)),
        )


class HistoryMessage(_Strict):
    role: Literal["user", "assistant"]
    content: Text = Field(max_length=20_000)
    cited: list[Text] = Field(default_factory=list, max_length=50)


class AskRequest(_Strict):
    question: Text = Field(min_length=1)
    history: list[HistoryMessage] = Field(default_factory=list, max_length=50)
    filters: FiltersIn | None = None
    llm: Literal["extractive", "openai"] | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    k: int | None = Field(default=None, ge=1, le=50)
    stream: bool = False
    conversation_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="continue this saved conversation (its turns are the history); "
        "absent: a new one is saved",
    )
    save: bool = Field(default=True, description="false: answer without saving anything")


class RenameRequest(_Strict):
    """PATCH /api/conversations/{id}: a new title."""

    title: Text = Field(min_length=1, max_length=200)


class SearchRequest(_Strict):
    query: Text = Field(min_length=1)
    k: int = Field(default=10, ge=1, le=100)
    mode: Literal["hybrid", "dense", "lexical"] = "hybrid"
    filters: FiltersIn | None = None


class AddRequest(_Strict):
    """POST /api/papers: papers by arXiv id or DOI, and/or the results of an arXiv search."""

    identifiers: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        default_factory=list, max_length=500
    )
    arxiv_query: str = Field(default="", max_length=500)
    max: int = Field(default=10, ge=1, le=500)
    collection: str = Field(default="", max_length=100)

    @field_validator("arxiv_query")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


class ZoteroSyncRequest(_Strict):
    """POST /api/zotero/sync: a Zotero library to bring the index in step with."""

    zotero_dir: str = Field(
        default="",
        max_length=4096,
        description="the server's Zotero data directory; empty = PAPERCHAT_ZOTERO_DIR",
    )
    library: str = Field(
        default="",
        pattern=r"^((users|groups)/\d{1,12})?$",
        description="'users/ID' or 'groups/ID': through Zotero's web API (ZOTERO_API_KEY)",
    )
    collection: str = Field(default="", max_length=1000, description="only this subtree")
    abstract_only: bool = False


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
            return well_formed(value)
        return well_formed(
            "\n".join(str(p.get("text", "")) for p in value if p.get("type") == "text")
        )


class ChatCompletionRequest(BaseModel):
    """The OpenAI request; paperchat reads ``messages``, ``stream`` and its own extras
    ``filters`` and ``llm``, and accepts (and ignores) the other OpenAI fields."""

    model_config = ConfigDict(extra="allow")

    model: str = "paperchat"
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    filters: FiltersIn | None = None
    llm: Literal["extractive", "openai"] | None = None


class TableRequest(_Strict):
    """POST /api/table: the columns and the papers of a review table (ids, a collection, a
    search query with k, or the papers a saved conversation cited; several give their
    union; a query with a collection searches within it). The limits (rag.answer.table:
    500 papers, 12 columns) are checked with the papers, and the error says them."""

    columns: list[Annotated[Text, Field(max_length=200)]] = Field(max_length=100)
    paper_ids: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        default_factory=list, max_length=5000
    )
    collection: Text = Field(default="", max_length=100)
    query: Text = Field(default="", max_length=2000)
    k: int = Field(default=10, ge=1, le=500, description="with query: how many papers")
    conversation_id: str = Field(default="", max_length=64)
    llm: Literal["extractive", "openai"] = Field(
        default="extractive",
        description="openai: a language model also writes each stated cell as a short phrase "
        "from the paper's text (kept when supported)",
    )
    model: str | None = Field(default=None, min_length=1, max_length=200)
    stream: bool = Field(
        default=False,
        description="true: Server-Sent Events, `columns` then one `row` per paper as it is "
        "filled, then `done` (or `error`)",
    )
    format: Literal["json", "markdown", "csv", "bibtex"] = Field(
        default="json",
        description="json: {columns, rows}; markdown or csv: the table as text; bibtex: its "
        "papers' entries",
    )
