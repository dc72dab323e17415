"""Checks and clean-ups shared by every format: one :class:`Draft` in, a Paper or Skipped out.

Id precedence (all formats): the record's own id (BEIR ``_id``, JSONL ``id``, ``arxiv:<id>``)
> ``doi:<lowercased doi>`` > ``arxiv:<id without version>`` (:mod:`ingest.parse.ids`) > the
format's fallback (``bib:<key>``: BibTeX keys are file-local names, so they come after the
DOI) > :func:`rag.records.content_id` of the cleaned abstract (of title and year for a
record without one). Every rule depends only on the record itself, so ids are the same on
every run and machine, and one paper from a .bib, a CSL-JSON or RIS export is one paper.

Formats whose records may lack an abstract (reference-manager exports) set
``abstract_optional``: such a record is stored on its title and keywords, and the paper
has ``has_abstract`` false.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from rag.records import Notice, Paper, Section, Skipped, content_id, normalise_text

from .ids import identifier_id
from .labels import derive_label, shorten

__all__ = [
    "ABSTRACT_FIELDS",
    "MAX_ABSTRACT_CHARS",
    "MAX_AUTHORS",
    "MAX_AUTHOR_CHARS",
    "MAX_TITLE_CHARS",
    "MIN_ABSTRACT_CHARS",
    "Draft",
    "build_paper",
    "clean_doi",
    "decode_latex_accents",
    "find_instructions",
    "parse_year",
    "split_authors",
    "strip_html",
]

MIN_ABSTRACT_CHARS = 20
MAX_ABSTRACT_CHARS = 100_000
"""Longer is not an abstract (the longest of arXiv's 2.4M is under 6,000 characters)."""
MAX_TITLE_CHARS = 2_000
MAX_AUTHORS = 5_000
"""Papers of the LHC experiments list about 3,000 authors."""
MAX_AUTHOR_CHARS = 500
_SURROGATES = re.compile("[\ud800-\udfff]")
ABSTRACT_FIELDS = ("abstract", "text", "summary")
"""Field or column names accepted for the abstract, in order of preference."""


@dataclass(slots=True)
class Draft:
    """A record as a parser found it, before the shared checks.

    ``where`` locates the record when ``position`` is not a line number (e.g. ``"line 7"``
    for a seed paper, ``"entry 'smith20' (line 12)"`` for BibTeX); it prefixes reasons.
    """

    source: str
    position: int
    abstract: str
    where: str = ""
    id: str = ""
    title: str = ""
    label: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    url: str = ""
    doi: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    arxiv_id: str = ""
    fallback_id: str = ""
    keywords: tuple[str, ...] = ()
    abstract_optional: bool = False
    sections: tuple[Section, ...] = ()  # a PDF's full text beyond the abstract

    def skip(self, reason: str) -> Skipped:
        return Skipped(
            self.source, self.position, f"{self.where}: {reason}" if self.where else reason
        )

    def notice(self, message: str) -> Notice:
        text = f"{self.where}: {message}" if self.where else message
        return Notice(self.source, self.position, text)


def build_paper(draft: Draft) -> tuple[Paper | Skipped, list[Notice]]:
    """Clean and check one record; notices only matter if the paper is kept."""
    notices: list[Notice] = []
    too_big = _over_caps(draft)
    if too_big:
        return draft.skip(f"{too_big}: shorten the record or drop it"), []
    abstract, title = draft.abstract, draft.title
    if "\x00" in abstract:
        return draft.skip("abstract contains NUL bytes (binary data): fix the record"), []
    if _SURROGATES.search(abstract + title + "".join(draft.authors)):
        # JSON's "\ud800" escapes decode to text that no encoder (nor Chroma) accepts.
        abstract, title = _SURROGATES.sub("\ufffd", abstract), _SURROGATES.sub("\ufffd", title)
        draft.authors = tuple(_SURROGATES.sub("\ufffd", a) for a in draft.authors)
        notices.append(draft.notice("lone UTF-16 surrogates replaced by U+FFFD"))
    stripped_abstract, stripped_title = strip_html(abstract), strip_html(title)
    if (stripped_abstract, stripped_title) != (abstract, title):
        notices.append(draft.notice("HTML markup removed (tags and entities) from the text"))
    abstract, title = normalise_text(stripped_abstract), normalise_text(stripped_title)
    extra = dict(draft.extra)
    if draft.abstract_optional and len(abstract) < MIN_ABSTRACT_CHARS:
        if not title:
            return draft.skip("has neither an abstract nor a title: add one or drop it"), []
        notices.append(
            draft.notice(
                "no abstract: stored and indexed on its title, keywords and full text "
                "(has_abstract false); its body is quoted"
                if draft.sections
                else "no abstract: stored and indexed on its title and keywords only "
                "(has_abstract false); add the abstract to the record to quote it"
            )
        )
        abstract = ""
    elif not abstract:
        return draft.skip("abstract is empty: fill it in or drop the record"), []
    elif len(abstract) < MIN_ABSTRACT_CHARS:
        return draft.skip(
            f"abstract is only {len(abstract)} characters ({abstract!r}), fewer than "
            f"{MIN_ABSTRACT_CHARS}: give the full abstract or drop the record"
        ), []
    found = find_instructions(abstract)
    if found:
        notices.append(
            draft.notice(
                f"abstract contains instruction-like text ({found!r}); it is stored as data "
                "and never followed"
            )
        )
    doi = clean_doi(draft.doi)
    keywords = tuple(k for k in (normalise_text(k) for k in draft.keywords) if k)
    if keywords:
        extra["keywords"] = list(keywords)
    year = draft.year if draft.year is not None and 1000 <= draft.year <= 2999 else None
    known = identifier_id(doi, draft.arxiv_id)
    printed = identifier_id("", draft.arxiv_id)  # kept beside a DOI too: links and exports
    if printed.startswith("arxiv:"):
        extra["arxiv_id"] = printed.removeprefix("arxiv:")
    paper_id = (
        draft.id.strip()
        or known
        or (f"doi:{doi.lower()}" if doi else "")
        or draft.fallback_id
        or (content_id(abstract) if abstract else content_id(f"{title}|{year or ''}", prefix="t"))
    )
    authors = tuple(a for a in (normalise_text(a) for a in draft.authors) if a)
    paper = Paper(
        id=paper_id,
        abstract=abstract,
        source=draft.source,
        position=draft.position,
        title=title,
        label=draft.label
        or (shorten(title) if title else derive_label(abstract, authors=authors, year=year)),
        authors=authors,
        year=year,
        url=draft.url.strip(),
        doi=doi,
        extra=extra,
        sections=tuple(
            Section(normalise_text(s.title), s.page, text)
            for s in draft.sections
            if (text := normalise_text(s.text))
        ),
    )
    return paper, notices


def _over_caps(draft: Draft) -> str:
    """Which field is over its size limit (a sentence), or ``""``."""
    if len(draft.abstract) > MAX_ABSTRACT_CHARS:
        return f"abstract is {len(draft.abstract):,} characters, over {MAX_ABSTRACT_CHARS:,}"
    if len(draft.title) > MAX_TITLE_CHARS:
        return f"title is {len(draft.title):,} characters, over {MAX_TITLE_CHARS:,}"
    if len(draft.authors) > MAX_AUTHORS:
        return f"{len(draft.authors):,} authors, over {MAX_AUTHORS:,}"
    longest = max((len(a) for a in draft.authors), default=0)
    if longest > MAX_AUTHOR_CHARS:
        return f"an author name is {longest:,} characters, over {MAX_AUTHOR_CHARS:,}"
    return ""


# --- HTML ---------------------------------------------------------------------------------

_TAG_OR_ENTITY = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>|&(?:#\d+|#[xX][0-9a-fA-F]+|\w+);")
_BLOCK_TAGS = {"p", "br", "div", "li", "ul", "ol", "tr", "h1", "h2", "h3", "h4", "jats:p", "sec"}


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


# Markup escaped twice, as some publishers' records reach Crossref and OpenAlex
# ("&lt;i&gt;Background:&lt;/i&gt;"): after one pass these tags are text. Only the names of
# tags an abstract carries are read so, and only where one is closed too: never a
# comparison ("score of <8", "a<b>c").
_ESCAPED_NAMES = r"i|b|em|strong|sup|sub|sc|u|span|p|div|jats:[\w-]+|mml:[\w-]+"
_ESCAPED_TAG = re.compile(rf"</?(?P<name>{_ESCAPED_NAMES}|br)(?:\s[^<>]*)?/?>", re.IGNORECASE)
_ESCAPED_CLOSE = re.compile(rf"</(?:{_ESCAPED_NAMES})>", re.IGNORECASE)


def strip_html(text: str) -> str:
    """``text`` without HTML/XML tags and with entities unescaped; unchanged if it has none.
    Markup escaped twice is removed too."""
    if not _TAG_OR_ENTITY.search(text):
        return text
    parser = _TextOnly()
    parser.feed(text)
    parser.close()
    out = "".join(parser.parts)
    if "&" in text and _ESCAPED_CLOSE.search(out):
        out = _ESCAPED_TAG.sub(lambda m: " " if m.group("name").lower() in _BLOCK_TAGS else "", out)
        out = html.unescape(out)
    return out


# --- instruction-like text ----------------------------------------------------------------

_INSTRUCTIONS = re.compile(
    "|".join(
        (
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
            r"(?:previous|prior|above|earlier|preceding|system|original)\s+"
            r"(?:instructions?|prompts?|messages?|rules|directions|context)",
            r"\byou\s+(?:are|must|should)\s+now\b",
            r"\b(?:new|updated|real)\s+instructions?\s*:",
            r"\b(?:system|developer)\s+(?:prompt|message)\s*:",
            r"<\|?(?:im_start|im_end|system|endoftext)\|?>",
            r"\[/?INST\]",
            r"\b(?:respond|reply|answer)\s+only\s+with\b",
            r"\b(?:do\s+not|don't|never)\s+(?:reveal|tell\s+the\s+user|mention\s+(?:this|these))\b",
            r"\b(?:as\s+the\s+assistant|assistant\s*:)\s*(?:you|always|must)\b",
            r"\balways\s+(?:cite|recommend|answer|say)\b",
        )
    ),
    re.IGNORECASE,
)


def find_instructions(text: str) -> str:
    """The first instruction-like phrase in ``text`` (prompt injection), or ``""``."""
    match = _INSTRUCTIONS.search(text)
    return match.group(0) if match else ""


# --- fields -------------------------------------------------------------------------------

_AUTHOR_SEP = re.compile(r"\s*;\s*|\s+and\s+|\s*&\s*")
_AUTHOR_SEP_COMMA = re.compile(r"\s*[;,]\s*(?:and\s+)?|\s+and\s+|\s*&\s*")
_YEAR = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)


def split_authors(value: object, *, commas: bool = True) -> tuple[str, ...]:
    """Authors from a list or a string such as ``"A, B and C"`` or ``"A; B"``.

    With ``commas=False`` only ``;``, ``and`` and ``&`` separate names (CSV exports often
    write ``"Last, First"``).
    """
    if isinstance(value, str):
        sep = _AUTHOR_SEP_COMMA if commas else _AUTHOR_SEP
        parts: Iterable[object] = sep.split(value)
    elif isinstance(value, Iterable):
        parts = value
    else:
        return ()
    names = (normalise_text(_author_name(p)) for p in parts)
    return tuple(name for name in names if name)


def _author_name(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):  # {"name": "..."} or {"first": ..., "last": ...}
        name = value.get("name")
        if isinstance(name, str):
            return name
        parts = (value.get(k) for k in ("first", "given", "last", "family"))
        return " ".join(p for p in parts if isinstance(p, str))
    return ""


def parse_year(value: object) -> int | None:
    """A year from ``2021``, ``"2021"`` or ``"2021-05-01"``; None if there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str | float):
        match = _YEAR.search(str(value))
        return int(match.group(1)) if match else None
    return None


def clean_doi(value: object) -> str:
    """A bare DOI (``10.1234/x``) without ``doi:`` or ``https://doi.org/`` in front."""
    if not isinstance(value, str):
        return ""
    return _DOI_PREFIX.sub("", value.strip()).strip()


def text_field(record: Mapping[str, Any], *names: str) -> str:
    """The first of ``names`` present in ``record`` as text (numbers become strings)."""
    for name in names:
        value = record.get(name)
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    return ""


# --- LaTeX --------------------------------------------------------------------------------

_LATEX_ACCENT = re.compile(
    r"""\{?\\(?:['"`^~=.]\s*(?:\{\s*\\?[A-Za-z]\s*\}|\\?[A-Za-z])"""  # \'a \"{o}
    r"""|[uvHckr](?:\s*\{\s*\\?[A-Za-z]\s*\}|\s+\\?[A-Za-z])"""  # \c{c}, \v s; not \cdot
    r"""|(?:ss|aa|AA|ae|AE|oe|OE|o|O|l|L|i|j)(?![A-Za-z]))\}?"""  # \ss, {\o}
)


@functools.lru_cache(maxsize=1024)
def _latex_fragment(fragment: str) -> str:
    try:
        from pylatexenc.latex2text import LatexNodes2Text  # ships with bibtexparser v2
    except ImportError:
        return fragment
    return str(LatexNodes2Text().latex_to_text(fragment))


def decode_latex_accents(text: str) -> str:
    """Decode LaTeX accents (``Bal\\'azs`` -> ``Balázs``); leaves math and other markup alone."""
    if "\\" not in text:
        return text
    return _LATEX_ACCENT.sub(lambda m: _latex_fragment(m.group(0)), text)


def latex_to_text(text: str) -> str:
    """All LaTeX markup to text (braces, accents, simple math): for titles and names."""
    if "\\" not in text and "{" not in text and "$" not in text:
        return text
    return normalise_text(_latex_fragment(text))
