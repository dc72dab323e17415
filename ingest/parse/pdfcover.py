"""Cover sheets before a PDF article's first page: not the article's first page, and their
dates (a download, a posting) are not the paper's year.

A repository or publisher puts one before the article (how to cite it, where to find it,
the terms of use: Taylor & Francis, JSTOR, MPRA, ResearchGate, AIP, a university's
Digital Commons repository, Project MUSE), and a journal issue's cover comes before a
featured article (a few words: the journal, ISSN, volume, number, pages). A page of a few
words alone before the article (a "PREPRINT" title card) is a cover too, and so is a
thesis's statement that it is a work in progress. A download stamp, which every page of the
article carries too, is no cover.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .pdflayout import Line
from .typeset import squash

__all__ = ["MAX_COVERS", "cover_words", "covered_title", "stamped"]

MAX_COVERS = 2
_COVER = re.compile(
    r"to cite this (?:article|version|paper)|terms (?:&|and) conditions|terms of use|"
    r"version of this article can be found|please scroll down|open access archive|"
    r"personal repec archive|use of the jstor archive|see discussions, stats,? and author "
    r"profiles|requested enhancement of the downloaded file|follow this and additional works "
    r"at|has created a covid-19 resource centre|view table of contents|articles you may be "
    r"interested in|view online\W+export citation|"
    r"this (?:paper|article|journal article|thesis|dissertation) is (?:posted|"
    r"available) at|statement on work in progress|for additional information about this "
    r"article|(?m:^)as featured in:".replace(" ", r"\s+"),  # (Digital Commons' cover;
    # Elsevier's COVID-19 permission cover; AIP's "View online: ... View Table of Contents:
    # ...", and its later "View Online / Export Citation" beside a CrossMark; Project MUSE's;
    # a thesis's statement that it is still under review, before its title page; RSC's
    # promotion of a paper its issue features, "As featured in:")
    re.IGNORECASE,
)
_ABSTRACT_LINE = re.compile(r"^\s*abstract\b", re.I | re.M)
# A submission system's form before the manuscript, its abstract among its fields (Editorial
# Manager's "--Manuscript Draft--", "Order of Authors:").
_FORM = re.compile(r"--\s*manuscript draft\s*--|^\s*order of authors\s*:", re.I | re.M)
_ISSUE = re.compile(r"\bISSN\b[\s\S]{0,200}?\bvolume\s+\d+\s+(?:number|issue)\s+\d+", re.I)
_ISSUE_COVER_WORDS = 80  # an issue's cover holds few words; an article's page many
# A paper series' cover: its name and the paper's number ("Discussion Papers / No. 131",
# "IZA DP No. 12345") on a page of few words, the paper's own title page after it.
_SERIES = re.compile(r"\b(?:discussion|working)\s+papers?\b|\bDP\b(?=\s+No\.)", re.I)
_NUMBER = re.compile(r"\bNo\.\s*\d+")
_SERIES_COVER_WORDS = 150
_CARD_WORDS = 6  # fewer words on a page than a title and a name take: a card, not the article


def cover_words(page: str) -> re.Match[str] | None:
    """The words that make a page's text a cover's (None for an article's page, also one
    printing "How to cite" above its abstract)."""
    if form := _FORM.search(page):
        return form
    if _ABSTRACT_LINE.search(page):
        return None
    said = _COVER.search(page)
    if said is None and 0 < len(page.split()) < _CARD_WORDS:
        said = re.search(r"\S[\s\S]*\S|\S", page)
    if said is None and len(page.split()) < _ISSUE_COVER_WORDS:
        said = _ISSUE.search(page)
    if said is None and len(page.split()) < _SERIES_COVER_WORDS and _NUMBER.search(page):
        said = _SERIES.search(page)
    return said


def stamped(said: re.Match[str], page: str, following: str) -> bool:
    """Whether a cover sheet's words on ``page`` are a stamp the next page carries too, in
    the same words around them (Wiley's "Downloaded from ... See the Terms and Conditions"
    on every page); a cover's own paragraph is worded apart from the pages' stamps. A page
    of a few words alone is a card whatever the next page prints."""
    if len(page.split()) < _CARD_WORDS:
        return False
    around = " ".join(page[max(0, said.start() - 40) : said.end() + 20].split()).casefold()
    return around in " ".join(following.split()).casefold()


def covered_title(title: str, after: int, page: Sequence[Line], cover: str) -> tuple[str, int]:
    """The title found on the article's first page (ending before ``page[after]``) with the
    line under it when the cover sheet before it (``cover``, its text) prints the two as
    one title: a subtitle in the title's type is not its byline ("Customer Acquisition via
    Display Advertising" / "Using Multi-Armed Bandit Experiments")."""
    if not title or not cover or not 0 < after < len(page):
        return title, after
    line, last = page[after], page[after - 1]
    longer = f"{title} {line.text}"
    if last.text.isupper() and not line.text.isupper():
        return title, after  # a title in capitals goes on in capitals ("Maria Gouskova": no)
    if abs(line.size - last.size) < 0.5 and squash(longer) in squash(cover):
        return longer, after + 1
    return title, after
