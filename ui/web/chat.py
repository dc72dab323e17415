"""The conversation: asking, streaming the answer, stopping, regenerating, editing, exporting.

Handlers only (the layout is :mod:`ui.web.page`). They read the same answer events as the
CLI and the API, so a citation means the same thing here. The conversation lives in four
pieces of state: the chat messages shown, the turns the engine sees as history, each
answer's question and citations (the sources panel), and the id of the saved conversation
every answer is appended to (:mod:`ui.web.conversations` lists and opens them).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.answer.events import DeltaEvent, ErrorEvent, FinalEvent
from rag.answer.followup import Turn
from rag.answer.references import Exchange, conversation_bibtex, conversation_markdown
from rag.errors import NotFoundError, PaperchatError, StoreError
from rag.retrieve import Filters
from ui.web.gradio_import import gr
from ui.web.render import answer_markdown, md_escape, sources_html

if TYPE_CHECKING:
    from rag.answer.cite import Citation
    from rag.engine import Engine

__all__ = [
    "ANY_YEAR",
    "export_bibtex",
    "export_markdown",
    "pop_last",
    "reply_markdown",
    "responder",
    "restore",
]

ANY_YEAR = "any"

Chat = list[dict[str, Any]]
Answers = list[tuple[str, list["Citation"]]]


def _year(value: str | int | None) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


def _filters(
    year_from: str | int | None,
    year_to: str | int | None,
    author: str,
    collection: str = "",
    paper: str = "",
) -> Filters:
    return Filters(
        year_from=_year(year_from),
        year_to=_year(year_to),
        author=(author or "").strip(),
        collection=" ".join((collection or "").split()),
        paper_ids=(paper,) if paper else (),
    )


def _box(ready: bool) -> Any:
    placeholder = "Ask a question about the papers…" if ready else "Answering… (Stop cancels)"
    return gr.update(value="" if not ready else None, interactive=ready, placeholder=placeholder)


def _converse(
    engine: Engine, question: str, conversation: str, turns: list[Turn], options: dict[str, Any]
) -> tuple[str, Iterator[Any]]:
    """The answer within the saved conversation (a new one when there is none, or it was
    deleted elsewhere: the turns shown are its history); unsaved if the file cannot be
    written at all."""
    store = engine.conversations
    try:
        if conversation:
            with contextlib.suppress(NotFoundError):
                return store.converse(question, conversation_id=conversation, **options)
        return store.converse(question, history=tuple(turns), **options)
    except StoreError:
        return "", engine.answer(question, history=tuple(turns), **options)


def responder(engine: Engine) -> Callable[..., Iterator[tuple[Any, ...]]]:
    """The submit handler: streams (box, chat, turns, answers, sources, conversation id)
    for one question, saved in the conversation (a new one when the id is "")."""
    limit = engine.settings.max_question_chars

    def respond(
        question: str,
        chat: Chat,
        turns: list[Turn],
        answers: Answers,
        conversation: str,
        answerer: str,
        k: float,
        year_from: str | None,
        year_to: str | None,
        author: str,
        collection: str = "",
        paper: str = "",
    ) -> Iterator[tuple[Any, ...]]:
        question = (question or "").strip()
        panel = gr.update()
        if not question:
            yield gr.update(), chat, turns, answers, panel, conversation
            return
        if len(question) > limit:
            note = (
                f"Your question has {len(question)} characters; the limit is {limit}. "
                "Please shorten it."
            )
            chat = [*chat, {"role": "user", "content": md_escape(question[:200]) + " …"},
                    {"role": "assistant", "content": md_escape(note)}]  # fmt: skip
            yield "", chat, turns, answers, panel, conversation
            return
        chat = [*chat, {"role": "user", "content": md_escape(question)},
                {"role": "assistant", "content": "…"}]  # fmt: skip
        yield _box(False), chat, turns, answers, panel, conversation
        try:
            options = {
                "filters": _filters(year_from, year_to, author, collection, paper),
                "llm": "extractive" if answerer == "extractive" else None,
                "model": None if answerer in ("extractive", engine.answerer) else answerer,
                "k": int(k) if k else None,
            }
            cid, events = _converse(engine, question, conversation, turns, options)
            for update in _stream(events, question, chat, turns, answers):
                yield (*update, cid)
        except PaperchatError as exc:
            chat[-1] = {"role": "assistant", "content": md_escape(f"Error: {exc}")}
            yield _box(True), chat, turns, answers, panel, conversation

    return respond


def _stream(
    events: Iterator[Any], question: str, chat: Chat, turns: list[Turn], answers: Answers
) -> Iterator[tuple[Any, ...]]:
    """The events of one answer as updates of the last chat message and the sources."""
    text = ""
    for event in events:
        if isinstance(event, DeltaEvent):
            text += event.text
            chat[-1] = {"role": "assistant", "content": md_escape(text)}
            yield gr.update(), chat, turns, answers, gr.update()
        elif isinstance(event, ErrorEvent):
            note = f"The language model failed: {event.message}."
            if event.fallback:
                note += " An extractive answer follows."
            text = ""
            chat[-1] = {"role": "assistant", "content": md_escape(note)}
            yield gr.update(), chat, turns, answers, gr.update()
        elif isinstance(event, FinalEvent):
            yield _final(event, question, chat, turns, answers)


def reply_markdown(final: dict[str, Any], question: str, index: int) -> str:
    """An answer as its chat message, from its JSON (a FinalEvent's, or a saved turn's)."""
    mode = "" if final.get("mode") == "extractive" else str(final.get("model") or "")
    if final.get("fallback_reason"):
        mode = "extractive, the language model failed"
    query = str(final.get("query") or "")
    searched = query if query and query != " ".join(question.split()) else ""
    return answer_markdown(
        str(final.get("answer") or ""),
        index=index,
        mode=mode,
        searched=searched,
        refusal=str(final.get("refusal_reason") or "") if final.get("refused") else "",
        related=list(final.get("related") or ()),
        sentences=list(final.get("sentences") or ()),
    )


def _final(
    event: FinalEvent, question: str, chat: Chat, turns: list[Turn], answers: Answers
) -> tuple[Any, ...]:
    content = reply_markdown(event.to_json(), question, len(answers))
    chat[-1] = {"role": "assistant", "content": content}
    answers = [*answers, (question, list(event.citations))]
    cited = tuple(c.source.label for c in event.citations)
    turns = [*turns, Turn("user", question), Turn("assistant", event.answer, cited)]
    return _box(True), chat, turns, answers, sources_html(answers)


def pop_last(
    chat: Chat, turns: list[Turn], answers: Answers
) -> tuple[str, Chat, list[Turn], Answers, str]:
    """The conversation without its last exchange, and that exchange's question (to ask
    again, or to edit)."""
    if not turns:
        return "", chat, turns, answers, sources_html(answers)
    question = turns[-2].text if len(turns) >= 2 else ""
    answers = answers[:-1]
    return question, chat[:-2], turns[:-2], answers, sources_html(answers)


def _exchanges(turns: list[Turn], answers: Answers) -> list[Exchange]:
    asked = [t for t in turns if t.role == "user"]
    replies = [t for t in turns if t.role == "assistant"]
    return [
        (q.text, a.text, answers[i][1] if i < len(answers) else [])
        for i, (q, a) in enumerate(zip(asked, replies, strict=False))
    ]


def _exported(text: str, name: str) -> str:
    path = Path(tempfile.mkdtemp(prefix="paperchat-export-")) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def export_markdown(turns: list[Turn], answers: Answers, title: str = "") -> str | None:
    """The conversation as a Markdown file, each answer followed by its references."""
    if not turns:
        return None
    text = conversation_markdown(title or "paperchat conversation", _exchanges(turns, answers))
    return _exported(text, "conversation.md")


def export_bibtex(answers: Answers) -> str | None:
    """BibTeX entries of every paper the conversation cited, once each."""
    text = conversation_bibtex([("", "", cites) for _, cites in answers])
    return _exported(text + "\n", "references.bib") if text else None


def restore(saved: dict[str, Any] | None) -> tuple[Chat, list[Turn]]:
    """The conversation an older page kept in the browser (messages and turns, no sources);
    the page now keeps only the saved conversation's id."""
    if not isinstance(saved, dict):
        return [], []
    try:
        turns = [Turn(role, text, tuple(cited)) for role, text, cited in saved.get("turns", [])]
        chat = [m for m in saved.get("chat", []) if isinstance(m, dict)]
    except (TypeError, ValueError):
        return [], []
    return chat, turns
