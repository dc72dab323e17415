"""How the command line prints: JSON, paper lines, answers with their references."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.answer.claims import apart
from rag.answer.prompts import UNSUPPORTED_NOTE
from rag.records import format_authors

if TYPE_CHECKING:
    from rag.answer.events import Answer

UNSUPPORTED_MARK = "\u2020"  # the dagger after a sentence no source supports

__all__ = [
    "UNSUPPORTED_MARK",
    "meta_line",
    "print_answer",
    "print_json",
    "print_notes",
    "searched",
    "shorten",
]


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + " …"


def meta_line(authors: tuple[str, ...], year: int | None, source: str) -> str:
    """'A, B, C et al. · 2024 · file.txt' (what is known of it)."""
    return " · ".join(x for x in (format_authors(authors), str(year or ""), Path(source).name) if x)


def print_notes(answer: Answer) -> None:
    """Model failures an extractive answer stood in for, on stderr."""
    for error in answer.errors:
        print(f"paperchat: note: {error.message}; answering extractively", file=sys.stderr)


def searched(question: str, answer: Answer) -> str:
    """The query that was searched, when it is not the question as asked ("" otherwise)."""
    query = answer.final.query
    return query if query and query != " ".join(question.split()) else ""


def print_answer(answer: Answer, question: str = "") -> None:
    final = answer.final
    if question and (query := searched(question, answer)):
        print(f"(searched: {query})\n")
    if final.unsupported:
        # A sentence no paper offered supports is the model's own: marked, with a footnote.
        print("".join(f"{text}{UNSUPPORTED_MARK}" if flag else text
                      for text, flag in apart(final.answer, final.sentences)))  # fmt: skip
        print(f"\n{UNSUPPORTED_MARK} {UNSUPPORTED_NOTE}")
    else:
        print(final.answer)
    if final.citations:
        print("\nReferences")
    for c in final.citations:
        s = c.source
        meta = meta_line(s.authors, s.year, s.source)
        print(f"[{c.n}] {s.name}\n    {meta}")
        for quote, passage in c.quotes():
            where = f" ({passage.where})" if passage is not None else ""
            print(f'    "{shorten(quote, 300)}"{where}')
    if final.related:
        # Not an answer: no markers, under a heading that says so.
        print("\nRelated reading (the closest papers; they do not answer the question)")
        for r in final.related:
            s = r.source
            print(f"- {s.name}\n    {meta_line(s.authors, s.year, s.source)}")
            if r.sentence:
                print(f"    {shorten(r.sentence, 300)}")
