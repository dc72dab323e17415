"""The conversation: asking, streaming the answer, stopping, regenerating, editing, exporting.

Handlers only (the layout is :mod:`ui.web.page`). They read the same answer events as the
CLI and the API, so a citation means the same thing here. The conversation lives in three
pieces of state: the chat messages shown, the turns the engine sees as history, and each
answer's question and citations (the sources panel).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.answer.events import DeltaEvent, ErrorEvent, FinalEvent
from rag.answer.followup import Turn
from rag.answer.references import format_references
from rag.errors import PaperchatError
from rag.retrieve import Filters
from ui.web.gradio_import import gr
from ui.web.render import answer_markdown, md_escape, sources_html

if TYPE_CHECKING:
    from rag.answer.cite import Citation
    from rag.engine import Engine

__all__ = ["ANY_YEAR", "export_markdown", "pop_last", "responder", "restore", "snapshot"]

ANY_YEAR = "any"

Chat = list[dict[str, Any]]
Answers = list[tuple[str, list["Citation"]]]


def _year(value: str | int | None) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


def _filters(
    year_from: str | int | None, year_to: str | int | None, author: str, collection: str = ""
) -> Filters:
    return Filters(
        year_from=_year(year_from),
        year_to=_year(year_to),
        author=(author or "").strip(),
        collection=" ".join((collection or "").split()),
    )


def _box(ready: bool) -> Any:
    placeholder = "Ask a question about the papers…" if ready else "Answering… (Stop cancels)"
    return gr.update(value="" if not ready else None, interactive=ready, placeholder=placeholder)


def responder(engine: Engine) -> Callable[..., Iterator[tuple[Any, ...]]]:
    """The submit handler: streams (box, chat, turns, answers, sources) for one question."""
    limit = engine.settings.max_question_chars

    def respond(
        question: str,
        chat: Chat,
        turns: list[Turn],
        answers: Answers,
        answerer: str,
        k: float,
        year_from: str | None,
        year_to: str | None,
        author: str,
        collection: str = "",
    ) -> Iterator[tuple[Any, ...]]:
        question = (question or "").strip()
        panel = gr.update()
        if not question:
            yield gr.update(), chat, turns, answers, panel
            return
        if len(question) > limit:
            note = (
                f"Your question has {len(question)} characters; the limit is {limit}. "
                "Please shorten it."
            )
            chat = [*chat, {"role": "user", "content": md_escape(question[:200]) + " …"},
                    {"role": "assistant", "content": md_escape(note)}]  # fmt: skip
            yield "", chat, turns, answers, panel
            return
        chat = [*chat, {"role": "user", "content": md_escape(question)},
                {"role": "assistant", "content": "…"}]  # fmt: skip
        yield _box(False), chat, turns, answers, panel
        try:
            events = engine.answer(
                question,
                history=tuple(turns),
                filters=_filters(year_from, year_to, author, collection),
                llm="extractive" if answerer == "extractive" else None,
                model=None if answerer in ("extractive", engine.answerer) else answerer,
                k=int(k) if k else None,
            )
            yield from _stream(events, question, chat, turns, answers)
        except PaperchatError as exc:
            chat[-1] = {"role": "assistant", "content": md_escape(f"Error: {exc}")}
            yield _box(True), chat, turns, answers, panel

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


def _final(
    event: FinalEvent, question: str, chat: Chat, turns: list[Turn], answers: Answers
) -> tuple[Any, ...]:
    mode = "" if event.answerer == "extractive" else event.model
    if event.fallback_reason:
        mode = "extractive, the language model failed"
    searched = event.query if event.query != " ".join(question.split()) else ""
    content = answer_markdown(
        event.answer,
        index=len(answers),
        mode=mode,
        searched=searched,
        refusal=event.refusal_reason if event.refused else "",
    )
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


def export_markdown(turns: list[Turn], answers: Answers) -> str | None:
    """The conversation as a Markdown file, each answer followed by its references."""
    if not turns:
        return None
    parts = ["# paperchat conversation\n"]
    asked = [t for t in turns if t.role == "user"]
    replies = [t for t in turns if t.role == "assistant"]
    for i, (q, a) in enumerate(zip(asked, replies, strict=False)):
        parts.append(f"## {q.text}\n\n{a.text}\n")
        cites = answers[i][1] if i < len(answers) else []
        if cites:
            parts.append("References\n\n" + format_references(cites, "markdown") + "\n")
    path = Path(tempfile.mkdtemp(prefix="paperchat-export-")) / "conversation.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return str(path)


def export_bibtex(answers: Answers) -> str | None:
    """BibTeX entries of every paper the conversation cited, once each."""
    seen: dict[str, Citation] = {}
    for _, cites in answers:
        for c in cites:
            seen.setdefault(c.source.paper_id, c)
    if not seen:
        return None
    path = Path(tempfile.mkdtemp(prefix="paperchat-export-")) / "references.bib"
    path.write_text(format_references(list(seen.values()), "bibtex") + "\n", encoding="utf-8")
    return str(path)


def snapshot(chat: Chat, turns: list[Turn]) -> dict[str, Any]:
    """What the browser keeps of the conversation (JSON): the messages and the turns."""
    return {"chat": chat, "turns": [[t.role, t.text, list(t.cited)] for t in turns]}


def restore(saved: dict[str, Any] | None) -> tuple[Chat, list[Turn]]:
    """The conversation the browser kept (its sources are not kept: ask again to see them)."""
    if not isinstance(saved, dict):
        return [], []
    try:
        turns = [Turn(role, text, tuple(cited)) for role, text, cited in saved.get("turns", [])]
        chat = [m for m in saved.get("chat", []) if isinstance(m, dict)]
    except (TypeError, ValueError):
        return [], []
    return chat, turns
