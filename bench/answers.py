"""Answer quality and speed on libraries of different fields, each reported on its own.

Each domain (:mod:`bench.domains`: the ML-systems sample, PubMedQA, SciFact) is ingested into
its own index and asked its questions through the Engine, as a face would; the other
domains' questions are asked of it as off-topic ones. Per domain and question type it
reports key facts stated (a fact is a list of acceptable spellings, stated when one is in
the answer, case aside), gold papers cited, gold cited among the answerable questions whose
gold paper retrieval ranks first, answerable questions refused, off-topic questions
answered, conversations right (every turn: gold cited or rightly refused, facts stated),
median words, p50/p95 seconds, and markers left dangling (must be 0).

Learnt parameters (rag/answer/params.json) are fitted by bench/fit_answers.py; with
``--held-out FILE`` (that script's output) each domain is answered with the parameters
fitted on the *other* domains only, so its figures are held out.

    python bench/answers.py --pubmedqa ../shared/bench/pubmedqa --scifact ../shared/bench/scifact
    python bench/answers.py ... --held-out bench/results/answer_params.json

Indexes are kept under ``--index-dir`` (re-ingesting unchanged papers does nothing). Saves
bench/results/answers.json (or ``--out``) and prints a table per domain.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.domains import FIELDS, NAMES, Domain, domains, half  # noqa: E402
from rag.answer import extractive, params, reader  # noqa: E402
from rag.answer.chat import OpenAIChat  # noqa: E402
from rag.answer.cite import parse_markers  # noqa: E402
from rag.answer.events import ErrorEvent, FinalEvent  # noqa: E402
from rag.answer.followup import Turn  # noqa: E402
from rag.answer.prompts import EXTRACTIVE_NOTE  # noqa: E402
from rag.engine import Engine  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from ui.app import App  # noqa: E402


def gold_of(turn: dict) -> list[str]:
    gold = turn.get("gold")
    return [] if not gold else [gold] if isinstance(gold, str) else list(gold)


def cited_as(app: App, gold: list[str]) -> tuple[str, ...]:
    """The gold papers as an answer citing them names them in a conversation's history: by
    their labels, as the product's answers do. (A bare id such as "W2120220100" would be
    added to the next follow-up's query as a name no paper of the library holds.)"""
    catalogue = app.engine.retriever.index.catalogue
    return tuple(catalogue[g].label if g in catalogue else g for g in gold)


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 4) if values else None


def _rate(hits: int, n: int) -> float | None:
    return round(hits / n, 4) if n else None


def score_turn(
    turn: dict, final: FinalEvent, errors: list[str], top: tuple[str, str]
) -> dict[str, Any]:
    """One answer against its expectations; ``top`` is the paper (id, label) retrieval ranks
    first for the answer's query."""
    body = final.answer.replace(EXTRACTIVE_NOTE, "")
    text = body.casefold()
    facts = turn.get("key_facts") or []
    stated = [any(alt.casefold() in text for alt in fact) for fact in facts]
    gold = gold_of(turn)
    cited = [c.source.paper_id for c in final.citations]
    labels = [c.source.label for c in final.citations]
    numbers = [n for _, _, ns in parse_markers(final.answer) for n in ns]
    answerable = bool(turn.get("answerable"))
    hit = [g in cited or g in labels for g in gold]
    gold_hits = sum(hit)
    ok_refusal = final.refused != answerable
    right = ok_refusal and (not answerable or ((not gold or gold_hits > 0) and all(stated)))
    return {
        "question": turn["question"],
        "answerable": answerable,
        "refused": final.refused,
        "query": final.query,
        "cited": cited,
        "cited_labels": labels,
        "gold": gold,
        "gold_any": bool(gold) and gold_hits > 0,
        "gold_first": bool(gold) and any(t in gold for t in top if t),
        "gold_recall": gold_hits / len(gold) if gold else None,
        "precision": sum(c in gold or lb in gold for c, lb in zip(cited, labels, strict=True))
        / len(cited)
        if gold and cited
        else None,
        "facts": len(facts),
        "facts_stated": sum(stated),
        "missed_facts": [f[0] for f, s in zip(facts, stated, strict=True) if not s],
        "words": len(re.findall(r"\w+", re.sub(r"\[\d+(?:[,\s\-–]+\d+)*\]", "", body))),
        "dangling": sum(not 1 <= n <= len(final.citations) for n in numbers),
        "errors": errors,
        "total_s": final.timings.get("total", 0.0),
        "right": right,
        "answer": final.answer,
    }


def ask(
    engine: Engine, question: str, history: list[Turn]
) -> tuple[FinalEvent, list[str], tuple[str, str]]:
    events = list(engine.answer(question, history=tuple(history)))
    final = next(e for e in events if isinstance(e, FinalEvent))
    hits = engine.search(final.query, k=1)
    top = (hits[0].paper.id, hits[0].paper.label) if hits else ("", "")
    return final, [e.kind for e in events if isinstance(e, ErrorEvent)], top


def run(items: list[dict], engine: Engine) -> list[dict]:
    rows = []
    for item in items:
        if item["type"] == "conversation":
            history: list[Turn] = []
            turns = []
            for turn in item["turns"]:
                final, errors, top = ask(engine, turn["question"], history)
                turns.append(score_turn(turn, final, errors, top))
                cited = tuple(c.source.label for c in final.citations)
                history += [Turn("user", turn["question"]), Turn("assistant", final.answer, cited)]
            rows.append({"id": item["id"], "type": "conversation", "half": half(item["id"]),
                         "turns": turns, "right": all(t["right"] for t in turns)})  # fmt: skip
        else:
            final, errors, top = ask(engine, item["question"], [])
            rows.append({"id": item["id"], "type": item["type"], "half": half(item["id"]),
                         **score_turn(item, final, errors, top)})  # fmt: skip
    return rows


def summarise(rows: list[dict]) -> dict[str, Any]:
    """The figures over these rows (conversation turns counted as single answers too)."""
    flat = [t for r in rows for t in (r["turns"] if r["type"] == "conversation" else [r])]
    ans = [t for t in flat if t["answerable"]]
    una = [t for t in flat if not t["answerable"]]
    with_gold = [t for t in ans if t["gold"]]
    first = [t for t in with_gold if t["gold_first"]]
    answered = [t for t in flat if not t["refused"]]
    convs = [r for r in rows if r["type"] == "conversation"]
    facts = sum(t["facts"] for t in ans)
    stated = sum(t["facts_stated"] for t in ans)
    precise = [t["precision"] for t in with_gold if t["precision"] is not None]
    return {
        "n": len(flat),
        "key_facts": {"asked": facts, "stated": stated, "rate": _rate(stated, facts)},
        "gold_cited": {
            "n": len(with_gold),
            "count": sum(t["gold_any"] for t in with_gold),
            "rate": _rate(sum(t["gold_any"] for t in with_gold), len(with_gold)),
            "recall": round(float(np.mean([t["gold_recall"] for t in with_gold])), 4)
            if with_gold
            else None,
            "precision": round(float(np.mean(precise)), 4) if precise else None,
        },
        "retrieval_first": {"n": len(first), "rate": _rate(len(first), len(with_gold))},
        "gold_cited_when_first": {
            "n": len(first),
            "count": sum(t["gold_any"] for t in first),
            "rate": _rate(sum(t["gold_any"] for t in first), len(first)),
        },
        "answerable_refused": {
            "n": len(ans),
            "count": sum(t["refused"] for t in ans),
            "rate": _rate(sum(t["refused"] for t in ans), len(ans)),
        },
        "unanswerable_answered": {
            "n": len(una),
            "count": sum(not t["refused"] for t in una),
            "rate": _rate(sum(not t["refused"] for t in una), len(una)),
        },
        "conversations_right": {
            "n": len(convs),
            "count": sum(r["right"] for r in convs),
            "rate": _rate(sum(r["right"] for r in convs), len(convs)),
        },
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
    own = [r for r in rows if not r["type"].startswith("offtopic:")]
    return {
        "all": summarise(rows),
        "own": summarise(own),
        "by_type": {t: summarise(rs) for t, rs in sorted(by_type.items())},
    }


def print_table(name: str, rep: dict[str, Any]) -> None:
    head = (f"{'type':<27}{'n':>5}{'facts':>11}{'gold':>11}{'gold|1st':>11}{'ans.ref':>10}"
            f"{'off.ans':>10}{'conv':>7}{'words':>6}{'p50 s':>7}{'p95 s':>7}")  # fmt: skip
    print(f"\n{name}\n{head}")

    def frac(d: dict[str, Any], key: str = "count") -> str:
        return f"{d[key]}/{d['n']}" if d["n"] else "-"

    def line(label: str, s: dict[str, Any]) -> None:
        kf = s["key_facts"]
        facts = f"{kf['stated']}/{kf['asked']}" if kf["asked"] else "-"
        print(
            f"{label:<27}{s['n']:>5}{facts:>11}{frac(s['gold_cited']):>11}"
            f"{frac(s['gold_cited_when_first']):>11}{frac(s['answerable_refused']):>10}"
            f"{frac(s['unanswerable_answered']):>10}{frac(s['conversations_right']):>7}"
            f"{s['median_words'] or 0:>6.0f}{s['total_s']['p50'] or 0:>7.3f}"
            f"{s['total_s']['p95'] or 0:>7.3f}"
        )

    for t, s in rep["by_type"].items():
        line(t, s)
    line("all", rep["all"])
    a = rep["all"]
    print(
        f"key facts {a['key_facts']['rate']}  gold cited {a['gold_cited']['rate']}  "
        f"when retrieval ranks it first {a['gold_cited_when_first']['rate']} "
        f"(retrieval first {a['retrieval_first']['rate']})  answerable refused "
        f"{a['answerable_refused']['rate']}  off-topic answered "
        f"{a['unanswerable_answered']['rate']}  dangling markers {a['dangling_markers']}"
    )


@contextmanager
def _llama(gguf: Path, threads: int) -> Iterator[tuple[str, str]]:
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


def open_domain(domain: Domain, index_dir: Path) -> App:
    """An app over the domain's own index (ingested once; unchanged papers are skipped)."""
    data_dir = index_dir / domain.name
    data_dir.mkdir(parents=True, exist_ok=True)
    os.environ["PAPERCHAT_DATA_DIR"] = str(data_dir)
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PAPERCHAT_LLM"):
        os.environ.pop(key, None)
    app = App.from_settings(load_settings())
    app.ingester.ingest(domain.corpus)
    app.engine.warm_up()
    return app


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--domains", nargs="+", default=list(NAMES), choices=NAMES)
    ap.add_argument("--pubmedqa", type=Path, help="folder with PubMedQA's corpus.jsonl, pqal_dev")
    ap.add_argument("--scifact", type=Path, help="folder with SciFact's corpus, queries, qrels")
    ap.add_argument("--held-out", type=Path, help="answer each domain with the parameters "
                    "bench/fit_answers.py fitted without it (that script's JSON)")  # fmt: skip
    ap.add_argument("--tie", type=float, default=extractive.TIE,
                    help="quote too the papers scored within this share of the best "
                    "(rag.answer.extractive.TIE; bench/fit_tie.py chooses it)")  # fmt: skip
    ap.add_argument("--offtopic-limit", type=int, default=0,
                    help="at most N off-topic questions of each other domain (0: all)")  # fmt: skip
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--llm-base-url", help="an OpenAI-compatible server to compare")
    ap.add_argument("--llm-model", default="", help="model name at --llm-base-url")
    ap.add_argument("--llama-gguf", type=Path, help="start llama_cpp.server on this GGUF")
    ap.add_argument("--llm-limit", type=int, help="ask the model only the first N items")
    ap.add_argument("--questions", default="questions.jsonl",
                    help="the file of each field's folder to ask (another set over the same "
                         "libraries: find_paper_questions.jsonl)")  # fmt: skip
    ap.add_argument("--show", action="store_true", help="print every wrong answer")
    ap.add_argument("--rows", action="store_true", help="save every answer (else the wrong ones)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/answers.json")
    args = ap.parse_args()
    extractive.TIE = args.tie

    wanted = set(args.domains)
    known = [n for n in NAMES if n in wanted or (n == "pubmedqa" and args.pubmedqa)
             or (n == "scifact" and args.scifact) or n == "sample" or n in FIELDS]  # fmt: skip
    every = domains(
        known, pubmedqa=args.pubmedqa, scifact=args.scifact, question_file=args.questions
    )
    fitted = json.loads(args.held_out.read_text())["held_out"] if args.held_out else {}
    result: dict[str, Any] = {"held_out": bool(fitted), "tie": args.tie, "domains": {}}
    for name in args.domains:
        domain = every[name]
        if fitted:
            params.use(fitted[name]["params"])
            held = fitted[name].get("reader")  # bench/fit_reader.py: trained without it
            reader.use(reader.Reader(Path(held) / "model.onnx") if held else reader.packaged())
        else:
            params.use(params.load())
        app = open_domain(domain, args.index_dir)
        off = []
        for other in every.values():
            if other.name != name:
                extra = other.offtopic()
                off += extra[: args.offtopic_limit] if args.offtopic_limit else extra
        rows = run(domain.items + off, app.engine)
        rep = report(rows)
        result["domains"][name] = {
            "corpus": [str(p) for p in domain.corpus],
            "papers": len(app.engine.retriever.index),
            "fitted_on": fitted[name]["fitted_on"] if fitted else "all",
            "extractive": rep | {"rows": rows},
        }
        print_table(f"{name} (extractive{', held out' if fitted else ''})", rep)

        def with_llm(
            url: str, model: str, app: App = app, name: str = name, domain: Domain = domain
        ) -> None:
            chat = OpenAIChat(model=model, base_url=url, timeout=120)
            engine = app.engine
            llm_engine = Engine(engine.settings, store=engine.store, embedder=engine.embedder,
                                chat=chat)  # fmt: skip
            items = domain.items[: args.llm_limit] if args.llm_limit else domain.items
            llm_rows = run(items, llm_engine)
            result["domains"][name][f"llm:{model}"] = report(llm_rows) | {"rows": llm_rows}
            print_table(f"{name} llm:{model}", report(llm_rows))

        if args.llama_gguf:
            with _llama(args.llama_gguf, threads=os.cpu_count() or 2) as (url, model):
                with_llm(url, model)
        elif args.llm_base_url:
            with_llm(args.llm_base_url, args.llm_model)
        if args.show:
            for r in rows:
                for t in r["turns"] if r["type"] == "conversation" else [r]:
                    if not t["right"]:
                        answer = " ".join(t["answer"].split())[:600]
                        print(f"\n[{r['id']}] {t['question']}\n  query: {t['query']}\n  gold "
                              f"{t['gold']} cited {t['cited_labels']} missed "
                              f"{t['missed_facts']}\n  {answer}")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(trimmed(result, args.rows), ensure_ascii=False) + "\n")
    print(f"saved {args.out}")


def trimmed(result: dict[str, Any], every_row: bool = False) -> dict[str, Any]:
    """``result`` with its rows cut to the wrong answers, answers cut to 300 characters
    (every row with ``every_row``): thousands of off-topic refusals say nothing more."""
    out = json.loads(json.dumps(result))
    for domain in out["domains"].values():
        for key, rep in domain.items():
            if isinstance(rep, dict) and "rows" in rep:
                rows = rep["rows"] if every_row else [r for r in rep["rows"] if not r["right"]]
                for r in rows:
                    for t in r["turns"] if r["type"] == "conversation" else [r]:
                        t["answer"] = t["answer"][:300]
                domain[key] = rep | {"rows": rows}
    return out


if __name__ == "__main__":
    main()
