"""Text for the chat UI, built from answers: escaped so that paper text is only ever text.

Pure functions (no gradio import), so they are tested on their own. Abstract sentences are
data: an abstract holding ``<script>`` or ``[a link](http://...)`` shows those characters,
it does not run or link them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from rag.answer.cite import Citation
from rag.records import format_authors

__all__ = ["answer_markdown", "md_escape", "sources_html"]

# Markdown punctuation, plus ":" and "@" so bare URLs and e-mail addresses are not
# auto-linked (GitHub-flavoured Markdown links "http://..." found in plain text).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>:@])")


def md_escape(text: str) -> str:
    """Text that Markdown renders as exactly itself: HTML characters as entities, Markdown
    punctuation backslash-escaped (so "[1]" stays "[1]" and a link stays its letters)."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def answer_markdown(
    answer: str, citations: Sequence[Citation], *, mode: str, searched: str = ""
) -> str:
    """The answer, its mode and a numbered reference list with quotes, in one message (so
    copying the message copies the answer with its references); ``searched`` is the query
    that was searched when it is not the question as asked."""
    parts = [md_escape(answer).replace("\n", "  \n")]
    if citations:
        refs = []
        for c in citations:
            s = c.source
            meta = " · ".join(x for x in (format_authors(s.authors), str(s.year or "")) if x)
            refs.append(
                f"{c.n}\\. **{md_escape(s.name)}**"
                + (f" — {md_escape(meta)}" if meta else "")
                + f"  \n   “{md_escape(' '.join(c.quote.split()))}”"
            )
        parts.append("**References**  \n" + "  \n".join(refs))
    parts.append(
        f"*{md_escape(mode)}*" + (f" · *searched: {md_escape(searched)}*" if searched else "")
    )
    return "\n\n".join(parts)


def sources_html(citations: Sequence[Citation]) -> str:
    """The sources panel: each cited paper with its authors, year, source file and quote."""
    if not citations:
        return '<p class="pc-empty">No sources cited.</p>'
    items = []
    for c in citations:
        s = c.source
        meta = " · ".join(
            x for x in (format_authors(s.authors), str(s.year or ""), Path(s.source).name) if x
        )
        items.append(
            f'<li class="pc-source" data-n="{c.n}"><b>[{c.n}] {html.escape(s.name)}</b>'
            f'<div class="pc-meta">{html.escape(meta)}</div>'
            f"<blockquote>{html.escape(c.quote)}</blockquote></li>"
        )
    return f'<ol class="pc-sources">{"".join(items)}</ol>'
