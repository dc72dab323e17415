"""What a question asks for: its type, the papers it names, the authors it names, its parts.

The answer's shape follows the type (:mod:`rag.answer.shapes`): a definition introduces the
system, a numeric question gets the sentence with the figure, a list gets one line per
paper, a comparison one line per system, an author question that author's papers from the
metadata, an overview the library's themes. Names and authors are matched against the
library itself (:class:`Names`), so "What is Rubick?" knows Rubick is a paper here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rag.answer.quantities import MEASURES, asks_figure
from rag.records import PaperRow
from rag.terms import STOPWORDS
from rag.words import common_words, distinctive, distinctive_word

__all__ = ["SPELL_OUT", "Names", "Question", "analyse", "split_parts"]

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
_PAPERS_ASKED = re.compile(
    r"\b(papers?|works?|stud(y|ies)|articles?|publications?|abstracts?|surveys?|reviews?|"
    r"collection|library|corpus)\b",
    re.IGNORECASE,
)
# A question asking for one paper by what it did ("Which study estimates ...?"): a statement
# of its abstract must say it, as for any question of fact; "Which papers ...?" asks for a
# topic's papers, which no single statement answers.
_ONE_PAPER = re.compile(
    r"^\s*(?:which|what)\s+(?:one\s+)?(?:paper|study|article|work|publication|preprint|report|"
    r"trial|review|survey|analysis|experiment)\b(?!\s+(?:of|in|from)\b)",
    re.IGNORECASE,
)
# A question about two studies it describes rather than names ("How do the two
# meta-analyses of X differ ...?", "Compare the US trial with the Dutch one", "What did each
# propose?"): the answer quotes both (rag.answer.two). Shaped on the training-only questions
# of the ten fields (bench/data/fields/*/train_questions.jsonl), none of the bench's.
_STUDY = (
    r"papers?|stud(?:y|ies)|trials?|RCTs?|meta-analys[ie]s|reviews?|articles?|essays?|"
    r"analys[ie]s|experiments?|surveys?|reports?|works?|evaluations?|follow-ups?|"
    r"assessments?|investigations?|simulations?|programmes?|programs?|projects?|"
    r"preprints?|publications?|datasets?"
)
_STUDIES = (
    r"papers|studies|trials|RCTs|meta-analyses|reviews|articles|essays|analyses|"
    r"experiments|surveys|reports|works|evaluations|follow-ups|assessments|"
    r"investigations|preprints|publications"
)
_TWO_STUDIES = re.compile(
    rf"\b(?:two|both)\b(?:\W+(?!of\b|to\b)[\w'-]+){{0,5}}?\W+(?:{_STUDIES})\b|"
    rf"\b(?:did|does|do) (?:each|either)\b|"
    rf"\b(?:both|each|either) (?:one|of (?:them|these|those|the (?:two|{_STUDIES})))\b|"
    rf"\b(?:in|for|from|by|of) (?:each|either)\s*(?:\?|,|;|$)|"
    rf"\bthe\b[^?;]{{0,80}}?\b(?:{_STUDY})\b[^?;]{{0,120}}?\b(?:and|with|versus|vs\.?|to|"
    rf"from)\s+(?:in\s+)?(?:the|that|its)\b[^?;]{{0,80}}?\b(?:{_STUDY})\b|"
    rf"^\s*how (?:do|did|does) [^?]{{2,160}}\band\b[^?]{{2,160}}\b(?:differ|compare|contrast)|"
    rf"^\s*compare\b",
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    r"\bhow (much|many|fast|large|big|small|long|well|far|often|old|high|low|accurate|"
    r"sensitive|specific|likely|common|frequent|effective|strong|close|quickly|soon)\b|"
    r"\bby how\b|\bto what (extent|degree)\b|"
    rf"^\s*(?:and|what about|how about) (?:the |its |their )?(?:[\w-]+ ){{0,2}}?(?-i:{MEASURES})"
    r"\s*\??\s*$|"
    r"\bwhat (?:(?:was|were|is|are|'s) )?(?:the |a |an )?(?:[\w-]+ ){0,3}?"
    rf"(?-i:{MEASURES})\b|"
    r"\b(speed ?up|percent|%)|\b(what|which) .{1,60}\b(did|does|do) .{1,60}\b(reach|achieve|"
    r"obtain|get|score|attain)\b",
    re.IGNORECASE,
)
# A question asking what a term stands for; group 1 holds the term.
SPELL_OUT = re.compile(
    r"\bwhat (?:does|do|did|is|are) (.{1,40}?) (?:stand for|mean|refer to|denote|abbreviate)\b|"
    r"\bwhat is meant by (.{1,40}?)(?:\?|$| in\b)",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"(?:^|[,:;]\s+)(what|who)('s| is| are| does| do)\b|"
    r"\b(describe|explain|define|tell me about|what kind of|introduce|definition of|"
    r"what is meant by)\b|\bwhat( \w+)? (does|do|did) .{1,60} (do|mean|propose|offer|solve|"
    r"address|tackle|provide|cover|target|optimi[sz]e|focus on|contribute)\b",
    re.IGNORECASE,
)
# A question asking WHO wrote a paper (answered from its metadata), not one that names the
# authors to say which paper it is about ("In the paper by Dutot et al., what is ..."),
# makes them a verb's subject ("What do the authors mean by ...") or has "who" open a
# relative clause ("How many patients who developed dementia ...?").
_AUTHOR_ASK = re.compile(
    r"(?:^\s*|[,;:]\s*|\band\s+)who\b.{0,40}\b(wrote|write|written|authored|authors?|developed|"
    r"created|proposed|behind)\b|"
    r"\b(written|authored) by whom\b|\bby whom\b.{0,60}\b(written|authored)\b|"
    r"^\s*(what|which) (are|were|is|was) (the |its |their )?(names of the )?authors?\b|"
    r"^\s*(list|name|give|show|tell)( me)? (the |its |their |all )?authors?\b|"
    r"^\s*(the |its |their )?authors?\b\W*(of\b|for\b|$)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w][\w.+-]*\w|\w")
_ACRONYM_WORD = re.compile(r"[A-Za-z0-9][\w.&/+-]*[A-Za-z0-9]")
# Where a two-part question splits: ", and how ...", " and what ...".
_PART_SPLIT = re.compile(
    r"\s*(?:,\s*|\s)(?:and|but also|also)\s+(?=(?:how|what|which|why|does|do|is|are|can|"
    r"who|where|when)\b)|\?\s+(?=\S)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Question:
    """A question as analysed: ``kind`` (one of TYPES), the paper ids it names, in the
    order named, the papers defining an acronym it uses (``defined``), the authors it
    names, and its parts (one, or two for "X and how Y")."""

    text: str
    kind: str
    named: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    parts: tuple[str, ...] = field(default=())
    defined: tuple[str, ...] = ()
    own: str = ""  # the user's own words, when ``text`` adds the conversation's subject

    @property
    def asks_author(self) -> bool:
        return bool(_AUTHOR_ASK.search(self.text))

    @property
    def asks_papers(self) -> bool:
        """Whether a list question asks for papers by name ("Which papers ...?", "Any
        surveys in the collection?"), not for things inside one ("Which waveform models
        were compared ...?")."""
        return bool(_PAPERS_ASKED.search(self.own or self.text))

    @property
    def asks_one_paper(self) -> bool:
        """Whether a list question asks for one paper by what it did ("Which study uses
        registry data to ...?"), not for a topic's papers ("Which papers deal with ...?")."""
        return self.kind == "list" and bool(_ONE_PAPER.search(self.own or self.text))

    @property
    def asks_figure(self) -> bool:
        """Whether every part of the question asks for a figure ("How many firms ...?",
        "In the trial, what was the median follow-up?"): only a sentence stating one can
        answer it (:mod:`rag.answer.gate`)."""
        return asks_figure(self.parts or (self.own or self.text,))

    @property
    def about_two(self) -> bool:
        """Whether the question asks about two studies it describes rather than names (one
        of them it may name): "How do the two meta-analyses differ ...?", "What did each
        propose?". Two papers it names make a comparison instead (one line each)."""
        return len(set(self.named)) < 2 and bool(_TWO_STUDIES.search(self.own or self.text))


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


MAX_SHARED = 3  # a name more papers than this give themselves names none of them


LONG_TITLE = 6  # a title of this many words does not turn up in a question by chance


def _title_names(title: str) -> list[str]:
    """A title's names: the whole title when it is long (LONG_TITLE words) or holds a
    distinctive word ("KCache", "ERNIE 3.0 Titan"), and its head before a colon ("Llumnix:
    Dynamic Scheduling ...") when that is a distinctive name of a few words."""
    title = " ".join(title.split())
    if not title or title.endswith("…"):
        return []
    names = []
    if len(title.split()) >= LONG_TITLE or any(distinctive_word(w) for w in title.split()):
        names.append(title)
    head = title.split(":")[0].strip() if ":" in title else ""
    if head and len(head.split()) <= 4 and distinctive(head):
        names.append(head)
    return names


class Names:
    """The library's paper names and authors, for finding them in a question.

    A paper is named by a distinctive name only (:mod:`rag.words`): its title (or the head
    of it before a colon), or the name its abstract introduces ("Llumnix", "ERNIE 3.0
    Titan"), matched case aside; never an ordinary word or a date. Acronyms an abstract
    defines ("PCD", "OSCE") are matched with their case, and point at the papers defining
    them more weakly: retrieval, not the name, orders those (:mod:`rag.answer.gather`).
    A name shared by more than MAX_SHARED papers names none, and so does a name (but a long
    title) that more than MAX_SHARED papers mention, by ``mentions`` (how many papers
    of the library hold every word of a text): "DNA", set in parentheses by some abstract,
    is everybody's word. A name that is an ordinary word in lower case ("NO",
    "AIM") or has three letters or fewer is matched with its case.
    """

    def __init__(
        self, rows: Iterable[PaperRow], mentions: Callable[[str], int] | None = None
    ) -> None:
        names: dict[str, list[str]] = {}
        titles: set[str] = set()
        acronyms: dict[str, list[str]] = {}
        self._display: dict[str, str] = {}
        self._authors: dict[str, list[str]] = {}
        for row in rows:
            own = [*_title_names(row.title), *([row.coined] if row.coined else [])]
            for name in own:
                key = _norm(name)
                if key and row.id not in names.get(key, ()):
                    names.setdefault(key, []).append(row.id)
                    self._display.setdefault(key, name)
                if name == row.title and len(name.split()) >= LONG_TITLE:
                    titles.add(key)  # a long title is its paper's alone, however common its words
            for short in row.acronyms:
                if row.id not in acronyms.get(short, ()):
                    acronyms.setdefault(short, []).append(row.id)
            for author in row.authors:
                key = _norm(author)
                if len(key) > 3:
                    self._authors.setdefault(key, []).append(row.id)
        self._names = {
            k: v
            for k, v in names.items()
            if len(v) <= MAX_SHARED
            and (k in titles or mentions is None or mentions(self._display[k]) <= MAX_SHARED)
        }
        self._cased = {
            k for k in self._names if len(k) <= 3 or k in common_words() or k in STOPWORDS
        }
        self._acronyms = {k: v for k, v in acronyms.items() if len(v) <= MAX_SHARED}
        # Longest first: "ernie 3.0 titan" is found before "ernie 3.0".
        self._name_keys = sorted(self._names, key=len, reverse=True)
        self._author_keys = sorted(self._authors, key=len, reverse=True)

    def named(self, text: str) -> list[str]:
        """Paper ids whose name the text mentions, in the order mentioned."""
        return [pid for _, pid in self._names_in(text)]

    def _names_in(self, text: str) -> list[tuple[str, str]]:
        found = self._find(_norm(text), self._name_keys, self._names)
        return [
            (key, pid)
            for key, pid in found
            if key not in self._cased or _cased_in(self._display[key], text)
        ]

    def by_acronym(self, text: str) -> list[str]:
        """Paper ids defining an acronym the text uses (with its case: "PCD", not "pcd")."""
        found = []
        for word in dict.fromkeys(_ACRONYM_WORD.findall(text)):
            found += self._acronyms.get(word, self._acronyms.get(word.rstrip("s"), []))
        return list(dict.fromkeys(found))

    def named_labels(self, text: str) -> list[str]:
        """The names the text mentions, as the library writes them."""
        return list(dict.fromkeys(self._display[key] for key, _ in self._names_in(text)))

    def authors(self, text: str) -> list[str]:
        """The authors (normalised names) the text mentions."""
        found = self._find(_norm(text), self._author_keys, self._authors)
        return list(dict.fromkeys(key for key, _ in found))

    def papers_by(self, author: str) -> list[str]:
        return list(self._authors.get(author, ()))

    @staticmethod
    def _find(text: str, keys: Sequence[str], index: dict[str, list[str]]) -> list[tuple[str, str]]:
        hay = f" {text} "
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


def _cased_in(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def split_parts(text: str) -> list[str]:
    """A two-part question as its parts ("What is X and how much does it save?" -> two)."""
    pieces = [p.strip(" ,;?") for p in _PART_SPLIT.split(text) if p and p.strip(" ,;?")]
    return [p for p in pieces if len(_WORD.findall(p)) >= 2] or [text]


def _kind(text: str, named: Sequence[str], authors: Sequence[str]) -> str:
    if _OVERVIEW.search(text) and not named:
        return "overview"
    if authors and not named:
        return "author"
    if _COMPARE.search(text) and len(set(named)) >= 2:
        return "comparison"
    if _LIST.search(text) and not named:
        return "list"
    if SPELL_OUT.search(text):
        return "definition"  # "What does SHSe mean ...", whatever "mean" or "how long" follow
    if _NUMERIC.search(text):
        return "numeric"
    if _DEFINITION.search(text):
        return "definition"
    return "how"


def analyse(text: str, names: Names | None = None, *, own: str = "") -> Question:
    """The question's type, named papers and authors, and parts. ``text`` may carry the
    conversation's subject after the user's ``own`` words (a follow-up rewritten for
    retrieval): names are looked for in all of it, the type and parts in the user's words."""
    named = tuple(dict.fromkeys(names.named(text))) if names else ()
    authors = tuple(names.authors(text)) if names else ()
    defined = tuple(p for p in names.by_acronym(text) if p not in named) if names else ()
    asked = own or text
    return Question(
        text=text,
        kind=_kind(asked, named, authors),
        named=named,
        authors=authors,
        parts=tuple(split_parts(asked)),
        defined=defined,
        own=own if own != text else "",
    )
