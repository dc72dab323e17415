"""What a question asks for: its type, the papers it names, the authors it names, its parts.

The answer's shape follows the type (:mod:`rag.answer.shapes`): a definition introduces the
system, a numeric question gets the sentence with the figure, a list gets one line per
paper, a comparison one line per system, an author question that author's papers from the
metadata, an overview the library's themes. Names and authors are matched against the
library itself (:class:`Names`), so "What is Rubick?" knows Rubick is a paper here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rag.records import PaperRow

__all__ = ["Names", "Question", "analyse", "split_parts"]

TYPES = ("overview", "author", "list", "comparison", "numeric", "definition", "how")

_OVERVIEW = re.compile(
    r"\b(summari[sz]e|overview|summary)\b.*\b(papers?|collection|library|corpus|abstracts?|"
    r"here|everything|all)\b|\b(what|which)\b.*\b(topics?|themes?|areas?|subjects?)\b.*"
    r"\b(collection|library|corpus|papers|abstracts|cover|covered|here)\b|"
    r"\bwhat('s| is| does)\b.*\b(in here|this (collection|library|corpus))\b",
    re.IGNORECASE,
)
_PLURAL = (
    r"(papers|works|studies|articles|abstracts|systems|methods|approaches|surveys|reviews|"
    r"datasets|corpora|models|frameworks|ones)"
)
_LIST = re.compile(
    rf"^\s*(which|list|name|show|find|are there|is there|any)\b.{{0,40}}?\b(papers?|works?|"
    rf"stud(y|ies)|articles?|{_PLURAL})\b|^\s*what\b.{{0,30}}?\b{_PLURAL}\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(
    r"\b(compare|comparison|contrast|differ|difference|differences|versus|vs\.?|"
    r"better than|similarit(y|ies)|in common)\b",
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    r"\bhow (much|many|fast|large|big|small|long|well|far|often)\b|\bby how\b|"
    r"\bwhat (\w+ )?(speed ?ups?|percentages?|fractions?|sizes?|accuracy|throughput|latency|"
    r"improvements?|reductions?|gains?|costs?|number|scale|scores?|fid|bleu|f1|rates?|ratios?|"
    r"scalability|efficiency)\b|\b(speed ?up|percent|%)|\b(what|which) .{1,60}\b(did|does|do) "
    r".{1,60}\b(reach|achieve|obtain|get|score|attain)\b",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(what|who)('s| is| are| was| does| do)\b|\b(describe|explain|define|tell me about|"
    r"what kind of|introduce)\b|\bwhat( \w+)? (does|do|did) .{1,60} (do|mean|propose|offer|solve|"
    r"address|tackle|provide|cover|target|optimi[sz]e|focus on|contribute)\b",
    re.IGNORECASE,
)
_AUTHOR_ASK = re.compile(
    r"\bwho\b.{0,40}\b(wrote|write|written|authored|authors?|developed|created|proposed|behind)\b|"
    r"\b(authors? of|its authors?|their authors?|the authors|written by|(papers?|work|works) "
    r"(by|of|from)|co-?author\w*|an author|as (an )?author)\b|\b(did|has|have) .{1,40} (work|"
    r"worked|write|written|publish|published|contribute)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w][\w.+-]*\w|\w")
# Where a two-part question splits: ", and how ...", " and what ...".
_PART_SPLIT = re.compile(
    r"\s*(?:,\s*|\s)(?:and|but also|also)\s+(?=(?:how|what|which|why|does|do|is|are|can|"
    r"who|where|when)\b)|\?\s+(?=\S)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Question:
    """A question as analysed: ``kind`` (one of TYPES), the paper ids it names, in the
    order named, the authors it names, and its parts (one, or two for "X and how Y")."""

    text: str
    kind: str
    named: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    parts: tuple[str, ...] = field(default=())

    @property
    def asks_author(self) -> bool:
        return bool(_AUTHOR_ASK.search(self.text))


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def _is_name(label: str) -> bool:
    """A label that reads as a proper name (KCache, ERNIE 3.0, Nebula-I, Big Models), not a
    descriptive phrase ("Distributed training framework")."""
    words = label.split()
    if not words or len(words) > 4 or label.endswith("…"):
        return False
    marked = any(
        any(c.isdigit() for c in w) or "-" in w or any(c.isupper() for c in w[1:]) for w in words
    )
    return marked or all(w[:1].isupper() for w in words)


def _parts(name: str) -> list[str]:
    """Words of a multi-word system name that could name it alone ("Titan" of "ERNIE 3.0
    Titan"); none for a name of ordinary words ("Big Models": "Models" names nothing)."""
    words = name.split()
    marked = any(any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]) for w in words)
    if len(words) < 2 or not marked:
        return []
    return [w for w in words if len(w) >= 4 and w[:1].isupper() and w[1:].islower()]


class Names:
    """The library's paper names and authors, for finding them in a question."""

    def __init__(self, rows: Iterable[PaperRow]) -> None:
        self._names: dict[str, list[str]] = {}
        self._display: dict[str, str] = {}
        self._authors: dict[str, list[str]] = {}
        parts: dict[str, set[str]] = {}
        whole: dict[str, str] = {}  # a part -> the name it is part of
        self._proper: set[str] = set()
        for row in rows:
            for name in {row.label, row.title.split(":")[0].strip() if ":" in row.title else ""}:
                key = _norm(name)
                if not name or name.endswith("…") or len(key.split()) > 6:
                    continue
                self._names.setdefault(key, []).append(row.id)
                self._display.setdefault(key, name)
                if _is_name(name):
                    self._proper.add(key)
                    for part in _parts(name):
                        parts.setdefault(_norm(part), set()).add(row.id)
                        whole.setdefault(_norm(part), name)
            for author in row.authors:
                key = _norm(author)
                if len(key) > 3:
                    self._authors.setdefault(key, []).append(row.id)
        for part, ids in parts.items():
            if len(ids) == 1 and part not in self._names:  # a part that names one paper only
                self._names[part] = sorted(ids)
                self._display[part] = whole[part]
                self._proper.add(part)
        # Longest first: "ernie 3.0 titan" is found before "ernie 3.0".
        self._name_keys = sorted(self._names, key=len, reverse=True)
        self._author_keys = sorted(self._authors, key=len, reverse=True)

    def named(self, text: str) -> list[str]:
        """Paper ids whose name the text mentions, in the order mentioned."""
        return [pid for _, pid in self._find(text, self._name_keys, self._names)]

    def proper(self, text: str) -> list[str]:
        """Paper ids the text names by a proper name (KCache), not by a descriptive label
        ("Distributed training framework", which a list question may use as a topic)."""
        found = self._find(text, self._name_keys, self._names)
        return [pid for key, pid in found if key in self._proper]

    def named_labels(self, text: str) -> list[str]:
        """The names the text mentions, as the library writes them."""
        found = self._find(text, self._name_keys, self._names)
        return list(dict.fromkeys(self._display[key] for key, _ in found))

    def authors(self, text: str) -> list[str]:
        """The authors (normalised names) the text mentions."""
        found = self._find(text, self._author_keys, self._authors)
        return list(dict.fromkeys(key for key, _ in found))

    def papers_by(self, author: str) -> list[str]:
        return list(self._authors.get(author, ()))

    @staticmethod
    def _find(text: str, keys: Sequence[str], index: dict[str, list[str]]) -> list[tuple[str, str]]:
        hay = f" {_norm(text)} "
        taken: list[tuple[int, int]] = []
        found: list[tuple[int, str, str]] = []
        for key in keys:
            start = hay.find(f" {key} ")
            while start >= 0:
                span = (start + 1, start + 1 + len(key))
                if not any(a < span[1] and span[0] < b for a, b in taken):
                    taken.append(span)
                    found.extend((start, key, pid) for pid in index[key])
                start = hay.find(f" {key} ", start + 1)
        return [(key, pid) for _, key, pid in sorted(found)]


def split_parts(text: str) -> list[str]:
    """A two-part question as its parts ("What is X and how much does it save?" -> two)."""
    pieces = [p.strip(" ,;?") for p in _PART_SPLIT.split(text) if p and p.strip(" ,;?")]
    return [p for p in pieces if len(_WORD.findall(p)) >= 2] or [text]


def _kind(text: str, named: Sequence[str], authors: Sequence[str], proper: Sequence[str]) -> str:
    if _OVERVIEW.search(text) and not named:
        return "overview"
    if authors and not named:
        return "author"
    if _COMPARE.search(text) and len(set(named)) >= 2:
        return "comparison"
    if _LIST.search(text) and not proper:
        return "list"
    if _NUMERIC.search(text):
        return "numeric"
    if _DEFINITION.search(text):
        return "definition"
    return "how"


def analyse(text: str, names: Names | None = None) -> Question:
    """The question's type, named papers and authors, and parts."""
    named = tuple(dict.fromkeys(names.named(text))) if names else ()
    authors = tuple(names.authors(text)) if names else ()
    return Question(
        text=text,
        kind=_kind(text, named, authors, names.proper(text) if names else ()),
        named=named,
        authors=authors,
        parts=tuple(split_parts(text)),
    )
