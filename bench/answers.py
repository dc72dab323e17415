"""Answer quality and speed per question type, on question sets over a corpus.

Every question goes through the Engine as a face would. Per question type it reports:
key facts stated (each fact is a list of acceptable strings; stated when one of them is in
the answer, case-insensitive), gold papers cited, answerable questions refused,
unanswerable questions answered, median words per answer, p50/p95 seconds per answer, and
markers left dangling in final answers (must be 0). Conversations are asked turn by turn
with the history a face would keep; a conversation is right when every turn is (gold
cited or rightly refused, and its key facts stated).

Question files are JSONL. Single questions: ``{"id", "type", "question", "answerable",
"gold": [labels] | label | null, "key_facts": [[alternatives], ...]}``; conversations:
``{"id", "type": "conversation", "turns": [{question, answerable, gold, key_facts}, ...]}``.
``--offtopic`` adds questions that the corpus cannot answer (e.g. PubMedQA's against the
ML-systems sample). ``--split`` reports the two halves of the set separately (ids hashed),
so weights learned on one half can be read on the other.

    python bench/answers.py --corpus data/sample \\
        --questions bench/data/answers_dev.jsonl tests/data/sample_questions.jsonl \\
        --offtopic ../shared/bench/pubmedqa/pqal_dev.jsonl

Saves bench/results/answers.json (and prints a table per type).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.answer import rank  # noqa: E402
from rag.answer.chat import OpenAIChat  # noqa: E402
from rag.answer.cite import parse_markers  # noqa: E402
from rag.answer.events import ErrorEvent, FinalEvent  # noqa: E402
from rag.answer.followup import Turn  # noqa: E402
from rag.answer.prompts import EXTRACTIVE_NOTE  # noqa: E402
from rag.engine import Engine  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from ui.app import App  # noqa: E402


def load_items(path: Path, *, offtopic: bool = False, limit: int | None = None) -> list[dict]:
    items = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            if offtopic:
                rec = {"question": rec["question"], "answerable": False, "type": "offtopic"}
            rec.setdefault("id", f"{path.stem}-{n}")
            rec.setdefault("type", "sample" if rec.get("answerable") else "offtopic")
            items.append(rec | {"file": path.name})
    return items[:limit] if limit else items


def _gold(turn: dict) -> list[str]:
    gold = turn.get("gold")
    return [] if not gold else [gold] if isinstance(gold, str) else list(gold)


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 4) if values else None


def half(item_id: str) -> str:
    """'a' or 'b': a fixed split of the set by a hash of the id."""
    return "ab"[hashlib.sha256(item_id.encode()).digest()[0] % 2]


def score_turn(turn: dict, final: FinalEvent, errors: list[str]) -> dict[str, Any]:
    """One answer against its expectations."""
    body = final.answer.replace(EXTRACTIVE_NOTE, "")
    text = body.casefold()
    facts = turn.get("key_facts") or []
    stated = [any(alt.casefold() in text for alt in fact) for fact in facts]
    gold = _gold(turn)
    cited = [c.source.label for c in final.citations]
    numbers = [n for _, _, ns in parse_markers(final.answer) for n in ns]
    answerable = bool(turn.get("answerable"))
    gold_hits = sum(g in cited for g in gold)
    ok_refusal = final.refused != answerable
    right = ok_refusal and (not answerable or ((not gold or gold_hits > 0) and all(stated)))
    return {
        "question": turn["question"],
        "answerable": answerable,
        "refused": final.refused,
        "query": final.query,
        "cited": cited,
        "gold": gold,
        "gold_any": bool(gold) and gold_hits > 0,
        "gold_recall": gold_hits / len(gold) if gold else None,
        "precision": sum(c in gold for c in cited) / len(cited) if gold and cited else None,
        "facts": len(facts),
        "facts_stated": sum(stated),
        "missed_facts": [f[0] for f, s in zip(facts, stated, strict=True) if not s],
        "words": len(re.findall(r"\w+", re.sub(r"\[\d+(?:[,\s\-–]+\d+)*\]", "", body))),
        "dangling": sum(not 1 <= n <= len(final.citations) for n in numbers),
        "removed_markers": len(final.dropped),
        "errors": errors,
        "total_s": final.timings.get("total", 0.0),
        "right": right,
        "answer": final.answer,
    }


def ask(engine: Engine, question: str, history: list[Turn]) -> tuple[FinalEvent, list[str]]:
    events = list(engine.answer(question, history=tuple(history)))
    final = next(e for e in events if isinstance(e, FinalEvent))
    return final, [e.kind for e in events if isinstance(e, ErrorEvent)]


def run(items: list[dict], engine: Engine) -> list[dict]:
    rows = []
    for item in items:
        if item["type"] == "conversation":
            history: list[Turn] = []
            turns = []
            for turn in item["turns"]:
                final, errors = ask(engine, turn["question"], history)
                turns.append(score_turn(turn, final, errors))
                cited = tuple(c.source.label for c in final.citations)
                history += [Turn("user", turn["question"]), Turn("assistant", final.answer, cited)]
            rows.append({"id": item["id"], "type": "conversation", "half": half(item["id"]),
                         "turns": turns, "right": all(t["right"] for t in turns)})  # fmt: skip
        else:
            final, errors = ask(engine, item["question"], [])
            rows.append({"id": item["id"], "type": item["type"], "half": half(item["id"]),
                         **score_turn(item, final, errors)})  # fmt: skip
    return rows


def summarise(rows: list[dict]) -> dict[str, Any]:
    """The figures over these rows (conversation turns counted as single answers too)."""
    flat = [t for r in rows for t in (r["turns"] if r["type"] == "conversation" else [r])]
    ans = [t for t in flat if t["answerable"]]
    una = [t for t in flat if not t["answerable"]]
    with_gold = [t for t in ans if t["gold"]]
    answered = [t for t in flat if not t["refused"]]
    convs = [r for r in rows if r["type"] == "conversation"]
    facts = sum(t["facts"] for t in ans)
    precise = [t["precision"] for t in with_gold if t["precision"] is not None]
    return {
        "n": len(flat),
        "key_facts": {
            "asked": facts,
            "stated": sum(t["facts_stated"] for t in ans),
            "rate": round(sum(t["facts_stated"] for t in ans) / facts, 4) if facts else None,
        },
        "gold_cited": {
            "n": len(with_gold),
            "count": sum(t["gold_any"] for t in with_gold),
            "rate": round(np.mean([t["gold_any"] for t in with_gold]), 4) if with_gold else None,
            "recall": round(np.mean([t["gold_recall"] for t in with_gold]), 4)
            if with_gold
            else None,
            "precision": round(np.mean(precise), 4) if precise else None,
        },
        "answerable_refused": {"n": len(ans), "count": sum(t["refused"] for t in ans)},
        "unanswerable_answered": {"n": len(una), "count": sum(not t["refused"] for t in una)},
        "conversations_right": {"n": len(convs), "count": sum(r["right"] for r in convs)},
        "median_words": _pct([t["words"] for t in answered], 50),
        "dangling_markers": sum(t["dangling"] for t in flat),
        "fallbacks": sum(bool(t["errors"]) for t in flat),
        "total_s": {
            "p50": _pct([t["total_s"] for t in answered], 50),
            "p95": _pct([t["total_s"] for t in answered], 95),
        },
    }


def report(rows: list[dict]) -> dict[str, Any]:
    by_type: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r)
    out = {
        "all": summarise(rows),
        "by_type": {t: summarise(rs) for t, rs in sorted(by_type.items())},
    }
    out["halves"] = {h: summarise([r for r in rows if r["half"] == h]) for h in "ab"}
    return out


def print_table(name: str, rep: dict[str, Any]) -> None:
    head = (f"{'type':<14}{'n':>5}{'facts':>12}{'gold':>11}{'ans.ref':>9}{'una.ans':>9}"
            f"{'conv':>8}{'words':>7}{'p50 s':>8}{'p95 s':>8}")  # fmt: skip
    print(f"\n{name}\n{head}")

    def line(label: str, s: dict[str, Any]) -> None:
        kf, g = s["key_facts"], s["gold_cited"]
        facts = f"{kf['stated']}/{kf['asked']}" if kf["asked"] else "-"
        gold = f"{g['count']}/{g['n']}" if g["n"] else "-"
        conv = s["conversations_right"]
        print(
            f"{label:<14}{s['n']:>5}{facts:>12}{gold:>11}"
            f"{s['answerable_refused']['count']:>5}/{s['answerable_refused']['n']:<3}"
            f"{s['unanswerable_answered']['count']:>5}/{s['unanswerable_answered']['n']:<3}"
            f"{(str(conv['count']) + '/' + str(conv['n'])) if conv['n'] else '-':>8}"
            f"{s['median_words'] or 0:>7.0f}{s['total_s']['p50'] or 0:>8.3f}"
            f"{s['total_s']['p95'] or 0:>8.3f}"
        )

    for t, s in rep["by_type"].items():
        line(t, s)
    for h, s in rep["halves"].items():
        line(f"half {h}", s)
    line("all", rep["all"])
    a = rep["all"]
    g = a["gold_cited"]
    lists = rep["by_type"].get("list", {}).get("gold_cited", {})
    print(f"key facts {a['key_facts']['rate']}  gold cited {g['rate']} (recall {g['recall']}, "
          f"precision {g['precision']}; lists: recall {lists.get('recall')}, precision "
          f"{lists.get('precision')})  "
          f"dangling markers {a['dangling_markers']}")  # fmt: skip


@contextmanager
def _llama(gguf: Path, threads: int):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias",
         gguf.stem, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
         "--n_threads", str(threads), "--seed", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1", gguf.stem
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", default=[ROOT / "data" / "sample"])
    ap.add_argument("--questions", type=Path, nargs="+",
                    default=[ROOT / "bench/data/answers_dev.jsonl"])  # fmt: skip
    ap.add_argument("--offtopic", type=Path, help="JSONL of questions the corpus cannot answer")
    ap.add_argument("--offtopic-limit", type=int, help="use only the first N off-topic questions")
    ap.add_argument("--llm-base-url", help="an OpenAI-compatible server to compare")
    ap.add_argument("--llm-model", default="", help="model name at --llm-base-url")
    ap.add_argument("--llama-gguf", type=Path, help="start llama_cpp.server on this GGUF")
    ap.add_argument("--llm-limit", type=int, help="ask the model only the first N items")
    ap.add_argument("--llm-context-tokens", type=int, default=700)
    ap.add_argument("--llm-max-tokens", type=int, default=128)
    ap.add_argument("--show", action="store_true", help="print every wrong answer")
    ap.add_argument(
        "--weights",
        nargs=2,
        metavar=("JSON", "HALF"),
        help="rank with the weights bench/learn_ranker.py learnt on one half ('a' or 'b') of "
        "the set (saved in JSON), to read the other half honestly",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/answers.json")
    args = ap.parse_args()

    if args.weights:
        learnt = json.loads(Path(args.weights[0]).read_text())["halves"]
        other = "b" if args.weights[1] == "a" else "a"
        rank.WEIGHTS.update(learnt[f"learn {args.weights[1]}, score {other}"]["weights"])
    data_dir = Path(tempfile.mkdtemp(prefix="paperchat-answers-"))
    os.environ["PAPERCHAT_DATA_DIR"] = str(data_dir)
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PAPERCHAT_LLM"):
        os.environ.pop(key, None)
    settings = load_settings(
        llm_context_tokens=args.llm_context_tokens, llm_max_tokens=args.llm_max_tokens
    )
    app = App.from_settings(settings)
    app.ingester.ingest(args.corpus)
    engine = app.engine
    engine.warm_up()
    items = [i for path in args.questions for i in load_items(path)]
    if args.offtopic:
        items += load_items(args.offtopic, offtopic=True, limit=args.offtopic_limit)

    result: dict[str, Any] = {
        "corpus": [str(p) for p in args.corpus],
        "questions": [str(p) for p in args.questions],
        "offtopic": str(args.offtopic) if args.offtopic else None,
        "answerers": {},
    }
    rows = run(items, engine)
    result["answerers"]["extractive"] = report(rows) | {"rows": rows}
    print_table("extractive", result["answerers"]["extractive"])

    def with_llm(url: str, model: str) -> None:
        chat = OpenAIChat(model=model, base_url=url, timeout=120)
        # A fresh engine: its sentence cache starts cold, as the extractive run's did.
        llm_engine = Engine(settings, store=engine.store, embedder=engine.embedder, chat=chat)
        subset = items[: args.llm_limit] if args.llm_limit else items
        llm_rows = run(subset, llm_engine)
        result["answerers"][f"llm:{model}"] = report(llm_rows) | {"rows": llm_rows}
        print_table(f"llm:{model}", result["answerers"][f"llm:{model}"])

    if args.llama_gguf:
        with _llama(args.llama_gguf, threads=os.cpu_count() or 2) as (url, model):
            with_llm(url, model)
    elif args.llm_base_url:
        with_llm(args.llm_base_url, args.llm_model)

    if args.show:
        for r in rows:
            for t in r["turns"] if r["type"] == "conversation" else [r]:
                if not t["right"]:
                    print(f"\n[{r['id']}] {t['question']}\n  query: {t['query']}\n  gold "
                          f"{t['gold']} cited {t['cited']} missed {t['missed_facts']}\n  "
                          f"{' '.join(t['answer'].split())[:600]}")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
