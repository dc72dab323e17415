"""The names an abstract gives its paper: the name it introduces and the acronyms it defines.

"We propose ERTACache, ...", "a system called ERNIE 3.0 Titan", "Mobile Neural Network
(MNN)" introduce a name; "programmed cell death (PCD)" or "objective structured clinical
examination (OSCE)" define an acronym, which a reader may ask about ("what does OSCE stand
for?"). Only distinctive names count (:func:`rag.words.distinctive`): an ordinary word or a
date never names a paper. Untitled papers take the introduced name as their label
(:mod:`ingest.parse.labels`); questions are matched against all of them
(:class:`rag.answer.question.Names`). Acronyms are found the way Schwartz and Hearst
(PSB 2003) find them: a short form in parentheses whose letters occur, in order, in the
words just before it, its first letter starting the long form's first word.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from rag.records import PaperRow
from rag.terms import terms
from rag.words import distinctive, distinctive_word

__all__ = [
    "MAX_ALIASES",
    "Glossary",
    "acronyms",
    "aliases",
    "glossary",
    "glossed",
    "introduced_name",
    "spelled_out",
    "with_names",
]

MAX_ALIASES = 12
_WINDOW = 12  # words after "we propose" in which the introduced name must appear

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")
_SUBJECT = re.compile(
    r"\b(?:we|our|this\s+(?:paper|work|study|report|article|survey|letter))\b", re.IGNORECASE
)
_NAME_MARKER = re.compile(
    r"\b(?:propos(?:e|es|ed)|present(?:s|ed)?|introduc(?:e|es|ed)|design(?:s|ed)?"
    r"|develop(?:s|ed)?|build|built|releas(?:e|es|ed)|called|named|namely|dubbed|termed"
    r"|coined)\b",
    re.IGNORECASE,
)
_NAMING_WORD = re.compile(r"\b(?:called|named|namely|dubbed|termed|coined)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[\"“”]|\(|\)|[,;:]|[^\s\"“”(),;:]+")
_QUOTES = {'"', "“", "”"}
_NUMBER = re.compile(r"\d+(?:\.\d+)*[A-Za-z]?")
_ADJECTIVE_SUFFIX = re.compile(
    r"-(?:based|related|aware|like|level|specific|driven|style|wise|free|oriented|guided"
    r"|enhanced|efficient|intensive|only|scale|centric|agnostic)$"
)
# "(SF)" or "(SF;" / "(SF,": a short form of 2-10 characters with a letter, not a citation.
_SHORT = re.compile(r"\(\s*([A-Za-z0-9][\w.&/+-]{0,9}?)\s*[);,]")
_LONG_WORD = re.compile(r"[\w'’.+-]+")
# Words a long form joins its words with ("members of parliament").
_JOINING = frozenset(["of", "and", "the", "for", "in", "on", "to", "with", "by", "a", "an"])
_PLAIN_WORD = re.compile(r"[A-Za-z]+")
_JOINED_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


def introduced_name(abstract: str) -> str:
    """The distinctive name the abstract introduces for its own work, or ""."""
    sentences = [s for s in _SENTENCE.split(abstract.strip()) if s]
    offset = 0
    for sentence in sentences:
        start = abstract.find(sentence, offset)
        offset = max(start, offset)
        subject = _SUBJECT.search(sentence)
        if not subject:
            continue
        for marker in _NAME_MARKER.finditer(sentence, subject.end()):
            named = bool(_NAMING_WORD.fullmatch(marker.group(0)))
            tokens = _TOKEN.findall(sentence[marker.end() :])
            name = _first_name(tokens, abstract, named=named)
            if name and distinctive(name) and not _seen_before(name, abstract[:offset]):
                return name
    return ""


def acronyms(text: str) -> list[tuple[str, str]]:
    """(short form, long form) for each acronym ``text`` defines, in order, once each."""
    out: dict[str, str] = {}
    for match in _SHORT.finditer(text):
        short = match.group(1).strip(".")
        letters = [c.casefold() for c in short if c.isalnum()]
        if len(letters) < 2 or not any(c.isalpha() for c in short) or short in out:
            continue
        if short.isdigit() or (short.islower() and len(short) > 5):
            continue  # "(1998)", "(often)": no acronym
        words = _LONG_WORD.findall(text[max(0, match.start() - 160) : match.start()])
        long = _long_form(letters, words[-min(len(letters) + 5, len(letters) * 2) :])
        if long:
            out[short] = long
    return list(out.items())


def spelled_out(short: str, text: str) -> bool:
    """Whether ``text`` spells out the acronym ``short`` without defining it: a run of
    consecutive words, each beginning with the acronym's next letter and holding, in order,
    the small letters that follow it ("UCST": "upper critical solution temperature";
    "HBsAg": "hepatitis B surface antigen"; "BEERs": "behavioural equilibrium exchange
    rates"), joining words ("of", "and") skipped unless a small letter stands for them
    ("BoE": "Bank of England"). Only acronyms of two capitals and three letters or more (a
    plural "s" aside): shorter ones begin too many runs of words. An acronym of five
    capitals or more may also take capitals from inside the words, a word joined by hyphens
    counting as one, when at least half its capitals begin a word, its last one does, no
    word gives more than one from inside and no joining word breaks the run ("DLPFC":
    "dorsolateral prefrontal cortex"; "HRXRD": "high-resolution x-ray diffraction"; not
    "LVISR": "large variations in size ranges")."""
    if short[:-1].isupper() and short.endswith("s"):
        short = short[:-1]
    capitals = sum(c.isupper() for c in short)
    if len(short) < 3 or not short.isalpha() or capitals < 2:
        return False
    first = short[0].casefold()
    words = [w.casefold() for w in _PLAIN_WORD.findall(text)]
    if any(_made_of(short, words, i) for i, w in enumerate(words) if w[0] == first):
        return True
    if capitals < 5:
        return False
    joined = [w.casefold().replace("-", "") for w in _JOINED_WORD.findall(text)]
    need = -(-capitals // 2)
    return any(
        _made_of(short, joined, i, inside=True, need=need)
        for i, w in enumerate(joined)
        if w[0] == first
    )


def _made_of(
    short: str, words: list[str], i: int, *, inside: bool = False, need: int = 0, used: int = 0
) -> bool:
    """Whether ``short`` spells out words[i], words[i + 1], ... (see spelled_out); with
    ``inside``, capitals too may come from inside a word, and at least ``need`` words must
    begin with one of its letters."""
    if not short:
        return used >= need
    if i >= len(words):
        return False
    word = words[i]
    if word in _JOINING and inside:  # taking capitals from inside words, the run is unbroken
        return False
    if word in _JOINING and not (short[0].islower() and word[0] == short[0]):
        return _made_of(short, words, i + 1, inside=inside, need=need, used=used)  # "of" of "BoE"
    if word[0] != short[0].casefold():
        return False
    rest, at, took = short[1:], 1, False
    while True:  # this word may also give the small letters that follow its first one
        if _made_of(rest, words, i + 1, inside=inside, need=need, used=used + 1):
            return True
        if not rest or not (rest[0].islower() or inside):
            return False
        if rest[0].isupper():  # one capital inside a word at most, and never the last
            if took or len(rest) == 1:
                return False
            took = True
        at = word.find(rest[0].casefold(), at) + 1
        if not at:
            return False
        rest = rest[1:]


def aliases(abstract: str, title: str = "") -> tuple[str, ...]:
    """The distinctive acronyms the title and abstract define, once each, at most
    MAX_ALIASES (their long forms are ordinary phrases: "primary care physicians")."""
    found = [s for s, _ in acronyms(f"{title}. {abstract}" if title else abstract)]
    return tuple(dict.fromkeys(s for s in found if distinctive_word(s)))[:MAX_ALIASES]


def with_names(row: PaperRow) -> PaperRow:
    """``row`` with the names its abstract gives it (``coined``, ``acronyms``); a row
    without its abstract is returned as it is."""
    if not row.abstract:
        return row
    return replace(
        row, coined=introduced_name(row.abstract), acronyms=aliases(row.abstract, row.title)
    )


Glossary = tuple[tuple[str, frozenset[str]], ...]


@functools.lru_cache(maxsize=4096)
def glossary(text: str) -> Glossary:
    """(short form, long form's words) for each acronym ``text`` defines, as stems:
    "cardiovascular disease (CVD)" gives ("cvd", {"cardiovascular", "diseas"})."""
    out = []
    for short, long in acronyms(text):
        key, words = terms(short), frozenset(terms(long))
        if len(key) == 1 and words and not key <= words:
            out.append((next(iter(key)), words))
    return tuple(out)


def glossed(words: frozenset[str], known: Glossary) -> frozenset[str]:
    """``words`` and what its paper's acronyms stand for: a sentence saying "CVD" holds
    "cardiovascular" and "disease" for a question that spells them out, and one saying
    "human papillomavirus" holds "HPV" for a question that abbreviates it."""
    extra: set[str] = set()
    for short, long in known:
        if short in words:
            extra |= long
        elif long <= words:
            extra.add(short)
    return words | extra if extra else words


def _long_form(letters: list[str], words: list[str]) -> str:
    """The shortest run of ``words`` ending at the last one whose characters hold
    ``letters`` in order, the first letter starting its first word (Schwartz-Hearst)."""
    if not words:
        return ""
    text = " ".join(words)
    s, l_ = len(letters) - 1, len(text) - 1
    while s >= 0:
        c = letters[s]
        while l_ >= 0 and (
            text[l_].casefold() != c
            or (s == 0 and l_ > 0 and text[l_ - 1].isalnum())  # the first letter starts a word
        ):
            l_ -= 1
        if l_ < 0:
            return ""
        s -= 1
        l_ -= 1
    start = text.rfind(" ", 0, l_ + 1) + 1
    long = text[start:].strip(" ,;:-")
    return long if len(long.split()) <= len(letters) + 3 else ""


# --- finding the introduced name --------------------------------------------------------------


def _first_name(tokens: list[str], abstract: str, *, named: bool) -> str:
    words = 0
    i = 0
    while i < len(tokens) and words < _WINDOW:
        token = tokens[i]
        if token in _QUOTES:
            quoted, j = _until_quote(tokens, i + 1)
            if 0 < len(quoted) <= 6:
                return " ".join(quoted)
            i = j + 1
            continue
        if _starts_name(token):
            run, j = _run(tokens, i)
            short = _parenthetical(tokens, j)
            if short:
                return short
            candidate = " ".join(run)
            if _plausible(run, candidate, abstract, named=named):
                return candidate
            i = j
            words += len(run)
            continue
        if token not in ",;:()":
            words += 1
        i += 1
    return ""


def _until_quote(tokens: list[str], i: int) -> tuple[list[str], int]:
    words: list[str] = []
    while i < len(tokens) and tokens[i] not in _QUOTES:
        if tokens[i] not in ",;:":
            words.append(tokens[i].rstrip("."))
        i += 1
    return words, i


def _clean(token: str) -> str:
    return token.rstrip(".")


def _starts_name(token: str) -> bool:
    token = _clean(token)
    return bool(token) and token[0].isupper() and token != "I"


def _run(tokens: list[str], i: int) -> tuple[list[str], int]:
    """Consecutive capitalised words, numbers and ' - ' joiners starting at ``tokens[i]``."""
    run = [_clean(tokens[i])]
    j = i + 1
    while j < len(tokens) and not tokens[j - 1].endswith("."):
        token = _clean(tokens[j])
        joiner = token == "-" and j + 1 < len(tokens) and _starts_name(tokens[j + 1])
        if not (joiner or (token and (token[0].isupper() or _NUMBER.fullmatch(token)))):
            break
        run.append(token)
        j += 1
    return run, j


def _parenthetical(tokens: list[str], j: int) -> str:
    """The short name in "Long Name (SHORT)" or "(SHORT for short)" right after a run."""
    if j + 1 < len(tokens) and tokens[j] == "(":
        inner = _clean(tokens[j + 1])
        if _coined(inner):
            return inner
    return ""


def _coined(token: str) -> bool:
    """Looks like a coined name: inner capitals (KCache, ERNIE), digits with letters (C4)."""
    if not token or not token[0].isalnum() or _ADJECTIVE_SUFFIX.search(token):
        return False
    has_alpha = any(c.isalpha() for c in token)
    inner_upper = any(c.isupper() for c in token[1:])
    digit = any(c.isdigit() for c in token)
    return has_alpha and (inner_upper or (digit and token[0].isupper()))


def _plausible(run: list[str], candidate: str, abstract: str, *, named: bool) -> bool:
    if len(run) == 1 and _ADJECTIVE_SUFFIX.search(run[0]):
        return False
    if named or any(_coined(word) for word in run):
        return True
    # a plain capitalised word ("Rubick", "Llumnix") must recur to count as a name
    return len(re.findall(rf"(?<![\w-]){re.escape(candidate)}(?![\w-])", abstract)) >= 2


def _seen_before(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
