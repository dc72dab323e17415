"""An answer as a saved conversation keeps it, and the conversation's title.

A saved turn keeps the answer's JSON exactly as the API returns it (``Answer.to_json()``),
and beside it one record per citation with what that JSON leaves out and the faces need
to show it again: the paper's whole abstract (the sources panel marks the quote in it), the
text of each body passage quoted, the BibTeX entry type and key (the export). So a
conversation reopened months later shows the same cards and exports the same entries, even
when its papers have since left the library.

A conversation's title is a few words of its first question, never cut mid-word; when a
language model wrote the first answer, the model may name it instead (:func:`model_title`,
one short call; a failure, or a reply that is no title or shares no word with the question,
keeps the question's words).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from rag.answer.chat import complete
from rag.answer.cite import Citation, Source
from rag.answer.followup import Turn
from rag.errors import LLMError
from rag.records import PaperRow
from rag.retrieve import Passage

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.retrieve import Filters

__all__ = [
    "MAX_TITLE_CHARS",
    "Conversation",
    "SavedTurn",
    "citation_records",
    "citations_from",
    "clean_title",
    "filters_json",
    "iso_time",
    "model_title",
    "title_from_question",
]

MAX_TITLE_CHARS = 60
TITLE_WORDS = 8
ELLIPSIS = "…"


def _passage_record(passage: Passage | None) -> dict[str, Any] | None:
    if passage is None:
        return None
    return {
        "chunk_id": passage.chunk_id,
        "index": passage.index,
        "text": passage.text,
        "score": passage.score,
        "section": passage.section,
        "page": passage.page,
    }


def citation_records(citations: Sequence[Citation]) -> list[dict[str, Any]]:
    """Each citation as JSON that :func:`citations_from` turns back into it: its wire form
    plus the abstract, the quoted passages' text, the entry type and BibTeX key."""
    out = []
    for c in citations:
        paper = c.source.paper
        out.append(
            c.to_json()
            | {
                "abstract": paper.abstract,
                "entry_type": paper.entry_type,
                "cite_key": paper.cite_key,
                "keywords": list(paper.keywords),
                "passages": [_passage_record(p) for _, p in c.quotes()],
            }
        )
    return out


def _passage(data: Any) -> Passage | None:
    if not isinstance(data, dict):
        return None
    page = data.get("page")
    return Passage(
        chunk_id=str(data.get("chunk_id") or ""),
        index=int(data.get("index") or 0),
        text=str(data.get("text") or ""),
        score=float(data.get("score") or 0.0),
        section=str(data.get("section") or ""),
        page=int(page) if page is not None else None,
    )


def citations_from(records: Sequence[dict[str, Any]]) -> list[Citation]:
    """The citations :func:`citation_records` kept (a record it cannot read is left out)."""
    out = []
    for record in records:
        try:
            n = int(record["n"])
            paper = PaperRow.from_mapping(record)
            passages = [_passage(p) for p in record.get("passages") or ()]
            main = passages[0] if passages else None
            body = tuple(
                (str(q.get("quote") or ""), p)
                for q, p in zip(record.get("body_quotes") or (), passages[1:], strict=False)
                if p is not None
            )
            out.append(Citation(n, Source(n, paper), str(record.get("quote") or ""), main, body))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def clean_title(text: str, *, max_chars: int = MAX_TITLE_CHARS, words: int = TITLE_WORDS) -> str:
    """``text`` on one line, at most ``words`` words and ``max_chars`` characters, cut only
    between words (an ellipsis says it was cut); "" when nothing is left."""
    parts = text.split()
    kept: list[str] = []
    for word in parts[:words]:
        if len(" ".join([*kept, word])) > max_chars:
            break
        kept.append(word)
    if not kept and parts:  # one word longer than the whole title: its start, marked
        return parts[0][: max_chars - 1] + ELLIPSIS
    title = " ".join(kept)
    if len(kept) < len(parts):
        title = title.rstrip(",;:-–—") + ELLIPSIS
    return title


def title_from_question(question: str) -> str:
    """A conversation's title from its first question: its first words."""
    return clean_title(question) or "Conversation"


TITLE_SYSTEM = "You write short titles."
TITLE_ASK = (
    "Write a title of 3 to 6 words for this question. Reply with the title only.\n\n"
    "Question: {question}"
)
_LABEL = re.compile(r"^\W*(title|conversation title)\s*[:\-–—]\s*", re.IGNORECASE)
_QUOTES = "\"'`*“”‘’«»#_"
_WORD = re.compile(r"\w{3,}")
TITLE_TOKENS = 24


def model_title(chat: ChatModel, question: str) -> str | None:
    """A short title for a conversation that opens with ``question``, written by ``chat``
    (one call of at most 24 tokens); None when the model fails or its reply is no title:
    empty, a sentence of more than 8 words, or no word of the question in it (a name the
    model misspelt or made up)."""
    asked = TITLE_ASK.format(question=" ".join(question.split())[:500])
    messages = [{"role": "system", "content": TITLE_SYSTEM}, {"role": "user", "content": asked}]
    try:
        reply = complete(chat, messages, max_tokens=TITLE_TOKENS)
    except LLMError:
        return None
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    text = _LABEL.sub("", lines[0]).strip().strip(_QUOTES).strip().rstrip(".").strip(_QUOTES)
    text = " ".join(text.split())
    if not text or len(text.split()) > TITLE_WORDS or len(text) > MAX_TITLE_CHARS:
        return None
    own = {w.casefold() for w in _WORD.findall(question)}
    if not any(w.casefold() in own for w in _WORD.findall(text)):
        return None
    return text


def iso_time(when: float) -> str:
    """A timestamp as ISO 8601 in UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


def filters_json(filters: Filters | None) -> dict[str, Any]:
    if not filters:
        return {}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(filters).items() if v}


@dataclass(frozen=True, slots=True)
class Conversation:
    """A saved conversation as lists show it."""

    id: str
    title: str
    created: float
    updated: float
    turns: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "n_turns": self.turns,
            "created": iso_time(self.created),
            "updated": iso_time(self.updated),
        }


@dataclass(frozen=True, slots=True)
class SavedTurn:
    """One question of a conversation and its answer (``answer``: the API's JSON)."""

    n: int
    question: str
    answer: dict[str, Any]
    records: list[dict[str, Any]] = field(repr=False)
    filters: dict[str, Any]
    llm: str | None
    model: str | None
    created: float

    def citations(self) -> list[Citation]:
        """The answer's citations as they were, abstracts and quoted passages included."""
        return citations_from(self.records)

    def history(self) -> list[Turn]:
        """The exchange as follow-ups see it: the question, then the answer with the
        labels of the papers it cited."""
        cited = tuple(str(c.get("label") or "") for c in self.answer.get("citations", ()))
        return [
            Turn("user", self.question),
            Turn("assistant", self.answer.get("answer", ""), cited),
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "question": self.question,
            "answer": self.answer,
            "filters": self.filters,
            "llm": self.llm,
            "model": self.model,
            "created": iso_time(self.created),
        }
