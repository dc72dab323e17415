"""The authors a PDF's document information names, for a paper whose pages print none that
can be read (its own module beside :mod:`ingest.parse.pdfnames`, which reads them from the
page)."""

from __future__ import annotations

import re

from .pdfnames import full_name, line_names

__all__ = ["metadata_authors"]

# A computer's or a template's account, not a person ("Windows User", "A. Author").
_ACCOUNT = re.compile(
    r"\b(?:users?|admin|administrator|owner|authors?|windows|microsoft|office|guest|default|"
    r"computer|pc|apple|dell|lenovo|hp)\b",
    re.I,
)


def metadata_authors(metadata: dict[str, str]) -> tuple[str, ...]:
    """The authors the PDF's document information names ("Per Kragh Andersen and Niels
    Keiding"), for a paper whose pages print none that can be read: each a full name as an
    author line gives it, else none (a tool's "Windows User", an account name)."""
    named = line_names(metadata.get("Author", "").replace(";", ","), byline=True) or []
    full = [n for n in named if full_name(n) and " " in n and not _ACCOUNT.search(n)]
    return tuple(full) if full and len(full) == len(named) else ()
