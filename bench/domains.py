"""The libraries answers are measured on, each of another field, and their question sets.

A domain is a corpus (what is ingested), the questions written over it (key facts,
conversations), and public questions nobody here wrote (gold papers only). Off-topic
questions for a domain are the other domains' questions, asked of its library. Gold papers
are paper ids; the sample's hand-written sets name them by label, which is also accepted.

- ``sample``: data/sample (32 ML-systems abstracts); bench/data/answers_dev.jsonl and
  tests/data/sample_questions.jsonl.
- ``pubmedqa``: the PubMedQA PQA-L corpus (1,000 abstracts, no titles) from ``--pubmedqa
  DIR``; bench/data/answers_pubmedqa.jsonl and the 500 dev questions (gold: their pubid).
- ``scifact``: the SciFact corpus (5,183 titled abstracts) from ``--scifact DIR``;
  bench/data/answers_scifact.jsonl and the 809 train claims (gold: qrels/train.tsv).
- the ten fields of bench/data/fields/ (:data:`FIELDS`: condensed-matter physics, economics,
  ...; bench/data/fields/SOURCES.md): each folder's ``corpus.jsonl`` (real abstracts with
  titles, authors and years) and ``questions.jsonl``, written over it by writers who saw
  only the abstracts and the rules (key facts, conversations, in-field questions no paper
  answers, type ``unanswerable``, and everyday ones, type ``everyday``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIELDS_DIR = ROOT / "bench" / "data" / "fields"
FIELDS = tuple(sorted(p.name for p in FIELDS_DIR.glob("*") if (p / "questions.jsonl").exists()))
NAMES = ("sample", "pubmedqa", "scifact", *FIELDS)


@dataclass
class Domain:
    name: str
    field: str  # "ml-systems", "biomedical": another field's questions are off-topic for sure
    corpus: list[Path]
    items: list[dict[str, Any]] = field(default_factory=list)  # written + public questions

    def offtopic(self) -> list[dict[str, Any]]:
        """This domain's questions as off-topic ones for another library (one per item: a
        conversation gives its first turn). Left out are the questions that ask about
        whatever library they are asked of: its overviews ("What topics does this collection
        cover?"), answered there by its themes, and the items marked ``any_library`` ("Are
        there any surveys or literature reviews in the collection?"). An item of another
        field than the domain's says so (``field``: the sample's general questions include
        health ones, "What are the usual symptoms of the flu?", which a biomedical library
        may well answer); those come as type ``offtopic:NAME/FIELD``, reported apart, and
        the refusal model is not fitted on them where FIELD is the asking library's."""
        out = []
        for item in self.items:
            if item["type"] == "overview" or item.get("any_library"):
                continue
            first = item["turns"][0] if item["type"] == "conversation" else item
            own = item.get("field", self.field)
            out.append(
                {
                    "id": f"off-{self.name}-{item['id']}",
                    "type": f"offtopic:{self.name}" + (f"/{own}" if own != self.field else ""),
                    "question": first["question"],
                    "answerable": False,
                    "file": item.get("file", ""),
                    "field": own,
                }
            )
        return out


def half(item_id: str) -> str:
    """'a' or 'b': a fixed split of a set by a hash of the id."""
    return "ab"[hashlib.sha256(item_id.encode()).digest()[0] % 2]


def load_written(path: Path) -> list[dict[str, Any]]:
    """A hand-written set: single questions and conversations (bench/answers.py's format)."""
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        rec.setdefault("id", f"{path.stem}-{n}")
        rec.setdefault("type", "sample" if rec.get("answerable") else "offtopic")
        if rec["type"] == "everyday":
            rec["field"] = "general"  # another field's for every library: off-topic for sure
        if rec["type"] == "offtopic":
            rec["type"] = "unanswerable"  # the set's own near misses, not another domain's
        items.append(rec | {"file": path.name})
    return items


def load_pubmedqa(path: Path) -> list[dict[str, Any]]:
    """PubMedQA's questions, answerable from their own abstract (gold: its pubid)."""
    items = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            rec = json.loads(line)
            items.append(
                {
                    "id": f"pqa-{rec['pubid']}",
                    "type": "pubmedqa",
                    "question": rec["question"],
                    "answerable": True,
                    "gold": [str(rec["pubid"])],
                    "file": path.name,
                }
            )
    return items


def load_scifact(folder: Path) -> list[dict[str, Any]]:
    """SciFact's train claims with their gold abstracts (qrels/train.tsv)."""
    gold: dict[str, list[str]] = {}
    for line in (folder / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.strip().split("\t")
        if len(parts) >= 2:
            gold.setdefault(parts[0], []).append(parts[1])
    items = []
    for line in (folder / "queries_train.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip():
            rec = json.loads(line)
            if rec["_id"] in gold:
                items.append(
                    {
                        "id": f"claim-{rec['_id']}",
                        "type": "claim",
                        "question": rec["text"],
                        "answerable": True,
                        "gold": gold[rec["_id"]],
                        "file": "queries_train.jsonl",
                    }
                )
    return items


def domains(
    names: list[str],
    *,
    pubmedqa: Path | None,
    scifact: Path | None,
    question_file: str = "questions.jsonl",
) -> dict[str, Domain]:
    """The named domains with their corpora and questions (a missing data folder is an
    error naming the option that gives it). ``question_file``: the file of each field's folder
    asked (another set written over the same library, such as find_paper_questions.jsonl)."""
    data = ROOT / "bench" / "data"
    public = {  # name -> (its folder, the public questions over it)
        "pubmedqa": (pubmedqa, lambda d: load_pubmedqa(d / "pqal_dev.jsonl")),
        "scifact": (scifact, load_scifact),
    }
    out: dict[str, Domain] = {}
    for name in names:
        if name == "sample":
            written = load_written(data / "answers_dev.jsonl")
            written += load_written(ROOT / "tests" / "data" / "sample_questions.jsonl")
            out[name] = Domain(name, "ml-systems", [ROOT / "data" / "sample"], written)
        elif name in FIELDS:
            path = FIELDS_DIR / name / question_file
            if not path.exists():
                raise SystemExit(f"{path} does not exist: --questions names a file of each field")
            written = load_written(path)
            out[name] = Domain(name, name, [FIELDS_DIR / name / "corpus.jsonl"], written)
        elif name in public:
            folder, questions = public[name]
            if folder is None:
                raise SystemExit(f"--{name} DIR is needed (e.g. ../shared/bench/{name})")
            path = data / f"answers_{name}.jsonl"
            written = load_written(path) if path.exists() else []
            corpus = [folder / "corpus.jsonl"]
            out[name] = Domain(name, "biomedical", corpus, written + questions(folder))
        else:
            raise SystemExit(f"unknown domain {name!r}: choose from {', '.join(NAMES)}")
    return out
