"""A short, recognisable label for an abstract that has no title.

In order of preference:

1. the name the abstract introduces: "we propose ERTACache, ...", "a framework, Nebula-I,",
   "a system called ERNIE 3.0 Titan", "Mobile Neural Network (MNN)" -> "MNN", or a quoted
   name ("parameter-selection merging");
2. a title-case term the abstract defines with an acronym ("Artificial Intelligence Security
   Competition (AISC)" -> its long form);
3. what "we propose / study / provide ..." is about ("Self-supervised video representation
   learning");
4. the first clause of the first sentence.

Every label is at most :data:`MAX_LABEL_CHARS` characters.
"""

from __future__ import annotations

import re

__all__ = ["MAX_LABEL_CHARS", "derive_label", "shorten"]

MAX_LABEL_CHARS = 50
_MAX_WORDS = 8
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
_TOPIC_MARKER = re.compile(
    r"\b(?:propos(?:e|es|ed)|present(?:s|ed)?|introduc(?:e|es|ed)|design(?:s|ed)?"
    r"|develop(?:s|ed)?|stud(?:y|ies)|provid(?:e|es|ed)|investigat(?:e|es|ed)|survey)\b",
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
_DEFINITION = re.compile(
    r"\b((?:[A-Z][\w'-]*\s+)(?:(?:of|for|and|the|in|on|to|with)\s+)?"
    r"(?:[A-Z][\w'-]*\s*)(?:(?:(?:of|for|and|the|in|on|to|with)\s+)?[A-Z][\w'-]*\s*){0,6})"
    r"\(([A-Z][\w.-]*[A-Z0-9][\w.-]*)\)"
)
_LEAD_DETERMINERS = re.compile(
    r"^(?:(?:a|an|the|our|this|these|its|novel|new|simple|general)\s+)+", re.IGNORECASE
)
_TOPIC_STOP = re.compile(
    r"[,;:.(]|\s(?:which|that|where|whose|to|by|for|with|in|from|using|via|based)\s",
    re.IGNORECASE,
)
_TRAILING_STOPWORDS = re.compile(r"(?:\s+(?:of|on|the|a|an|and|or|for|to|in|with|by))+$")


def derive_label(abstract: str) -> str:
    """A label users can recognise the paper by; never empty for a non-empty abstract."""
    sentences = [s for s in _SENTENCE.split(abstract.strip()) if s]
    if not sentences:
        return ""
    return shorten(
        _introduced_name(abstract, sentences)
        or _defined_term(abstract)
        or _topic(sentences)
        or _first_clause(sentences[0])
    )


def shorten(text: str, *, max_chars: int = MAX_LABEL_CHARS, max_words: int = 0) -> str:
    """``text`` cut at a word boundary to ``max_chars`` (and ``max_words``), ending in "…"."""
    words = text.split()
    kept = words[:max_words] if max_words else words
    if len(kept) == len(words) and len(" ".join(kept)) <= max_chars:
        return " ".join(kept)
    while len(kept) > 1 and len(" ".join(kept)) >= max_chars:
        kept.pop()
    result = _TRAILING_STOPWORDS.sub("", " ".join(kept)).rstrip(",;:")
    return result[: max_chars - 1] + "…"


# --- 1. an introduced name ------------------------------------------------------------------


def _introduced_name(abstract: str, sentences: list[str]) -> str:
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
            if name and not _seen_before(name, abstract[:offset]):
                return name
    return ""


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
        if _distinctive(inner):
            return inner
    return ""


def _distinctive(token: str) -> bool:
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
    if named or any(_distinctive(word) for word in run):
        return True
    # a plain capitalised word ("Rubick", "Llumnix") must recur to count as a name
    return len(re.findall(rf"(?<![\w-]){re.escape(candidate)}(?![\w-])", abstract)) >= 2


def _seen_before(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


# --- 2. a defined term ----------------------------------------------------------------------


def _defined_term(abstract: str) -> str:
    for match in _DEFINITION.finditer(abstract):
        long_form = match.group(1).strip()
        if len(long_form.split()) >= 2 and match.start() > 0:
            return long_form
    return ""


# --- 3. the topic of "we study ..." ---------------------------------------------------------


def _topic(sentences: list[str]) -> str:
    for sentence in sentences:
        subject = _SUBJECT.search(sentence)
        if not subject:
            continue
        naming = _NAMING_WORD.search(sentence, subject.end())
        marker = naming or _TOPIC_MARKER.search(sentence, subject.end())
        if not marker:
            continue
        rest = sentence[marker.end() :].strip()
        if rest.startswith(('"', "“")):
            rest = rest[1:]
        stop = _TOPIC_STOP.search(rest)
        phrase = _LEAD_DETERMINERS.sub("", rest[: stop.start()] if stop else rest).strip()
        if len(phrase.split()) >= 2:
            return _capitalise(shorten(phrase, max_words=_MAX_WORDS))
    return ""


# --- 4. the first clause --------------------------------------------------------------------


def _first_clause(sentence: str) -> str:
    clauses = [c.strip() for c in re.split(r"[,;:]", sentence) if c.strip()]
    clause = clauses[0] if clauses else sentence
    return _capitalise(shorten(clause.rstrip("."), max_words=_MAX_WORDS))


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
