"""Identifiers: DOIs and arXiv ids in every spelling users paste, and the stable paper id.

The same paper gets the same id whether it comes from a PDF, a .bib, a CSL-JSON or RIS
export or ``paperchat add``: ``doi:<lowercased DOI>`` when it has a DOI, else
``arxiv:<id without version>`` (an arXiv DataCite DOI, ``10.48550/arXiv.<id>``, counts as
the arXiv id), else the format's own fallback.
"""

from __future__ import annotations

import re

__all__ = ["arxiv_id", "doi", "identifier_id", "printed_arxiv", "printed_doi"]

_DOI_PREFIX = re.compile(
    r"^(?:doi\s*:?\s*|(?:https?://)?(?:dx\.)?doi\.org/|https?://(?:www\.)?doi\.org/)",
    re.IGNORECASE,
)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(
    r"^(?:arxiv\s*:\s*|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE
)
_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$")
_ARXIV_OLD = re.compile(r"^([a-z][a-z-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)


def doi(value: str) -> str:
    """A bare DOI (``10.1145/x``) from ``doi:...``, ``https://doi.org/...`` and the like;
    ``""`` if ``value`` is not a DOI. Case is kept (ids lowercase it)."""
    text = _DOI_PREFIX.sub("", value.strip()).strip().rstrip(".")
    return text if _DOI.match(text) else ""


# A DOI in a page's text. One broken at a line's end is joined: right after its prefix's
# slash ("http://dx.doi.org/10.1016/" then "S0140-6736(13)62243-6"), or after a dot when
# the next line goes on with digits ("doi:10.1371/journal.pone." then "0115884") or a journal's
# short name and digits ("https://doi.org/10.1371/journal." then "pone.0289890").
_PRINTED = re.compile(
    # (broken after a point, not after a closing bracket's: "bjsports-2016-096309)." / "1")
    # (nor before a year on its own: "10.1016/j.ajhg.2021.08.010." / "1946 The American ...")
    r"\b(10\.\d{4,9}/)(?:[ \t]*\r?\n[ \t]*)?([^\s\"<>]+)"
    r"(?:(?<=[^)]\.)\r?\n[ \t]*(?!(?:19|20)\d\d(?:\s|$))(\d[^\s\"<>]*|[a-z]{2,10}\.\d[^\s\"<>]*))?"
)
# What stands before a DOI inside another site's link: a landing page or a stable URL
# ("https://academic.oup.com/restud/advance-article/doi/10.1093/...", "jstor.org/stable/").
_LINKED = re.compile(r"(?:https?://|www\.)(?!(?:dx\.)?doi\.org/)\S*/$", re.I)


# A journal template's placeholder DOI: x's, the word "DOI", or an MDPI-style article 0000.
# A template's DOI, not the paper's: "10.1177/ToBeAssigned", RSC's "10.1039/b000000x", ACM's
# "10.1145/nnnnnnn.nnnnnnn".
_PLACEHOLDER = re.compile(
    r"^10\.\d+/(?:x+|.*\.doi|[a-z]+\d{1,4}0000|to-?be-?assigned|[a-z]?0{6,}[a-z]?|n{4,}\.n{4,}"
    r"|[a-z]{1,4})/?$"  # (or the journal's code alone, the article's number never filled in:
    # Wiley's template "DOI: 10.1002/we")
    r"|^10\.\d+/(?=[^1-9]*0)[^1-9]*$",  # its numbers all zeros: "10.18637/jss.v000.i00"
    re.I,
)


# What names a DOI as a deposit's, not the paper's, in the sentence before it: code, data or a
# replication "available at" it ("Full Replication on Social Science Reproduction platform
# available at https://doi.org/10.48152/..."), or a repository in parentheses in the prose
# ("an in-vivo cardiac acquisition (Zenodo 10.5281/zenodo.11243763)").
_DEPOSIT = re.compile(
    r"\b(?:code|data(?:\s?sets?)?|replication|software|scripts?)\b[^.]{0,120}\b"
    r"(?:available|deposited|archived)\W*(?:at|from|in|on|via)?\s*"
    r"(?:[^.()]{0,60}?\(\s*)?"  # a repository named before it ("at ..., Merced Dash (https:")
    r"(?:(?:https?://)?(?:dx\.)?doi\.org/\S+\s*(?:,|and)\s*)*"  # a list of them
    r"(?:(?:https?://)?(?:dx\.)?doi\.org/|doi:?\s*)?$"
    r"|\(\s*(?:zenodo|figshare|dryad|dataverse|osf)\s*:?\s*$"
    # the repository named right before its link ("at the Harvard Dataverse (https://doi...",
    # "... Dataverse within the Harvard Dataverse Network, at: https://doi...")
    r"|\b(?:zenodo|figshare|dryad|dataverse|osf)\b[^.()]{0,60}?(?:\(|\bat:?)\s*"
    r"(?:https?://)?(?:dx\.)?doi\.org/$",
    re.I,
)


# The next words glued to a DOI's end when the text layer has no space: medRxiv's stamp
# "doi: https://doi.org/10.1101/2020.05.03.20089698.this version posted May 6, 2020".
_GLUED = re.compile(r"\.(?:this|the|that|it|its|and|or|in|on|for|with|all|see)$")


# A reference list's entry the DOI closes ("[1] R. E. Kalman: J. Basic Eng. 82 (1960) 35.
# DOI:..."): the cited work's, not the paper's ("© IEICE 2016 DOI: ..." is).
_CITED = re.compile(r"\[\d{1,3}\][^\[\]©]{0,150}$")


def printed_doi(text: str) -> str:
    """The paper's own DOI among those its pages print: the first, passing over one inside
    another site's link (a download stamp's landing page, a JSTOR stable URL) or closing a
    reference list's entry while the pages print another, and read without a path below
    it ("doi:10.1073/pnas.X/-/DCSupplemental", a supplement's link) when the pages print it
    without; never an arXiv DOI or a template's placeholder ("10.3390/xxxxx",
    "10.3390/vision1010000", "10.1109/ACCESS.2017.DOI")."""
    found: list[tuple[str, bool]] = []
    for m in _PRINTED.finditer(text):
        value = _GLUED.sub("", (m.group(1) + m.group(2) + (m.group(3) or "")).rstrip(".,;:)]"))
        if _DEPOSIT.search(text[max(0, m.start() - 200) : m.start()]):
            continue
        if "arxiv" not in value.lower() and not _PLACEHOLDER.search(value):
            before = text[max(0, m.start() - 160) : m.start()]
            found.append((value, bool(_LINKED.search(before[-120:]) or _CITED.search(before))))
    if not found:
        return ""
    values = [v for v, _ in found]
    own = [v for v, linked in found if not linked] or values
    first = own[0]
    shorter = [v for v in values if first.startswith(v + "/")]
    return _COMPONENT.sub("", min(shorter, key=len) if shorter else first)


# A part's DOI under the article's (eLife's abstract "10.7554/eLife.17290.001", a PLOS
# figure's "10.1371/journal.pone.0123456.g001"): the article's is the DOI without it.
_COMPONENT = re.compile(
    r"(?i)(?<=^10\.7554/elife\.\d{5})\.\d{3}$|(?<=^10\.1371/journal\.\w{4}\.\d{7})\.[gts]\d{3}$"
)


_ARXIV_STAMP = re.compile(  # (not a template's "arXiv:0000.0000", nor "arXiv:submit/6224127")
    r"arXiv(?:\s*e-?print)?\s*:\s*(?!0000\.0000|submit/)(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})"
    r"(v\d+)?",
    re.I,
)
# Another paper's id, cited: "arXiv preprint arXiv:1611.04135 (2016)" (the form reference
# managers print). (Not one after a numbered citation: the margin stamp is read among the
# body's lines, "... strategies [5]. arXiv:2511.21302v1 [math.NA] 26 Nov 2025".)
_CITED_ARXIV = re.compile(r"arXiv\s+preprint\s*$", re.I)


def printed_arxiv(text: str) -> re.Match[str] | None:
    """The paper's own arXiv id as its pages print it (the margin stamp "arXiv:2406.03243v2
    [cs.CL] 5 Jun 2024", a front matter's "arXiv:..."), its group 1 the id: the first not
    cited as another paper's (a footnote's reference on the first page)."""
    for m in _ARXIV_STAMP.finditer(text):
        if not _CITED_ARXIV.search(text[max(0, m.start() - 40) : m.start()]):
            return m
    return None


def arxiv_id(value: str) -> str:
    """An arXiv id without its version (``2406.03243``, ``hep-th/9901001``) from
    ``arXiv:2406.03243v2``, ``https://arxiv.org/abs/...``, ``.../pdf/....pdf`` or an arXiv
    DOI; ``""`` if ``value`` is none of these."""
    text = value.strip()
    found = _ARXIV_DOI.match(doi(text))
    if found:
        text = found.group(1)
    text = _ARXIV_PREFIX.sub("", text).strip().rstrip("/")
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        match = pattern.match(text)
        if match:
            return match.group(1)
    return ""


def identifier_id(doi_value: str, arxiv_value: str) -> str:
    """``doi:<lowercased doi>`` or ``arxiv:<id>`` (an arXiv DOI gives the arXiv id), or
    ``""`` when there is neither."""
    bare = doi(doi_value)
    from_doi = arxiv_id(bare) if bare else ""
    if bare and not from_doi:
        return f"doi:{bare.lower()}"
    found = from_doi or arxiv_id(arxiv_value)
    return f"arxiv:{found}" if found else ""
