"""Labels of untitled papers: what a label may be, where it comes from, and that it is
unique within a library and stable from one ingest to the next (real embedded store)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ingest.parse.labels import (
    MAX_LABEL_CHARS,
    author_label,
    derive_label,
    label_candidates,
    unique_label,
)
from rag.engine import Engine
from rag.index.connect import open_store
from rag.settings import load_settings
from rag.words import is_date
from ui.cli.main import main

# 30 untitled abstracts of the PubMedQA PQA-L corpus (MIT licence; Jin et al., EMNLP 2019),
# chosen to open in many ways: "The aim of", "The objective of the study was", "In recent
# years", "To date", "Recently", "From March 2007 ...", "In January 2008 ...", "Although",
# "Despite", "We ...", an acronym's definition.
UNTITLED = Path(__file__).parent / "data" / "untitled_abstracts.jsonl"
# What a label must never open with: the stock openings of abstracts.
STOCK = re.compile(
    r"^(?:the\s+)?(?:aims?|objectives?|purposes?|goals?)\b|^(?:in\s+)?recent\s+years\b|"
    r"^to\s+date\b|^recently\b|^this\s+(?:study|paper)\b|^we\b|^background\b|^methods?\b|"
    r"^results?\b|^conclusions?\b|^although\b|^despite\b",
    re.IGNORECASE,
)


def _abstracts() -> list[str]:
    lines = UNTITLED.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def _problem(label: str) -> str:
    if not label.strip():
        return "empty"
    if is_date(label):
        return "a date"
    if STOCK.search(label):
        return "a stock opening"
    if label.endswith("…"):
        return "cut off"
    if len(label) > MAX_LABEL_CHARS:
        return "too long"
    return ""


def test_the_fixture_holds_thirty_varied_abstracts() -> None:
    texts = _abstracts()
    assert len(texts) == 30 and len(set(texts)) == 30
    # the openings the rules are about are really there
    for opening in (
        "The aim of",
        "The objective of the study was",
        "In recent years",
        "To date",
        "From March 2007",
    ):
        assert any(t.startswith(opening) for t in texts), opening


def test_real_abstracts_labels_and_fallbacks_follow_the_rules() -> None:
    problems = {}
    for text in _abstracts():
        # every candidate, not just the first: the others are what a clash falls back to
        for label in label_candidates(text, authors=["Ann Smith"], year=2001):
            if _problem(label):
                problems[label] = _problem(label)
    assert problems == {}


def test_real_abstracts_get_distinct_labels() -> None:
    labels = [derive_label(text) for text in _abstracts()]
    assert all(labels)
    assert len(set(labels)) == len(labels), sorted(labels)


@pytest.mark.parametrize(
    "abstract",
    [
        "In recent years, large language models have grown. To date, serving them remains "
        "costly for most groups.",
        "To date, no prospective study has compared these scans. The objective of the study "
        "was to determine whether home visits reduce readmission of elderly heart failure "
        "patients.",
        "From December 2009 to March 2011, the clinic treated patients with chronic wounds "
        "using negative pressure therapy.",
    ],
)
def test_stock_openings_and_dates_never_become_the_label(abstract: str) -> None:
    label = derive_label(abstract)
    assert label and not _problem(label), label


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # a topic ends where the study's next infinitive begins, not inside it
        (
            "To determine current practice and to assess the value of routine follow-up "
            "procedures for endometrial cancer surveillance. Records of 282 women were read.",
            "Current practice",
        ),
        (
            "We surveyed internet use amongst young people to determine how often they seek "
            "health advice online. Nine schools took part.",
            "Internet use amongst young people",
        ),
        # "the present study" and "the authors" are the study speaking, not its topic
        (
            "The present study aims to evaluate the benefit of adding surgery to "
            "chemoradiation in esophageal carcinoma. Sixty patients were followed.",
            "Benefit of adding surgery",
        ),
        (
            "The authors examined the equivalence of wandering measures in dementia care. "
            "Two scales were compared.",
            "Equivalence of wandering measures",
        ),
        # a verb of research opening the topic is left out
        (
            "The purpose was to evaluate the capability of different computed tomography "
            "protocols. Forty scans were read.",
            "Capability of different computed tomography",
        ),
        # "our study sought to compare ..." is the study speaking too
        (
            "Francophones may experience poorer health. Our study sought to compare mental "
            "health indicators between Francophones and non-Francophones living in Manitoba.",
            "Mental health indicators",
        ),
    ],
)
def test_a_label_is_the_topic_not_the_studys_own_words(abstract: str, label: str) -> None:
    got = derive_label(abstract)
    assert got.startswith(label) and not _problem(got), got
    assert not re.search(r"\bto (?:determine|assess|compare|evaluate)\b", got), got


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # an abbreviation or a decimal cut at its point leaves no letter behind
        (
            "The aim of this study was to investigate the influence of the pharmacokinetics "
            "of s.c. anti-TNF drugs on the response. Forty patients took part.",
            "Influence of the pharmacokinetics",
        ),
        (
            "The aim was to assess current views of U.S. surgeons on hernia repair. "
            "A survey was sent.",
            "Current views",
        ),
        # ... but a letter that ends the phrase is kept
        (
            "The aim of this study was to assess the burden of hepatitis C. Registries were read.",
            "Burden of hepatitis C",
        ),
        # a subject ends before its verb
        (
            "Kidneys from elderly donors tend to be implanted in elderly recipients. We "
            "reviewed 500 transplants.",
            "Kidneys from elderly donors",
        ),
    ],
)
def test_a_label_ends_on_a_whole_word_of_its_topic(abstract: str, label: str) -> None:
    got = derive_label(abstract)
    assert got == label and not _problem(got), got


def test_the_introduced_name_wins() -> None:
    abstract = (
        "The aim of this work was to evaluate memory use in serving. We propose KCache, a "
        "technique that keeps the cache on the host. KCache raises throughput by 40%."
    )
    assert derive_label(abstract, authors=["Qiaozhi He"], year=2024) == "KCache"
    assert label_candidates(abstract)[0] == "KCache"


def test_an_aim_sentence_gives_its_topic() -> None:
    label = derive_label(
        "The aim of this study was to evaluate the effectiveness of acupuncture in treating "
        "vocal fold lesions. Forty singers were randomized to acupuncture or sham needling."
    )
    assert label.startswith("Effectiveness of acupuncture")
    label = derive_label(
        "To determine whether tailored telephone counseling raises mammography use in women "
        "over 50. Women were randomized to counseling, print or usual care."
    )
    assert label.startswith("Tailored telephone counseling")


def test_without_usable_text_the_authors_and_year_label_the_paper() -> None:
    authors = ["John Smith", "Ann Jones", "Bo Li"]
    assert derive_label("", authors=authors, year=2019) == "Smith et al., 2019"
    # a date and numbers give no topic
    dated = "From December 2009 to March 2011, 88 were seen."
    assert derive_label(dated, authors=["Smith, John"], year=2011) == "Smith, 2011"
    assert derive_label("", authors=[], year=2011) == ""  # the caller shows the id
    # the authors' label is the last fallback of a paper that has a topic
    cands = label_candidates("We propose KCache, a cache.", authors=authors, year=2019)
    assert cands[0] == "KCache" and cands[-1] == "Smith et al., 2019"


def test_author_label_formats() -> None:
    assert author_label(["John Smith"], 2019) == "Smith, 2019"
    assert author_label(["John Smith", "Ann Jones"], 2019) == "Smith and Jones, 2019"
    assert author_label(["John Smith", "Ann Jones", "Bo Li"], 2019) == "Smith et al., 2019"
    assert author_label(["Smith, John", "Jones, Ann"], 2019) == "Smith and Jones, 2019"
    assert author_label(["Smith, John"], None) == "Smith"
    assert author_label([], 2019) == "" and author_label(["  "], 2019) == ""


def test_unique_label_takes_the_first_free_fallback_then_numbers() -> None:
    taken = {"Topic", "Second"}.__contains__
    assert unique_label("Free", taken, fallback=["Second"]) == "Free"
    assert unique_label("Topic", taken, fallback=["Second", "", "Third", "Fourth"]) == "Third"
    assert unique_label("Topic", taken, fallback=["Second"]) == "Topic (2)"
    assert unique_label("Topic", {"Topic", "Topic (2)"}.__contains__, fallback=[]) == "Topic (3)"


# --- in a library: the real embedded store ---------------------------------------------------

VOCAL = (
    "The aim of this study was to evaluate the effectiveness of acupuncture in treating "
    "vocal fold nodules. Forty singers were randomized to acupuncture or sham needling. "
    "Voice quality improved significantly after acupuncture (p < 0.01)."
)
KNEE = (
    "The aim of this study was to evaluate the effectiveness of acupuncture in relieving "
    "chronic knee pain. Elderly patients with osteoarthritis were recruited from two clinics. "
    "Pain scores fell in both groups."
)


def _jsonl(path: Path, records: dict[str, str]) -> Path:
    lines = [json.dumps({"id": pid, "abstract": text}) + "\n" for pid, text in records.items()]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _ingest(path: Path, data: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["ingest", str(path), "--data-dir", str(data), "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _labels(data: Path) -> dict[str, str]:
    _, rows = Engine.from_settings(load_settings(data_dir=data)).papers()
    return {row.id: row.label for row in rows}


def test_two_papers_with_the_same_first_label_get_different_ones_and_keep_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the premise: both abstracts would take the same label on their own
    assert derive_label(VOCAL) == derive_label(KNEE) == "Effectiveness of acupuncture"
    data = tmp_path / "lib"
    path = _jsonl(tmp_path / "papers.jsonl", {"vocal": VOCAL, "knee": KNEE})
    assert _ingest(path, data, capsys)["added"] == 2
    labels = _labels(data)
    assert labels["vocal"] == "Effectiveness of acupuncture"  # the first in the file keeps it
    assert labels["knee"] != labels["vocal"] and labels["knee"] in label_candidates(KNEE)
    # the same file again: the same labels, so nothing looks changed and nothing is embedded
    report = _ingest(path, data, capsys)
    assert (report["unchanged"], report["added"], report["updated"]) == (2, 0, 0)
    assert report["chunks_written"] == 0
    assert _labels(data) == labels


def test_a_label_held_in_the_library_is_not_given_again_by_a_later_ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "lib"
    first = _jsonl(tmp_path / "first.jsonl", {"vocal": VOCAL})
    second = _jsonl(tmp_path / "second.jsonl", {"knee": KNEE})
    _ingest(first, data, capsys)
    store = open_store(load_settings(data_dir=data))
    held = store.label_holders(["Effectiveness of acupuncture", "Nobody's label"])
    assert held == {"Effectiveness of acupuncture": {"vocal"}}
    _ingest(second, data, capsys)
    labels = _labels(data)
    assert labels["vocal"] == "Effectiveness of acupuncture"
    assert labels["knee"] not in ("", labels["vocal"])
    # each file again, in the other order: labels and stored papers stay as they were
    assert _ingest(second, data, capsys)["unchanged"] == 1
    assert _ingest(first, data, capsys)["unchanged"] == 1
    assert _labels(data) == labels


def test_when_every_candidate_is_held_the_paper_id_labels_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # four near copies: the same candidates, taken one by one, then the id
    records = {
        f"copy-{n}": f"{VOCAL} {extra}"
        for n, extra in enumerate(["", "It was funded.", "It was registered.", "It was blinded."])
    }
    assert len({tuple(label_candidates(t)) for t in records.values()}) == 1
    candidates = label_candidates(VOCAL)
    assert len(candidates) == 3
    data = tmp_path / "lib"
    _ingest(_jsonl(tmp_path / "copies.jsonl", records), data, capsys)
    assert _labels(data) == {
        "copy-0": candidates[0],
        "copy-1": candidates[1],
        "copy-2": candidates[2],
        "copy-3": "copy-3",
    }
