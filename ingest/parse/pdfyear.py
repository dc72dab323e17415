"""The year a PDF paper says it was published, from its own print only: the arXiv stamp, a
citation line, a copyright, a venue line, a date; never a download stamp, a reference list,
the body's running text or type too small to read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from .pdfbody import COPYRIGHT
from .pdflayout import Line

__all__ = ["MONTH_YEAR", "find_year", "latest_year", "printed_apart"]

_STAMP_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_COPYRIGHT = re.compile(
    # (not a law's name: "the Copyright Act 1968")
    # (the holder's name up to 45 characters: "© Springer-Verlag Berlin Heidelberg 2007")
    r"(?:©|\(c\)|copyright(?!\s+act\b))\s*(?:\D{0,45})?((?:19|20)\d{2})"
    # the sign drawn, not typed: "2010 by The University of Chicago. All rights reserved."
    r"|\b((?:19|20)\d{2})\b[^\n\d]{0,80}all rights reserved"
    r"|\b((?:19|20)\d{2})\s+the\s+author(?:s|\(s\))?\b"  # "& 2018 The Authors." (its sign lost)
    r"|\b((?:19|20)\d{2})\b[^\n\d]{0,40}\bcopyright\b"  # "c 2011. The copyright of this ..."
    r"|(?:^|(?<=\s))[cª]\s*the\s+author(?:s|\(s\))?\s+((?:19|20)\d{2})\b"  # SAGE's drawn sign
    r"|(?m:^)\s*[^\w\s]?\s*the\s+author\(s\)\.?\s+((?:19|20)\d{2})\b"  # its sign unread
    # its sign read as "#", a publisher's line: "# Springer Science+Business Media, LLC, part
    # of Springer Nature 2020"
    r"|(?m:^)[ \t]*#[ \t]+[^\n]{0,80}?\b(?:springer|elsevier|wiley|nature|press|society|"
    r"llc|ltd|inc|media|publishing)\b[^\n\d]{0,40}((?:19|20)\d{2})[ \t.]*(?m:$)",
    re.I,
)
# A copyright whose sign is drawn around a "c" ("c 2005 Society for Industrial and ..."),
# read after a venue line: ACL's footers keep an old year ("NAACL-HLT 2018 ... c 2017 ...").
# Or the publisher first: "c Oxford University Press, 2010".
_DRAWN_COPYRIGHT = re.compile(
    r"(?:^|(?<=[\s\x02]))c\s+((?:19|20)\d{2})\s+(?:by\s+)?[A-Z][A-Za-z]+\b"  # "WILEY-VCH" too
    r"|(?:^|(?<=[\s\x02]))c\s+(?:[A-Z][\w'’&-]*\s+){0,5}(?:Press|Society|Publishing|Publishers|"
    r"Association|Institute|Inc\.?|Ltd\.?|LLC)\s*,\s*((?:19|20)\d{2})\b"
)
_VENUE_YEAR = re.compile(
    r"(?:conference|proceedings|workshop|symposium|journal|transactions|vol\.|volume)"
    # on the venue's line, or alone on the next ("Volume 123 Issue 8" / "2025")
    # (not a page range's first page: "Journal of Human Genetics 108, 1946–1963, ... 2021")
    r"[^\n]{0,160}?(?:\n\s*(?=(?:19|20)\d{2}\b))?(?<![-–])(?<![-–]\s)\b((?:19|20)\d{2})\b"
    r"(?!\s*[-–]\s*\d)"
    # the year opening the venue's line: "2019 Grid of the Future Symposium", "2021 IEEE
    # International Conference on Robotics"
    r"|(?m:^)\W{0,3}((?:19|20)\d{2})\s+(?:(?-i:[A-Z])[\w'’-]*\s+|(?:of|the|on|for|and|in)\s+)"
    r"{0,6}(?:conference|symposium|workshop|congress|meeting)\b",
    re.I,
)
_CITATION_YEAR = re.compile(
    # "Journal 83 (2015) 56–71", "Linguistics 49–3 (2011), 525–553"
    r"\b\d{1,4}(?:[-–/]\d{1,4})?\s*\(((?:19|20)\d{2})\)\s*,?\s*\d+\s*[-–]\s*\d+"
    r"|\b((?:19|20)\d{2})\s*\(\d{1,4}\)\s*:\s*\d{1,5}\b"  # "Maderas ... 2023 (25): 2, 1-10"
    # a running head citing the paper ("Ajay et al. 2021, Open Data Journal ..., vol. 7.")
    r"|\bet\s+al\.?,?\s+((?:19|20)\d{2}),\s+[^\n]{0,120}?\b(?:journal|vol\.|volume)"
    r"|\(((?:19|20)\d{2})\)\s*[,;:]?\s*\d{1,4}\s*[:(,]"
    # "54 a, 272-273 (1999)", "19(4), 591–600 (2006)"
    r"|\b\d{1,4}\s*(?:\(\d{1,4}\))?[a-zA-Z]?\s*[,:]\s*\d{1,5}\s*[-–]\s*\d{1,5}\s*"
    r"\(((?:19|20)\d{2})\)"
    r"|\b((?:19|20)\d{2})(?:\s+[A-Z][a-z]{2,8}\.?(?:\s+\d{1,2})?)?"  # "2023;53:790", NLM's
    r"\s*;\s*\d{1,4}\s*(?:\(\d{1,4}\))?\s*:\s*[a-zA-Z]?\d+"  # "2013 August 30; 32(19): 3388"
    # "Materials 2012, 5, 27-46", "J. Am. Chem. Soc. 2015, 137 (4), 1234−1240"
    # and "American Economic Review 2016, 106(7): 1878–1920"
    r"|\b((?:19|20)\d{2}),\s*\d{1,4}\s*(?:,|\(\d{1,4}\)\s*[,:]|\s\(\d{1,4}\),)"
    r"\s*[a-zA-Z]?\d{1,6}\s*[-–−]\s*\d{1,6}"
    r"|\b((?:19|20)\d{2}),\s*DOI\b"  # "Polym. Chem., 2013, DOI: 10.1039/C3PY01075A"
    r"|\b((?:19|20)\d{2})\s*[|,;]\s*vol(?:\.|ume)?\s*\d{1,4}\b"  # "JMIR ... 2025 | vol. 13 |"
    # OUP's "Bioinformatics, 34(5), 2018, 867–868"
    r"|\b\d{1,4}\s*\(\d{1,4}\)\s*,\s*((?:19|20)\d{2})\s*,\s*\d+\s*[-–]\s*\d+"
    r"|\b\d{1,4}\s*\(((?:19|20)\d{2})\)\s*[eE]?\d{4,6}\b"  # "2188 (2022) 012011" (article no.)
    # Elsevier's preprint head, its volume still a placeholder: "Journal xx (2024) 1–27"
    r"|\b(?:\d{1,4}|x{2,3}|0{2,3})\s+\(((?:19|20)\d{2})\)\s+\d{1,5}\s*[-–]\s*\d{1,5}\b"
    r"|\b\d{1,4},\s*[eE]?\d{4,6}\s*\(((?:19|20)\d{2})\)"  # "PHYSICAL REVIEW E 102, 022404 (2020)"
    # "Journal of Semantics, 33, 2016: 755–802"
    r"|\b\d{1,4},\s*((?:19|20)\d{2})\s*:\s*\d{1,6}\s*[-–]\s*\d{1,6}"
    r"|\b((?:19|20)\d{2}),\s*[eE]\d{4,}\b"  # "Angew. Chem. Int. Ed. 2023, e202218575"
    r"|\b((?:19|20)\d{2}),\s*[Vv]ol\.?\s*\d{1,4}\b"  # "The Annals ... 1997, Vol. 7, No. 1, 110-120"
    # a society journal's footer, its name, volume and year alone: "Agronomy New Zealand 45, 2015"
    r"|(?m:^)[ \t]*(?:[A-Z][\w&.'’-]*[ \t]+){1,6}\d{1,4},[ \t]*((?:19|20)\d{2})[ \t\r]*$"
    # Ubiquity Press's sidebar, the abstract's lines read between: "TO CITE THIS ARTICLE:"
    # ... "Wyatt-Spratt, S. 2022. After the Revolution: ..."
    r"|(?i:to\s+cite\s+this\s+article)\s*:[\s\S]{0,160}?\b[A-Z]\.\s+((?:19|20)\d{2})\.\s"
    # the paper citing itself in its own print, a line opening on its authors: JOSS's foot
    # "Mastej et al. (2026). SMACT v4: ...", "Konings, & Bandera. (2025). Advanced ...",
    # "Lun Yeh, M. (2025). Enhancing EFL textbooks ..." (the front matter, heads and feet are
    # read here, never the references)
    r"|(?m:^)[ \t]*(?:[A-Z][\w'’-]+\.?,?[ \t]*(?:&[ \t]*)?(?:[A-Z]\.[ \t]*)*){1,6}(?:et[ \t]+al\.)?"
    r"[ \t]*\(((?:19|20)\d{2})\)\.[ \t]+[A-Z]"
    # where it says it is published: "(published in Dialectica 59 (2005), pp. 5–18)"
    r"|\b(?i:published|forthcoming|to\s+appear)\s+in\s+[^\n()]{2,80}?\(((?:19|20)\d{2})\)"
)
# A venue's short name with a two-digit year, printed in a footer ("IJCAI-07", "ACL'18"),
# or with the whole year ("To appear in OSDI 2004").
# (not "COVID-19", a disease's name in any field's keywords or title)
_VENUE_SHORT = re.compile(r"\b(?!COVID-19\b)[A-Z]{3,}(?:-[A-Z]{2,})?[-'’](\d{2})\b")
# ("in OSDI 2004", "Anonymous submission to INTERSPEECH 2023", a review copy's banner
# "CVPR 2017 Submission #1047")
_VENUE_ACRONYM = re.compile(
    r"\b(?:in|at|to)\s+(?:the\s+)?[A-Z]{3,}\s+((?:19|20)\d{2})\b"
    r"|\b[A-Z]{3,}\s+((?:19|20)\d{2})\s+(?i:submission)\b"
)
_MANUSCRIPT = re.compile(r"received|submi(?:tted|ssion)|revised|accept(?:ed|ance)|requested", re.I)
# A date that is not the paper's: the file's, fetched or made ("This content downloaded from
# 132.174.251.002 on January 14, 2020"), or a statement's ("As of March 2022, [16] has ...").
_NOT_ITS_DATE = re.compile(r"downloaded|accessed|retrieved|printed|generated|\bas of\b", re.I)
# But a manuscript built from its source is dated by the build (Manubot's "This manuscript
# (permalink) was automatically generated from owner/repo@1919e28 on April 19, 2020.").
_BUILT = re.compile(r"\bthis manuscript\b[^.]{0,60}\bgenerated\b", re.I)
# A month's name (English, and as French, Spanish, Portuguese, Italian and German print it:
# theses and working papers are dated in their language) before a year.
MONTH_YEAR = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
    r"|janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|novembre"
    r"|d[ée]cembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|se(?:p)?tiembre|octubre"
    r"|noviembre|diciembre|janeiro|fevereiro|mar[çc]o|maio|junho|julho|setembro|outubro"
    r"|novembro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre"
    r"|dicembre|januar|februar|m[äa]rz|juni|juli|oktober|dezember"
    r"|spring|summer|fall|autumn|winter"  # a season too ("Fall 2021"), a university's term
    r"|michaelmas|hilary|trinity|lent)\.?,?\s+(?:term\s+)?(?:de\s+)?"  # ("Trinity 2019")
    r"(?:\d{1,2}(?:\s?(?:st|nd|rd|th))?(?:\s*[-–]\s*\d{1,2})?\s?,?\s+)?"  # "May 1 st , 2019"
    r"((?:19|20)\d{2})\b",
    re.I,
)

# A date in numbers closing a short line, as R Markdown and pandoc print it ("2022-03-09",
# "Working paper 2025-01-03"), or with points or slashes ("2011.1.25").
_ISO_DATE = re.compile(
    r"^[ \t]*(?:[A-Za-z]+:?[ \t]+){0,3}((?:19|20)\d{2})([-./])(?:0?[1-9]|1[0-2])"
    r"\2(?:0?[1-9]|[12]\d|3[01])[ \t\r]*$",
    re.M,
)
# Or the day first, the line holding the date alone ("1-1-2002", a repository cover's):
# whichever of day and month comes first, the year closes it.
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_DAY_FIRST = re.compile(
    r"^[ \t]*(?:[A-Za-z]+:?[ \t]+){0,3}(?:"
    + "|".join(f"{_DAY}{sep}{_DAY}{sep}" for sep in ("-", "/", r"\."))  # one separator twice
    + r")((?:19|20)\d{2})[ \t\r]*$",
    re.M,
)
# A date in numbers after its label ("PUBLICATION DATE: 16/07/2017", "Accepted 3.2.2019"):
# unlabelled, "12/05/2017" might be a day's or a month's first.
_LABELLED_DATE = re.compile(
    r"\b(?:publi(?:shed|cation)|received|submi(?:tted|ssion)|revised|accept(?:ed|ance))"
    r"(?:\s+(?:date|on|online))?\s*:?\s*\d{1,2}[./]\d{1,2}[./]((?:19|20)\d{2})\b",
    re.I,
)


def find_year(text: str, arxiv: re.Match[str] | None) -> int | None:
    """The year the paper says it was published: the arXiv stamp, a citation line
    ("Journal (2014), 26:1" or "54 a, 272-273 (1999)"), a copyright, a venue line, a date;
    the date a manuscript was received or accepted last; last, a year alone on its line."""
    text = _EPOCH.sub(" ", text)  # a template's empty date: "Submitted: 01 January 1970"
    if arxiv:
        stamp = _STAMP_YEAR.findall(text[arxiv.end() : arxiv.end() + 40])
        if stamp:
            return int(stamp[0])
        new = re.match(r"(\d{2})\d{2}\.", arxiv.group(1))
        if new:
            return 2000 + int(new.group(1))
    for pattern in (_CITATION_YEAR, _COPYRIGHT, _VENUE_YEAR, _DRAWN_COPYRIGHT):
        found = next((m for m in pattern.finditer(text) if not _elsewhere(text, m)), None)
        if found:
            return int(next(g for g in found.groups() if g))
    every = [*MONTH_YEAR.finditer(text), *_ISO_DATE.finditer(text), *_LABELLED_DATE.finditer(text)]
    every += [m for m in _DAY_FIRST.finditer(text) if not _LABELLED_DATE.search(m.group())]
    dates = sorted(every, key=lambda m: m.start())
    mine = [
        m
        for m in dates
        if not _NOT_ITS_DATE.search(text[max(0, m.start() - 60) : m.start()])
        or _BUILT.search(text[max(0, m.start() - 150) : m.start()])
    ]
    dated = [(_manuscript(text, m), int(m.group(1))) for m in mine]
    published = [i for i, (manuscript, _) in enumerate(dated) if not manuscript]
    if published:
        first = published[0]
        if first + 1 < len(mine) and _revision(text, mine[first], mine[first + 1]):
            return max(dated[first][1], dated[first + 1][1])
        return dated[first][1]
    if dated:
        return max(year for _, year in dated)
    academic = _ACADEMIC_YEAR.search(text)
    if academic:  # a thesis's "Academic Year 2021 - 2022": handed in as the year ends
        return int(academic[2]) if len(academic[2]) == 4 else int(academic[1]) + 1  # "1999-00"
    thesis = _THESIS.search(text)
    degree = thesis and _DEGREE_YEAR.search(text)
    if degree:  # a thesis's title page: "University of Connecticut" / "2015"
        return int(degree.group(1))
    if thesis:  # "MSc in Mathematics and Finance, 2023-2024": a year's course
        for span in _SPAN_LINE.finditer(text):
            first, last = int(span[1]), int(span[2][-2:])
            if last == (first + 1) % 100:
                return first + 1
    short = next(
        (m for m in _VENUE_SHORT.finditer(text) if _short_line(text, m) or _proceedings(text, m)),
        None,
    )
    if short:  # the last resorts: "IJCAI-07", "OSDI 2004"
        two = int(short.group(1))
        return (1900 if two > 50 else 2000) + two
    acronym = _VENUE_ACRONYM.search(text)
    if acronym:
        return int(next(g for g in acronym.groups() if g))
    alone = _YEAR_LINE.search(text)  # "2023" on a line of its own in the front matter
    if alone:
        return int(alone[1])
    closing = _INSTITUTION_YEAR.search(text)  # a title page's "Institutt for ... — NTNU 2019"
    return int(closing[1]) if closing else None


# The Unix epoch, a date field left empty ("Submitted: 01 January 1970"), never a paper's date.
_EPOCH = re.compile(
    r"\b0?1(?:st)?\s+jan(?:uary|\.)?\s+1970\b|\bjan(?:uary|\.)?\s+0?1(?:st)?,?\s+1970\b"
    r"|\b1970-01-01\b",
    re.I,
)
_YEAR_LINE = re.compile(r"(?m)^\s*((?:19|20)\d{2})\s*$")
# A year closing the line naming a university or an institute, after a dash, as a title page
# sets it ("Institutt for matematiske fag — NTNU 2019"; not an address's "Complex 2, 1915").
_INSTITUTION_YEAR = re.compile(
    r"(?im)^[^\n]*\b(?:universit\w*|institut\w*|college|hochschule)\b[^\n]*?[—–-]"
    r"[^\n,]{0,40}?\s((?:19|20)\d{2})\s*$"
)
# A university's year a thesis is of, in the languages theses are printed in.
_ACADEMIC_YEAR = re.compile(
    r"\b(?:academic\s+year|ann[ée]e\s+(?:acad[ée]mique|universitaire)|anno\s+accademico"
    r"|a[ñn]o\s+acad[ée]mico|curso\s+acad[ée]mico|ano\s+letivo)\s*:?\s*"
    r"((?:19|20)\d{2})\s*[-–/]\s*((?:19|20)?\d{2})\b",
    re.I,
)


# A thesis's title page, and its year on a line of its own or closing the university's.
_THESIS = re.compile(
    r"\b(?:dissertation|thesis)\b[\s\S]{0,600}\b(?:doctor|master|degree)\b"
    # or named by its degree: "Master thesis in physics"
    r"|\b(?:doctoral|master'?s?|bachelor'?s?)\s+(?:dissertation|thesis)\b"
    # or by the degree's letters: "B.A. thesis", "MSc thesis", "Ph.D. dissertation"
    r"|(?<![\w.])(?:[bm]\.?\s?(?:a|sc?|phil|eng|res)|ph\.?\s?d|d\.?\s?phil)\.?\s+"
    r"(?:dissertation|thesis)\b",
    re.I,
)
_DEGREE_YEAR = re.compile(
    r"^\s*(?:[^\n]*\b(?:universit\w*|college|institute|school)\b[^\n]*,\s*)?((?:19|20)\d{2})\s*$",
    re.I | re.M,
)

# A line closing on two years ("MSc in Mathematics and Finance, 2023-2024", "2019/20").
_SPAN_LINE = re.compile(r"\b((?:19|20)\d{2})\s*[-–/]\s*((?:19|20)?\d{2})\s*$", re.M)


# A working paper's later version, printed after its first date: "August 2008" / "Revised
# April 2013", "March 2019; this version: May 2021". The version in hand is the revision.
_REVISED = re.compile(
    r"^[\W\s]{0,4}(?:this\s+(?:version|draft)|(?:last\s+)?revised|rev\.)\W{0,3}(?:on\s+)?$", re.I
)


def _revision(text: str, date: re.Match[str], after: re.Match[str]) -> bool:
    """Whether ``after`` dates a revision of the version ``date`` dates: next to it, with
    only its label between ("; revised", a line "Revised")."""
    return bool(_REVISED.match(text[date.end() : after.start()]))


def _manuscript(text: str, date: re.Match[str]) -> bool:
    """Whether a date is the manuscript's (received, submitted, accepted), by its label."""
    return bool(_MANUSCRIPT.match(date.group()) or
                _MANUSCRIPT.search(text[max(0, date.start() - 40) : date.start()]))  # fmt: skip


def _short_line(text: str, found: re.Match[str]) -> bool:
    """Whether the match stands in a line of a few words (a footer's "IJCAI-07"), not in
    a sentence ("the COVID-19 pandemic resulted in ...")."""
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    return len(text[start : end if end >= 0 else len(text)].split()) <= _SHORT_LINE_WORDS


def _proceedings(text: str, found: re.Match[str]) -> bool:
    """Whether the match is a venue's short name in brackets closing a proceedings' line
    ("Proceedings of the Twenty-Ninth International Joint Conference on ... (IJCAI-20)")."""
    start = text.rfind("\n", 0, found.start()) + 1
    opened = text[found.start() - 1 : found.start()] == "("
    return opened and bool(_PROCEEDINGS.search(text[start : found.start()]))


_PROCEEDINGS = re.compile(r"\b(?:proceedings|conference|symposium|workshop)\b", re.I)
_SHORT_LINE_WORDS = 8
# A line thanking people or meetings: the venues it names are others' ("audiences at the
# Student Conference in Complexity Science 2014").
_TALKS = re.compile(r"\b(?:was|were|has been|have been) presented at\b", re.I)
_THANKS = re.compile(r"\b(?:thanks?|thankful|grateful|audiences?|participants)\b", re.I)


def _elsewhere(text: str, found: re.Match[str]) -> bool:
    """Whether a year's line is another work's: a citation in square brackets inside a
    sentence ("... non-natively [A. Koplenig, Royal Society Open Science, 6, 181274
    (2019)]"; JOLE's own "[Journal of Labor Economics, 2021, vol. 39]" is a line of its
    own) or thanks."""
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    line = text[start : end if end >= 0 else len(text)]
    # (the bracket may open on a line before: "... turbulence [J. Fluid Mech. 407, 27 (2000);
    # PRL" / "86, 3316 (2001)]")
    # Or in round brackets: "... meta-analysis (Nat Commun." / "2015;6:8570) and 2) ...", an
    # abstract's reference.
    before = text[max(0, found.start() - 200) : found.start()]
    cited = False
    for left, right in ("[]", "()"):
        opened = before.rfind(left)  # in a sentence; a line of its own in brackets is the paper's
        own_line = before.rfind("\n", 0, opened) + 1 if opened >= 0 else 0
        cited = cited or (opened > before.rfind(right) and bool(before[own_line:opened].strip()))
    # its sentence, across lines: "This project was presented at the ... / the 2022 EHES
    # conference, ..." (a history of the paper's talks, not its date)
    opens = text.rfind(". ", 0, found.start())
    closes = text.find(". ", found.end())
    sentence = text[opens + 1 if opens >= 0 else 0 : closes if closes >= 0 else len(text)]
    return cited or bool(_THANKS.search(line)) or bool(_TALKS.search(sentence))


_LEGIBLE = 4.0  # points: the smallest type a reader reads on a printed page
# A numbered entry of a reference list: "4. Wallman, J. Progr. Retinal Res. 12, 133–153",
# or its initials first: "1. Y. Tang, Z. Wang, L. Wosinski, ..." (OSA's, APS's).
_REFERENCE = re.compile(
    r"^\[?\d{1,3}[.\]]\s+(?:[A-Z][\w'’-]+,?\s+(?:[A-Z]\.\s*){1,3}"
    r"|(?:[A-Z]\.\s*(?:-?[A-Z]\.\s*)?){1,3}[A-Z][\w'’-]+,)"
)


def _reference_types(heads: list[Line]) -> set[tuple[int, float]]:
    """(page, type size) of the reference lists printed on the first pages (a letter's
    references under its text): two numbered entries or more in one type. Their years are
    the cited works'."""
    entries = Counter((line.page, round(line.size, 1)) for line in heads
                      if _REFERENCE.match(line.text))  # fmt: skip
    return {key for key, n in entries.items() if n >= 2}


def printed_apart(heads: list[Line], read: set[int], body: float) -> Iterator[str]:
    """The first pages' lines a paper's year may be printed on: all but the abstract's and
    the body's running text (a year there is a cited work's or the study's, not the
    paper's); running heads and feet, the lines above the abstract, notes and side columns
    set smaller than the body, a line of a few words ("IJCAI-07" at a page's foot) and a
    copyright line stay. Text too small to read (a journal cover's thumbnail drawn on the
    page, "Volume 3 | Number 1 | January 2012" in 2.5 pt) is no print of the paper's."""
    listed = _reference_types(heads)
    for line in heads:
        if line.size < _LEGIBLE or (line.page, round(line.size, 1)) in listed:
            continue
        if (
            id(line) not in read
            or line.margin
            or line.size < body - 0.5
            or (line.words <= 3 and not re.search(r"[()\[\]]", line.text))  # not "2014)."
            or COPYRIGHT.search(line.text)
        ):
            yield line.text


def latest_year(lines: Sequence[str]) -> int | None:
    """The latest year a thesis's title page prints, as :func:`find_year` reads each line
    ("December 2019 – Version 1.1.2", "2015" on a line of its own): the thesis's, not its
    author's birth ("born 18 May 1983"), or closing the place's line ("Wrocław 2021")."""
    years = (find_year(line, None) or _imprint(line) for line in lines)
    return max((y for y in years if y), default=None)


# A title page's imprint: a place (a word or two in capitals) and the year ("Wrocław 2021",
# "New Haven, 2019").
_IMPRINT = re.compile(r"^\s*(?:[A-Z][\w’'.-]+\s+){0,1}[A-Z][\w’'.-]+,?\s+((?:19|20)\d{2})\s*$")


def _imprint(line: str) -> int | None:
    found = _IMPRINT.match(line)
    return int(found[1]) if found else None
