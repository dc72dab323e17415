"""A table of contents on a paper's first pages: its entries name headings ("1 Abstract",
"2 Introduction ........ 2") that are not there; the text's own headings come after it. And
a running head naming a heading, set over the heading itself."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .pdfline import Line

__all__ = ["CONTENTS", "FOLIO", "LEADERS", "contents_entry", "running_head", "toc_entry"]

CONTENTS = re.compile(r"^\s*(?:table of )?contents\s*$", re.I)
# Dot leaders to an entry's page number ("2.1 Data Source . . . . 4", "Preface ..... iv").
_DOTS = r"(?:\s?\.){4,}"
LEADERS = re.compile(_DOTS + r"\s*(?:\d{1,4}|[ivxlc]{1,6})?\s*$", re.I)
# An entry's numbering: "i.", "a)", "2.", "4.1."
_NUMBERED = re.compile(r"^\s*(?:[ivxlc]{1,4}|[a-z]|\d{1,2}(?:\.\d{1,2})*)[.)]\s+")


def toc_entry(lines: Sequence[Line], i: int) -> bool:
    """Whether ``lines[i]`` is an entry of a table of contents: a "Contents" heading stands
    above it on its page, and it is set no larger than the entries between them (a heading
    set larger after the table is the text's own: a manuscript's "1 Abstract" under its
    contents)."""
    line = lines[i]
    above = [j for j in range(i) if lines[j].page == line.page and CONTENTS.match(lines[j].text)]
    if not above:
        return False
    entries = sorted(x.size for x in lines[above[-1] + 1 : i])
    return not entries or line.size <= 1.1 * entries[len(entries) // 2]


def contents_entry(lines: Sequence[Line], i: int) -> bool:
    """Whether ``lines[i]``, the first prose found where no abstract is headed, is an entry
    of a table of contents (:func:`toc_entry`) rather than a sentence under it ("i. Patient
    Count by Diagnosis Type", "Legislatures.......53"; not "Background: Hemorrhagic shock is
    the leading cause ..." under a manuscript's contents): then there is no abstract."""
    if not toc_entry(lines, i):
        return False
    text = _NUMBERED.sub("", lines[i].text)
    return bool(re.search(_DOTS, text)) or not re.search(r"[.?!](?:\s+[A-Z]|\s*$)", text)


FOLIO = re.compile(r"\s*(?:\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7})\s*")  # a page's number alone


def running_head(lines: Sequence[Line], i: int, heading: re.Pattern[str]) -> bool:
    """Whether ``lines[i]``, a heading alone or with its page's number ("ABSTRACT i"), is
    the running head set over the same heading ("ABSTRACT" / "i" / "Abstract")."""

    def bare(text: str) -> bool:
        found = heading.match(text)
        if found is None:
            return False
        rest = text[found.end() :]
        return not rest.strip() or bool(FOLIO.fullmatch(rest))

    below = [x.text for x in lines[i + 1 : i + 3] if not FOLIO.fullmatch(x.text)][:1]
    return bare(lines[i].text) and bool(below) and bare(below[0])
