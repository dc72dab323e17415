"""The saved conversations beside the chat: the list (newest first, searched by title),
opening one (its turns and sources back as they were), renaming, deleting after a
confirmation, a new chat, and the page opening on the conversation it showed last.

Handlers only (the layout is :mod:`ui.web.page`); every one goes through
``engine.conversations``. The browser keeps only the open conversation's id; the
conversations themselves live in the data directory, so a reload, another browser or
another machine finds them.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from rag.errors import NotFoundError, PaperchatError
from ui.web import chat as chat_handlers
from ui.web.gradio_import import gr
from ui.web.render import md_escape, sources_html

if TYPE_CHECKING:
    from rag.answer.followup import Turn
    from rag.answer.saved import SavedTurn
    from rag.engine import Engine

__all__ = ["SHOWN", "SavedChats", "shown_turns"]

SHOWN = 30  # conversations listed at once; the search finds the others


def shown_turns(turns: list[SavedTurn]) -> tuple[list[dict[str, Any]], list[Turn], list[Any]]:
    """A saved conversation as the chat shows it: the messages, the turns follow-ups see,
    and each answer's question and citations (the sources panel)."""
    messages: list[dict[str, Any]] = []
    history: list[Turn] = []
    answers: list[Any] = []
    for i, turn in enumerate(turns):
        messages += [
            {"role": "user", "content": md_escape(turn.question)},
            {"role": "assistant",
             "content": chat_handlers.reply_markdown(turn.answer, turn.question, i)},
        ]  # fmt: skip
        history += turn.history()
        answers.append((turn.question, turn.citations()))
    return messages, history, answers


def _saved(conversation: str) -> dict[str, Any]:
    return {"conversation": conversation} if conversation else {}


class SavedChats:
    """The conversation list's handlers over one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def listing(self, search: str, current: str, shown: str = "") -> tuple[Any, ...]:
        """(the list, its note, the open conversation's title, rename and delete buttons
        enabled only with a conversation open). A title ``shown`` already (perhaps being
        edited) is left as it is."""
        store = self.engine.conversations
        try:
            total, rows = store.listing(search or "", limit=SHOWN)
            title = ""
            if current:
                title = next((c.title for c in rows if c.id == current), "")
                title = title or store.get(current)[0].title
        except NotFoundError:
            current, title = "", ""
        except PaperchatError as exc:
            note = md_escape(f"Saved conversations are not available: {exc}")
            return gr.update(choices=[], value=None), note, "", *self._buttons("")
        if search and not total:
            note = "No conversation's title holds that."
        elif not total:
            note = "Your conversations are kept here."
        else:
            note = f"{total} conversation{'s' * (total != 1)}"
            if total > len(rows):
                note = f"The latest {len(rows)} of {total}: search to find the others."
        if store.notice:
            note = f"{md_escape(store.notice)}\n\n{note}"
        choices = [(c.title, c.id) for c in rows]
        value = current if any(c.id == current for c in rows) else None
        title_box = gr.update() if shown and current else title
        return gr.update(choices=choices, value=value), note, title_box, *self._buttons(current)

    @staticmethod
    def _buttons(current: str) -> tuple[Any, Any]:
        return gr.update(interactive=bool(current)), gr.update(interactive=bool(current))

    def open(self, conversation: str | None) -> tuple[Any, ...]:
        """(messages, turns, answers, sources, id, title, browser state, confirmation
        hidden) of the conversation picked; a missing one gives an empty chat."""
        try:
            found, turns = self.engine.conversations.get(conversation or "")
        except PaperchatError:
            return self.new()
        messages, history, answers = shown_turns(turns)
        return (messages, history, answers, sources_html(answers), found.id, found.title,
                _saved(found.id), gr.update(visible=False))  # fmt: skip

    def new(self) -> tuple[Any, ...]:
        """The same outputs as :meth:`open`, for an empty chat not saved yet."""
        return [], [], [], sources_html([]), "", "", {}, gr.update(visible=False)

    def load(self, saved: dict[str, Any] | None) -> tuple[Any, ...]:
        """On page load: :meth:`open`'s outputs for the conversation the browser showed
        last; an older browser's kept messages come back as they were (not saved)."""
        conversation = saved.get("conversation") if isinstance(saved, dict) else None
        if isinstance(conversation, str) and conversation:
            return self.open(conversation)
        messages, turns = chat_handlers.restore(saved)
        if not messages:
            return self.new()
        return messages, turns, [], sources_html([]), "", "", {}, gr.update(visible=False)

    def rename(self, conversation: str, title: str, search: str) -> tuple[Any, ...]:
        """:meth:`listing`'s outputs after the rename (a blank title changes nothing)."""
        if conversation and title.strip():
            try:
                self.engine.conversations.rename(conversation, title)
            except PaperchatError as exc:
                listing = self.listing(search, conversation)
                return listing[0], md_escape(f"Not renamed: {exc}"), *listing[2:]
        return self.listing(search, conversation)

    def ask_delete(self, conversation: str) -> tuple[Any, Any]:
        """The confirmation row, shown, and what it asks."""
        if not conversation:
            return gr.update(visible=False), ""
        try:
            found, _ = self.engine.conversations.get(conversation)
        except PaperchatError:
            return gr.update(visible=False), ""
        turns = f"{found.turns} question{'s' * (found.turns != 1)}"
        ask = f"Delete **{md_escape(found.title)}** and its {turns}? This cannot be undone."
        return gr.update(visible=True), ask

    def delete(self, conversation: str) -> tuple[Any, ...]:
        """:meth:`new`'s outputs after the conversation is deleted."""
        if conversation:
            with contextlib.suppress(NotFoundError):  # deleted elsewhere: gone either way
                self.engine.conversations.delete(conversation)
        return self.new()

    def pop_last(
        self, chat: Any, turns: list[Turn], answers: list[Any], conversation: str
    ) -> tuple[Any, ...]:
        """:func:`ui.web.chat.pop_last`, and the saved conversation's last turn removed too
        (it is asked again, or edited); an emptied conversation is gone."""
        popped = chat_handlers.pop_last(chat, turns, answers)
        if conversation and turns:
            # If this fails the chat still shows what is left; the next answer saves anew.
            with contextlib.suppress(PaperchatError):
                self.engine.conversations.pop_turn(conversation)
        left = conversation if popped[2] else ""
        return (*popped, left)
