"""Authors read from outside the byline under the title (beside :mod:`ingest.parse.pdfnames`,
which reads a byline): the byline some journals print above the title, a thesis's author
the names a PDF's document information gives, and the journal's name told from a name (a
thesis's title page: :mod:`ingest.parse.pdfthesis`); and the document information's title
told from a file's or a print job's name, and as the page prints it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .pdfline import Line
from .pdfnames import authors, full_name, line_names
from .typeset import join_lines, squash

__all__ = [
    "TITLE_MARKS",
    "after_lines_of",
    "as_printed",
    "byline_above",
    "foreign",
    "interleaved",
    "junk_title",
    "labelled_authors",
    "metadata_authors",
    "not_the_venue",
    "unmangled",
    "unspaced",
]

# A computer's or a template's account, not a person ("Windows User", "A. Author").
_ACCOUNT = re.compile(
    r"\b(?:users?|admin|administrator|owner|authors?|windows|microsoft|office|guest|default|"
    r"computer|pc|apple|dell|lenovo|hp)\b",
    re.I,
)
TITLE_MARKS = " *∗†‡✩☆★⋆✝§¶"  # footnote marks set after a title, and spaces


def metadata_authors(metadata: dict[str, str]) -> tuple[str, ...]:
    """The authors the PDF's document information names ("Per Kragh Andersen and Niels
    Keiding"), for a paper whose pages print none that can be read: each a full name as an
    author line gives it, else none (a tool's "Windows User", an account name)."""
    named = line_names(metadata.get("Author", "").replace(";", ","), byline=True) or []
    full = [n for n in named if full_name(n) and " " in n and not _ACCOUNT.search(n)]
    full = [n for n in full if any(len(t.strip(".")) > 1 for t in n.split())]  # not "A S"
    return tuple(full) if full and len(full) == len(named) else ()


# A line naming the author after a label, where a report or a thesis prints it (after the
# abstract): "Author: Alexandru Serban, S3841502", "Written by: ...".
_AUTHOR_LABEL = re.compile(r"^\s*(?:authors?|written by|prepared by)\s*:\s*(\S.*)$", re.I)


def labelled_authors(lines: Sequence[Line]) -> tuple[str, ...]:
    """The names of the first line labelled as the author's ("Author: Alexandru Serban,
    S3841502": a student number is no name); none without such a line."""
    for line, after in zip(lines, [*lines[1:], None], strict=True):
        found = _AUTHOR_LABEL.match(line.text)
        # the label in a column of its own, the name level with it ("Author:   Jonas Furrer")
        alone = _AUTHOR_LABEL.match(f"{line.text} x") and not found
        if alone and after and abs(after.y0 - line.y0) < 3 and after.x0 > line.x1:
            found = _AUTHOR_LABEL.match(f"{line.text} {after.text}")
        elif alone:  # or under it, in its column ("Author:" / "Verena Blaschke", a column
            # of supervisors beside it)
            under = [x for x in lines if x.page == line.page and abs(x.x0 - line.x0) < line.size
                     and 0 < line.y0 - x.y0 < 2.5 * line.size]  # fmt: skip
            found = _AUTHOR_LABEL.match(f"{line.text} {under[0].text}") if under else None
        if found:
            # a student's number ("S3841502", "(CID: 01859075)")
            text = re.sub(r"\s*\([^)]*\d[^)]*\)|,?\s*\S*\d\S*", "", found[1])
            return tuple(n for n in line_names(text, byline=True) or () if full_name(n))
    return ()


def not_the_venue(names: tuple[str, ...], metadata: dict[str, str], text: str) -> tuple[str, ...]:
    """``names`` without the journal's name read as one ("Translational Psychiatry" over
    the title, where no byline is printed): a name the document information gives as its
    subject ("Translational Psychiatry, doi:10.1038/...") or the page's citation line
    prints after "et al." ("Piras et al. Translational Psychiatry (2021) 11:173")."""
    subject = metadata.get("Subject", "").casefold()
    return tuple(
        name
        for name in names
        if name.casefold() not in subject
        and not re.search(rf"\bet al\.?,?\s+{re.escape(name)}\b", text, re.I)
    )


def byline_above(lines: Sequence[Line], after: int, words: frozenset[str]) -> tuple[str, ...]:
    """With no names under the title, the byline some journals print right above it
    (Cambridge's "Hanna Breetz*, Matto Mildenberger, and Leah Stokes" over the title): the
    two lines before the title's first, in a smaller type, or the block in one type there
    (JMCB's names in capitals, one to a line)."""
    if not after:
        return ()
    size = lines[after - 1].size
    first = after - 1
    bold = lines[first].bold  # (a bold title's first line set larger than its next)
    while first > 0 and (
        (abs(lines[first - 1].size - size) < 0.3 and lines[first - 1].bold == bold)
        or (bold and lines[first - 1].bold and lines[first - 1].size > size)
    ):
        first -= 1
    size = max(line.size for line in lines[first:after])
    top = first - 2  # the two lines over it, or the block of names in one type there
    while top > 0 and first - top < 8 and abs(lines[top - 1].size - lines[first - 1].size) < 0.3:
        top -= 1
    above = [line for line in lines[max(0, top) : first] if line.size < size - 0.5]
    found = authors(above, words, under_title=False)
    if not found:  # a rights line between (Springer: names, "© The ... Society", title)
        above = [line for line in lines[max(0, first - 6) : first] if line.size < size - 0.5]
        found = authors(above, words, under_title=False)
    if not found:  # a person's name in the title's own type, set apart over it ("P.O. Syomin",
        # an affiliation, an e-mail, then the title in the same bold capitals)
        above = [
            line
            for line in lines[max(0, first - 6) : first]
            if abs(line.size - size) < 0.5
            and any(full_name(n) for n in line_names(line.text) or ())
        ]
        found = authors(above, words, under_title=False)
    return found


def unmangled(text: str) -> str:
    """A metadata field written as UTF-8 and read as Latin-1 or Windows-1252, put back ("Anna
    SzÃ¼cs" -> "Anna Szücs"); any other text as it is."""
    if not re.search(r"[ÂÃ][\x80-\xbf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]|â€", text):
        return text
    for codec in ("latin-1", "cp1252"):
        try:
            return text.encode(codec).decode("utf-8")
        except UnicodeError:
            continue
    return text


def junk_title(text: str) -> bool:
    """A file name, a page range or a placeholder in the metadata's title field, not a
    title: "Microsoft Word - draft.docx", "1472-6882-6-3.fm", "301 301..306"."""
    if sum(c.isalpha() for c in text) < 0.5 * len(text.replace(" ", "")) or re.search(
        r"\.(?:fm|qxd|qxp|p65|eps|indd|dvi|tex)\b", text, re.I
    ):
        return True
    return bool(
        re.search(
            r"^(?:untitled|microsoft word|title|document\d*|slide \d)\b"
            r"|\.(?:docx?|pdf|tex|dvi|ps|rtf|indd)\b|^[\w-]+$"
            r"|^[A-Z][\w'’-]+, [A-Z][\w'’-]+--",  # a print job's "Tierney, James--JALE(3)1--"
            text,
            re.I,
        )
    )


def as_printed(title: str, top: list[Line], words: frozenset[str]) -> str:
    """The metadata's title as its lines print it (curly quotes and dashes: "A Tourist’s
    Journal" for "A Tourist's Journal") when a run of lines at the top holds exactly it,
    in the metadata's case where printed in capitals ("DON’T KEEP" and "Don't keep": "Don’t
    keep"); else the metadata's."""
    whole, end = squash(title), after_lines_of(title, top)
    letters = [c for c in title if c.isalnum()]
    for start in range(end - 1, -1, -1):
        printed = join_lines([line.text for line in top[start:end]], words).strip(TITLE_MARKS)
        if squash(printed) == whole:
            if sum(c.isalnum() for c in printed) != len(letters):
                return title  # (a letter casefolded to two: "ß", "ss")
            cased = iter(letters)
            printed = "".join(next(cased) if c.isalnum() else c for c in printed)
            # no mark a page set after it where the metadata's ends in a word ("ALGORITHMS'")
            return _END.sub("", printed) if title[-1:].isalnum() else printed
        if len(squash(printed)) > len(whole):
            break
    return title


_END = re.compile(r"\W*$")
_PLAIN_QUOTES = str.maketrans("‘’“”", "''\"\"")


def after_lines_of(title: str, top: list[Line]) -> int:
    """The index of the line after the run of lines at the top that holds most of the
    title's words (0 when no line is of it): where the metadata's title is printed, the
    byline follows, whatever else was set in larger type ("PHYSICAL REVIEW E 102, 022404
    (2020)") or repeats a word of it (a journal's name)."""
    whole = squash(title)
    best = (0, 0)  # (characters of the title, the line after them)
    run = 0
    for i, line in enumerate(top):
        own = squash(line.text)
        run = run + len(own) if len(own) >= 3 and own in whole else 0
        if run > best[0]:
            best = (run, i + 1)
    return best[1]


def interleaved(meta: str, found: str, top: list[Line]) -> bool:
    """The metadata's title is printed at the top, its words in order but with other text
    set beside it on the same lines (a side column's dates, a badge), and the title found
    from the type is mostly its words: the metadata's is the title, without the rest."""
    said = [squash(w) for w in meta.split() if squash(w)]
    found_words = [squash(w) for w in found.split() if squash(w)]
    if len(said) < 4 or sum(w in said for w in found_words) < 0.6 * len(found_words):
        return False
    page = iter(squash(w) for line in top for w in line.text.split())
    return all(any(w == p for p in page) for w in said)  # in order, others between


def unspaced(text: str) -> str:
    return re.sub(r"\s+", "", text.translate(_PLAIN_QUOTES))


# English's commonest small words: a title or subtitle of six words or more holds one.
_ENGLISH = frozenset(
    "the of and a an in on for with to from by at as or is are its into under over via".split()  # noqa: SIM905
)


def foreign(text: str) -> bool:
    """Whether a title's block is in another language: six words or more and none of
    English's commonest ("Auswirkungen von zwei Jahrzehnten organischer und mineralischer
    Düngung ...", a German journal's translation printed under the English title)."""
    words = re.findall(r"[^\W\d_]+", text.casefold())
    return len(words) >= 6 and not any(w in _ENGLISH for w in words)
