"""Requests a chat client makes for its own housekeeping, answered briefly without retrieval.

Open WebUI (and clients like it) ask the chat model for a conversation's title, its tags,
follow-up suggestions, web-search queries and autocompletions, each as a prompt that starts
``### Task:`` and quotes the chat inside ``<chat_history>``. Searching the papers for such a
prompt answers with abstract excerpts where a title belongs; :func:`housekeeping` recognises
them and :func:`reply` writes the small JSON each one asks for from the chat's own words.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from rag.terms import STOPWORDS

__all__ = ["Task", "housekeeping", "reply"]

Task = Literal["title", "tags", "follow_ups", "queries", "autocomplete", "other"]

_KINDS: tuple[tuple[Task, re.Pattern[str]], ...] = (
    ("title", re.compile(r"\b(generate|create)\b[^\n]{0,60}\btitle\b", re.I)),
    ("tags", re.compile(r"\bgenerate\b[^\n]{0,20}\btags\b", re.I)),
    ("follow_ups", re.compile(r"\bfollow-?up (questions|prompts)\b", re.I)),
    ("queries", re.compile(r"\bsearch queries\b", re.I)),
    ("autocomplete", re.compile(r"\bautocompletion\b", re.I)),
)
# Older Open WebUI releases asked for a title in one line, the question quoted at its end.
_OLD_TITLE = re.compile(
    r"^Create a concise, 3-5 word phrase as a header for the following query\b.*?: (.*)\Z", re.S
)
_HISTORY = re.compile(r"<chat_history>(.*?)</chat_history>", re.S)
_TURN = re.compile(r"^(USER|ASSISTANT):\s?", re.M)
_SOURCE = re.compile(r"^(?:- )?\[1\] (?:\*\*)?(.+?)(?:\*\*)?(?: — |$)", re.M)
_WORD = re.compile(r"[A-Za-z][\w\-]*")


def housekeeping(prompt: str) -> Task | None:
    """Which housekeeping task ``prompt`` (the last user message) is, or None for a question."""
    if _OLD_TITLE.match(prompt.strip()):
        return "title"
    if not prompt.lstrip().startswith("### Task:") and "\n### Task:" not in prompt:
        return None
    return next((kind for kind, pattern in _KINDS if pattern.search(prompt)), "other")


def _turns(prompt: str) -> list[tuple[str, str]]:
    """``(role, text)`` of the chat the prompt quotes (Open WebUI writes "USER: ..." lines)."""
    found = _HISTORY.search(prompt)
    history = found.group(1) if found else ""
    parts = _TURN.split(history)
    return [(parts[i], parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def _title(question: str, words: int = 5) -> str:
    """A few of the question's own content words, capitalised as a title."""
    kept = [w for w in _WORD.findall(question) if w.casefold() not in STOPWORDS]
    title = " ".join(w if any(c.isupper() for c in w) else w.capitalize() for w in kept[:words])
    return title or "Questions About the Papers"


def reply(task: Task, prompt: str) -> str:
    """The brief answer to a housekeeping prompt, in the JSON shape it asks for."""
    if old := _OLD_TITLE.match(prompt.strip()):
        return _title(old.group(1))  # that prompt asks for the words alone
    turns = _turns(prompt)
    question = next((text for role, text in turns if role == "USER"), "")
    answers = [text for role, text in turns if role == "ASSISTANT"]
    cited = _SOURCE.search(answers[-1]) if answers else None
    subject = cited.group(1).strip() if cited else "these papers"
    if task == "title":
        return json.dumps({"title": _title(question)})
    if task == "tags":
        topic = _title(question, 3)
        return json.dumps({"tags": ["Science", "Research papers", *([topic] if question else [])]})
    if task == "follow_ups":
        return json.dumps(
            {
                "follow_ups": [
                    f"What problem does {subject} address?",
                    f"How was {subject} evaluated, and on what?",
                    f"What are the limitations of {subject}?",
                    "Which other papers in the library work on this?",
                ]
            },
            ensure_ascii=False,
        )
    if task == "queries":
        return json.dumps({"queries": []})  # paperchat searches its own papers
    if task == "autocomplete":
        return json.dumps({"text": ""})
    return "{}"
