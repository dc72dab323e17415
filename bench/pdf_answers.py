"""Answers from the whole paper: questions only a PDF's body answers, asked of a library of
real PDFs, extractive.

    python bench/pdf_answers.py [--pdfs tests/data/real_pdfs] \
        [--questions bench/data/pdf_questions.jsonl] [--half a|b] [--passage-words W]

The PDFs are ingested (full text) into a temporary data directory, then each question is
asked through the Engine, as a face would. Per question: every key fact stated (a fact is a
list of acceptable spellings, stated when one is in the answer, case aside), the gold paper
cited, the gold paper cited with a body passage, that passage on the question's page, and
"the right passage": the answer quotes a body passage of the gold paper whose quote or
text holds a key fact. ``--half`` keeps the questions of half the PDFs (by name: a = the
first half in sorted order), so a weight can be fitted on one half and reported on the
other; ``--passage-words`` sets :data:`rag.passages.PASSAGE_WORDS` for the run;
``--abstract-only`` ingests the PDFs without their body (the baseline). Saves JSON
(``--out``) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rag.passages  # noqa: E402
from rag.records import normalise_text  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from ui.app import App  # noqa: E402

REAL_PDFS = ROOT / "tests" / "data" / "real_pdfs"
QUESTIONS = ROOT / "bench" / "data" / "pdf_questions.jsonl"


def _stated(spellings: list[str], text: str) -> bool:
    low = normalise_text(text).casefold()
    return any(normalise_text(s).casefold() in low for s in spellings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdfs", type=Path, default=REAL_PDFS)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--half", choices=["a", "b"], help="only the questions of half the PDFs")
    parser.add_argument("--passage-words", type=float, help="override rag.passages.PASSAGE_WORDS")
    parser.add_argument("--data-dir", type=Path, help="ingest here (default: a temporary one)")
    parser.add_argument(
        "--abstract-only", action="store_true", help="the baseline: PDFs without their body"
    )
    parser.add_argument("--show", action="store_true", help="print each answer")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "pdf_answers.json")
    args = parser.parse_args()
    if args.passage_words is not None:
        rag.passages.PASSAGE_WORDS = args.passage_words
    questions = [json.loads(line) for line in args.questions.read_text().splitlines() if line]
    files = sorted({q["file"] for q in questions})
    if args.half:
        half = files[: len(files) // 2] if args.half == "a" else files[len(files) // 2 :]
        questions = [q for q in questions if q["file"] in half]
    pdfs = sorted(args.pdfs.glob("*.pdf"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(data_dir=args.data_dir or Path(tmp))
        app = App.from_settings(settings)
        start = time.perf_counter()
        report = app.ingester.ingest(pdfs, abstract_only=args.abstract_only)
        ingest_s = time.perf_counter() - start
        by_file = {Path(r.source).name: r.id for r in app.engine.papers()[1]}
        rows = []
        for q in questions:
            clock = time.perf_counter()
            answer = app.engine.ask(q["question"]).final
            seconds = time.perf_counter() - clock
            gold = by_file.get(q["file"], "")
            mine = [c for c in answer.citations if c.source.paper_id == gold]
            # Every body passage the answer quotes from the gold paper, with the quote.
            body = [(c.quote, c.passage) for c in mine if c.passage is not None]
            body += [pair for c in mine for pair in c.body_quotes]
            facts = [_stated(spellings, answer.answer) for spellings in q["facts"]]
            right = any(
                any(_stated(sp, quote) or _stated(sp, passage.text) for sp in q["facts"])
                for quote, passage in body
            )
            rows.append(
                {
                    "id": q["id"],
                    "file": q["file"],
                    "facts": len(facts),
                    "facts_stated": sum(facts),
                    "all_facts": all(facts),
                    "gold_cited": bool(mine),
                    "body_cited": bool(body),
                    "page_right": any(passage.page == q["page"] for _, passage in body),
                    "right_passage": right,
                    "refused": not answer.citations,
                    "seconds": round(seconds, 3),
                    "answer": answer.answer[:400],
                    "where": [p.where for _, p in body],
                }
            )
            if args.show:
                print(f"\n## {q['id']} {q['question']}\n{answer.answer}\n{rows[-1]['where']}")
    n = len(rows)
    summary = {
        "questions": n,
        "pdfs": len(pdfs),
        "papers_stored": report.added + report.updated + report.unchanged,
        "key_facts": round(
            sum(r["facts_stated"] for r in rows) / max(sum(r["facts"] for r in rows), 1), 4
        ),
        "all_facts": round(sum(r["all_facts"] for r in rows) / n, 4),
        "gold_cited": round(sum(r["gold_cited"] for r in rows) / n, 4),
        "body_cited": round(sum(r["body_cited"] for r in rows) / n, 4),
        "page_right": round(sum(r["page_right"] for r in rows) / n, 4),
        "right_passage": round(sum(r["right_passage"] for r in rows) / n, 4),
        "refused": sum(r["refused"] for r in rows),
        "p50_s": sorted(r["seconds"] for r in rows)[n // 2],
        "p95_s": sorted(r["seconds"] for r in rows)[min(n - 1, int(n * 0.95))],
        "ingest_s": round(ingest_s, 2),
        "passage_words": rag.passages.PASSAGE_WORDS,
        "half": args.half or "all",
        "abstract_only": args.abstract_only,
    }
    for key, value in summary.items():
        print(f"{key:15} {value}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
