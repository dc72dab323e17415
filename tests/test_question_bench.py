"""The hand-written question sets the answers are measured on (bench/data) and the checker
that keeps them honest (bench/check_questions.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.check_questions import check, copied_run, load_corpus
from bench.domains import FIELDS, Domain, half, load_written
from bench.train_reader import EXTRA

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
# The public corpora the sets were written over live outside the repository (a user's
# clone has none): the checks against them run only where they are.
SHARED = ROOT.parent / "shared" / "bench"

ABSTRACT = (
    "telephone counseling and tailored print communications were compared with usual care. "
    "after one year, 71% of the counseled women were up to date with mammography, against "
    "61% with usual care."
)
CORPUS = {"p1": ABSTRACT, "p2": "an unrelated abstract about knee pain in 40 patients."}


def _item(**fields: Any) -> dict[str, Any]:
    good = {
        "id": "q1",
        "type": "numeric",
        "question": "What share of women given phone support were screened after a year?",
        "answerable": True,
        "gold": ["p1"],
        "key_facts": [["71%"], ["61%", "61% with usual care"]],
    }
    return good | fields


def test_a_good_item_has_no_problems() -> None:
    assert check([_item()], CORPUS, 5) == []
    # an unanswerable near miss needs no gold nor facts
    assert check([_item(answerable=False, gold=[], key_facts=[])], CORPUS, 5) == []


def test_a_question_copying_five_words_of_its_gold_abstract_is_reported() -> None:
    question = "Were the counseled women up to date with mammography?"
    problems = check([_item(question=question)], CORPUS, 5)
    assert problems == ["q1: copies 5 words of the abstract: 'up to date with mammography'"]
    # four shared words in a row are allowed
    assert check([_item(question="Were they up to date after one year?")], CORPUS, 5) == []


def test_copied_run() -> None:
    assert copied_run("Is it Up to date with Mammography?", ABSTRACT, 4) == (
        "up to date with"
    )  # case and punctuation aside
    assert copied_run("Is it up to date with mammography?", ABSTRACT, 6) == ""
    assert copied_run("short", ABSTRACT, 5) == ""


def test_a_key_fact_not_verbatim_in_the_gold_abstract_is_reported() -> None:
    # every spelling must be quotable, not just one of them
    item = _item(key_facts=[["71%"], ["61%", "61 percent"]])
    assert check([item], CORPUS, 5) == [
        "q1: key fact '61 percent' is not verbatim in the gold abstract"
    ]
    # a fact in another paper's abstract does not count for this gold
    assert len(check([_item(key_facts=[["40 patients"]])], CORPUS, 5)) == 1
    # case and spacing aside, it is verbatim
    assert check([_item(key_facts=[["Up  To Date"]])], CORPUS, 5) == []


def test_gold_that_is_missing_or_absent_from_the_corpus_is_reported() -> None:
    assert check([_item(gold=[])], CORPUS, 5) == ["q1: answerable but no gold paper ids"]
    problems = check([_item(gold=["nope"])], CORPUS, 5)
    assert problems == ["q1: gold ids not in the corpus: ['nope']"]


def test_a_duplicate_id_and_a_missing_type_are_reported() -> None:
    problems = check([_item(), _item(), _item(id="q2", type="")], CORPUS, 5)
    assert problems == ["q1: duplicate id", "q2: no type"]


def test_conversations_are_checked_turn_by_turn() -> None:
    first = {k: v for k, v in _item().items() if k not in ("id", "type")}
    second = first | {"question": "And the others?", "key_facts": [["62%"]]}
    conversation = {"id": "c1", "type": "conversation", "turns": [first, second]}
    assert check([conversation], CORPUS, 5) == [
        "c1 turn 2: key fact '62%' is not verbatim in the gold abstract"
    ]
    short = {"id": "c2", "type": "conversation", "turns": [first]}
    assert check([short], CORPUS, 5) == ["c2: a conversation needs two turns or more"]


def test_load_corpus_reads_beir_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "7", "title": "A  Title", "text": "Some TEXT."}\n\n', "utf-8")
    assert load_corpus([path]) == {"7": "a title. some text."}


# --- the shipped sets -----------------------------------------------------------------------

SETS = ["answers_dev.jsonl", "answers_pubmedqa.jsonl", "answers_scifact.jsonl"]


def _turns(item: dict[str, Any]) -> list[dict[str, Any]]:
    return list(item["turns"]) if item["type"] == "conversation" else [item]


@pytest.mark.parametrize("name", SETS)
def test_a_shipped_set_loads_with_unique_ids_and_gold_for_its_facts(name: str) -> None:
    items = load_written(DATA / name)
    assert items and all(item["file"] == name for item in items)
    ids = [item["id"] for item in items]
    assert len(set(ids)) == len(ids)
    assert all(item["type"] for item in items)
    for item in items:
        for turn in _turns(item):
            assert turn["question"].strip(), item["id"]
            if turn.get("answerable") and turn.get("key_facts"):
                assert turn.get("gold"), item["id"]
                assert all(fact and all(alt for alt in fact) for fact in turn["key_facts"])


@pytest.mark.parametrize(
    ("name", "singles"), [("answers_pubmedqa.jsonl", 60), ("answers_scifact.jsonl", 40)]
)
def test_the_other_fields_sets_are_as_large_as_the_issue_asks(name: str, singles: int) -> None:
    items = load_written(DATA / name)
    conversations = [i for i in items if i["type"] == "conversation"]
    assert len(items) - len(conversations) >= singles
    assert sum(len(c["turns"]) >= 2 for c in conversations) >= 12
    # every question of these sets is answerable from its gold abstract by quoting
    for item in items:
        for turn in _turns(item):
            assert turn["answerable"] and turn["gold"] and turn["key_facts"], item["id"]


def test_load_written_fills_id_and_type(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text(
        '{"question": "What is KCache?", "answerable": true, "gold": ["kv"]}\n\n'
        '{"question": "Who won the cup?", "answerable": false}\n'
        '{"id": "x", "question": "Is it?", "answerable": false, "type": "offtopic"}\n',
        encoding="utf-8",
    )
    items = load_written(path)
    assert [(i["id"], i["type"]) for i in items] == [
        ("mine-1", "sample"),
        ("mine-3", "unanswerable"),  # the line number, blank lines counted
        ("x", "unanswerable"),  # the set's own near misses, not another domain's
    ]


def test_half_is_a_fixed_even_split() -> None:
    ids = [item["id"] for name in SETS for item in load_written(DATA / name)]
    halves = [half(i) for i in ids]
    assert set(halves) == {"a", "b"}
    assert 0.35 < halves.count("a") / len(halves) < 0.65
    assert halves == [half(i) for i in ids]  # the same split every run


@pytest.mark.skipif(not SHARED.is_dir(), reason="the public corpora (../shared/bench) are absent")
@pytest.mark.parametrize("name", ["pubmedqa", "scifact"])
def test_the_sets_pass_the_checker_against_their_corpora(name: str) -> None:
    corpus = load_corpus([SHARED / name / "corpus.jsonl"])
    items = load_written(DATA / f"answers_{name}.jsonl")
    assert check(items, corpus, 5) == []


def test_off_topic_questions_are_another_fields_and_none_that_any_library_answers() -> None:
    """A library is asked the other domains' questions as off-topic ones, except those that
    ask about whatever library they are asked of; a general question of the asking
    library's own field (a health question asked of a biomedical library) comes apart."""
    items = [
        {"id": "a", "type": "definition", "question": "What is KCache?"},
        {"id": "b", "type": "overview", "question": "What topics does this library cover?"},
        {"id": "c", "type": "list", "question": "Any surveys?", "any_library": True},
        {"id": "d", "type": "unanswerable", "question": "Flu symptoms?", "field": "biomedical"},
        {"id": "e", "type": "conversation", "turns": [{"question": "What is Llumnix?"}, {}]},
    ]
    off = Domain("sample", "ml-systems", [], items).offtopic()
    assert [(o["question"], o["type"], o["field"]) for o in off] == [
        ("What is KCache?", "offtopic:sample", "ml-systems"),
        ("Flu symptoms?", "offtopic:sample/biomedical", "biomedical"),
        ("What is Llumnix?", "offtopic:sample", "ml-systems"),
    ]
    assert not any(o["answerable"] for o in off)
    marked = [json.loads(line) for line in (DATA / "answers_dev.jsonl").read_text().splitlines()]
    assert {r["id"] for r in marked if r.get("field") == "biomedical"} == {
        "off-003", "off-006", "off-008", "off-010"  # diabetes, mRNA vaccines, caffeine, ankle
    }  # fmt: skip


@pytest.mark.parametrize("name", FIELDS)
def test_each_fields_sets_pass_the_checker_and_its_training_set_is_apart(name: str) -> None:
    """A field's bench questions and its training-only ones (TRAIN_RULES.md: the reader is
    trained on them, nothing is measured on them) hold their facts verbatim in their gold
    abstracts and copy no run of five words; the training set shares no id with the bench's
    and is as large as its rules ask."""
    folder = DATA / "fields" / name
    corpus = load_corpus([folder / "corpus.jsonl"])
    bench, train = load_written(folder / "questions.jsonl"), load_written(folder / EXTRA)
    assert check(bench, corpus, 5) == []
    assert check(train, corpus, 5) == []
    assert not {i["id"] for i in bench} & {i["id"] for i in train}
    kinds = [i["type"] for i in train]
    singles = [k for k in kinds if k not in ("conversation", "unanswerable", "everyday")]
    assert len(singles) >= 80 and kinds.count("conversation") >= 6
    assert kinds.count("unanswerable") >= 12
