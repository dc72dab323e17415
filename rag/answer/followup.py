"""Conversation history and follow-up questions.

A follow-up ("and how fast is it?") says too little to retrieve on. Before retrieval it is
rewritten into a standalone query: by the language model when one is configured (see
:mod:`rag.answer.generate`), else by :func:`rewrite_followup`, a rule that carries over the
earlier questions' content words and the labels of the papers last cited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag.answer.chat import ChatModel, Message, complete
from rag.answer.cite import MARKER
from rag.answer.prompts import REWRITE_SYSTEM, REWRITE_TEMPLATE, is_no_answer
from rag.errors import LLMError

__all__ = [
    "HistoryItem",
    "Turn",
    "condense_question",
    "is_followup",
    "rewrite_followup",
    "turns",
]


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation. An assistant turn may carry the labels (or ids) of
    the papers its answer cited, so a follow-up can search for them again."""

    role: Literal["user", "assistant"]
    text: str
    cited: tuple[str, ...] = ()


HistoryItem = Turn | tuple[str, str] | tuple[str, str, Sequence[str]]

_WORD = re.compile(r"[\w][\w.+-]*\w|\w")
# Pronouns and deictics that point back into the conversation.
_ANAPHORA = frozenset(
    """
    it its it's itself they them their theirs these those this that such same he she his her
    former latter there one ones
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
_OPENERS = ("and ", "and,", "but ", "also ", "so ", "then ", "what about", "how about")
_FUNCTION = frozenset(
    """
    a about above after again all also am an and any are as at be been being both but by can
    could did do does doing during each either for from had has have having how if in into is
    it its it's itself just me more most my no nor not of on or other our out over own same
    she so some such than that the their them then there these they this those through to too
    under up very was we were what when where which while who whom whose why will with would
    you your he his her him i
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# Words of a question that say what is asked, not what it is about.
_ASKING = frozenset(
    """
    tell explain describe show give list compare summarise summarize mean means meant paper
    papers work works study studies approach approaches method methods propose proposed
    please well much many fast slow good better best really exactly else instead versus vs
    """.split()  # noqa: SIM905
)
FOLLOWUP_MAX_WORDS = 15  # a longer question stands on its own, pronouns or not
CARRY_LABELS = 3  # at most this many cited papers are carried into a follow-up query
# A rewritten query longer than this is the model rambling, not a query.
MAX_REWRITE_CHARS = 300


def turns(history: Sequence[HistoryItem]) -> list[Turn]:
    """History items (Turns or (role, text[, cited]) tuples) as Turns."""
    out = []
    for item in history:
        if isinstance(item, Turn):
            out.append(item)
        else:
            role, text, *rest = item
            cited = tuple(rest[0]) if rest else ()
            out.append(Turn(role, text, cited))  # type: ignore[arg-type]
    return out


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _content(text: str) -> list[str]:
    """Content words of text, in order, once each (case kept: labels like "KCache")."""
    seen: set[str] = set()
    out = []
    for word in _WORD.findall(text):
        key = word.casefold()
        if key in _FUNCTION or key in _ASKING or key in seen:
            continue
        if len(key) < 2 and not key.isdigit():
            continue
        seen.add(key)
        out.append(word)
    return out


def is_followup(question: str) -> bool:
    """True if the question leans on the conversation: it opens like a continuation ("and
    what about ...", "how about ..."), or is short and uses a pronoun ("how fast is it?"),
    or has almost nothing of its own to search for ("why?", "how fast?")."""
    words = _words(question)
    if not words:
        return False
    lowered = " ".join(words)
    if len(words) <= FOLLOWUP_MAX_WORDS and (
        lowered.startswith(_OPENERS) or any(w in _ANAPHORA for w in words)
    ):
        return True
    return len(_content(question)) <= 1


def rewrite_followup(question: str, history: Sequence[HistoryItem]) -> str:
    """A standalone retrieval query for ``question`` in the light of ``history``.

    A question that is not a follow-up (see :func:`is_followup`), or that has no earlier
    user turn, is returned unchanged. Otherwise it is extended with the content words of the
    earlier user questions back to the last standalone one, and the labels of the papers
    cited by the last assistant turn: "and how fast is it?" after "How does KCache save
    memory?" -> "and how fast is it? KCache save memory".
    """
    question = " ".join(question.split())
    past = turns(history)
    if not question or not any(t.role == "user" for t in past) or not is_followup(question):
        return question
    carried: list[str] = []
    for turn in reversed(past):
        if turn.role == "user":
            carried = _content(turn.text) + carried
            if not is_followup(turn.text):
                break
    labels: list[str] = []
    for turn in reversed(past):
        if turn.role == "assistant":
            labels = [c for c in turn.cited if c][:CARRY_LABELS]
            break
    have = {w.casefold() for w in _words(question)}
    extra: list[str] = []
    for piece in [*labels, *carried]:
        key = piece.casefold()
        if key not in have:
            have.add(key)
            extra.append(piece)
    return " ".join([question, *extra])


def condense_question(question: str, history: Sequence[HistoryItem], *, model: ChatModel) -> str:
    """A standalone search query for a follow-up, written by the model; the rule of
    :func:`rag.answer.followup.rewrite_followup` when the model fails or its reply is unusable.
    A question with no earlier user turn is returned as it is."""
    past = turns(history)
    if not any(t.role == "user" for t in past):
        return question
    lines = [f"{t.role}: {' '.join(MARKER.sub('', t.text).split())[:600]}" for t in past[-6:]]
    messages: list[Message] = [
        {"role": "system", "content": REWRITE_SYSTEM},
        {
            "role": "user",
            "content": REWRITE_TEMPLATE.format(history="\n".join(lines), question=question),
        },
    ]
    try:
        reply = complete(model, messages, max_tokens=64)
    except LLMError:
        return rewrite_followup(question, history)
    query = " ".join(reply.strip().strip("\"'").split())
    if not query or len(query) > MAX_REWRITE_CHARS or is_no_answer(query):
        return rewrite_followup(question, history)
    return query
