"""Text for the chat UI, built from answers: escaped so that paper text is only ever text.

Pure functions (no gradio import), so they are tested on their own. Abstract sentences are
data: an abstract holding ``<script>`` or ``[a link](http://...)`` shows those characters,
it does not run or link them. The only links made are ours: each ``[n]`` marker points at
its source card (``#pc-src-<answer>-<n>``), and a card links the paper's DOI, arXiv page or
URL when they are known (http and https only).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from rag.answer.cite import Citation
from rag.answer.claims import AnswerSentence, apart
from rag.answer.prompts import UNSUPPORTED_NOTE
from rag.records import PaperRow, format_authors

if TYPE_CHECKING:
    from rag.retrieve import Passage

__all__ = [
    "answer_markdown",
    "card_id",
    "md_escape",
    "paper_links",
    "sources_html",
]

# Markdown punctuation, plus ":" and "@" so bare URLs and e-mail addresses are not
# auto-linked (GitHub-flavoured Markdown links "http://..." found in plain text).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>:@])")
_ESCAPED_MARKER = re.compile(r"\\\[(\d+(?:, \d+)*)\\\]")
_ARXIV = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.I)


def md_escape(text: str) -> str:
    """Text that Markdown renders as exactly itself: HTML characters as entities, Markdown
    punctuation backslash-escaped (so "[1]" stays "[1]" and a link stays its letters)."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def card_id(answer: int, n: int) -> str:
    """The id of source ``n``'s card for the ``answer``-th answer of the conversation."""
    return f"pc-src-{answer}-{n}"


def _linked(escaped: str, answer: int) -> str:
    """Escaped answer text with each [n] (or [1, 3]) a link to its source card."""

    def link(match: re.Match[str]) -> str:
        numbers = [int(x) for x in match.group(1).split(", ")]
        parts = [f"[{n}](#{card_id(answer, n)})" for n in numbers]
        return "\\[" + ", ".join(parts) + "\\]"

    return _ESCAPED_MARKER.sub(link, escaped)


def answer_markdown(
    answer: str,
    *,
    index: int = 0,
    mode: str = "",
    searched: str = "",
    refusal: str = "",
    related: Sequence[Mapping[str, Any]] = (),
    sentences: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The answer as one chat message: its text with clickable markers, then quietly, what
    wrote it (for a model), what was searched when it was not the question as asked, and
    why a refusal refused; after a refusal, the closest papers as related reading, in a
    block of their own without markers (they answer nothing). The sources are listed once,
    in the sources panel. A sentence no source supports (``sentences``, the contract's) is
    set apart: struck through lightly, with a note on hover."""
    flagged = [AnswerSentence(str(s.get("text") or ""), (), bool(s.get("supported", True)))
               for s in sentences]  # fmt: skip
    body = "".join(
        f'<span class="pc-unsupported" title="{html.escape(UNSUPPORTED_NOTE)}">'
        f"{_linked(md_escape(text), index)}</span>"
        if flag
        else _linked(md_escape(text), index)
        for text, flag in apart(answer, flagged)
    )
    parts = [body.replace("\n", "  \n")]
    quiet = [md_escape(x) for x in (mode, f"searched: {searched}" if searched else "") if x]
    if refusal:
        quiet.append(md_escape(f"why: {refusal}"))
    if quiet:
        parts.append("*" + " · ".join(quiet) + "*")
    if related:
        lines = ["> *Related reading: the closest papers; they do not answer the question*", ">"]
        for r in related:
            name = md_escape(str(r.get("title") or r.get("label") or r.get("paper_id") or ""))
            year = f" ({r['year']})" if r.get("year") else ""
            sentence = f": {md_escape(str(r['sentence']))}" if r.get("sentence") else ""
            lines.append(f"> - **{name}**{year}{sentence}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def paper_links(paper: PaperRow) -> list[tuple[str, str]]:
    """(label, href) for the paper's DOI, arXiv page, URL and Zotero item, when known."""
    links: list[tuple[str, str]] = []
    doi = paper.doi.strip().removeprefix("https://doi.org/").removeprefix("doi:")
    if doi:
        links.append(("DOI", "https://doi.org/" + quote(doi, safe="/:.;()-_")))
    arxiv = _ARXIV.match(paper.id.strip())
    if arxiv:
        links.append(("arXiv", f"https://arxiv.org/abs/{arxiv.group(1)}"))
    if paper.url.startswith(("http://", "https://")) and all(h != paper.url for _, h in links):
        links.append(("link", paper.url))
    if paper.zotero_uri.startswith("zotero://"):
        links.append(("Zotero", paper.zotero_uri))
    return links


def _highlighted(abstract: str, quote_text: str) -> str:
    """The abstract, escaped, with the quote marked where it stands."""
    at = abstract.find(quote_text) if quote_text else -1
    if at < 0:
        return html.escape(abstract)
    end = at + len(quote_text)
    return (
        html.escape(abstract[:at])
        + f"<mark>{html.escape(abstract[at:end])}</mark>"
        + html.escape(abstract[end:])
    )


def _card(c: Citation, answer: int) -> str:
    s = c.source
    meta = " · ".join(
        x for x in (format_authors(s.authors), str(s.year or ""), Path(s.source).name) if x
    )
    links = " ".join(
        f'<a href="{html.escape(href)}" target="_blank" rel="noopener noreferrer">{label}</a>'
        for label, href in paper_links(s.paper)
    )
    return (
        f'<div class="pc-source" id="{card_id(answer, c.n)}" data-n="{c.n}">'
        f"<b>[{c.n}] {html.escape(s.name)}</b>"
        f'<div class="pc-meta">{html.escape(meta)}</div>'
        + (f'<div class="pc-links">{links}</div>' if links else "")
        + "".join(_quoted(quote, passage) for quote, passage in c.quotes())
        + f"<details><summary>Abstract</summary><p>{_highlighted(s.abstract, c.quote)}</p>"
        "</details></div>"
    )


def _quoted(quote: str, passage: Passage | None) -> str:
    """A quote; one from the full text says where it is printed, and opens on its passage
    with the quote marked."""
    if passage is None:
        return f"<blockquote>{html.escape(quote)}</blockquote>"
    where = html.escape(passage.where)
    return (
        f'<div class="pc-where">{where}</div><blockquote>{html.escape(quote)}</blockquote>'
        f"<details><summary>Passage, {where}</summary>"
        f"<p>{_highlighted(passage.text, quote)}</p></details>"
    )


def sources_html(answers: Sequence[tuple[str, Sequence[Citation]]]) -> str:
    """The sources panel: for each answer of the conversation, newest first, its cited
    papers as cards (name, authors, year, file, links, the quote, the abstract with the
    quote marked). The newest answer's group is open; older ones fold."""
    if not answers or not any(cites for _, cites in answers):
        return '<p class="pc-empty">Sources of the answer appear here.</p>'
    groups = []
    for i in range(len(answers) - 1, -1, -1):
        question, cites = answers[i]
        if not cites:
            continue
        cards = "".join(_card(c, i) for c in cites)
        opened = " open" if i == len(answers) - 1 else ""
        groups.append(
            f'<details class="pc-group"{opened}><summary>{html.escape(question)}</summary>'
            f"{cards}</details>"
        )
    return f'<div class="pc-sources">{"".join(groups)}</div>'
