"""Conversation history and follow-up questions.

A follow-up ("and how fast is it?") says too little to retrieve on. Before retrieval it is
rewritten into a standalone query: by the language model when one is configured, else by
:func:`rewrite_followup`, a rule that carries over the conversation's *subject*: the papers
the last answered question named, else the paper its answer cited first, else that
question's content words (a refused question's only when no answered one came before it).
Only a question that needs it is rewritten: one that points back
("it", "its", "this paper", "and what about ...") or says almost nothing of its own ("why?",
"where is the code?"). A question that names a paper of the library and points at nothing
else is its own subject, so a new topic never drags the old one along.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag.answer.chat import ChatModel, Message, complete
from rag.answer.cite import MARKER
from rag.answer.prompts import REWRITE_SYSTEM, REWRITE_TEMPLATE, is_no_answer
from rag.answer.question import Names
from rag.errors import LLMError
from rag.words import distinctive

__all__ = [
    "HistoryItem",
    "Turn",
    "condense_question",
    "is_followup",
    "may_follow",
    "own_topic",
    "points_back",
    "rewrite_followup",
    "switches",
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
    it its it's itself they them their theirs he she his her former latter same
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# "this paper", "that system", "these methods": a demonstrative pointing back (not "show that").
# "this", "these" and "those" before any content word point back ("those concepts", "these
# patients"); "that" and "such" only before a noun a study is made of (not "shows that
# aspirin ...").
_DEICTIC = re.compile(
    r"\b(this|that|these|those|the same|such)\s+(paper|papers|system|systems|method|methods|"
    r"model|models|approach|approaches|work|works|one|ones|framework|technique|techniques|"
    r"engine|dataset|datasets|corpus|study|studies|review|survey|trial|trials|experiment|"
    r"experiments|analysis|analyses|cohort|sample|samples|population|material|materials|"
    r"compound|compounds|molecule|molecules|device|devices|measure|measures|effect|effects|"
    r"result|results|finding|findings|data|theory|theories|argument|book|article|project|"
    r"intervention|programme|program|therapy|treatment|drug|policy|policies|concept|concepts|"
    r"idea|ideas|algorithm|algorithms|network|protocol|instrument|scale|questionnaire|"
    r"species|site|sites|design|estimate|estimates|scheme|period|group|groups|patients|"
    r"participants|subjects|firms|countries|cases)\b|\b(this|these|those)\s+(?!(?:is|are|was|"
    r"were|be|been|of|in|on|at|to|for|and|or|the|a|an)\b)[a-z]{3,}\b|"
    r"\b(this|that|these|those)\s*\?*$",
    re.IGNORECASE,
)
# A demonstrative right after the question's auxiliary is its subject ("Did that make a
# difference to survival?", "How was this measured?"): whatever it names came before.
_DEMONSTRATIVE_SUBJECT = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:(?:how|why|what|when|where|which|who)\s+)?"
    r"(?:is|was|are|were|did|does|do|has|have|had|can|could|would|will|should|might)\s+"
    r"(?:this|that|these|those)\b",
    re.IGNORECASE,
)
_OPENERS = ("and ", "and,", "but ", "also ", "so ", "then ", "what about", "how about")
# "And the ...", "And in the ...", "Switching to the ...", "And what about the ...": a turn
# that opens on a definite description (up to a clause's punctuation or a dash), the
# subject it goes on to ask about.
_SWITCH = re.compile(
    r"^\W*(?:(?:and|but|also|so|then|now)\b,?\s+)?"
    r"(?:(?:switching|turning|moving on)\s+to\s+|(?:what|how)\s+about\s+|(?<=\s))"
    r"(?:(?:in|for|on|from|with|about)\s+)?the\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_DESCRIBED_END = re.compile(r"[:,;?]|\s[-\u2013\u2014]\s")
_FUNCTION = frozenset(
    """
    a about above after again all also am an and any are as at be been being both but by can
    could did do does doing during each either for from had has have having how if in into is
    it its it's itself just me more most my no nor not of on or other our out over own same
    she so some such than that the their them then there these they this those through to too
    under up very was we were what when where which while who whom whose why will with would
    you your he his her him i among between within without across per via toward towards
    upon onto
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
# Words naming a part or property any study has ("Where is the code?", "Was there a
# downside?", "How long were the sessions?"): asked of the study under discussion, they say
# nothing of a new topic.
_ASPECTS = frozenset(
    """
    code data dataset datasets result results finding findings limitation limitations
    drawback drawbacks downside downsides advantage advantages benefit benefits cost costs
    risk risks sample samples size accuracy speed performance author authors year years
    conclusion conclusions effect effects outcome outcomes baseline baselines hardware
    parameters evaluation evaluated tested measured long big large small old often
    """.split()  # noqa: SIM905
)
FOLLOWUP_MAX_WORDS = 15  # a longer question stands on its own, pronouns or not
SWITCH_WORDS = 3  # an "and ..." question with this many words of its own names a new subject
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


def switches(question: str) -> bool:
    """Whether the turn opens on a subject of its own: an opener and a definite description
    of SWITCH_WORDS words or more of its own before its question ("And the
    partially-adiabatic CMD paper: which systems did it try?", "Switching to the study of
    bank failures: ..."). Its pronouns then point at that subject, not back."""
    m = _SWITCH.match(question)
    if m is None:
        return False
    described = _DESCRIBED_END.split(m["rest"], maxsplit=1)[0]
    return len([w for w in own_topic(described) if w.casefold() not in _ANAPHORA]) >= SWITCH_WORDS


def points_back(question: str) -> bool:
    """Whether the question points back into the conversation: "it", "their", "this
    study", "and what about ...", "How was this measured?" (a short question only); not a
    turn that :func:`switches` to a subject it describes."""
    words = _words(question)
    if len(words) > FOLLOWUP_MAX_WORDS or switches(question):
        return False
    if (
        any(w in _ANAPHORA for w in words)
        or _DEICTIC.search(question)
        or _DEMONSTRATIVE_SUBJECT.search(question)
    ):
        return True
    # "And the doses?" points back; "And the companion paper on rotationally excited states:
    # which molecule?" opens the same way but names its own subject: a switch.
    return " ".join(words).startswith(_OPENERS) and len(own_topic(question)) < SWITCH_WORDS


def is_followup(question: str, names: Names | None = None) -> bool:
    """True if the question leans on the conversation: it points back ("how fast is it?",
    "and what about ...", "this paper"), or names no paper and has at most two words of its
    own to search for ("why?", "where is the code?")."""
    if not _words(question):
        return False
    if points_back(question):
        return True
    if names is not None and names.named(question):
        return False
    return len(_content(question)) <= 2


def own_topic(question: str) -> list[str]:
    """The words of a question that say what it is about beyond what any study has (its
    code, data, results, size ...): [] for "Was there a downside?", ["capital", "France"]
    for "What is the capital of France?"."""
    return [w for w in _content(question) if w.casefold() not in _ASPECTS]


def may_follow(question: str, names: Names | None = None) -> bool:
    """A short question that names no paper ("What was the median follow-up of the
    survivors?"): in a conversation it may be about the study just discussed, although
    nothing in it points back. The caller decides on evidence."""
    words = _words(question)
    if not words or len(words) > FOLLOWUP_MAX_WORDS:
        return False
    return names is None or not names.named(question)


def _subject(past: Sequence[Turn], names: Names | None) -> list[str]:
    """What the conversation is about: the names in the last answered question, else the
    paper its answer cited first: its name, or when its label is no name ("Trauma
    patients"), that label with the words the user described the study in (walking back
    over follow-ups to the question that started the topic). A refused question is the
    subject only when no answered one came before it ("How long was the trial of X?",
    refused, then "What was its primary outcome?" is still about X)."""
    subject: list[str] = []
    unanswered: list[str] = []  # the subject of the latest refused question
    for i in range(len(past) - 1, -1, -1):
        turn = past[i]
        if turn.role != "user":
            continue
        reply = past[i + 1] if i + 1 < len(past) and past[i + 1].role == "assistant" else None
        if reply is not None and not reply.cited and is_no_answer(reply.text):
            # A refused question sets the subject only when no answered one came before it.
            if not unanswered and names is not None:
                unanswered = names.named_labels(turn.text)
            if not unanswered and not is_followup(turn.text, names):
                unanswered = _content(turn.text)
            continue
        if names is not None and (named := names.named_labels(turn.text)):
            return [*subject, *named]
        if not subject and reply is not None and reply.cited:
            subject = [c for c in reply.cited if c][:1]
        elif not subject and names is not None and reply is not None:
            subject = names.named_labels(reply.text)[:1]
        if subject and _is_name(subject[0], names):
            return subject  # a name ("KCache") says which study; a topic label does not
        if not is_followup(turn.text, names):
            return [*subject, *_content(turn.text)]
    return subject or unanswered


def _is_name(label: str, names: Names | None) -> bool:
    """Whether a cited paper's label is a name of it (KCache), not a topic phrase."""
    if names is not None:
        return bool(names.named(label))
    return distinctive(label) and len(label.split()) <= 3


def rewrite_followup(
    question: str,
    history: Sequence[HistoryItem],
    names: Names | None = None,
    *,
    force: bool = False,
) -> str:
    """A standalone retrieval query for ``question`` in the light of ``history``.

    A question that is not a follow-up (see :func:`is_followup`), or that has no earlier
    user turn, is returned unchanged. Otherwise the conversation's subject is added:
    "and how fast is it?" after "How does KCache save memory?" -> "and how fast is it?
    KCache". ``force`` adds it to any question (for one too weak to answer on its own).
    """
    question = " ".join(question.split())
    past = turns(history)
    if not question or not any(t.role == "user" for t in past):
        return question
    if not force and not is_followup(question, names):
        return question
    have = {w.casefold() for w in _words(question)}
    extra: list[str] = []
    for piece in _subject(past, names):
        key = piece.casefold()
        if key not in have and key not in question.casefold():
            have.add(key)
            extra.append(piece)
    return " ".join([question, *extra])


def condense_question(
    question: str,
    history: Sequence[HistoryItem],
    *,
    model: ChatModel,
    names: Names | None = None,
) -> str:
    """A standalone search query for a follow-up, written by the model; the rule of
    :func:`rag.answer.followup.rewrite_followup` when the model fails or its reply is unusable.
    A question with no earlier user turn, or that is no follow-up, is returned as it is
    (and no model is called)."""
    past = turns(history)
    if not any(t.role == "user" for t in past) or not is_followup(question, names):
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
        return rewrite_followup(question, history, names)
    query = " ".join(reply.strip().strip("\"'").split())
    if not query or len(query) > MAX_REWRITE_CHARS or is_no_answer(query):
        return rewrite_followup(question, history, names)
    return query
