"""Answers that say the answer: question types, names, sentence ranking, follow-ups, and the
answer shapes end to end on the sample corpus with the shipped embedder."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rag.answer import extractive, params, quantities, rank
from rag.answer.events import Answer
from rag.answer.followup import Turn, is_followup, rewrite_followup
from rag.answer.prompts import EXTRACTIVE_NOTE, NO_ANSWER
from rag.answer.question import Names, analyse, split_parts
from rag.engine import Engine
from rag.records import PaperRow
from rag.settings import load_settings
from rag.terms import terms
from ui.app import App
from ui.cli.main import main


def _row(
    pid: str,
    label: str,
    authors: tuple[str, ...] = (),
    title: str = "",
    coined: str = "",
    acronyms: tuple[str, ...] = (),
) -> PaperRow:
    return PaperRow(id=pid, label=label, title=title, authors=authors, year=None, source="s",
                    position=0, n_chunks=1, coined=coined, acronyms=acronyms)  # fmt: skip


ROWS = [
    _row("e3", "ERNIE 3.0", ("Yu Sun", "Shuohuan Wang"), coined="ERNIE 3.0"),
    _row("titan", "ERNIE 3.0 Titan", ("Shuohuan Wang",), coined="ERNIE 3.0 Titan"),
    _row("llumnix", "Llumnix", coined="Llumnix"),
    _row("inf", "Infinite-LLM", coined="Infinite-LLM"),
    _row("kv", "KCache", ("Qiaozhi He", "Zhihua Wu"), coined="KCache"),
    _row("dtf", "Distributed training framework", ("Yulong Ao", "Zhihua Wu")),
    _row("bm", "Big Models"),
    _row("rev", "Literature review on the progressive development…"),
    _row("dec", "From December 2009"),  # an untitled abstract's old label: no name at all
    _row("osce", "Student examiners", acronyms=("OSCE", "EM")),
    _row("sched", "", title="Orca: A Distributed Serving System for Transformer Models"),
    _row("mnn", "MNN", title="MNN"),
    _row("obese", "Obesity", title="Obesity"),
]
NAMES = Names(ROWS)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is Llumnix?", "definition"),
        ("Can you explain what KCache is?", "definition"),
        ("By how much does KCache raise throughput?", "numeric"),
        ("What speedup does Llumnix reach?", "numeric"),
        ("How does Llumnix move requests between instances?", "how"),
        ("Which papers are about LLM serving?", "list"),
        ("Are there any surveys in the collection?", "list"),
        ("Compare Llumnix and Infinite-LLM.", "comparison"),
        ("Llumnix vs Infinite-LLM: what differs?", "comparison"),
        ("What did Zhihua Wu work on?", "author"),
        ("Papers by Qiaozhi He?", "author"),
        ("Summarize the papers in this collection.", "overview"),
        ("What topics does this library cover?", "overview"),
        # asking what a term stands for, whatever statistic or "how long" follows
        ("What does SHSe mean in the Houston NICU family smoking study?", "definition"),
        ("What does ANN refer to in the study of how long children stay?", "definition"),
        ("What was the mean age of the patients?", "numeric"),
        # a follow-up asking for a measure by its name alone
        ("And the doses?", "numeric"),
        ("What about the follow-up duration?", "numeric"),
        ("And the other group?", "how"),
    ],
)
def test_question_types(question: str, kind: str) -> None:
    assert analyse(question, NAMES).kind == kind


def test_names_are_distinctive_names_found_longest_first() -> None:
    assert NAMES.named("What is ERNIE 3.0 Titan?") == ["titan"]
    assert NAMES.named("Compare ERNIE 3.0 and ERNIE 3.0 Titan") == ["e3", "titan"]
    assert NAMES.named("How does it compare with Llumnix? Infinite-LLM") == ["llumnix", "inf"]
    assert NAMES.named("what's kcache?") == ["kv"]  # a coined name, whatever its case
    # A title names its paper, whole or by its head before the colon.
    assert NAMES.named("What is Orca?") == ["sched"]
    assert NAMES.named("what's MNN?") == ["mnn"]  # a short title that is a name
    assert NAMES.named("Does obesity raise the risk?") == []  # one that is an ordinary word
    assert NAMES.named("the paper orca a distributed serving system for transformer models") == [
        "sched"
    ]
    assert NAMES.authors("What did zhihua wu work on?") == ["zhihua wu"]
    assert NAMES.papers_by("zhihua wu") == ["kv", "dtf"]


def test_ordinary_words_dates_and_topic_labels_name_nothing() -> None:
    assert NAMES.named("How big is the Titan version?") == []  # "titan" is an English word
    assert NAMES.named("Where did the patients come from in December 2009?") == []
    assert NAMES.named("What does the distributed training framework provide?") == []
    assert NAMES.named("How are big models trained?") == []
    assert NAMES.named("Literature review on the progressive development") == []
    assert analyse("Which papers are from 2009?", NAMES).named == ()


def test_acronyms_point_at_the_papers_defining_them_with_their_case() -> None:
    assert NAMES.by_acronym("What does OSCE stand for?") == ["osce"]
    assert NAMES.by_acronym("what does osce stand for?") == []
    assert NAMES.named("What does OSCE stand for?") == []  # weaker than a name: not "named"
    question = analyse("What does OSCE stand for in the examiner study?", NAMES)
    assert question.kind == "definition" and question.defined == ("osce",)


def test_a_name_many_papers_use_or_share_names_none() -> None:
    rows = [_row(f"p{i}", "x", coined="DNA") for i in range(2)] + [_row("no", "y", coined="NO")]
    used = {"DNA": 40, "NO": 1}
    names = Names(rows, mentions=lambda name: used.get(name, 1))
    assert names.named("Does DNA damage matter?") == []  # mentioned by 40 papers
    assert names.named("Is there no treatment?") == []  # "no" in lower case is a word
    assert names.named("Is NO released?") == ["no"]  # matched with its case
    shared = Names([_row(f"s{i}", "z", coined="Zeta-9") for i in range(4)])
    assert shared.named("What is Zeta-9?") == []  # four papers give themselves that name


def test_two_part_questions_are_split() -> None:
    assert split_parts("What is KCache and how much does it improve throughput?") == [
        "What is KCache",
        "how much does it improve throughput",
    ]
    assert split_parts("What is KCache?") == ["What is KCache"]
    assert analyse("What is KCache and how fast is it?", NAMES).parts[1] == "how fast is it"


def _rank(question: str, sentences: list[str], named: tuple[str, ...] = ()) -> list[str]:
    """The sentences, best first, at equal similarity to the question."""
    q = analyse(question, NAMES)
    q = type(q)(text=q.text, kind=q.kind, named=named, authors=q.authors, parts=q.parts)
    cands = [rank.Candidate(s, "kv", "KCache", i + 1, len(sentences) + 1, 1)
             for i, s in enumerate(sentences)]  # fmt: skip
    scores = rank.score(rank.features(q, cands, np.full(len(cands), 0.5, dtype=np.float32)))
    return [sentences[i] for i in np.argsort(-scores, kind="stable")]


def test_ranking_prefers_the_sentence_the_question_asks_for() -> None:
    background = "Large language models have had a profound impact on many applications."
    intro = "We propose KCache, a novel technique that keeps the KV cache on the CPU."
    figure = "Experiments show that KCache improves throughput by 40% over the baseline."
    url = "The code is available at https://github.com/example/kcache."
    both = [background, intro, figure, url]
    assert _rank("What is KCache?", both, ("kv",))[0] == intro
    assert _rank("How much does KCache improve throughput?", both, ("kv",))[0] == figure
    assert _rank("What is KCache?", both, ("kv",))[-1] in (url, background)
    code = analyse("Where can I get the code of KCache?", NAMES)
    assert rank.asks_code(code) and rank.gives_code(url) and not rank.gives_code(figure)


def test_a_yes_or_no_question_is_answered_by_the_sentence_saying_whether_it_differed() -> None:
    """ "Did treadmill training beat a weekly phone call on depression or mobility?" repeats
    the methods' words; the result saying yes or no ("No significant difference was found")
    holds none of them, and is the answer: the feature marks it for a yes or no question
    only, and lifts it by its shipped weight."""
    methods = [
        "Twenty individuals post stroke who acknowledged walking slower than before.",
        "Twelve 20-minute sessions of walking on a treadmill or a weekly phone call.",
        "Depression, mobility and social participation were assessed at the end.",
    ]
    verdict = "No significant difference was found between groups for any dependent measure."
    cands = [rank.Candidate(text, "p", "P", i, 5, 1, role) for i, (text, role) in
             enumerate([*((m, "method") for m in methods), (verdict, "result")], 1)]  # fmt: skip
    col = rank.FEATURES.index("verdict_yes_no")

    asked = "Did treadmill training beat a weekly phone call on depression or mobility?"
    rows = rank.features(analyse(asked, NAMES), cands, np.full(4, 0.5, np.float32))
    scores = rank.score(rows)
    assert cands[int(np.argmax(scores))].text == verdict
    assert rows[:, col].tolist() == [0, 0, 0, 1]
    without = rows.copy()
    without[:, col] = 0.0
    lift = float(scores[3] - rank.score(without)[3])
    assert lift == pytest.approx(params.current().ranker["verdict_yes_no"], abs=1e-5) and lift > 0
    what = "What was found on treadmill training versus phone calls for mobility?"
    rows = rank.features(analyse(what, NAMES), cands, np.full(4, 0.5, np.float32))
    assert rows[:, col].tolist() == [0, 0, 0, 0]  # not a yes or no question


def test_a_short_sentence_is_a_fragment_only_without_a_figure() -> None:
    """ "Outpatient stroke centre." is a fragment of a structured abstract; "4 of 90
    pterygia harboured HPV." is a whole finding, however short."""
    texts = ["Outpatient stroke centre.", "4 of 90 pterygia harboured HPV."]
    cands = [rank.Candidate(t, "p", "P", i, 5, 1, "result") for i, t in enumerate(texts, 1)]
    rows = rank.features(analyse("How many tested positive?"), cands, np.full(2, 0.5, np.float32))
    assert rows[:, rank.FEATURES.index("short")].tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What share of adults had one or more risk factors for heart disease?", "share"),
        ("How many of the pterygium samples tested positive for HPV?", "share"),
        ("In what percentage of tumours was the protein missing?", "share"),
        ("How long were the children followed up?", "duration"),
        ("What was the median survival after relapse?", "duration"),
        ("And the doses?", "dose"),
        ("How much faster is it than the baseline?", "ratio"),
        ("What was the hazard ratio for all-cause mortality?", "effect"),
        ("What adjusted HR for progressing to AIDS did they find?", "effect"),
        ("Was it given in the morning or at night?", ""),  # "or" is no odds ratio
        ("How many patients were enrolled?", ""),  # a count: any figure by its words
        ("What was the mean score?", ""),
    ],
)
def test_a_numeric_question_asks_for_a_kind_of_figure(question: str, kind: str) -> None:
    assert quantities.asked_quantity(question) == kind


@pytest.mark.parametrize(
    ("text", "kind", "states"),
    [
        ("Overall, 79% of study participants had at least one CVD risk factor.", "share", True),
        ("4 of 90 pterygia harboured HPV.", "share", True),
        ("One in five patients relapsed.", "share", True),
        ("A total of 574 adults aged 18-65 years were sampled.", "share", False),
        # a confidence interval's or p-value's percentages are no share
        ("A higher risk (OR 1.94, 95% CI 1.15-3.26%, p = 0.013).", "share", False),
        ("Median survival was 35 months versus 13 months.", "duration", True),
        ("Groups 3 and 4 received 6 and 12 mg/kg edaravone.", "dose", True),
        ("Twenty-eight rats were allocated to 4 groups.", "dose", False),
        ("It achieves 2.2x higher throughput.", "ratio", True),
        ("It raised mortality (HR: 1.74; 95% CI: 1.13-2.65).", "effect", True),
        ("The adjusted odds ratio was 9.80.", "effect", True),
        ("It was given to 12 or 13 patients.", "effect", False),
        ("It achieves 2.2x higher throughput.", "", False),
    ],
)
def test_a_sentence_states_a_kind_of_figure(text: str, kind: str, states: bool) -> None:
    assert quantities.states_quantity(text, kind) is states


def test_a_share_question_quotes_the_proportion_not_the_sample_size() -> None:
    """The sentence describing the sample shares the question's words ("adults") and has a
    figure by them; the share asked for is in another: the unit feature marks only that one,
    and lifts it by the shipped weight."""
    texts = [
        "A total of 574 adults aged between 18-65 years were randomly sampled.",
        "Overall, 79% of study participants were found to have at least one CVD risk factor.",
    ]
    cands = [rank.Candidate(t, "p", "P", i, 5, 1, r) for i, (t, r) in
             enumerate(zip(texts, ["method", "result"], strict=True), 1)]  # fmt: skip
    q = analyse("What share of adults had one or more risk factors?", NAMES)
    assert q.kind == "numeric"
    rows = rank.features(q, cands, np.full(2, 0.5, np.float32))
    col = rank.FEATURES.index("unit_asked")
    assert rows[:, col].tolist() == [0.0, 1.0]
    without = rows.copy()
    without[:, col] = 0.0
    lift = float(rank.score(rows)[1] - rank.score(without)[1])
    assert lift == pytest.approx(params.current().ranker["unit_asked"], abs=1e-5) and lift > 0


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What does SHSe mean in the Houston NICU family smoking study?", ["SHSe"]),
        ("In the BRCA1/2 mutation study, what is RHR?", ["RHR"]),
        ("What is meant by DAR in the spinal study?", ["DAR"]),
        ("What are AG-haESCs, the cells injected into oocytes?", ["AG-haESCs"]),
        ("How do OSCE and EM compare?", ["OSCE", "EM"]),  # no term singled out: all
    ],
)
def test_a_definition_asks_for_the_term_it_singles_out(question: str, asked: list[str]) -> None:
    assert rank.asked_terms(question) == asked


@pytest.mark.parametrize(
    ("question", "text", "spells"),
    [
        (
            "What is PINP?",
            "Markers of formation (bone ALP; procollagen type I N-terminal "
            "propeptide [PINP]) were assessed.",
            True,
        ),  # brackets inside parentheses
        (
            "What is the DAR?",
            "Lenke et al have proposed the DAR, which is a measure of curve "
            "magnitude per level of deformity.",
            True,
        ),
        ("What does PCD stand for?", "Programmed cell death (PCD) is a process.", True),
        ("What is PINP?", "Bone ALP and PINP were significantly correlated.", False),
        # a restrictive "which" says what it does, not what it is
        ("What is FIDD?", "We add one more condition to FIDD which is the influence score.", False),
        ("What is PINP?", "Median values were: ALP, 10.2 ng/mL; PINP, 56.", False),
    ],
)
def test_a_definition_is_told_by_how_abstracts_spell_terms_out(
    question: str, text: str, spells: bool
) -> None:
    assert rank.spells_out(analyse(question, NAMES), text) is spells


def test_the_sentence_spelling_out_the_asked_term_is_quoted_not_another() -> None:
    q = analyse("What does SHSe mean in the Houston NICU family smoking study?", NAMES)
    nicu = "Infants were discharged from a neonatal intensive care unit (NICU) in Houston."
    shse = "Secondhand smoke exposure (SHSe) threatens fragile infants."
    assert rank.spells_out(q, shse) and not rank.spells_out(q, nicu)
    assert _rank(q.text, [nicu, shse])[0] == shse
    # "RHR, the ratio of ..." spells it out too; "In BRCA1, we ..." does not
    rhr = analyse("In the BRCA1/2 mutation study, what is RHR?", NAMES)
    assert rank.spells_out(rhr, "We also estimated RHR, the ratio of breast vs ovarian HRs.")
    brca = analyse("What is BRCA1?", NAMES)
    assert not rank.spells_out(brca, "In BRCA1, we identified 3 cluster regions.")


def _lexical(question: str, sentences: list[str]) -> list[float]:
    """Each sentence's share of the question's words (the ranker's "lexical" feature)."""
    cands = [rank.Candidate(s, "p", "", i, len(sentences), 1) for i, s in enumerate(sentences)]
    rows = rank.features(analyse(question, NAMES), cands, np.zeros(len(cands), np.float32))
    return [float(v) for v in rows[:, rank.FEATURES.index("lexical")]]


def test_a_papers_acronyms_stand_for_their_long_forms_in_its_sentences() -> None:
    """The abstract defines "cardiovascular disease (CVD)"; a later sentence says "CVD". A
    question spelling it out matches that sentence, and one abbreviating a long form
    matches the sentence spelling it out, in any field's abbreviations."""
    defined = "We studied risk factors for cardiovascular disease (CVD) in a rural population."
    undefined = "We studied risk factors for cardiovascular disease in a rural population."
    later = "Overall, 79% of participants had at least one CVD risk factor."
    other = "A total of 574 adults were sampled from a population register."
    asked = "What share had a cardiovascular disease risk factor?"
    glossed = _lexical(asked, [defined, later, other])[1]
    unglossed = _lexical(asked, [undefined, later, other])[1]
    assert glossed == 1.0 and unglossed < 0.5  # "CVD" holds the two words it stands for
    hpv = "Tissue samples were tested for human papillomavirus (HPV) by PCR."
    found = "4 of 90 samples harboured human papillomavirus."
    _, with_hpv, _ = _lexical("How many samples harboured HPV?", [hpv, found, other])
    assert with_hpv == 1.0
    untold = "Tissue samples were tested for HPV by PCR."  # the acronym is never defined
    assert _lexical("How many samples harboured HPV?", [untold, found, other])[1] < 1.0


def test_followups_carry_the_subject_only_when_needed() -> None:
    history = [Turn("user", "What does Llumnix do?"), Turn("assistant", "... [1].", ("Llumnix",))]
    assert is_followup("How much money can it save?", NAMES)
    assert is_followup("Where can I get the code?", NAMES)  # two words of its own
    assert not is_followup("What is KCache?", NAMES)  # names its own subject
    assert not is_followup("Which papers show that caching helps LLM serving?", NAMES)
    assert rewrite_followup("How much money can it save?", history, NAMES).endswith("Llumnix")
    switch = (
        "Which paper deals with federated learning when clients are only intermittently available?"
    )
    assert rewrite_followup(switch, history, NAMES) == switch
    assert rewrite_followup("What is KCache?", history, NAMES) == "What is KCache?"
    assert rewrite_followup("What is KCache?", history, NAMES, force=True).endswith("Llumnix")
    # The subject is the name the last answered question used, not the papers it cited.
    named = [Turn("user", "How big is ERNIE 3.0 Titan?"), Turn("assistant", "...", ("X",))]
    assert rewrite_followup("Who trained it?", named, NAMES) == "Who trained it? ERNIE 3.0 Titan"
    # A cited paper known by a topic label: that label, and the words the user described the
    # study in.
    study = [
        Turn("user", "How often did trauma patients on anticoagulation have complications?"),
        Turn("assistant", "... [1].", ("Therapeutic anticoagulation in trauma",)),
    ]
    assert rewrite_followup("What did they measure?", study, NAMES) == (
        "What did they measure? Therapeutic anticoagulation in trauma often trauma patients "
        "anticoagulation complications"
    )


# -- end to end on the sample corpus ------------------------------------------------------


@pytest.fixture(scope="module")
def engine(sample_index: Path) -> Engine:
    return App.from_settings(load_settings(data_dir=sample_index, llm="extractive")).engine


def _body(answer: Answer) -> str:
    assert answer.final.answer.startswith(EXTRACTIVE_NOTE)
    return answer.final.answer[len(EXTRACTIVE_NOTE) :].strip()


def _cited(answer: Answer) -> list[str]:
    return [c.source.label for c in answer.final.citations]


def _lean(answer: Answer) -> None:
    """Short (within the answer's budget of words), no sentence twice, every sentence cited,
    quotes verbatim."""
    body = _body(answer)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", body) if s.strip()]
    assert len(re.sub(r"\[\d+\]", "", body).split()) <= extractive.MAX_WORDS
    assert len(sentences) == len(set(sentences))
    assert all(re.search(r"\[\d+\]", s) for s in sentences)
    for c in answer.final.citations:
        assert c.quote in c.source.abstract


def test_a_definition_introduces_the_system(engine: Engine) -> None:
    answer = engine.ask("What is Llumnix?")
    assert _cited(answer) == ["Llumnix"] and "rescheduling" in _body(answer)
    assert "github" not in _body(answer).casefold()
    _lean(answer)


def test_a_numeric_question_gets_the_figure(engine: Engine) -> None:
    answer = engine.ask("By how much does KCache improve throughput?")
    assert _cited(answer) == ["KCache"] and "40%" in _body(answer)
    _lean(answer)


def test_a_count_the_abstract_gives_as_it_introduces_the_work_answers_how_many(
    engine: Engine,
) -> None:
    """A count with its magnitude ("650M", as "7B" or "10K") is a figure, and the sentence
    introducing the corpus with it answers "how many" though it states the aim."""
    assert rank.states_figure(
        "We introduce WuDaoMM, totally containing more than 650M image-text pairs.",
        terms("How many image-text pairs does WuDaoMM contain?"),
    )
    answer = engine.ask("How many image-text pairs does WuDaoMM contain?")
    assert _cited(answer) == ["WuDaoMM"] and "650M" in _body(answer)
    _lean(answer)


def test_the_sentence_after_the_one_quoted_is_no_repeat(engine: Engine) -> None:
    """KCache's last two sentences are neighbours whose stored vectors are close: the
    second, which answers, is quoted with the first."""
    answer = engine.ask("Does KCache need any retraining?")
    assert _cited(answer) == ["KCache"] and "without any training" in _body(answer)
    _lean(answer)


def test_a_two_part_question_gets_both_parts(engine: Engine) -> None:
    answer = engine.ask("What is Llumnix and how much does it speed up high-priority requests?")
    body = _body(answer)
    assert "rescheduling" in body and re.search(r"\d+(\.\d+)?x", body)
    _lean(answer)


def test_a_list_has_one_cited_line_per_paper(engine: Engine) -> None:
    answer = engine.ask("Which papers deal with federated learning?")
    lines = _body(answer).splitlines()
    assert len(lines) >= 2 and all(re.match(r"- \*\*.+\*\*: .+\[\d+\]", line) for line in lines)
    assert "FedLaAvg" in _cited(answer)
    assert any("federated submodel learning" in c.casefold() for c in _cited(answer))


def test_a_comparison_has_one_line_per_system_and_nothing_else(engine: Engine) -> None:
    answer = engine.ask("Compare Llumnix and Infinite-LLM.")
    assert _cited(answer) == ["Llumnix", "Infinite-LLM"]
    assert len(_body(answer).splitlines()) == 2


def test_an_author_question_lists_their_papers_from_the_metadata(engine: Engine) -> None:
    answer = engine.ask("What did Zhihua Wu work on?")
    assert set(_cited(answer)) == {
        "Nebula-I", "Paddle-HeterPS", "KCache", "Distributed training framework"
    }  # fmt: skip
    who = engine.ask("Who wrote KCache?")
    assert "Qiaozhi He" in who.final.answer and _cited(who) == ["KCache"]
    nobody = engine.ask("Who are the authors of Llumnix?")  # the sample has none for it
    assert nobody.final.refused and nobody.final.answer == NO_ANSWER


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Who wrote KCache?", True),
        ("Who are its authors?", True),
        ("What are the authors of Llumnix?", True),
        ("List the authors of KCache", True),
        ("Authors of Llumnix?", True),
        ("By whom was Llumnix written?", True),
        # The authors as a verb's subject, or named to say which paper: a content question.
        ("What do the authors mean by a 'mitokine'?", False),
        ("Did the authors think that apparent protection was real?", False),
        ("In the KCache paper by Qiaozhi He, how much does throughput improve?", False),
        ("In the bi-criteria scheduling paper by Dutot et al., what is a moldable job?", False),
        ("How many patients who developed dementia had Alzheimer's disease?", False),
        ("And who developed it?", True),
    ],
)
def test_only_a_question_asking_who_wrote_is_answered_with_the_authors(
    question: str, asks: bool
) -> None:
    assert analyse(question).asks_author is asks


def test_a_paper_named_by_its_author_is_asked_what_it_says(engine: Engine) -> None:
    answer = engine.ask("In the KCache paper by Qiaozhi He, how much does throughput improve?")
    assert _cited(answer) and _cited(answer)[0] == "KCache"
    assert "40%" in answer.final.answer and "is by" not in answer.final.answer


def test_a_list_narrowed_to_one_paper_is_its_prose_answer_after_its_name(engine: Engine) -> None:
    answer = engine.ask("Which papers study supervised fine-tuning (SFT) of LLMs?")
    body = _body(answer)
    assert body.startswith("**Supervised fine-tuning**: ") and not body.startswith("- ")
    assert body.count("[1]") >= 2 and _cited(answer) == ["Supervised fine-tuning"]


def test_an_overview_gives_themes_with_counts(engine: Engine) -> None:
    answer = engine.ask("Summarize the papers in this collection.")
    body = _body(answer)
    assert body.startswith("The library holds 32 papers")
    themes = [line for line in body.splitlines() if line.startswith("- ")]
    assert len(themes) >= 3 and all(re.search(r"\(\d+ papers?\)", t) for t in themes)
    assert len(answer.final.citations) == 32


@pytest.mark.parametrize(
    "question", ["What is a good recipe for banana bread?", "Who won the Battle of Hastings?"]
)
def test_off_topic_questions_are_refused_with_a_reason(engine: Engine, question: str) -> None:
    final = engine.ask(question).final
    assert final.refused and final.citations == () and final.refusal_reason


def test_names_no_paper_mentions_are_said_before_the_closest_passages(engine: Engine) -> None:
    final = engine.ask("How does PagedAttention in vLLM manage KV cache memory?").final
    if not final.refused:  # close to KCache's KV cache memory: answered, but not as if named
        body = final.answer[len(EXTRACTIVE_NOTE) :].strip()
        assert body.startswith("No paper in the library mentions PagedAttention or vLLM;")


def test_a_new_topic_does_not_drag_the_old_one_along(engine: Engine) -> None:
    history = [Turn("user", "What does Llumnix do?"), Turn("assistant", "... [1].", ("Llumnix",))]
    switch = (
        "Which paper deals with federated learning when clients are only intermittently available?"
    )
    answer = engine.ask(switch, history=history)
    assert answer.final.query == switch and _cited(answer)[0] == "FedLaAvg"
    again = engine.ask("What is ROAM?", history=history)
    assert again.final.query == "What is ROAM?" and _cited(again) == ["ROAM"]


def test_a_weak_question_is_tried_in_the_conversations_subject(engine: Engine) -> None:
    history = [Turn("user", "What is CCI3.0-HQ?"), Turn("assistant", "... [1].", ("CCI3.0-HQ",))]
    answer = engine.ask("Whose capabilities did the quality classifier distill?", history=history)
    assert "CCI3.0-HQ" in answer.final.query and _cited(answer)[0] == "CCI3.0-HQ"
    cache = [
        Turn("user", "Tell me about ERTACache."),
        Turn("assistant", "... [1].", ("ERTACache",)),
    ]
    off = engine.ask("What is the price of an RTX 4090 right now?", history=cache)
    assert off.final.refused  # the subject is no evidence for an off-topic question


@pytest.mark.parametrize("question", ["What is the capital of France?", "How do I boil an egg?"])
def test_a_short_off_topic_question_after_a_turn_is_refused(engine: Engine, question: str) -> None:
    """Short enough to pass for a follow-up, but its own words are in no sentence of the
    study discussed: asked alone, and refused as it is with no history."""
    history = [Turn("user", "What is KCache?"), Turn("assistant", "... [1].", ("KCache",))]
    answer = engine.ask(question, history=history)
    assert answer.final.query == question
    assert answer.final.refused and answer.final.citations == ()


@pytest.mark.parametrize("question", ["Where is the code?", "Was there a downside?",
                                      "How much faster is it?"])  # fmt: skip
def test_a_short_question_on_a_part_of_any_study_keeps_the_subject(
    engine: Engine, question: str
) -> None:
    history = [Turn("user", "What is KCache?"), Turn("assistant", "... [1].", ("KCache",))]
    answer = engine.ask(question, history=history)
    assert "KCache" in answer.final.query


def test_the_cli_shows_the_query_it_searched(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             engine: Engine) -> None:  # fmt: skip
    import io

    from ui.cli import main as cli
    from ui.cli import query

    data = engine.settings.data_dir
    args = cli.parser().parse_args(["chat", "--data-dir", str(data)])
    lines = io.StringIO("What does Llumnix do?\nHow much money can it save?\n")
    assert query.chat(args, load_settings(data_dir=data), stdin=lines) == 0
    out = capsys.readouterr().out
    assert "(searched: How much money can it save? Llumnix)" in out and "36%" in out
    assert main(["ask", "What is Llumnix?", "--data-dir", str(data)]) == 0
    assert "(searched:" not in capsys.readouterr().out


def test_how_many_papers_mention_a_name_decides_whether_it_names_one(engine: Engine) -> None:
    index = engine.retriever.index
    assert index.mentions("ERNIE") >= 4  # the family's word: in several abstracts
    assert index.mentions("Llumnix") == 1
    assert index.mentions("ERNIE 3.0") == 0  # "3.0" is not indexed: the index cannot tell
    # a dropped letter or stopword says no more than the words kept ("CD4+ T" cells)
    assert index.mentions("the ERNIE") == index.mentions("ERNIE T") == index.mentions("ERNIE")
    answer = engine.ask("What is ERNIE 3.0?")
    assert _cited(answer)[0] == "ERNIE 3.0"


def test_a_follow_ups_words_are_its_content_words_not_how_it_asks(engine: Engine) -> None:
    """Whether a short follow-up stays in the study just discussed is read on the share of
    its words that study holds; "what", "did", "were" are in the question, not in any
    abstract, and the BM25 analyzer (Lucene's 33 stopwords) keeps them, so they had weighed
    as its rarest words and pushed the share under the bar."""
    from rag.answer.gather import _content, _rarity

    kept = re.findall(r"\w+", _content("What did WHO guidelines make less likely?"))
    assert kept == ["WHO", "guidelines", "make", "less", "likely"]
    asked = "What did the false positives make less likely?"
    words = set(_rarity(asked, engine.retriever, only_content=True)[1])
    assert words and not words & {"what", "did", "the"}
    assert {"what", "did"} <= set(_rarity(asked, engine.retriever)[1])  # the refusal model's


@pytest.mark.parametrize(
    ("question", "result"),
    [
        ("For people with chronic stroke, did treadmill training beat a weekly phone call?", True),
        ("Did that make a difference to survival?", True),
        ("In rhesus macaques, did intermittent prophylaxis protect as well as daily dosing?", True),
        ("How many patients had a complication?", True),  # numeric
        ("How does Llumnix move requests between instances?", False),  # a mechanism
        ("What does SHSe mean in the NICU smoking study?", False),  # a definition
    ],
)
def test_a_yes_or_no_question_asks_for_what_was_found(question: str, result: bool) -> None:
    """What a study found says yes or no: its results, not its methods, answer it (in
    _prose, a paper's aim and background sentences are left when it states results)."""
    assert rank.asks_result(analyse(question, NAMES)) is result


@pytest.mark.parametrize(
    ("question", "back"),
    [
        ("And the doses?", True),
        ("And among homosexual men?", True),
        ("And how much faster is it?", True),
        ("And what about the framework paper on outbreaks?", True),
        ("And the quantum-computing adaptation of Landau-Zener surface hopping: which test "
         "molecules?", False),
        ("And the companion paper on rotationally excited states, what molecule was it?", False),
        ("And the partially-adiabatic elevated-temperature CMD paper: which systems did it try?",
         False),
        ("And in the same project, how did it differ?", True),
        ("And how far did they fall after that?", True),
        ("And the later study of carbonic acid fluoride spectra: which systems?", False),
        ("In which book were those concepts first introduced?", True),
        ("How large was that effect?", True),
        ("Which paper shows that aspirin reduces risk?", False),
    ],
)  # fmt: skip
def test_an_and_question_naming_its_own_subject_is_a_switch(question: str, back: bool) -> None:
    """ "And ..." points back unless the question says enough of its own (three words of
    topic or more); a pronoun ("it") points back, unless the turn opens on a description of
    a subject of its own ("And the companion paper on ...,"): the pronoun is that subject."""
    from rag.answer.followup import points_back

    assert points_back(question) is back


@pytest.mark.parametrize(
    ("question", "two"),
    [
        ("Two meta-analyses looked at microbial biomass under nitrogen addition. How big was "
         "the decline reported in each?", True),
        ("How do the simulation study of kernel estimators and the subsampling study of roe "
         "deer differ in what they recommend?", True),
        ("Compare the US trial with the Dutch trial: how many patients were analysed?", True),
        ("Both of these process studies rated coping in sessions. What treatments did each one "
         "examine?", True),
        ("How do the paper on rescheduling requests and the paper on long contexts differ?", True),
        ("How does the solvent affect how quickly ZIF-8 nucleates, DMSO versus methanol?", False),
        ("How did dropout compare with placebo in the trial of lamotrigine?", False),
        ("What did each quality-adjusted life year cost?", True),  # a cue it cannot tell apart
        ("Which two genes showed heterogeneous effects on nicotine dependence?", False),
        ("In the meta-analysis of two decades of hepatitis B studies, what was the prevalence?",
         False),
        ("What was the response rate in each arm of the trial?", False),
        ("Compare Llumnix and Infinite-LLM.", False),  # names both: a comparison of named papers
    ],
)  # fmt: skip
def test_a_question_about_two_studies_it_describes_is_told(question: str, two: bool) -> None:
    """Two studies described, not named ("the two meta-analyses", "each", "the X study and
    the Y study", "how do X and Y differ"): the answer quotes both; one study's arms, doses
    or decades are no second study."""
    assert analyse(question, NAMES).about_two is two


def test_a_question_about_two_described_papers_quotes_both(engine: Engine) -> None:
    answer = engine.ask(
        "How do the paper on rescheduling requests across LLM serving instances and the paper "
        "on serving dynamic context lengths with pooled GPU memory differ in what they propose?"
    )
    assert set(_cited(answer)) == {"Llumnix", "Infinite-LLM"}
    body = _body(answer)
    assert "[1]" in body and "[2]" in body
    # one named, the other described: both quoted, the named one first
    answer = engine.ask(
        "Compare KCache with the paper on rescheduling requests across LLM serving instances: "
        "what does each propose?"
    )
    assert _cited(answer)[0] == "KCache" and "Llumnix" in _cited(answer)


def test_a_missing_name_is_said_as_it_was_looked_up_not_with_the_word_a_hyphen_adds(
    engine: Engine,
) -> None:
    """ "vLLM-style" is looked up as "vLLM": no paper holds it, and the answer (or the
    refusal) says "vLLM", not "vLLM-style"."""
    asked = "How does PagedAttention in a vLLM-style server manage KV cache memory?"
    final = engine.ask(asked).final
    said = final.answer + " " + (final.refusal_reason or "")
    assert "vLLM" in said and "vLLM-style" not in said
    from rag.words import looked_up

    assert [looked_up(w) for w in ("vLLM-style", "CRISPR-based", "N-doped", "YOLO-World")] == [
        "vLLM", "CRISPR", "N-doped", "YOLO-World"]  # fmt: skip
