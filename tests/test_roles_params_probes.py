"""What part a sentence plays (rag.answer.roles), the answerer's learnt parameters
(rag.answer.params) and the library's noise floor (rag.answer.probes, Engine.noise_floor)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ingest.ingester import Ingester
from rag.answer import params, rank
from rag.answer.gather import Evidence
from rag.answer.probes import NOISE_QUANTILE, PROBES, noise_floor
from rag.answer.roles import ROLES, heading, roles
from rag.engine import NOISE_FILE, Engine
from rag.retrieve import Retriever
from rag.sentences import split_sentences
from rag.settings import load_settings

# --- roles --------------------------------------------------------------------------------


def test_a_structured_abstract_gives_each_sentence_its_heading_role() -> None:
    sentences = [
        "BACKGROUND: Falls are common in the elderly.",
        "Their cost is high.",
        "METHODS: We enrolled 200 residents.",
        # a result's cue under a methods heading: the heading decides
        "Falls were significantly fewer in the pilot (p < 0.01).",
        "RESULTS: Falls fell by 30%.",
        "These findings suggest that exercise works.",  # a conclusion's cue under RESULTS
        "CONCLUSIONS: Exercise prevents falls.",
        "It should be offered to every resident.",
    ]
    assert roles(sentences) == (
        "background",
        "background",
        "method",
        "method",
        "result",
        "result",
        "conclusion",
        "conclusion",
    )


def test_headings_in_capitals_without_a_colon_and_in_title_case() -> None:
    caps = split_sentences(
        "OBJECTIVE To test a drug. METHODS Forty patients took it. RESULTS Of 40 patients, "
        "12 improved. CONCLUSIONS The drug helps."
    )
    assert roles(caps) == ("aim", "method", "result", "conclusion")
    assert heading("RESULTS Of 40 patients, 12 improved.") == (
        "result",
        "Of 40 patients, 12 improved.",
    )
    titled = [
        "Background: Falls are common.",
        "Methods: Residents.",
        "Results: Fewer falls.",
        "Conclusions: Exercise works.",
    ]
    assert roles(titled) == ("background", "method", "result", "conclusion")
    assert heading("Results: Falls fell.") == ("result", "Falls fell.")


@pytest.mark.parametrize(
    ("sentence", "role", "rest"),
    [
        ("DESIGN, SETTING, AND PATIENTS A phase 1/2 randomized comparison.", "method",
         "A phase 1/2 randomized comparison."),
        ("Design, setting, and participants: A cohort of 398.", "method", "A cohort of 398."),
        ("MAIN OUTCOMES AND MEASURES The primary outcome was death.", "method",
         "The primary outcome was death."),
        ("STUDY DESIGN, SIZE AND DURATION Prospective cohort study.", "method",
         "Prospective cohort study."),
        ("CONCLUSIONS AND RELEVANCE In this trial, it helped.", "conclusion",
         "In this trial, it helped."),
    ],
)  # fmt: skip
def test_jama_style_headings_that_list_several_names(sentence: str, role: str, rest: str) -> None:
    """A heading listing several names takes the first one's role: the sentences under
    "DESIGN, SETTING, AND PATIENTS" had kept the role of the "OBJECTIVE" before them, and
    a "how many patients" question never quoted the one giving the number."""
    assert heading(sentence) == (role, rest)
    assert roles(["OBJECTIVE To test a drug.", sentence])[1] == role


@pytest.mark.parametrize(
    ("sentence", "role", "rest"),
    [
        ("RESULTS miR-375 was down-regulated in HCC cells.", "result",
         "miR-375 was down-regulated in HCC cells."),
        ("MATERIALS/METHODS The effect was estimated.", "method", "The effect was estimated."),
        ("BACKGROUND & AIMS Tumor cells survive hypoxia.", "background",
         "Tumor cells survive hypoxia."),
        ("DESIGNER drugs are sold online.", "", "DESIGNER drugs are sold online."),
    ],
)  # fmt: skip
def test_headings_in_capitals_before_any_word(sentence: str, role: str, rest: str) -> None:
    """A heading in capitals is one before a lower-case word too ("RESULTS miR-375"), when
    it is one whole heading name; names joined by "/" or "&" take the first one's role."""
    assert heading(sentence) == (role, rest)


def test_a_lone_heading_labels_its_sentence_and_the_cues_read_the_rest() -> None:
    """An abstract with one heading left in its running text ("AIM:") is not structured:
    the sentences after the aim are read by their cues, not all taken for the aim (a "how
    many" question, which leaves aims out, never quoted "4 of 90 pterygia harboured HPV")."""
    sentences = [
        "Pterygium is a disease of unknown origin.",
        "AIM: To investigate pterygia for the presence of HPV.",
        "Specimens from 100 patients were examined by PCR.",
        "4 of 90 pterygia harboured HPV.",
        "HPV type 6 was identified in all four HPV-positive pterygia.",
    ]
    assert roles(sentences) == ("background", "aim", "method", "result", "result")
    structured = ["OBJECTIVE To test a drug.", "It is new.", "RESULTS It worked."]
    assert roles(structured) == ("aim", "aim", "result")


@pytest.mark.parametrize(
    "sentence",
    ["DNA is a molecule.", "HIV: a review.", "The results were mixed.", "Results",
     "Patients, treated well, improved.", "DNA, RNA AND PROTEIN Levels rose."],
)  # fmt: skip
def test_a_sentence_that_only_starts_like_a_heading_is_none(sentence: str) -> None:
    assert heading(sentence) == ("", sentence)


def test_an_unstructured_abstract_is_read_by_its_cues() -> None:
    aims = [
        "The aim of this study was to evaluate acupuncture for vocal fold lesions.",
        "To determine whether home visits reduce readmission.",
    ]
    for aim in aims:
        sentences = [
            "Vocal fold lesions are common in singers.",
            aim,
            "Patients were randomized to acupuncture or sham needling.",
            "Voice quality was significantly higher after acupuncture (p < 0.01).",
            "These findings suggest that acupuncture helps.",
        ]
        assert roles(sentences) == ("background", "aim", "method", "result", "conclusion")


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("Overall, 79% of study participants had at least one risk factor.", "result"),
        ("Overall survival at 5 years was 78% and was not influenced by PPM (P = .4).", "result"),
        ("Therefore, the sensitivity of the test was only 25%.", "result"),
        ("Overall, these findings suggest that 30% of cases could be prevented.", "conclusion"),
        ("Overall, the programme helps smokers quit.", "conclusion"),
    ],
)  # fmt: skip
def test_a_measured_figure_is_a_result_whatever_the_sentence_opens_with(
    sentence: str, role: str
) -> None:
    """A sentence like "Overall, 79% ..." reports what was measured: a "what share"
    question is answered by it among the results, not passed over as a conclusion; saying
    what a figure means ("suggest that") keeps it a conclusion."""
    sentences = [
        "Risk factors were surveyed in a rural district.",
        "A total of 574 adults were randomly sampled.",
        sentence,
    ]
    assert roles(sentences)[-1] == role


def test_here_we_show_is_a_result_not_an_aim() -> None:
    sentences = [
        "Telomeres shorten with age.",
        "Here we show that telomerase restores length.",
        "These findings suggest a therapy.",
    ]
    assert roles(sentences) == ("background", "result", "conclusion")
    # whereas "here we propose" states the aim
    assert roles(["Telomeres shorten.", "Here we propose a way to restore them."])[1] == "aim"


def test_a_heading_joining_methods_and_findings_holds_methods_then_results() -> None:
    """PLoS Medicine's "METHODS AND FINDINGS" (and "Methods and Results") hold both: the
    sentences under it are methods until the first result cue, not all methods ("All six
    animals that received intermittent PrEP were protected" answers "did it protect?")."""
    sentences = [
        "BACKGROUND Pre-exposure prophylaxis could prevent infection.",
        "METHODS AND FINDINGS We used a repeat-exposure macaque model.",
        "Six macaques received the regimen before each challenge.",
        "All six animals were protected, a significantly lower infection rate (p < 0.01).",
        "The animals stayed uninfected for 14 weeks.",
        "CONCLUSIONS Intermittent dosing can protect.",
    ]
    assert roles(sentences) == (
        "background", "method", "method", "result", "result", "conclusion"
    )  # fmt: skip
    plain = ["BACKGROUND Aims.", "METHODS We used a model.", "All six were protected (p < 0.01)."]
    assert roles(plain)[-1] == "method"  # under "METHODS" alone, what the heading says


def test_a_count_of_what_was_found_is_a_result() -> None:
    """ "4 of 90 pterygia harboured HPV" reports what was found ("how many tested
    positive?"), whatever verb it says it with; a count inside a method sentence is not."""
    sentences = [
        "To test pterygia for HPV.",
        "Specimens were investigated with PCR.",
        "4 of 90 pterygia harboured HPV.",
    ]
    assert roles(sentences) == ("aim", "method", "result")
    assert roles(["To test pterygia.", "We analysed 20 of 25 centres' records."])[1] == "method"


def test_after_the_first_result_everything_but_a_conclusion_is_a_result() -> None:
    sentences = [
        "We aimed to test a drug.",
        "Pain fell by 40% (p < 0.01).",
        "Patients were randomized in blocks.",
        "In conclusion, the drug helps.",
    ]
    out = roles(sentences)
    assert out == ("aim", "result", "result", "conclusion")
    assert set(out) <= set(ROLES)


# --- params -------------------------------------------------------------------------------


def test_the_shipped_parameters_hold_every_weight_the_answerer_reads() -> None:
    loaded = params.load()
    assert set(rank.FEATURES) <= set(loaded.ranker)
    evidence = Evidence(dense=0.5, margin=0.1, coverage=0.5, focus=0.5, gap=0.1, local=0.5,
                        sentence=0.2, unknown=())  # fmt: skip
    assert {*evidence.features(), "bias", "threshold"} <= set(loaded.evidence)
    assert "floor" in loaded.prose
    assert all(np.isfinite(list(loaded.ranker.values())))
    assert loaded.fitted_on  # the libraries they were fitted on are named
    assert params.Params.from_json(loaded.to_json()) == loaded
    # the file is what load() reads
    on_disk = json.loads(params.PATH.read_text(encoding="utf-8"))
    assert loaded.ranker["bias"] == pytest.approx(on_disk["ranker"]["bias"])


def test_use_swaps_the_parameters_the_ranker_scores_with() -> None:
    original = params.current()
    rows = np.eye(len(rank.FEATURES), dtype=np.float32)  # row i: feature i alone
    before = rank.score(rows)
    doubled = original.to_json()
    doubled["ranker"] = {k: 2 * v for k, v in original.ranker.items()}
    try:
        params.use(doubled)  # a mapping, as bench/fit_answers.py writes it
        assert params.current().ranker == doubled["ranker"]
        assert np.allclose(rank.score(rows), 2 * before)
        params.use(original)  # a Params too
        assert params.current() is original
    finally:
        params.use(original)
    assert np.allclose(rank.score(rows), before)


# --- probes -------------------------------------------------------------------------------


def test_the_noise_floor_is_the_90th_percentile_of_the_probes_best_scores() -> None:
    scores = {probe: (n % 10) / 10 for n, probe in enumerate(PROBES)}
    asked: list[str] = []

    def best(question: str) -> float | None:
        asked.append(question)
        return scores[question]

    value = noise_floor(best)
    assert asked == list(PROBES)
    assert NOISE_QUANTILE == 90
    assert value == pytest.approx(float(np.percentile(list(scores.values()), 90)))
    assert 0.8 <= value <= 0.9  # the tenth of highest scores, not the top nor the middle


def test_probes_that_find_nothing_are_left_out_and_none_found_is_zero() -> None:
    assert noise_floor(lambda q: None) == 0.0
    # only found scores count: a probe that finds nothing is no score of 0
    half = {p: (0.5 if n % 2 else None) for n, p in enumerate(PROBES)}
    assert noise_floor(half.__getitem__) == pytest.approx(0.5)


def test_probes_are_off_topic_everyday_questions() -> None:
    assert len(PROBES) >= 20 and len(set(PROBES)) == len(PROBES)
    assert all(p.endswith("?") for p in PROBES)


# --- the engine's noise floor on the real sample library ------------------------------------


def _counting_search(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = Retriever.search

    def search(self: Retriever, query: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(query)
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(Retriever, "search", search)
    return calls


def test_the_engine_measures_the_noise_floor_once_per_library_version(
    sample_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_dir: Path
) -> None:
    data = tmp_path / "lib"
    shutil.copytree(sample_index, data)  # the shared sample index stays as it is
    settings = load_settings(data_dir=data, llm="extractive")
    engine = Engine.from_settings(settings)
    saved = engine.retriever.index.directory / NOISE_FILE
    saved.unlink(missing_ok=True)  # other tests' answers may have measured it already
    calls = _counting_search(monkeypatch)

    floor = engine.noise_floor()
    assert isinstance(floor, float) and 0.0 < floor < 1.0
    assert sorted(calls) == sorted(PROBES)  # each probe searched once
    record = json.loads(saved.read_text(encoding="utf-8"))
    assert record == {
        "generation": engine.retriever.index.generation,
        "probes": len(PROBES),
        "floor": floor,
    }
    assert engine.noise_floor() == floor and len(calls) == len(PROBES)  # kept in memory

    # another engine over the same library reads it, searching nothing
    calls.clear()
    again = Engine.from_settings(settings)
    assert again.noise_floor() == floor
    assert calls == []

    # one more paper: a new version of the library, measured afresh
    paper = tmp_path / "more.jsonl"
    paper.write_text(
        json.dumps(
            {
                "id": "extra",
                "abstract": "We propose ZetaServe, a serving system for "
                "large language models that batches requests across GPUs.",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    before = engine.retriever.index.generation
    report = Ingester(engine).ingest([paper])
    assert report.added == 1
    assert engine.retriever.index.generation != before
    calls.clear()
    measured = engine.noise_floor()
    assert sorted(calls) == sorted(PROBES)
    assert 0.0 < measured < 1.0
    assert json.loads(saved.read_text(encoding="utf-8"))["generation"] == (
        engine.retriever.index.generation
    )
