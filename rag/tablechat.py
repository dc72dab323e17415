"""A review table asked for in the chat: "make a table of method and main result for these
papers" is answered with the table (:mod:`rag.tables`) instead of a prose answer.

The request names its columns (presets or short questions, joined by commas and "and") and
which papers: "these papers" (or "them", "the papers above") means the papers the
conversation has cited; "the papers on X" or "papers about X" those a search for X finds
first; with neither, the papers the filters pick (paper ids, a collection). The answer is a
Markdown table whose rows name their paper with a marker, each marker citing that paper
with the first sentence a cell quotes, so every face shows and saves it as an answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rag.answer import tablefmt
from rag.answer.cite import Citation, Source
from rag.answer.events import DeltaEvent, Event, FinalEvent, SourcesEvent
from rag.answer.followup import HistoryItem, Turn
from rag.answer.prompts import EXTRACTIVE_MODE
from rag.answer.table import Row
from rag.errors import QueryError
from rag.tables import Library, Table, plan

if TYPE_CHECKING:
    from rag.retrieve import Filters

__all__ = ["CHAT_ROWS", "CHAT_SEARCH", "table_answer", "table_final", "table_request"]

CHAT_ROWS = 20  # a table asked for in the chat has at most this many rows
CHAT_SEARCH = 10  # "the papers on X": the papers a search for X finds first

_REQUEST = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+)?(?:make|build|create|draw up|put together|produce|"
    r"generate|give me|show me|show)\s+(?:me\s+)?(?:a|an)\s+(?:review\s+|comparison\s+|"
    r"summary\s+|evidence\s+)?table\s+(?:of|with|comparing|showing|listing|on)\s+"
    r"(?P<columns>.+?)(?:\s+(?:for|of|across|over|from|in)\s+(?P<which>(?:these|those|the|"
    r"all|my|them|each)\b.*?))?\s*[.?!]*$",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"\s*(?:,|;|/|&|\band\b)\s*", re.IGNORECASE)
_POINTING = re.compile(r"^(?:these|those|them|the (?:papers|studies|ones) (?:above|cited|"
                       r"so far|we discussed)|(?:these|those|the) (?:papers|studies|ones))$",
                       re.IGNORECASE)  # fmt: skip
_ABOUT = re.compile(r"^(?:the |all )?(?:papers|studies|articles|works)\s+(?:on|about|"
                    r"regarding|concerning|that study|studying)\s+(?P<query>.+)$",
                    re.IGNORECASE)  # fmt: skip


def table_request(text: str) -> tuple[list[str], str] | None:
    """(the columns, which papers as said) when ``text`` asks for a table; else None."""
    m = _REQUEST.match(" ".join(text.split()))
    if not m:
        return None
    columns = [c for c in _SPLIT.split(m["columns"]) if c.strip()]
    columns = [re.sub(r"^(?:the|their|its)\s+", "", c, flags=re.IGNORECASE) for c in columns]
    return columns, (m["which"] or "").strip()


def _cited(engine: Library, history: Sequence[HistoryItem]) -> list[str]:
    """The ids of the papers the conversation's answers cited, in order (a turn may name
    them by id or by label)."""
    catalogue = engine.retriever.index.catalogue
    by_label = {catalogue[pid].label: pid for pid in catalogue}
    out: list[str] = []
    for item in history:
        cited: Sequence[str] = ()
        if isinstance(item, Turn):
            cited = item.cited
        elif len(item) == 3:
            cited = item[2]
        out += [c if c in catalogue else by_label.get(c, "") for c in cited]
    return [pid for pid in dict.fromkeys(out) if pid]


def table_answer(
    engine: Library,
    question: str,
    history: Sequence[HistoryItem] = (),
    filters: Filters | None = None,
) -> Iterator[Event] | None:
    """The table ``question`` asks for, as answer events; None when it asks for none.
    Raises QueryError (before any event) when the papers cannot be told."""
    asked = table_request(question)
    if asked is None:
        return None
    columns, which = asked
    choice: dict[str, object] = {}
    about = _ABOUT.match(which)
    if about:
        choice = {"query": about["query"], "k": CHAT_SEARCH}
    elif _POINTING.match(which) or (not which and history):
        choice = {"paper_ids": tuple(_cited(engine, history)[:CHAT_ROWS])}
    if not any(choice.values()) and filters:
        choice = {"paper_ids": filters.paper_ids, "collection": filters.collection}
    if not any(choice.values()):
        raise QueryError(
            "which papers? Ask for a table of the papers an answer cited ('... for these "
            "papers'), of 'the papers on <topic>', or pick papers or a collection first"
        )
    table = plan(engine, columns, **choice)  # type: ignore[arg-type]
    return _events(table, question)


def _events(table: Table, question: str) -> Iterator[Event]:
    start = time.perf_counter()
    filled = list(table.filled())  # at most CHAT_ROWS papers: filled before the first event
    final = table_final([c.name for c in table.columns], filled, question)
    yield SourcesEvent(sources=tuple(source for source, _ in filled))
    for line in final.answer.splitlines(keepends=True):  # a row at a time
        yield DeltaEvent(text=line)
    yield replace(final, timings={"table": time.perf_counter() - start})


def table_final(columns: Sequence[str], filled: Sequence[tuple[Source, Row]],
                question: str) -> FinalEvent:  # fmt: skip
    """A filled table as an answer: a Markdown table whose rows name their paper with a
    marker, each citing the paper with the first sentence a cell of its row quotes (for a
    chat answer, and for a table saved with the conversations)."""
    lines = [tablefmt.markdown_header(columns)]
    lines += [tablefmt.markdown_row(row).replace(" |", f" [{n}] |", 1)
              for n, (_, row) in enumerate(filled, 1)]  # fmt: skip
    citations = tuple(
        Citation(n, s, next((c.quote for c in r.cells if c.stated), ""))
        for n, (s, r) in enumerate(filled, 1)
    )
    return FinalEvent(answer="\n".join(lines), citations=citations, answerer=EXTRACTIVE_MODE,
                      timings={}, query=question)  # fmt: skip
