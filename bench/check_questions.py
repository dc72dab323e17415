"""Check a hand-written question set against the library it was written over.

Every answerable question (and conversation turn) must name its gold paper ids, and every
spelling of every key fact must occur verbatim (case aside, whitespace collapsed) in a gold
paper's title or abstract: an answer can then state it by quoting. A question must not
copy the abstract: no run of ``--max-run`` words (default 5) of the question occurs in a
gold abstract. Ids are unique; a single question has a type.

    python bench/check_questions.py --corpus ../shared/bench/pubmedqa/corpus.jsonl \\
        --questions bench/data/answers_pubmedqa.jsonl

Corpus files are BEIR JSONL (``_id``, ``title``, ``text``), generic JSONL (``id``,
``title``, ``abstract``: bench/data/fields/) or the seed text of data/sample
(matched by label or paper id after ingest is not needed: pass ``--ids-are-labels`` to skip
the gold checks there). Exits 1 and lists every problem when there is one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_WORD = re.compile(r"\w+")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def load_corpus(paths: list[Path]) -> dict[str, str]:
    """paper id -> 'title. abstract' (normalised)."""
    out: dict[str, str] = {}
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    key = rec["_id"] if "_id" in rec else rec["id"]
                    text = rec.get("text", rec.get("abstract", ""))
                    out[str(key)] = _norm(f"{rec.get('title', '')}. {text}")
    return out


def copied_run(question: str, abstract: str, size: int) -> str:
    """The first run of ``size`` words the question shares with the abstract ("" if none)."""
    words = _words(question)
    hay = f" {' '.join(_words(abstract))} "
    for i in range(len(words) - size + 1):
        run = " ".join(words[i : i + size])
        if f" {run} " in hay:
            return run
    return ""


def check_turn(where: str, turn: dict, corpus: dict[str, str], max_run: int) -> list[str]:
    problems: list[str] = []
    if not turn.get("question", "").strip():
        return [f"{where}: no question"]
    if not turn.get("answerable"):
        return problems
    gold = turn.get("gold") or []
    gold = [gold] if isinstance(gold, str) else list(gold)
    if not gold:
        problems.append(f"{where}: answerable but no gold paper ids")
    missing = [g for g in gold if g not in corpus]
    if missing:
        problems.append(f"{where}: gold ids not in the corpus: {missing}")
    texts = [corpus[g] for g in gold if g in corpus]
    if not texts:
        return problems
    for fact in turn.get("key_facts") or []:
        if not fact:
            problems.append(f"{where}: an empty key fact")
        for alt in fact:
            if not any(_norm(alt) in t for t in texts):
                problems.append(f"{where}: key fact {alt!r} is not verbatim in the gold abstract")
    for text in texts:
        run = copied_run(turn["question"], text, max_run)
        if run:
            problems.append(f"{where}: copies {max_run} words of the abstract: {run!r}")
    return problems


def check(items: list[dict], corpus: dict[str, str], max_run: int) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        item_id = item.get("id") or f"line {n}"
        if item_id in seen:
            problems.append(f"{item_id}: duplicate id")
        seen.add(item_id)
        if not item.get("type"):
            problems.append(f"{item_id}: no type")
        if item.get("type") == "conversation":
            turns = item.get("turns") or []
            if len(turns) < 2:
                problems.append(f"{item_id}: a conversation needs two turns or more")
            for t, turn in enumerate(turns, 1):
                problems += check_turn(f"{item_id} turn {t}", turn, corpus, max_run)
        else:
            problems += check_turn(str(item_id), item, corpus, max_run)
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", required=True)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--max-run", type=int, default=5)
    args = ap.parse_args()
    corpus = load_corpus(args.corpus)
    items = [
        json.loads(line)
        for path in args.questions
        for line in path.read_text(encoding="utf-8").split("\n")
        if line.strip()
    ]
    problems = check(items, corpus, args.max_run)
    turns = sum(len(i.get("turns", [])) or 1 for i in items)
    facts = sum(len(t.get("key_facts") or []) for i in items for t in (i.get("turns") or [i]))
    print(f"{len(items)} items, {turns} questions, {facts} key facts; {len(problems)} problems")
    for p in problems:
        print(f"  {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
