"""Check the hand-written PDF body questions against the PDFs they were written over.

Each question names one PDF, a 1-based page and the printed section heading. Every
spelling of every key fact must occur (case aside) in that page's text as extracted by
pypdfium2 and normalised (NFKC; U+00AD, U+FFFE and U+0002 removed; a hyphen at a line end
joined with the next line's word; whitespace collapsed), and must NOT occur in the paper's
abstract, which is located on the first pages from the hand-checked ``abstract_first`` /
``abstract_last`` of the truth file. A question must not copy the paper: no run of
``--max-run`` words (default 5) of the question occurs in the PDF text. Facts are short
(1-4 words) and must not be given away by the question itself.

    python bench/check_pdf_questions.py --questions bench/data/pdf_questions.jsonl \\
        --pdfs tests/data/real_pdfs --truth tests/data/real_pdfs/truth.jsonl

Needs pypdfium2 and bench/check_questions.py (the same five-words-copied test as the
abstract sets). Prints every problem and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.check_questions import copied_run  # noqa: E402

_ID = re.compile(r"^pdfq-\d{2,}$")
_TOKEN = re.compile(r"[^\W_]+")  # letters/digits; '_' and punctuation separate tokens
_LINE_END_HYPHEN = re.compile(r"(\w)-[ \t]*\n[ \t]*(\w)")
_ABSTRACT_PAGES = 3  # the abstract is looked for on this many first pages
_MAX_FACT_WORDS = 4
_MIN_FILES = 8
_MIN_QUESTIONS = 24


def normalise(text: str) -> str:
    """Page text as the facts are matched against (see module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    for ch in ("\u00ad", "\ufffe", "\u0002"):
        text = text.replace(ch, "")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_END_HYPHEN.sub(r"\1\2", text)
    return " ".join(text.split())


def contains(haystack: str, needle: str) -> bool:
    """Case-insensitive occurrence of ``needle`` not glued to a longer word."""
    needle = " ".join(unicodedata.normalize("NFKC", needle).split()).casefold()
    if not needle:
        return False
    pattern = r"(?<!\w)" + re.escape(needle) + r"(?!\w)"
    return re.search(pattern, haystack.casefold()) is not None


def tokens(text: str) -> list[str]:
    """Loose tokens for locating the abstract: hyphens dropped, case folded."""
    text = unicodedata.normalize("NFKC", text).replace("-", "").casefold()
    return _TOKEN.findall(text)


def find_seq(hay: list[str], needle: list[str], start: int = 0) -> int:
    n = len(needle)
    if not n:
        return -1
    for i in range(start, len(hay) - n + 1):
        if hay[i : i + n] == needle:
            return i
    return -1


def abstract_tokens(first_pages: str, record: dict) -> list[str] | None:
    """Tokens of the abstract, from abstract_first to the end of abstract_last."""
    hay = tokens(first_pages)
    head, tail = tokens(record.get("abstract_first", "")), tokens(record.get("abstract_last", ""))
    begin = find_seq(hay, head)
    if begin < 0:
        return None
    end = find_seq(hay, tail, begin)
    if end < 0:
        return None
    return hay[begin : end + len(tail)]


class Pdfs:
    """Normalised page texts of the PDFs in a folder, loaded on first use."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._pages: dict[str, list[str] | None] = {}

    def pages(self, name: str) -> list[str] | None:
        if name not in self._pages:
            path = self.folder / name
            if not path.is_file():
                self._pages[name] = None
            else:
                import pypdfium2 as pdfium

                doc = pdfium.PdfDocument(str(path))
                try:
                    out = []
                    for i in range(len(doc)):
                        page = doc[i]
                        textpage = page.get_textpage()
                        out.append(normalise(textpage.get_text_range()))
                        textpage.close()
                        page.close()
                finally:
                    doc.close()
                self._pages[name] = out
        return self._pages[name]


def load_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check(questions: list[dict], pdfs: Pdfs, truth: dict[str, dict], max_run: int) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    files: dict[str, int] = {}
    for n, q in enumerate(questions, 1):
        qid = q.get("id", f"line {n}")
        where = f"{qid}:"
        if not _ID.match(str(q.get("id", ""))):
            problems.append(f"{where} id should look like pdfq-01")
        if qid in seen:
            problems.append(f"{where} duplicate id")
        seen.add(qid)
        for key in ("file", "question", "facts", "page", "section"):
            if key not in q:
                problems.append(f"{where} missing key {key!r}")
        if any(key not in q for key in ("file", "question", "facts", "page")):
            continue
        name, question, page = q["file"], q["question"], q["page"]
        if not str(q.get("section", "")).strip():
            problems.append(f"{where} empty section")
        pages = pdfs.pages(name)
        if pages is None:
            problems.append(f"{where} no PDF {name!r} in {pdfs.folder}")
            continue
        files[name] = files.get(name, 0) + 1
        if not isinstance(page, int) or not 1 <= page <= len(pages):
            problems.append(f"{where} page {page!r} outside 1..{len(pages)} of {name}")
            continue
        page_text = pages[page - 1]
        record = truth.get(name)
        abstract = None
        if record is None:
            problems.append(f"{where} {name} has no line in the truth file")
        else:
            abstract = abstract_tokens(" ".join(pages[:_ABSTRACT_PAGES]), record)
            if abstract is None:
                problems.append(
                    f"{where} cannot locate the abstract of {name} from truth "
                    "abstract_first/abstract_last"
                )
        facts = q["facts"]
        if not isinstance(facts, list) or not facts:
            problems.append(f"{where} facts must be a non-empty list of spelling lists")
            continue
        q_tokens = tokens(question)
        for group in facts:
            ok = isinstance(group, list) and group
            if not ok or not all(isinstance(s, str) and s.strip() for s in group):
                problems.append(f"{where} fact {group!r} must be a non-empty list of strings")
                continue
            for spelling in group:
                if len(spelling.split()) > _MAX_FACT_WORDS:
                    problems.append(
                        f"{where} fact {spelling!r} is longer than {_MAX_FACT_WORDS} words"
                    )
                if not contains(page_text, spelling):
                    problems.append(f"{where} fact {spelling!r} not found on page {page} of {name}")
                fact_tokens = tokens(spelling)
                if abstract is not None and find_seq(abstract, fact_tokens) >= 0:
                    problems.append(f"{where} fact {spelling!r} occurs in the abstract of {name}")
                if find_seq(q_tokens, fact_tokens) >= 0:
                    problems.append(f"{where} fact {spelling!r} is given away by the question")
        run = copied_run(question, " ".join(pages), max_run)
        if run:
            problems.append(f"{where} question copies {max_run} words from {name}: {run!r}")
    if len(questions) < _MIN_QUESTIONS:
        problems.append(f"only {len(questions)} questions (want >= {_MIN_QUESTIONS})")
    if len(files) < _MIN_FILES:
        problems.append(f"questions cover only {len(files)} PDFs (want >= {_MIN_FILES})")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=Path, required=True, help="questions JSONL")
    ap.add_argument("--pdfs", type=Path, required=True, help="folder holding the PDFs")
    ap.add_argument(
        "--truth", type=Path, required=True, help="truth JSONL (abstract_first/last per file)"
    )
    ap.add_argument(
        "--max-run", type=int, default=5, help="a question may not share this many words in a row"
    )
    args = ap.parse_args(argv)
    questions = load_jsonl(args.questions)
    truth = {rec["file"]: rec for rec in load_jsonl(args.truth)}
    problems = check(questions, Pdfs(args.pdfs), truth, args.max_run)
    for p in problems:
        print(p)
    per_file: dict[str, int] = {}
    for q in questions:
        per_file[q.get("file", "?")] = per_file.get(q.get("file", "?"), 0) + 1
    print(f"{len(questions)} questions over {len(per_file)} PDFs; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
