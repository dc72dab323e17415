"""A thesis's title page, where a PDF opens on one: told from an article's first page (it
names the thesis or the degree), its author named after "presented by", and its title set
in no larger type than its other lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .pdfaffiliation import DEGREE
from .pdfline import Line
from .pdfnames import AFFILIATION, VENUE, authors

__all__ = ["thesis_author", "thesis_title", "thesis_title_page"]

_THESIS = re.compile(r"\b(?:thesis|dissertation|thèse|mémoire|tese|dissertação|tesis)\b", re.I)


def thesis_title_page(lines: Sequence[Line], body: float) -> bool:
    """Whether ``lines`` (a first page) are a thesis's title page: a line in the body's type
    or larger names it, as a label or the opening of one ("MASTER'S THESIS", its letters
    spaced or not; "A Dissertation", "A thesis submitted ..."; not prose's "In this
    dissertation, I ..."), or a line states the degree ("for the degree of Doctor of
    Philosophy", "Membres du jury"). Its prose is front matter, not an abstract."""
    for line in lines:
        tokens = line.text.split()
        if DEGREE.search(line.text):
            return True
        spaced = len(tokens) >= 4 and sum(len(t) == 1 for t in tokens) >= 0.6 * len(tokens)
        if spaced:
            named = bool(re.search("thesis|dissertation", "".join(tokens), re.I))
        else:
            opening = " ".join(tokens[:2]) if len(tokens) > 6 else line.text
            # (a label opens on a capital: not a sentence's line in a narrow column, "in 2019
            # and his thesis focused")
            named = bool(_THESIS.search(opening)) and line.text.lstrip()[:1].isupper()
        if named and line.size >= body - 0.5:
            return True
    return False


def thesis_cover(lines: Sequence[Line], first_page: Sequence[Line], body: float) -> bool:
    """Whether the text opens on a thesis's title page: the first page, or the second behind
    a bare cover (a title and a name, at most four lines: IIT Kharagpur's)."""
    if thesis_title_page(first_page, body):
        return True
    if len(first_page) > 4 or not any(x.size > body + 1 for x in first_page):
        return False  # (a copyright page, a page of body text: no cover)
    return thesis_title_page([x for x in lines if x.page == first_page[0].page + 1], body)


# A thesis's title page names its author after a label: "presented by" / "ALEXANDER FRANCIS
# MASSEY", "Submitted by Jane Doe", "by" alone on its line (French "Par", Spanish "Por"),
# German "vorgelegt im Juli 2022 von:" ("von" alone opens a family name: only after its verb).
_BY = re.compile(  # (and "Submitted in July 2022 by:")
    r"^\s*(?:(?:(?:presented|submitted|written|prepared)(?:\s+(?:in|on)\s+[^:]{1,30}?)?\s+)?"
    r"(?:by|par|por)|(?:vorgelegt|eingereicht|verfasst)(?:\s+(?:im|am)\s+[^:]{1,30}?)?\s+von)"
    r"\b\s*:?\s*(.*)$",
    re.I,
)


def thesis_author(lines: Sequence[Line], words: frozenset[str]) -> tuple[str, ...]:
    """The author a thesis's title page names after "presented by" or "by" (on the label's
    line or the next, or closing its degree's statement), in capitals or not; none when no
    such label stands there."""
    for i, line in enumerate(lines):
        match = _BY.match(line.text) or _DEGREE_BY.search(line.text)
        if match and (match[1] or i + 1 < len(lines)):
            named = replace(line, text=match[1]) if match[1] else lines[i + 1]
            if names := authors([named], words):
                return names
    return ()


# The degree's statement closing on its author: "... for the degree of Doctor in Philosophy by
# Joseph Michael Lewis".
_DEGREE_BY = re.compile(
    r"\b(?:degree|thesis|dissertation)\b.*\bby\s+((?:[A-Z][\w'’.-]*\s+){1,4}[A-Z][\w'’-]+)\s*$"
)
_THESIS_LABEL = re.compile(r"\b(?:thesis|dissertation|essay)\b", re.I)


def thesis_title(lines: Sequence[Line]) -> str:
    """The title a thesis's title page sets in no larger type than its other lines: the
    lines above the one naming the thesis ("COMBINATORICS OF PARKING FUNCTIONS" / "An Honors
    Thesis Presented"), but a university's or a venue's; "" when no such line stands there."""
    label = next((i for i, x in enumerate(lines[:12]) if _THESIS_LABEL.search(x.text)), 0)
    # (not its author's lines: "By" / "RENATA M. DIAZ" between the title and the label)
    label = next((i for i, x in enumerate(lines[:label]) if _BY.match(x.text)), label)
    kept = [x.text for x in lines[:label] if not AFFILIATION.search(x.text)
            and not VENUE.search(x.text) and not x.margin]  # fmt: skip
    title = " ".join(kept[-3:])
    return title if 2 <= len(title.split()) <= 30 else ""
