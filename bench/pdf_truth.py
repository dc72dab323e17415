"""How well the PDF reader gets real papers' headers right, against ground truth written by
hand from the printed pages (tests/data/real_pdfs/truth.jsonl).

    python bench/pdf_truth.py [--pdfs tests/data/real_pdfs] [--show] [--out FILE.json]

Per field, the share of papers right: title (case and spacing aside), first author, all
authors (the same names, in any order; case, dots and spacing aside), year, DOI, arXiv id,
the abstract's first and last 8 words (a structured abstract's labels, "Background:" or
"Purpose –", aside); and whether any stored text keeps a soft hyphen,
a PDFium hyphen mark or a ligature. Used by bench/pdf_ingest.py and tests/test_real_pdfs.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingest.parse.dispatch import parse_file  # noqa: E402
from rag.records import Paper  # noqa: E402

REAL_PDFS = ROOT / "tests" / "data" / "real_pdfs"
FIELDS = (
    "title", "first_author", "authors", "authors_in_order", "year", "doi", "arxiv_id",
    "abstract_start", "abstract_end", "clean_text",
)  # fmt: skip
# A structured abstract's first label is kept in the stored text (the answer stage reads
# it); the truth gives the words after it.
_STRUCTURED = re.compile(
    r"^(?:background|objectives?|purpose|aims?|context|introduction|importance|motivation)"
    r"(?:\s*/\s*\w+)?"
    r"\s*[:.–—-]\s*",
    re.I,
)
# A structured abstract's later parts' labels ("... findings. Trial registration: ISRCTN...");
# the truth gives a part's words without its label.
_PART_LABEL = re.compile(r"(?<=[.!?])\s+[A-Z][a-z]+(?:\s+[a-z]+){0,2}:\s")
# Left in stored text: a soft hyphen, PDFium's hyphen mark, a ligature, the replacement
# character or a private-use character (a glyph whose character was not recovered).
_ARTEFACT = re.compile("[\u00ad\ufffe\ufffd\x02\ufb00-\ufb06\ue000-\uf8ff]")


@dataclass(frozen=True)
class Result:
    file: str
    right: dict[str, bool]
    got: dict[str, object]
    want: dict[str, object]


def truth(folder: Path = REAL_PDFS) -> list[dict[str, object]]:
    path = folder / "truth.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _text(value: object) -> str:
    return " ".join(str(value or "").split()).casefold()


def _name(value: str) -> str:
    return " ".join(unicodedata.normalize("NFC", value).replace(".", " ").split()).casefold()


def _words(text: str) -> list[str]:
    return [w.strip(".,;:()[]\"'“”") for w in _text(text).split()]


def metadata_year(path: Path) -> int | None:
    """The year of the PDF's creation date (its document information), if it has one."""
    import pypdfium2

    with contextlib.suppress(Exception):
        doc = pypdfium2.PdfDocument(str(path))
        try:
            found = re.search(r"(19|20)\d\d", doc.get_metadata_dict().get("CreationDate", ""))
        finally:
            doc.close()
        return int(found.group()) if found else None
    return None


def score(row: dict[str, object], paper: Paper | None, meta_year: int | None = None) -> Result:
    """One paper against its truth. A paper whose pages print no year (truth null) may take
    its metadata's (``meta_year``), or none; never another."""
    want_authors = [str(a) for a in row.get("authors") or []]
    if paper is None:
        return Result(str(row["file"]), dict.fromkeys(FIELDS, False), {}, dict(row))
    texts = [paper.title, paper.abstract, *paper.authors, *(s.text for s in paper.sections),
             *(s.title for s in paper.sections)]  # fmt: skip
    first, last = _words(str(row["abstract_first"])), _words(str(row["abstract_last"]))
    words = _words(_PART_LABEL.sub(" ", _STRUCTURED.sub("", paper.abstract, count=1)))
    right = {
        "title": _text(paper.title) == _text(row["title"]),
        "first_author": (
            bool(paper.authors)
            and bool(want_authors)
            and _name(paper.authors[0]) == _name(want_authors[0])
        )
        or (not paper.authors and not want_authors),
        "authors": sorted(map(_name, paper.authors)) == sorted(map(_name, want_authors)),
        "authors_in_order": list(map(_name, paper.authors)) == list(map(_name, want_authors)),
        "year": paper.year == row.get("year")
        or (row.get("year") is None and paper.year in (None, meta_year)),
        "doi": paper.doi.casefold() == str(row.get("doi") or "").casefold(),
        "arxiv_id": str(paper.extra.get("arxiv_id", "")) == str(row.get("arxiv_id") or ""),
        "abstract_start": words[: len(first)] == first,
        "abstract_end": words[-len(last) :] == last if last else not words,
        "clean_text": not any(_ARTEFACT.search(t) for t in texts),
    }
    got = {
        "title": paper.title,
        "authors": list(paper.authors),
        "year": paper.year,
        "doi": paper.doi,
        "arxiv_id": paper.extra.get("arxiv_id", ""),
        "abstract_start": " ".join(paper.abstract.split()[:8]),
        "abstract_end": " ".join(paper.abstract.split()[-8:]),
    }
    return Result(str(row["file"]), right, got, dict(row))


def run(folder: Path = REAL_PDFS, *, abstract_only: bool = False) -> list[Result]:
    results = []
    for row in truth(folder):
        path = folder / str(row["file"])
        items = list(parse_file(path, abstract_only=abstract_only))
        paper = next((i for i in items if isinstance(i, Paper)), None)
        results.append(score(row, paper, metadata_year(path)))
    return results


def summary(results: Iterable[Result]) -> dict[str, float]:
    results = list(results)
    n = len(results)
    return {f: round(sum(r.right[f] for r in results) / n, 4) for f in FIELDS} | {"n": n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdfs", type=Path, default=REAL_PDFS, help="folder with truth.jsonl")
    parser.add_argument("--show", action="store_true", help="print every miss")
    parser.add_argument("--out", type=Path, help="save the figures and each file's as JSON")
    args = parser.parse_args()
    results = run(args.pdfs)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({
            "pdfs": str(args.pdfs), "summary": summary(results),
            "files": {r.file: {"right": r.right, "got": r.got} for r in results},
        }, ensure_ascii=False, indent=1) + "\n")  # fmt: skip
    if args.show:
        for r in results:
            for field, ok in r.right.items():
                if not ok and field != "clean_text":
                    key = field if field in r.got else "authors"
                    want = r.want.get(
                        {"abstract_start": "abstract_first", "abstract_end": "abstract_last",
                         "first_author": "authors"}.get(field, field)
                    )  # fmt: skip
                    print(f"{r.file:40} {field:15} got {r.got.get(key)!r}\n{'':56} want {want!r}")
    for field, share in summary(results).items():
        print(f"{field:15} {share}")


if __name__ == "__main__":
    main()
