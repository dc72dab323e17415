"""Which files to read and in which format."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from rag.errors import IngestError

from .clean import ABSTRACT_FIELDS
from .csljson import looks_like_csljson
from .files import BOM, SNIFF_BYTES
from .ris import looks_like_ris

__all__ = ["EXTENSIONS", "FORMATS", "detect_format", "iter_input_files", "sniff_format"]

FORMATS: tuple[str, ...] = ("seed", "jsonl", "csv", "bibtex", "csljson", "ris", "pdf")
EXTENSIONS: dict[str, str] = {
    ".txt": "seed",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
    ".pdf": "pdf",
}
_SUPPORTED = ", ".join(sorted(EXTENSIONS))
_BIBTEX_START = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)


def iter_input_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Every input file under ``paths``: files as given, folders searched recursively.

    Folders yield their supported files (by extension) sorted by path, skipping hidden files
    and folders. Each file is yielded once. A missing path raises :class:`IngestError`
    before anything is yielded.
    """
    for path in paths:
        if not path.exists():
            raise IngestError(
                f"{path} does not exist: check the path, or pass a folder or file with "
                f"abstracts ({_SUPPORTED})"
            )
    seen: set[Path] = set()
    for path in paths:
        for file in _walk(path) if path.is_dir() else [path]:
            key = Path(os.path.realpath(file))  # resolve() raises on a symlink loop
            if key not in seen:
                seen.add(key)
                yield file


def _walk(folder: Path) -> Iterator[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(
            Path(root, name)
            for name in files
            if not name.startswith(".") and Path(name).suffix.lower() in EXTENSIONS
        )
    return iter(sorted(found))


def detect_format(path: Path) -> str:
    """The format of ``path``: one of :data:`FORMATS`.

    The extension decides (``.txt`` seed, ``.jsonl``/``.ndjson``/``.json`` jsonl, ``.csv``/
    ``.tsv`` csv, ``.bib`` bibtex, ``.ris`` ris), except that a ``.json`` file holding a
    CSL-JSON array is csljson, and a ``.txt`` file that is clearly JSON Lines, BibTeX or RIS
    is read as such. Other extensions are sniffed from the content; if that fails,
    :class:`IngestError` says how to name the file.
    """
    by_extension = EXTENSIONS.get(path.suffix.lower())
    if by_extension is not None and by_extension not in ("seed", "jsonl"):
        return by_extension
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise IngestError(
            f"cannot read {path}: {exc.strerror}: check it is a readable file"
        ) from None
    sniffed = sniff_format(head)
    if by_extension == "jsonl":
        return "csljson" if sniffed == "csljson" else "jsonl"
    if by_extension == "seed":
        return sniffed if sniffed in ("jsonl", "bibtex", "ris") else "seed"
    if sniffed is None:
        raise IngestError(
            f"cannot tell the format of {path}: give it one of the extensions {_SUPPORTED}, "
            f"or choose the format explicitly (one of {', '.join(FORMATS)})"
        )
    return sniffed


def sniff_format(head: bytes) -> str | None:
    """Guess the format from a file's first bytes; None if nothing fits."""
    if head.lstrip().startswith(b"%PDF-"):
        return "pdf"
    text = head.removeprefix(BOM).decode("utf-8", "ignore")
    stripped = text.lstrip()
    if not stripped:
        return None
    first_line = stripped.splitlines()[0].strip()
    if looks_like_ris(stripped):
        return "ris"
    if stripped.startswith("["):
        return "csljson" if looks_like_csljson(stripped) else "jsonl"
    if stripped.startswith("{"):
        try:
            json.loads(first_line)
        except json.JSONDecodeError:
            return "jsonl" if first_line == "{" else None
        return "jsonl"
    if _BIBTEX_START.search(text):
        return "bibtex"
    for delimiter in ("\t", ","):
        names = {name.strip().strip('"').lower() for name in first_line.split(delimiter)}
        if len(names) > 1 and names & set(ABSTRACT_FIELDS):
            return "csv"
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip()]
    if any(len(block) >= 200 and "." in block for block in blocks):
        return "seed"
    return None
