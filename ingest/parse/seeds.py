"""The seed text format (data/sample/*.txt): blank-line separated blocks, no titles.

A block is told apart by its shape: an *author line* is a list of person names (maybe ending
"et al.") followed by an abstract; a *heading* is one short line without sentence punctuation
(only expected first in a file); anything else is an *abstract*. An abstract may end with
", Comment: ..." (the arXiv comment), kept in ``extra["comment"]``. A list ending "et al."
sets ``extra["authors_truncated"] = True``. ``Paper.position`` is the abstract's ordinal in
the file and reasons name the block's first line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rag.errors import ParseError
from rag.records import Notice, Skipped, normalise_text

from .clean import Draft
from .files import MAX_RECORD_BYTES, RawLine, decode_utf8, iter_raw_lines, too_large

__all__ = ["parse_author_line", "parse_seeds"]

_COMMENT = re.compile(r"(?:,|\n)\s*Comment:\s*(.*)\Z", re.DOTALL)
_ET_AL = re.compile(r"[,\s]*\bet\s+al\b\.?\s*\Z", re.IGNORECASE)
_NAME_SEP = re.compile(r"\s*[,;&]\s*(?:and\s+)?|\s+and\s+")
_NAME_WORD = re.compile(r"[^\W\d_](?:[\w'\u2019-]*[^\W\d_])?\.?|[^\W\d_]\.(?:-?[^\W\d_]\.)*")
_PARTICLES = {"de", "van", "von", "der", "den", "da", "di", "du", "la", "le", "del", "dos", "bin"}
_MAX_AUTHOR_LINE = 1000
_MAX_HEADING_CHARS = 100
_MAX_HEADING_WORDS = 12


@dataclass(slots=True)
class _Block:
    line: int
    text: str
    kind: str  # "abstract" | "authors" | "heading"
    error: str = ""


def parse_seeds(path: Path) -> Iterator[Draft | Skipped | Notice]:
    source = str(path)
    ordinal = 0
    pending: tuple[tuple[str, ...], bool] | None = None
    with path.open("rb") as fh:
        blocks = _blocks(iter_raw_lines(fh))
        block = next(blocks, None)
        first = True
        while block is not None:
            following = next(blocks, None)
            where = f"line {block.line}"
            if block.kind == "abstract":
                ordinal += 1
                authors, truncated = pending or ((), False)
                pending = None
                if block.error:
                    yield Skipped(source, ordinal, f"{where}: {block.error}")
                else:
                    yield _draft(source, ordinal, where, block.text, authors, truncated)
            elif block.kind == "authors" and following and following.kind == "abstract":
                if block.error:
                    yield Notice(source, None, f"{where}: author line ignored, {block.error}")
                else:
                    pending = parse_author_line(block.text)
            elif not first:
                yield Notice(
                    source,
                    None,
                    f"{where}: ignored a short line that is not an abstract "
                    f"({block.text[:60]!r}); separate abstracts with blank lines",
                )
            first = False
            block = following


def parse_author_line(text: str) -> tuple[tuple[str, ...], bool] | None:
    """``(names, truncated)`` if ``text`` is a list of person names, else None."""
    text = normalise_text(text)
    if not text or len(text) > _MAX_AUTHOR_LINE:
        return None
    truncated = bool(_ET_AL.search(text))
    body = _ET_AL.sub("", text)
    names = [n for n in _NAME_SEP.split(body) if n]
    if not names or not all(_is_person(name) for name in names):
        return None
    return tuple(names), truncated


def _is_person(name: str) -> bool:
    words = name.split()
    if not 2 <= len(words) <= 5:
        return False
    for word in words:
        if word in _PARTICLES:
            continue
        if not _NAME_WORD.fullmatch(word) or word[0].islower():
            return False
    return True


def _draft(
    source: str, ordinal: int, where: str, text: str, authors: tuple[str, ...], truncated: bool
) -> Draft:
    extra: dict[str, object] = {}
    match = _COMMENT.search(text)
    if match:
        extra["comment"] = normalise_text(match.group(1))
        text = text[: match.start()]
    if truncated:
        extra["authors_truncated"] = True
    return Draft(source, ordinal, text, where=where, authors=authors, extra=extra)


def _blocks(lines: Iterator[RawLine]) -> Iterator[_Block]:
    """Blank-line separated blocks, decoded and classified; bad ones carry ``error``."""
    current: list[RawLine] = []
    size = 0
    for line in lines:
        if not line.oversized and not line.data.strip():
            if current:
                yield _block(current, size)
            current, size = [], 0
            continue
        current.append(line)
        size += line.size
        if size > MAX_RECORD_BYTES:
            # keep only the first line (for its number): the block is skipped anyway
            current = current[:1]
    if current:
        yield _block(current, size)


def _block(lines: list[RawLine], size: int) -> _Block:
    number = lines[0].number
    if size > MAX_RECORD_BYTES:
        error = (
            f"block is {too_large(size, MAX_RECORD_BYTES)} for one abstract: "
            "separate abstracts with blank lines, or drop this block"
        )
        return _Block(number, "", "abstract", error)
    try:
        text = "\n".join(decode_utf8(line.data, offset=line.offset) for line in lines)
    except ParseError as exc:
        lossy = "\n".join(line.data.decode("utf-8", "replace") for line in lines)
        return _Block(number, lossy, _classify(lossy), exc.reason)
    return _Block(number, text, _classify(text))


def _classify(text: str) -> str:
    flat = normalise_text(text)
    if "\n" not in text.strip() and parse_author_line(flat) is not None:
        return "authors"
    if (
        "\n" not in text.strip()
        and len(flat) <= _MAX_HEADING_CHARS
        and len(flat.split()) <= _MAX_HEADING_WORDS
        and not flat.endswith((".", "!", "?"))
    ):
        return "heading"
    return "abstract"
