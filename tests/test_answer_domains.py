"""Answers on a library of another field than the sample: untitled clinical abstracts, some
structured, with the shipped embedder and the real embedded store. The rules under test
hold in any field: the answer keeps the paper retrieval found, answers "how much" with a
result and not the study's aim, spells out an acronym a paper defines, and keeps the study
of the conversation for a short follow-up that points at nothing."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rag.answer import candidates, extractive, params, rank
from rag.answer.cite import Source
from rag.answer.followup import Turn
from rag.answer.gather import Evidence, Gathered, _refusal, gather, refusal_score
from rag.answer.prompts import EXTRACTIVE_NOTE
from rag.answer.question import Names, analyse
from rag.engine import Engine
from rag.records import PaperRow
from rag.settings import load_settings
from ui.app import App

PAPERS = {
    "mammo": (
        "OBJECTIVE: To determine whether telephone counseling raises attendance at "
        "mammography screening among women in a health maintenance organization. "
        "METHODS: Women aged 50 and older were randomized to usual care or to tailored "
        "telephone counseling and followed for two years. RESULTS: Of the women counseled "
        "by telephone, 71% were screened on schedule, against 61% with usual care. "
        "CONCLUSIONS: Telephone counseling is a promising first-line intervention."
    ),
    "trauma": (
        "Trauma patients who need therapeutic anticoagulation pose a difficult treatment "
        "problem. The purpose of this study was to determine the incidence of complications "
        "of therapeutic anticoagulation in trauma patients. An 18-month retrospective review "
        "was performed on trauma patients who received therapeutic anticoagulation. "
        "Complications occurred in 21% of the patients, most often bleeding at the surgical "
        "site. The median follow-up of the survivors was 57 months."
    ),
    "osce": (
        "The objective structured clinical examination (OSCE) is widely used to assess "
        "clinical skills of medical students. We compared scores given by student examiners "
        "with those of faculty examiners in an emergency medicine clerkship. Student "
        "examiners gave scores within 2 points of faculty scores for 85% of the stations."
    ),
    "sleep": (
        "Sleep bruxism is reported to vary in frequency over time. We recorded jaw muscle "
        "activity in 20 adults over three nights. Episodes per hour were higher on the "
        "first night than on the following nights."
    ),
    "nv": (
        "We compute the excited states of the nitrogen-vacancy centre in diamond with the "
        "$\\Delta$SCF method, at the cost of a ground-state calculation. The zero-phonon "
        "line comes within 0.1 eV of experiment."
    ),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, _shared_cache: Path) -> Engine:
    folder = tmp_path_factory.mktemp("clinical")
    path = folder / "papers.jsonl"
    path.write_text(
        "".join(json.dumps({"id": pid, "abstract": text}) + "\n" for pid, text in PAPERS.items())
    )
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PAPERCHAT_CACHE_DIR", str(_shared_cache))
        app = App.from_settings(load_settings(data_dir=folder / "data", llm="extractive"))
        app.ingester.ingest([path])
    return app.engine


def _body(text: str) -> str:
    return text[len(EXTRACTIVE_NOTE) :].strip() if text.startswith(EXTRACTIVE_NOTE) else text


def test_how_much_is_answered_by_the_result_not_the_aim(engine: Engine) -> None:
    final = engine.ask(
        "In the HMO trial of phone counseling, what share of women got screened on time?"
    ).final
    body = _body(final.answer)
    assert "71%" in body and final.citations[0].source.paper_id == "mammo"
    assert "OBJECTIVE: To determine" not in body  # the aim, under its heading, is not quoted


def test_an_acronym_the_abstract_defines_is_spelled_out(engine: Engine) -> None:
    final = engine.ask("What does OSCE stand for?").final
    assert not final.refused
    assert "objective structured clinical examination" in final.answer


def test_a_short_follow_up_keeps_the_study_and_an_unrelated_one_does_not(engine: Engine) -> None:
    first = engine.ask("How often did anticoagulated trauma patients have complications?")
    assert "21%" in first.final.answer
    cited = tuple(c.source.label for c in first.final.citations)
    history = [Turn("user", first.final.query), Turn("assistant", first.final.answer, cited)]
    # Nothing in it points back; the study just discussed holds its words.
    follow = engine.ask("What was the median follow-up of the survivors?", history=history)
    assert "57 months" in follow.final.answer
    assert follow.final.citations[0].source.paper_id == "trauma"
    cake = engine.ask("How long should I bake a chocolate cake?", history=history)
    assert cake.final.refused


def test_untitled_papers_get_labels_a_person_can_use(engine: Engine) -> None:
    _, rows = engine.papers()
    labels = {r.id: r.label for r in rows}
    assert labels["osce"] == "Objective structured clinical examination"  # its subject
    assert len(set(labels.values())) == len(labels)
    assert not any(label.startswith(("The ", "In recent")) for label in labels.values())


def _gathered(engine: Engine, question: str, names: Names | None = None) -> Gathered:
    """What the engine gathers for the question: its sources, and why it answers or not."""
    return gather(analyse(question, names), question, retriever=engine.retriever, names=names,
                  filters=None, k=5, min_relevance=-1.0, noise=engine.noise_floor())  # fmt: skip


def _absent(engine: Engine, question: str) -> tuple[str, ...]:
    """The question's names no paper of the engine's library holds."""
    ev = _gathered(engine, question).evidence
    assert ev is not None
    return ev.absent


def test_a_question_no_closer_than_everyday_ones_is_refused_whatever_words_it_shares() -> None:
    """In the 1,000 PubMedQA abstracts, "What is the capital of Australia?" shares its
    rarest words with the paper held in "the Australian Capital Territory", and the model
    alone would answer it; its best dense score stays below the library's noise floor
    (how close everyday questions come), so it is refused. A list question, and one with
    a name the top paper holds, are not held to the floor."""
    measured = Evidence(dense=0.238, margin=-0.157, coverage=0.701, focus=1.0, gap=0.039,
                        local=0.701, sentence=0.003, unknown=())  # fmt: skip
    weights = params.current().evidence
    assert refusal_score(measured, weights) > weights["threshold"]
    assert _refusal(measured, -1.0) == "it comes no closer to any paper than everyday questions do"
    assert _refusal(measured, -1.0, gated=False) == ""
    assert _refusal(replace(measured, margin=0.05), -1.0) == ""


def test_an_acronym_a_paper_defines_answers_only_when_the_library_knows_every_term_asked(
    engine: Engine,
) -> None:
    """ "What does OSCE stand for?" is answered by the paper defining it, on no further
    evidence; "What is the XQZR method for OSCE scoring?" asks about XQZR, which no paper
    holds, and is weighed on the evidence like any other question."""

    def found(question: str) -> Gathered:
        return _gathered(engine, question, engine.names())

    assert found("What does OSCE stand for?").reason == "defines the acronym"
    unheard = found("What is the XQZR method for OSCE scoring?")
    assert unheard.reason != "defines the acronym" and unheard.evidence is not None


def test_the_questions_own_abbreviation_is_no_name_the_library_lacks(engine: Engine) -> None:
    """A question spelling out its abbreviation ("... clinical examination (sOSCE)") asks
    about what the words say; the same mixed-case name used bare is one no paper holds."""

    def unknown(question: str) -> tuple[str, ...]:
        evidence = _gathered(engine, question).evidence
        assert evidence is not None
        return evidence.unknown

    assert unknown("Did student examiners score a structured clinical exam (sOSCE) well?") == ()
    assert unknown("Did student examiners score the sOSCE stations well?") == ("sOSCE",)


def test_names_no_paper_holds_are_said_and_only_mixed_case_ones_weigh(engine: Engine) -> None:
    """ "Did the PSN workshop raise OSCE scores?": PSN is in no paper, so the answer says so,
    before the closest passages when it answers, in its one line when the reader finds no
    sentence stating it (then with the OSCE paper as related reading); only a mixed-case
    name ("sOSCE") weighs in the evidence, and a quantity ("400mg") is no name."""
    ev = _gathered(engine, "Did the PSN workshop raise OSCE scores at 400mg?").evidence
    assert ev is not None and ev.absent == ("PSN",) and ev.unknown == ()
    ev = _gathered(engine, "Did the PSN workshop raise sOSCE scores?").evidence
    assert ev is not None and ev.absent == ("PSN", "sOSCE") and ev.unknown == ("sOSCE",)
    answer = engine.ask("Did the PSN workshop raise OSCE scores of student examiners?").final
    if answer.refused:
        assert answer.answer.endswith("No paper in the library mentions PSN.")
        assert answer.citations == () and "osce" in [r.source.paper_id for r in answer.related]
    else:
        assert _body(answer.answer).startswith("No paper in the library mentions PSN;")


def test_only_the_users_own_words_can_be_missing_from_the_library(engine: Engine) -> None:
    """A follow-up rewritten with the conversation's subject ("Did it raise scores? ... PSN
    workshop") misses nothing the user did not ask this turn: the earlier turn's "PSN",
    which no paper holds, is not said to be missing again, nor held to the stricter gate."""
    query = "Did it raise scores of student examiners? PSN workshop OSCE"
    own = "Did it raise scores of student examiners?"
    asked = analyse(query, own=own)
    rewritten = gather(asked, query, retriever=engine.retriever, names=None, filters=None, k=5,
                       min_relevance=-1.0, noise=engine.noise_floor())  # fmt: skip
    assert rewritten.evidence is not None and rewritten.evidence.absent == ()
    alone = _gathered(engine, query).evidence
    assert alone is not None and alone.absent == ("PSN",)


def test_a_name_is_not_missing_when_a_paper_spells_it_out_or_a_hyphen_adds_a_word(
    engine: Engine,
) -> None:
    """ "HMO" is no name the library lacks when a paper says "health maintenance
    organization"; "OSCE-based" is OSCE with a plain word added; "PSN-style" is still PSN,
    which no paper holds, and is said as "PSN"."""

    absent = functools.partial(_absent, engine)
    assert absent("In the HMO trial of phone counseling, what share were screened?") == ()
    assert absent("Did OSCE-based scores of student examiners match the faculty's?") == ()
    assert absent("Did the PSN-style workshop raise OSCE scores?") == ("PSN",)


def test_a_name_is_not_missing_when_a_paper_writes_it_apart(engine: Engine) -> None:
    """ "Delta-SCF" is the "$\\Delta$SCF" a paper prints (no term of the index holds it
    whole), so no answer says the library lacks it; "GW-BSE", which no paper writes in any
    way, is missing."""
    found = _gathered(engine, "Which defect did the Delta-SCF calculations treat?")
    assert found.sources[0].paper_id == "nv"
    assert found.evidence is not None and found.evidence.absent == ()
    missing = _gathered(engine, "Which defect did the GW-BSE calculations treat?").evidence
    assert missing is not None and missing.absent == ("GW-BSE",)


def test_a_name_made_of_words_the_library_holds_is_not_missing(engine: Engine) -> None:
    """ "OSCE-Telephone" joins words papers hold (the index keeps it whole, as no paper
    does): no name the library lacks; "OSCE-Hexapod", one of whose words no paper holds, is,
    and so is "X-Telephone" (a letter's compound, as "Fe-N-C", is a name of its own)."""

    absent = functools.partial(_absent, engine)
    assert absent("Did the OSCE-Telephone scores of student examiners match?") == ()
    assert absent("Did the OSCE-Hexapod scores of student examiners match?") == ("OSCE-Hexapod",)
    assert absent("Did X-Telephone counseling raise mammography screening?") == ("X-Telephone",)


def test_the_evidence_holds_the_top_papers_sentence_nearest_the_question(engine: Engine) -> None:
    """Whether one sentence says what is asked: the best cosine of a sentence of the top
    paper (as the answer quotes it) to the question, less the library's noise floor; an
    everyday question comes no closer to any sentence than everyday questions do."""
    question = "What share of women counseled by telephone were screened on schedule?"
    found = _gathered(engine, question)
    ev = found.evidence
    assert ev is not None and found.sources[0].paper_id == "mammo"
    quotable = candidates.sentences(found.sources[:1])
    vectors = candidates.with_vectors_of(quotable, engine.answer_embedder)
    cosines = vectors @ engine.answer_embedder.embed_query(question)
    assert len(quotable) == 4
    assert ev.sentence == pytest.approx(float(cosines.max()) - engine.noise_floor(), abs=1e-5)
    assert ev.features()["sentence"] == ev.sentence
    everyday = _gathered(engine, "How do volcanoes form?").evidence
    assert everyday is not None and everyday.sentence < 0 < ev.sentence
    weights = params.current().evidence
    assert refusal_score(replace(ev, sentence=ev.sentence + 0.1), weights) > refusal_score(
        ev, weights
    )


def test_names_of_the_question_the_top_paper_holds_are_known(engine: Engine) -> None:
    question = "Did student examiners score OSCE stations as faculty did?"
    found = _gathered(engine, question)
    assert found.evidence is not None and found.evidence.known == ("OSCE",)
    assert found.sources[0].paper_id == "osce"


# -- the prose rules on their own ------------------------------------------------------------


def no_vector(_text: str) -> np.ndarray:
    """The question vector of the prose rules' tests: the scores given decide."""
    return np.zeros(4, dtype=np.float32)


def _sentence(n: int, paper: str, position: int, text: str, score: float, role: str,  # type: ignore[no-untyped-def]
              labelled: bool = True):  # fmt: skip
    row = PaperRow(id=paper, label=paper, title="", authors=(), year=None, source="s",
                   position=n, n_chunks=1, abstract=text)  # fmt: skip
    vector = np.zeros(4, dtype=np.float32)
    vector[n % 4] = 1.0  # distinct papers' sentences are never near-duplicates
    # Retrieval's order is clear: the first paper far ahead of the rest.
    source = Source(n, row, share=1.0 if n == 1 else 0.5)
    return candidates.Sentence(source, position, 5, text, score, vector, role, labelled=labelled)


def test_the_paper_retrieval_ranked_first_is_always_quoted() -> None:
    question = analyse("How is it done?")
    texts = [
        "The first paper measures the thing in a long way here.",
        "The second paper holds a much better sentence for this.",
        "The third paper also has a sentence that scores well.",
    ]
    scores = [-6.0, 2.0, 1.5]  # retrieval's first paper has the weakest sentence
    papers = ["first", "second", "third"]
    pool = [
        _sentence(n, paper, 1, text, score, "method")
        for n, (paper, text, score) in enumerate(zip(papers, texts, scores, strict=True), 1)
    ]
    picked = extractive._prose(question, pool, no_vector)
    assert {p.source.paper_id for p in picked} >= {"first", "second"}


def test_a_paper_retrieval_can_hardly_tell_from_the_first_is_quoted_too() -> None:
    """Two papers on the same trial, scored 1.0 and 0.95 by retrieval: which holds the answer
    is not for the ranker's preference for the first to decide, so each is quoted; a paper
    scored well below (0.6) is left to the sentence scores."""
    question = analyse("How many women took part in the screening trial?")
    long = " ".join(["detail"] * 40)
    rows = [  # (source n, paper, its retrieval share, text, sentence score)
        (1, "first", 1.0, f"The first report gives the design: {long}.", 2.0),
        (2, "second", 0.95, "The second report counts the 12,527 women enrolled.", -6.0),
        (3, "third", 0.6, "A third paper on another trial, far behind in retrieval.", -6.0),
    ]
    pool = []
    for n, paper, share, text, score in rows:
        s = _sentence(n, paper, 1, text, score, "result")
        pool.append(replace(s, source=replace(s.source, share=share)))
    picked = [p.source.paper_id for p in extractive._prose(question, pool, no_vector)]
    assert picked == ["first", "second"]
    assert 1 - extractive.TIE > 0.6  # the third is no tie


def test_a_result_question_quotes_no_aim_of_a_paper_with_results() -> None:
    question = analyse("How many patients had complications?")
    assert question.kind == "numeric"
    pool = [
        _sentence(1, "p", 0, "The aim was to count the patients with complications.", 3.0, "aim"),
        _sentence(1, "p", 3, "Complications occurred in 21 of the 100 patients.", 1.0, "result"),
    ]
    picked = extractive._prose(question, pool, no_vector)
    assert [p.role for p in picked] == ["result"]


def test_the_best_sentence_of_an_abstract_without_headings_is_quoted_whatever_its_role() -> None:
    """Where no heading prints an abstract's parts its roles are guessed from cues, and the
    sentence read as background may be the one stating the finding ("Herein, we demonstrate
    that the Bi-modified Pt/C follows a CO-free pathway"): scored best in its paper, it is
    quoted for a result question; another background sentence is not. Under a structured
    abstract's BACKGROUND heading neither is."""
    from rag.answer.roles import structured

    question = analyse("Does the catalyst oxidise methanol without adsorbed CO?")
    herein = "Herein, we demonstrate that the Bi-modified Pt/C follows a CO-free pathway."
    filler = "Direct methanol fuel cells are a promising power source for portable devices."
    later = "Bi modification increases the HCHO dehydrogenation barrier by 0.3 eV."
    for labelled in (False, True):
        pool = [
            _sentence(1, "p", 0, filler, 1.5, "background", labelled),
            _sentence(1, "p", 1, herein, 2.0, "background", labelled),
            _sentence(1, "p", 3, later, -1.0, "result", labelled),
        ]
        picked = [p.text for p in extractive._prose(question, pool, no_vector)]
        assert (herein in picked) is not labelled and filler not in picked
    assert structured(("BACKGROUND: X is common.", "METHODS: We counted.", "RESULTS: 21%."))
    assert not structured(("X is common.", "We counted them.", "Overall, 21% had it."))
    pool = candidates.sentences([Source(1, PaperRow(
        id="s", label="s", title="", authors=(), year=None, source="s", position=1, n_chunks=1,
        abstract="BACKGROUND: X is common in adults. RESULTS: It was found in 21% of them.",
    ))])  # fmt: skip
    assert all(s.labelled for s in pool)


def test_an_aim_giving_the_kind_of_figure_asked_is_kept() -> None:
    """ "How big is PLATO-XL?" asks for a size, which the paper gives only where it states
    its aim ("we present PLATO-XL with up to 11 billion parameters"): that sentence stays
    among those the answer may quote; an aim without one does not."""
    question = analyse("How big is PLATO-XL?")
    assert question.kind == "numeric"
    size = "To explore the limit, we present PLATO-XL with up to 11 billion parameters."
    aim = "To explore the limit of dialogue generation, we present the models of PLATO-XL."
    found = "PLATO-XL obtains state-of-the-art results across multiple conversational tasks."
    for text, kept in ((size, True), (aim, False)):
        pool = [_sentence(1, "p", 0, text, 1.0, "aim"), _sentence(1, "p", 4, found, 0.0, "result")]
        picked = [p.text for p in extractive._prose(question, pool, no_vector)]
        assert (text in picked) is kept


def test_a_yes_or_no_question_quotes_what_was_found_not_the_design() -> None:
    """ "Did treadmill training beat a weekly phone call?" is answered by the result; the
    design repeats the question's words and says nothing of the outcome, so a paper that
    states results is not quoted for its methods. "How was the training given?" still is."""
    design = "Twelve 20-minute sessions of walking on a treadmill or a weekly phone call."
    found = "No significant difference was found between the groups."
    pool = [
        _sentence(1, "p", 1, design, 2.0, "method"),
        _sentence(1, "p", 2, found, -1.0, "result"),
    ]
    question = analyse("Did treadmill training beat a weekly phone call?")
    assert [p.text for p in extractive._prose(question, pool, no_vector)] == [found]
    how = analyse("How was the training given?")
    assert design in [p.text for p in extractive._prose(how, pool, no_vector)]


def test_a_yes_or_no_question_quotes_the_lead_papers_verdict_first() -> None:
    """Whether a difference was found answers "did aspirating the fluid improve success?",
    however low the ranker scores it against a results sentence sharing the question's
    words; another paper's verdict is not forced in, and a question a yes or no does not
    answer is left to the scores."""
    success = (
        "Most patients showed complete disappearance of the cystic portion of the thyroid "
        "nodule on the first follow-up ultrasonography after the ethanol injection, with or "
        "without aspiration of the ethanol-mixed fluid, and they revealed no recurrence on "
        "any later follow-up ultrasonography of the neck."
    )
    verdict = "There was no statistical difference in the success rates between group A and B."
    other = "No significant difference was found in the other cohort."
    pool = [
        _sentence(1, "p", 3, success, 2.0, "result"),
        _sentence(1, "p", 4, verdict, -9.0, "result"),
        _sentence(2, "q", 2, other, -9.0, "result"),
    ]
    assert len(success.split()) >= extractive.MIN_WORDS
    asked = analyse("Did aspirating the ethanol-mixed fluid improve success?")
    assert rank.asks_yes_no(asked)
    assert [p.text for p in extractive._prose(asked, pool, no_vector)] == [success, verdict]
    how = analyse("How did the success rates of the two groups compare?")
    assert not rank.asks_yes_no(how)
    assert [p.text for p in extractive._prose(how, pool, no_vector)] == [success]


def test_an_enumeration_is_quoted_whole() -> None:
    """ "What are the two stages of its training method?": a picked "The first stage ..."
    brings the sentences going on with it ("The second stage ...", "Finally, ..."), however
    they score; an ordinal that opens nothing ("first-line", a "second" alone, a "third"
    out of order) brings nothing."""
    first = "The first stage, termed Scale-Up, initializes the larger model from a smaller one."
    second = "The second stage, Scale-Out, initializes the experts from a dense model."
    aside = "Training from scratch costs a lot of compute in general settings."
    pool = [
        _sentence(1, "p", 2, first, 1.0, "result"),
        _sentence(1, "p", 3, second, -9.0, "result"),
        _sentence(1, "p", 4, aside, -9.5, "result"),
    ]
    asked = analyse("What are the two stages of its training method?")
    assert [p.text for p in extractive._prose(asked, pool, no_vector)][:2] == [
        first,
        second,
    ]
    assert candidates.enumerated(pool[0], pool) == pool[:2]

    def texts(*lines: str) -> list[str]:
        group = [_sentence(1, "p", i, t, 0.0, "result") for i, t in enumerate(lines)]
        return [s.text for s in candidates.enumerated(group[0], group)]

    assert texts("First, we count.", "Second, we weigh.", "Third, we sort.", "Then it ends.") == [
        "First, we count.",
        "Second, we weigh.",
        "Third, we sort.",
    ]
    assert texts("First, we count.", "Finally, we weigh.", "It ends there.") == [
        "First, we count.",
        "Finally, we weigh.",
    ]
    assert texts("First-line therapy failed.", "Second, we weigh.") == [
        "First-line therapy failed."
    ]
    assert texts("Firstly, we count.", "Secondly, we weigh.") == [
        "Firstly, we count.",
        "Secondly, we weigh.",
    ]
    assert texts("First, we count.", "Third, we sort.") == ["First, we count."]
    assert texts("Second, we weigh.", "Third, we sort.") == ["Second, we weigh."]
    other = _sentence(2, "q", 1, "Second, another paper goes on.", 0.0, "result")
    assert candidates.enumerated(pool[0], [pool[0], other]) == [pool[0]]
    # The answer's word limit holds: a long enumeration is quoted as far as it fits.
    long = " ".join(["word"] * 60)
    items = ["First", "Second", "Third", "Fourth"]
    pool = [_sentence(1, "p", i, f"{w}, {long}.", -float(i), "result") for i, w in enumerate(items)]
    picked = extractive._prose(asked, pool, no_vector)
    assert [p.text.split(",")[0] for p in picked] == ["First", "Second"]


def test_the_paper_holding_the_questions_distinctive_words_leads_when_the_first_does_not() -> None:
    """Retrieval put a paper on outflows in general first; the question names an object
    only the second paper holds: that paper is quoted, and first."""
    question = analyse("How fast is the outflow of HH 212 in the ALMA images?")
    rows = [
        (1, "general", "Outflows from young objects are fast and collimated in general.", 2.0),
        (2, "object", "The HH 212 jet moves at 100 km/s in ALMA images of its disc.", -1.0),
    ]
    pool = [_sentence(n, paper, 1, text, score, "result") for n, paper, text, score in rows]
    picked = [p.source.paper_id for p in extractive._prose(question, pool, no_vector)]
    assert picked[0] == "object"
    # Nothing changes when the first paper holds the distinctive words too.
    both = [*pool[:1], replace(pool[0], text="HH 212 outflows were seen with ALMA, fast.",
                               position=2)]  # fmt: skip
    picked = [p.source.paper_id for p in extractive._prose(question, [*both, pool[1]], no_vector)]
    assert picked[0] == "general"


SWITCHING = {
    "ecosystem": (
        "We present an open-source software ecosystem for on-the-fly surface hopping "
        "dynamics based on the Landau-Zener algorithm, and its adaptation to graphics "
        "processors. The dynamics can be run with many "
        "quantum chemical and machine learning methods. Test molecules include azobenzene, "
        "whose photoisomerization we showcase."
    ),
    "adapted": (
        "We introduce a quantum-computing adaptation of Landau-Zener surface hopping "
        "dynamics. A sub-microhartree accurate protocol computes the potential energy "
        "surfaces on quantum hardware. Tests on the charged H3+ ion and the C2H4 molecule "
        "agree with exact results."
    ),
    "sleep": PAPERS["sleep"],
    "osce": PAPERS["osce"],
}


def test_a_turn_describing_another_study_is_about_that_study(
    tmp_path: Path, _shared_cache: Path
) -> None:
    """ "And the <description>, what ... did that use?" switches to the study it describes:
    its pronoun points at that study, and the conversation's study, which holds some of its
    words, is kept only if it holds as many as the study the turn finds on its own."""
    path = tmp_path / "papers.jsonl"
    titles = {"ecosystem": "SHARC-LZ: an open ecosystem for surface hopping dynamics",
              "adapted": "Surface hopping on quantum hardware"}  # fmt: skip
    path.write_text("".join(json.dumps({"id": k, "title": titles.get(k, ""), "abstract": v})
                            + "\n" for k, v in SWITCHING.items()))  # fmt: skip
    app = App.from_settings(load_settings(data_dir=tmp_path / "data", llm="extractive"))
    app.ingester.ingest([path])
    first = app.engine.ask("Which algorithm does the open-source surface hopping ecosystem use?")
    assert first.final.citations[0].source.paper_id == "ecosystem"
    cited = tuple(c.source.label for c in first.final.citations)
    history = [Turn("user", first.final.query), Turn("assistant", first.final.answer, cited)]
    switch = app.engine.ask(
        "And the quantum-computing adaptation of Landau-Zener surface hopping, which test "
        "molecules did it use?",
        history=history,
    ).final
    assert switch.citations[0].source.paper_id == "adapted"
    assert "H3+" in switch.answer and "azobenzene" not in switch.answer
    back = app.engine.ask("And which molecules did they test it on?", history=history).final
    assert back.citations[0].source.paper_id == "ecosystem"  # no subject of its own: back


def test_two_described_studies_are_each_quoted_by_their_best_and_next_best_sentences() -> None:
    """A question about two studies it describes quotes the two papers retrieval ranks
    first alike: each by its best sentence, then by its next ``two.NEXT`` best, and no
    sentence of a third paper, however well scored."""
    from rag.answer import two

    question = analyse("How do the two trials of the therapy differ in what they found?")
    assert question.about_two
    said = "Sentence {} of paper {} says a thing."
    pool = [
        _sentence(n, paper, position, said.format(position, paper), score, "result")
        for n, paper in ((1, "a"), (2, "b"))
        for position, score in enumerate((0.5, 3.0, 1.0, 2.0, -1.0))
    ] + [_sentence(3, "c", 0, "The third paper's sentence scores best of all here.", 9.0, "result")]
    picked = two.quoted(question, pool, 1, [], no_vector)
    quoted = [(s.source.paper_id, s.position) for s in picked]
    best_first = [1, 3, 2, 0, 4][: 1 + two.NEXT]  # positions by score, best first
    assert sorted(quoted) == sorted((p, i) for p in "ab" for i in best_first)
    assert quoted[:2] == [("a", 1), ("b", 1)]  # each paper's best before any next best


def test_a_link_is_a_further_sentence_only_when_the_question_asks_for_what_it_gives() -> None:
    """A sentence giving a link ("... is available at http://...") is quoted after the best
    ones only when it holds a word the question asks beside the paper's name ("Which freely
    available program ...?"); otherwise ("What is IsoSource?", the name alone shared) it is
    no answer, however well it scores."""
    link = "The program IsoSource for these sums is available at http://example.org/isosource."
    best = "Mixing models find the share each source contributes."
    pool = [
        _sentence(1, "IsoSource", 0, best, 3.0, "result"),
        _sentence(1, "IsoSource", 1, link, 1.0, "result"),
    ]
    for asked, kept in (
        ("Which freely available program computes source shares in mixing models?", True),
        ("What is IsoSource?", False),
        ("How do mixing models find each source's share?", False),
    ):
        picked = [p.text for p in extractive._prose(analyse(asked), pool, no_vector)]
        assert (link in picked) is kept, asked
