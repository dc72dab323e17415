"""The names of a question that no paper of the library holds ("vLLM", "AM404", "GPT-4"): what
an answer says first, and what holds the question to the reader's stricter gate
(:mod:`rag.answer.gate`).

A name is a word with a case change inside, in capitals, or of letters and digits. It is
missing when the lexical index keeps no term for it, unless it is only spelt apart: a hyphen
adding a plain word ("LOF-filtered" is LOF; :func:`rag.words.name_core`), words the library
holds joined by hyphens ("US-Soviet-Chinese"), an acronym a paper read for the answer spells
out ("UCST", "DLPFC"; :func:`rag.aliases.spelled_out`), or a name it writes in pieces or goes
on from ("Delta-SCF" as "$\\Delta$SCF", "ConvNeXt" in "ConvNeXtBase";
:func:`rag.words.written_in`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rag.aliases import spelled_out
from rag.answer.cite import Source
from rag.words import looked_up, name_core, written_in

if TYPE_CHECKING:
    from rag.retrieve import Retriever

__all__ = ["key", "missing", "names"]

# A name with a case change inside ("vLLM", "PagedAttention", "Megatron-LM").
_MIXED_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[a-z]-[A-Z]|[A-Z]-[a-z]")
# A name of any kind: a case change inside, capitals ("GATA3", "AM404") or letters and digits.
_NAME = re.compile(rf"{_MIXED_CASE.pattern}|[A-Z].*[A-Z0-9]|[A-Za-z].*\d|\d.*[A-Za-z]")


def names(text: str, retriever: Retriever) -> dict[str, str]:
    """The names of ``text`` ("vLLM", "AM404", "GPT-4"), each with the term the lexical index
    keeps it as."""
    words = dict.fromkeys(re.findall(r"[\w][\w.+-]*[\w]", text))
    return {word: key(name_core(word), retriever) for word in words if _NAME.search(word)}


def missing(
    found: Mapping[str, str],
    df: Mapping[str, int],
    query: str,
    sources: Sequence[Source],
    retriever: Retriever,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the names of ``found`` no paper holds, those of them with a case change inside), as
    looked up ("vLLM" for "vLLM-style"); ``df``: the document frequency of the question's
    terms; the sources read are the papers that may spell a name out."""
    # The question's own abbreviations ("human dialyzable leukocyte extract (hDLE)") are no
    # names the library lacks: their spelled-out words are weighed with the rest.
    own_abbreviations = set(re.findall(r"\(([\w.+-]+)\)", query))
    unheard = [
        word
        for word, term in found.items()
        if word not in own_abbreviations
        and (_MIXED_CASE.search(word) or (len(word) > 2 and word[0].isalpha()))
        and term
        and df.get(term, 1) == 0
    ]
    read = " ".join(f"{s.paper.title}. {s.paper.abstract}" for s in sources) if unheard else ""
    lacking = [
        w
        for w in unheard
        if not spelled_out(w, read) and not written_in(w, read) and not _compound(w, retriever)
    ]
    absent = tuple(looked_up(w) for w in lacking)
    return absent, tuple(looked_up(w) for w in lacking if _MIXED_CASE.search(w))


def key(word: str, retriever: Retriever) -> str:
    """The term the lexical index keeps a word under (its longest analysed part; "" for
    none): "Megatron-LM" is looked up as "megatron"."""
    own = retriever.index.analyze_one(word)
    return max(own, key=len) if own else ""


def _compound(word: str, retriever: Retriever) -> bool:
    """Whether ``word`` joins by hyphens words of two letters or more that papers of the
    library hold, each of them ("US-Soviet-Chinese"; not "GOT-10k", "Fe-N-C", nor
    "Muller-Plathe" where one is new)."""
    parts = word.split("-")
    if len(parts) < 2 or not all(p.isalpha() and len(p) > 1 for p in parts):
        return False
    keys = {key(p, retriever) for p in parts}
    if not all(keys):
        return False
    return all(n > 0 for n in retriever.index.document_frequency(keys).values())
