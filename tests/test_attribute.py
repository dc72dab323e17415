"""Attribution after generation (rag.answer.attribute, rag.answer.claims): each sentence of a
generated answer gets the markers of the sources that say it, or is flagged; the faces show
a flagged sentence apart. Pure logic on real-looking abstracts; the model path end to end is
in test_generate.py (scripted) and test_llm_server.py (llama.cpp)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest

from rag.answer.attribute import attribute
from rag.answer.claims import answer_sentences, apart, figures, segments
from rag.answer.events import Answer, FinalEvent
from rag.answer.prompts import UNSUPPORTED_NOTE
from tests.fakes import make_source
from ui.cli.output import UNSUPPORTED_MARK, print_answer
from ui.web.render import answer_markdown

ABSTRACTS = {
    1: "Organic farming usually increases species richness, having on average 30% higher "
    "species richness than conventional farming systems. However, the results were variable "
    "among studies, and 16% of them actually showed a negative effect of organic farming.",
    2: "In Britain, the management of grassland has changed substantially in the second half "
    "of the 20th century. The major changes include a doubling in the use of inorganic "
    "nitrogen, a switch from hay to silage, and increased stocking densities.",
    3: "Here, we examine electron-doped Sr$_{2}$IrO$_{4}$ using angle-resolved photoemission "
    "spectroscopy. At low doping levels, we observe a gap at the AFM zone boundary.",
}
SOURCES = [
    make_source(n, f"p{n}", f"P{n}", "", ("Ann Lee",), 2019, "f.txt", text)
    for n, text in ABSTRACTS.items()
]


def _left(text: str, strict: bool = False) -> tuple[str, list[tuple[int, ...]], list[bool]]:
    out = attribute(text, SOURCES, strict=strict)
    return out.text, [j.support for _, j in out.judged], [j.supported for _, j in out.judged]


def test_figures_are_quantities_not_parts_of_names() -> None:
    assert figures("Over 90% of 1,024 photos ran 2.3x faster in 2019 [3].") == {90, 1024, 2.3, 2019}
    assert figures("GPT-4 and CO2 and ResNet-50 [1]") == set()  # names, not quantities
    assert figures("forty per cent of them") == {40}
    assert figures("two arms") == set() and figures("two arms", spelled=True) == {2}


def test_segments_give_each_sentence_its_markers() -> None:
    text = (
        "A holds [1]. B holds. [2] [3] shows that C holds.\n- D: it does E [1, 2]\nF [1] and G [2]."
    )
    text = text.replace("holds. [2] [3]", "holds [2]. [3]")
    segs = segments(text)
    assert [s.text for s in segs] == [
        "A holds.", "B holds.", "shows that C holds.", "- D: it does E", "F and G.",
    ]  # fmt: skip
    assert [s.numbers for s in segs] == [(1,), (2,), (3,), (1, 2), (1, 2)]
    assert [c[1] for c in segs[-1].clauses] == [(1,), (2,)]  # cited clause by clause


def test_a_model_that_cites_right_is_left_as_written() -> None:
    text = ("Organic farms hold on average 30% more species than conventional ones [1]. "
            "British grassland saw a doubling in inorganic nitrogen use and a switch from hay "
            "to silage. [2]")  # fmt: skip
    out, support, ok = _left(text)
    assert out == text and support == [(1,), (2,)] and ok == [True, True]


def test_missing_markers_are_attached_and_wrong_ones_moved() -> None:
    out, support, _ = _left(
        "Organic farming raises species richness by about 30% on average. "
        "Grassland management switched from hay to silage [1]."
    )
    assert out == (
        "Organic farming raises species richness by about 30% on average [1]. "
        "Grassland management switched from hay to silage [2]."
    )
    assert support == [(1,), (2,)]


def test_a_changed_figure_and_a_made_up_claim_are_flagged_not_cited() -> None:
    out, support, ok = _left(
        "Organic farming has on average 45% higher species richness [1]. "
        "The meta-analysis was published in Nature and replicated in Brazil [1]."
    )
    assert support == [(), ()] and ok == [False, False]
    assert "[" not in out  # no marker is left on a claim no source makes


def test_a_changed_figure_is_not_made_good_by_a_paper_printing_that_number() -> None:
    """The cited paper says it, with another figure ("15 weeks"); another paper prints "12"
    about something else and shares enough of the words: the sentence is a changed figure,
    flagged, not moved to the paper with the number."""
    sources = [
        make_source(1, "a", "A", "", ("Ann Lee",), 2019, "f.txt",
                    "In a trial lasting 12 weeks, inactive adults were offered supervised "
                    "exercise once weekly, counselling, or both."),
        make_source(2, "b", "B", "", ("Ann Lee",), 2019, "f.txt",
                    "Thirty-one physically inactive adults took part in a holistic physical "
                    "exercise training programme once weekly for 15 weeks."),
    ]  # fmt: skip
    _flags_12_weeks_cited_to_15(sources)


def _flags_12_weeks_cited_to_15(sources: list) -> None:  # type: ignore[type-arg]
    """Paper 2 says "15 weeks": "12 weeks [2]" is flagged, no marker left; "15 weeks [2]"
    keeps its marker."""
    wrong = "The holistic exercise programme for inactive adults ran once weekly for 12 weeks [2]."
    out = attribute(wrong, sources)
    assert [j.support for _, j in out.judged] == [()] and "[" not in out.text
    right = wrong.replace("12 weeks", "15 weeks")
    assert [j.support for _, j in attribute(right, sources).judged] == [(2,)]


def test_a_changed_figure_is_judged_by_the_words_not_by_the_number_it_gives() -> None:
    """The paper cited holds the sentence's words but says "15 weeks"; another paper holds
    "12-weeks" and a few of the words (a word of its title among them). Counting the figure
    as a word, that paper and the one cited together seemed to support "12 weeks": they do
    not, the figure was changed. Cited by both, a sentence may join them."""
    sources = [
        make_source(1, "a", "Supervision of resistance training: two randomised trials of "
                    "community fitness programmes", "", ("Ann Lee",), 2019, "f.txt",
                    "Many sedentary adults have high body fat along with low fitness. Study 2, "
                    "a randomised wait list controlled trial (12-weeks): patients were assigned "
                    "to supervised exercise, counselling, or both. Outcomes were body fat, lean "
                    "body mass and strength."),
        make_source(2, "b", "Holistic physical exercise training improves physical literacy "
                    "among physically inactive adults", "", ("Ann Lee",), 2019, "f.txt",
                    "We investigated the effect of a holistic physical exercise training on "
                    "physical literacy. Thirty-one physically inactive adults in the intervention "
                    "group took part in a holistic physical exercise training intervention once "
                    "weekly for 15 weeks. Physical literacy was evaluated by a questionnaire "
                    "covering five domains."),
    ]  # fmt: skip
    _flags_12_weeks_cited_to_15(sources)
    both = (
        "Inactive adults trained once weekly in a holistic programme [2], and a trial "
        "ran 12 weeks [1]."
    )
    assert [sorted(j.support) for _, j in attribute(both, sources).judged] == [[1, 2]]


def test_a_sentence_joining_two_papers_gets_both_markers() -> None:
    out, support, _ = _left(
        "Organic farming gives 30% higher species richness, while British grassland saw "
        "a doubling in inorganic nitrogen use."
    )
    assert support == [(1, 2)] and out.endswith("[1, 2].")


def test_framing_is_neither_cited_nor_flagged() -> None:
    out, support, ok = _left("Here is what the papers say about this question.")
    assert out == "Here is what the papers say about this question."
    assert support == [()] and ok == [True]


def test_tex_and_unicode_formulas_match_as_written() -> None:
    for name in ("Sr2IrO4", "Sr₂IrO₄"):
        _, support, _ = _left(f"Photoemission on electron-doped {name} shows a gap at the AFM "
                              "zone boundary at low doping.")  # fmt: skip
        assert support == [(3,)]
    _, support, _ = _left("Photoemission on electron-doped Sr3IrO7 shows a gap at low doping.")
    assert support == [()]  # a formula the paper does not name


def test_the_papers_year_may_be_stated_but_not_as_a_decade() -> None:
    assert _left("In 2019, a study found organic farming raises species richness.")[1] == [(1,)]
    assert _left("In the 2019s, organic farming raised species richness.")[1] == [()]


def test_strict_removes_unsupported_sentences() -> None:
    out = attribute("Organic farming raises species richness [1]. It won a prize in Oslo [2].",
                    SOURCES, strict=True)  # fmt: skip
    assert out.text == "Organic farming raises species richness [1]."
    assert out.removed == ("It won a prize in Oslo.",) and out.dropped == ("[2]",)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "[1]", "30%", "\x00\x01 binary \ufffd", "Word " * 3000 + "[1].", "((([[[1]]])))"],
)
def test_ugly_answers_do_not_break_attribution(text: str) -> None:
    out = attribute(text, SOURCES)
    assert all(1 <= n <= 3 for _, j in out.judged for n in j.support)


# -- the contract and the faces ---------------------------------------------------------------


def test_answer_sentences_and_pieces_join_back_to_the_answer() -> None:
    answer = "X holds [1]. The model made this up. Y holds [1, 2]."
    sentences = answer_sentences(answer, [True, False, True])
    assert [s.to_json() for s in sentences] == [
        {"text": "X holds.", "citations": [1], "supported": True},
        {"text": "The model made this up.", "citations": [], "supported": False},
        {"text": "Y holds.", "citations": [1, 2], "supported": True},
    ]
    pieces = apart(answer, sentences)
    assert "".join(t for t, _ in pieces) == answer
    assert [t for t, flag in pieces if flag] == ["The model made this up."]


def _final(answer: str, flags: list[bool]) -> FinalEvent:
    return FinalEvent(answer=answer, answerer="llm", timings={}, model="m",
                      sentences=answer_sentences(answer, flags))  # fmt: skip


def test_the_cli_marks_an_unsupported_sentence_with_a_footnote() -> None:
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_answer(Answer(final=_final("X holds. It is famous.", [True, False]), sources=()))
    out = buf.getvalue()
    assert (
        f"It is famous.{UNSUPPORTED_MARK}" in out
        and f"{UNSUPPORTED_MARK} {UNSUPPORTED_NOTE}" in out
    )
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_answer(Answer(final=_final("X holds.", [True]), sources=()))
    assert UNSUPPORTED_MARK not in buf.getvalue()


def test_the_ui_sets_an_unsupported_sentence_apart() -> None:
    final = _final("X holds. It is famous.", [True, False]).to_json()
    md = answer_markdown(final["answer"], sentences=final["sentences"])
    assert '<span class="pc-unsupported"' in md and "It is famous\\.</span>" in md
    assert "X holds" in md.split("<span")[0]  # the supported sentence is not in the span
    assert "pc-unsupported" not in answer_markdown("X holds [1].", sentences=[])


def test_the_extractive_answer_fills_the_contract_with_supported_sentences() -> None:
    final = FinalEvent(answer="Quoted from the papers:\n\nA holds [1]. B holds [2].",
                       answerer="extractive", timings={})  # fmt: skip
    got = final.to_json()["sentences"]
    assert [s["citations"] for s in got] == [[], [1], [2]] and all(s["supported"] for s in got)


def test_restating_the_question_makes_no_claim() -> None:
    question = "How much higher is species richness under organic farming?"
    for text in ("The question asks how much higher species richness is under organic farming.",
                 "How much higher is species richness under organic farming?"):  # fmt: skip
        out = attribute(text, SOURCES, question=question)
        assert out.text == text and [j.claim for _, j in out.judged] == [False]
    out = attribute("Species richness is 30% higher under organic farming.", SOURCES,
                    question=question)  # fmt: skip
    assert [j.support for _, j in out.judged] == [(1,)]  # the answer's figure is a claim


def test_the_contract_keeps_the_sentences_as_judged_when_a_marker_goes() -> None:
    # Once "[2]" is taken off, "near 3.4 K. The" reads as an initial to a sentence splitter;
    # the contract still has the two sentences as they were judged.
    from rag.answer.generate import _CheckedText

    text = ("Superconductivity in the alloy sets in near 3.4 K [2]. "
            "Organic farming raises species richness by about 30% on average [1].")  # fmt: skip
    got = _CheckedText(SOURCES).check(text)
    assert got.answer.text == (
        "Superconductivity in the alloy sets in near 3.4 K. "
        "Organic farming raises species richness by about 30% on average [1]."
    )
    assert len(segments(got.answer.text)) == 1  # what cutting the answer again would give
    assert [(s.citations, s.supported) for s in got.sentences] == [((), False), ((1,), True)]
