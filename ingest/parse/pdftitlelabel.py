"""A PDF paper's title where no type sets it apart: labelled on its line ("Title: ..."), or
printed twice (a manuscript's title page in the body's type, the title again over the
abstract). The title set apart by its type: :mod:`ingest.parse.pdfheader`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .pdfabstract import heading_at
from .pdfheader import byline
from .pdflayout import Line
from .typeset import join_lines

__all__ = ["labelled_title", "repeated_title"]


def repeated_title(first_page: Sequence[Line], lines: Sequence[Line]) -> tuple[str, int]:
    """(title, index of the first line after it in ``first_page``) for a manuscript whose
    title page sets its title in the body's type and prints it again on a later page (over
    the abstract): the lines opening the page that a later page repeats word for word, four
    words at least; ("", 0) when none is."""
    later = (
        {" ".join(x.text.split()) for x in lines if x.page > first_page[0].page}
        if first_page
        else set()
    )
    top = [x for x in first_page if not x.margin]
    count = 0
    while count < min(3, len(top)) and " ".join(top[count].text.split()) in later:
        count += 1
    title = " ".join(x.text for x in top[:count])
    return (title, first_page.index(top[count - 1]) + 1) if len(title.split()) >= 4 else ("", 0)


_NEXT_LABEL = re.compile(  # (or a form's next label alone: "Course:")
    r"^\s*(?:\d{1,2}\.?\s+)?(?:paper\s+)?(?:abstract|authors?|by|date|keywords?)\b"
    r"|^\s*[A-Z][\w ]{0,30}:\s*$",
    re.I,
)
# "Title:", "Title -", "Title- " (not "Title-based ...", a title's own word), a form's "Project
# Title:"
_KIND = r"(?:(?:project|thesis|dissertation|paper|report)\s+)?"
# (or a form's count after the label: "Title (110 / 110 characters): ...")
_COUNT = r"(?:\([^()]{0,40}\)\s*)?"
_LABELLED = re.compile(rf"^\s*{_KIND}title\s*{_COUNT}(?::|\s[-–—]|[-–—](?=\s))\s*(?=\S)", re.I)
_LABEL_ALONE = re.compile(rf"^\s*(?:\d{{1,2}}\.?\s+)?{_KIND}title\s*:?\s*$", re.I)


def labelled_title(page: Sequence[Line], words: frozenset[str]) -> tuple[str, int]:
    """(title, index of the line after it) when one of the page's first lines labels it
    ("Title- The Psychological Impact of ..." and its next lines in the same type, up to a
    heading or a byline, joined as lines are: "meta-community pro-" / "cesses" is
    "processes"), or the label stands alone on the line above them; ("", 0) else."""
    at = next((i for i, x in enumerate(page[:8]) if _LABELLED.match(x.text)), None)
    if at is None:  # or the label alone on its line, a form's ("2 Title" / "Spinsim: ...")
        alone = next((i for i, x in enumerate(page[:8]) if _LABEL_ALONE.match(x.text)), None)
        if alone is None or alone + 1 >= len(page):
            return "", 0
        at = alone + 1
    end = at + 1
    while (
        end < min(len(page), at + 4)
        and abs(page[end].size - page[at].size) < 0.5
        and not (heading_at(page, end) or _NEXT_LABEL.match(page[end].text))
        and not byline(page[end].text)  # the authors under it, in its type
    ):
        end += 1
    text = join_lines([x.text for x in page[at:end]], words)
    return _LABELLED.sub("", text).rstrip(" ."), end
