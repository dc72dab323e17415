"""A review table's cells written by a language model: a short phrase from that paper's own
text, checked before it is shown.

The extractive cell (:mod:`rag.answer.table`) chooses the sentence; the model is given that
sentence with the ones around it and the column's question, and writes what the cell should
say in a few words, or "not stated". The phrase is kept only when attribution
(:func:`rag.answer.attribute.judge`, as for generated answers) finds it supported by the
paper's text: its figures in the text, its content words covered. Otherwise, or when the
model fails, the cell shows the quoted sentence as without a model. The quote and where it is
are kept either way, so every cell can be read back to its evidence.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from rag.answer.attribute import Evidence, judge
from rag.answer.chat import complete
from rag.answer.table import NOT_STATED, Cell, Column, Row
from rag.errors import LLMError

if TYPE_CHECKING:
    from rag.answer.chat import ChatModel
    from rag.answer.cite import Source

__all__ = ["PHRASE_TOKENS", "PHRASE_WORDS", "SYSTEM", "phrased"]

PHRASE_WORDS = 20  # a longer reply is not a cell: the quote stands
PHRASE_TOKENS = 60
SYSTEM = (
    "You fill one cell of a literature review table. Answer the question in at most 15 "
    "words, using only the text given, as a phrase (no full sentence, no citation). If the "
    "text does not answer the question, reply exactly: not stated"
)
_CLEAN = re.compile(r"^[\s\"'“”*-]+|[\s\"'“”*]+$")


def phrased(row: Row, columns: list[Column], source: Source, chat: ChatModel) -> Row:
    """``row`` with each stated cell's ``text`` a checked phrase the model wrote (see the
    module doc); cells not stated are left as they are, nothing is asked for them."""
    ev = Evidence([source])
    cells = []
    for column, cell in zip(columns, row.cells, strict=True):
        cells.append(_phrase(cell, column, source, chat, ev) if cell.stated else cell)
    return replace(row, cells=tuple(cells))


def _phrase(cell: Cell, column: Column, source: Source, chat: ChatModel, ev: Evidence) -> Cell:
    text = " ".join(x for x in (cell.before, cell.quote, cell.after) if x)
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Question: {column.question}\nPaper: {source.name}\n"
                                    f"Text: {text}"},
    ]  # fmt: skip
    try:
        reply = complete(chat, messages, max_tokens=PHRASE_TOKENS)
    except LLMError:
        return cell
    phrase = _CLEAN.sub("", " ".join(reply.split()))
    if not phrase or len(phrase.split()) > PHRASE_WORDS:
        return cell
    if phrase.rstrip(".").casefold() == NOT_STATED:
        return cell  # the sentence chosen stays the evidence: the model does not overrule it
    if not judge(phrase, [source.n], ev).supported:
        return cell
    return replace(cell, text=phrase)
