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
# heading run into the sentence before it ("... are inconclusive.AIM: To investigate").
_BOUNDARY = re.compile(
    r"(?<=[.!?])[\"')\]]*(?:\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[a-z0-9%)\]]\.)(?=[A-Z][A-Z ]{2,30}:))"
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
    for match in _BOUNDARY.finditer(text):
        candidate = text[start : match.start()]
        if _ends_with_abbreviation(candidate.rstrip("\"')]")):
            continue
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]
