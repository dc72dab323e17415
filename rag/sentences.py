"""Sentence splitting for abstracts: good enough for scientific prose, fast, no models.

Used by the chunker (chunks end on sentence boundaries), for quotes and by the answerers.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

# Tokens after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    [
        "et",
        "al",
        "etc",
        "vs",
        "cf",
        "fig",
        "figs",
        "eq",
        "eqs",
        "ref",
        "refs",
        "no",
        "nos",
        "approx",
        "resp",
        "ca",
        "dr",
        "mr",
        "ms",
        "prof",
        "sec",
        "sect",
        "tab",
        "vol",
        "pp",
        "ch",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
    ]
)
# A candidate boundary: end punctuation (maybe closing quote/bracket), whitespace, then
# something that can start a sentence; or, with no whitespace, a structured abstract's
# heading run into the sentence before it ("... are inconclusive.AIM: To investigate"), or
# a sentence run into the one before it, as abstracts rebuilt from an index or from JATS
# paragraphs print them ("... in adolescents.This was a randomized study"): a word of two
# lower-case letters or more (or a closing bracket, a per cent) and its stop, then a
# capitalised word.
_BOUNDARY = re.compile(
    r"(?<=[.!?])[\"')\]]*(?:\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[a-z0-9%)\]]\.)(?=[A-Z][A-Z ]{2,30}:))"
    r"|(?:(?<=[a-z]{2}[.!?])|(?<=[%)\]][.!?]))(?=[A-Z][a-z])"
)
# A structured abstract's heading run into its first sentence, at the start or after a
# stop ("...adolescents.MethodsA total of 3841", "BackgroundThe aim"), as JATS sections
# lose their breaks: the heading stands alone, as if printed on its own line.
_GLUED_HEADING = re.compile(
    r"(?:^|(?<=[.!?])|(?<=[.!?]\s))(?:Background|Introduction|Context|Objectives?|Aims?|Purpose|"
    r"Methods?|Methodology|Materials and methods|Design|Setting|Participants|Results|"
    r"Findings|Conclusions?|Discussion|Interpretation|Significance)"
    r"(?=[A-Z][a-z]|[A-Z]\s|\d)"
)

# Letters joined by periods ("i.i.d.", "e.g.", "U.S.A."): an abbreviation, not an ending.
_INITIALISM = re.compile(r"(?:[a-z]\.)+[a-z]")


def _ends_with_abbreviation(text: str) -> bool:
    last = text.rsplit(None, 1)[-1] if text.strip() else ""
    word = last.rstrip(".").lstrip("(\"'").lower()
    if word in _ABBREVIATIONS or _INITIALISM.fullmatch(word):
        return True
    # Single capital initials ("J. Smith") and decimals split by a space are not endings.
    return len(word) == 1 and word.isalpha()


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; concatenating them with single spaces restores the text
    up to whitespace. Never returns empty strings."""
    text = text.strip()
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    cuts = [(m.start(), m.end()) for m in _BOUNDARY.finditer(text)]
    cuts += [(m.end(), m.end()) for m in _GLUED_HEADING.finditer(text)]
    for end, after in sorted(set(cuts)):
        if end <= start:
            continue
        candidate = text[start:end]
        if _ends_with_abbreviation(candidate.rstrip("\"')]")):
            continue
        sentences.append(text[start:after].strip())
        start = after
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]
