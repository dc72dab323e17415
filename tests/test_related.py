"""A refusal names what is missing and offers the closest papers as related reading, apart
from the answer: never as citations, never with markers, on every face."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

from rag.answer.cite import parse_markers
from rag.answer.events import Answer, FinalEvent, Related, refusal
from rag.answer.prompts import NO_ANSWER, is_no_answer
from rag.answer.related import related_reading
from tests.fakes import HashEmbedder, make_source
from ui.cli.output import print_answer
from ui.http.streaming import RELATED_HEADING, Rendering, completion_text, strip_sources
from ui.web.render import answer_markdown

SPEED = "Jet speeds reach 300 km/s in our simulations of accretion discs."
JETS = make_source(1, "p1", title="Jets of young stars", year=2021, authors=["Ada Byron"],
                   abstract=f"We model the launching of jets. {SPEED} The model uses magnetic "
                   "fields.")  # fmt: skip
WINDS = ("Winds leave the disc surface.", "Their mass loss rate is a tenth of the accretion rate.")
DISCS = make_source(2, "p2", title="Disc winds", abstract=" ".join(WINDS))


def _final(**kw: object) -> FinalEvent:
    events = refusal("q", {}, answerer="extractive", **kw)  # type: ignore[arg-type]
    final = events[-1]
    assert isinstance(final, FinalEvent)
    return final


def test_a_refusal_names_what_no_paper_mentions_and_stays_a_refusal() -> None:
    final = _final(reason="the best paper does not cover the question", missing=("HH 212",),
                   related=(Related(JETS, "Jet speeds reach 300 km/s."),))  # fmt: skip
    assert final.refused and final.citations == ()
    assert final.answer == f"{NO_ANSWER} No paper in the library mentions HH 212."
    assert is_no_answer(final.answer) and parse_markers(final.answer) == []
    wire = final.to_json()
    assert wire["citations"] == [] and len(wire["related"]) == 1
    related = wire["related"][0]
    assert "n" not in related  # no marker number: it is no citation
    assert related["paper_id"] == "p1" and related["sentence"] == "Jet speeds reach 300 km/s."
    several = _final(missing=("HH 212", "ALMA", "JWST", "Gaia"))
    assert several.answer.endswith("mentions HH 212, ALMA or JWST.")


def test_related_reading_gives_each_paper_its_sentence_nearest_the_question() -> None:
    related = related_reading(
        "jet speeds in simulations of accretion discs", (JETS, DISCS), HashEmbedder()
    )
    assert [r.source.paper_id for r in related] == ["p1", "p2"]
    assert related[0].sentence == SPEED
    assert related[1].sentence in WINDS
    assert related_reading("anything", (), HashEmbedder()) == ()


def test_every_face_shows_related_reading_apart_and_without_markers() -> None:
    final = _final(missing=("HH 212",), related=(Related(JETS, "Jet speeds reach 300 km/s."),))
    out = io.StringIO()
    with redirect_stdout(out):
        print_answer(Answer(final=final, sources=()))
    printed = out.getvalue()
    assert "Related reading (the closest papers; they do not answer the question)" in printed
    assert "Jets of young stars" in printed and "References" not in printed
    assert parse_markers(printed) == []

    content = completion_text(final.to_json(), Rendering())
    assert RELATED_HEADING in content and "**Jets of young stars** — Ada Byron (2021)" in content
    assert parse_markers(content) == []
    assert strip_sources(content) == final.answer  # an earlier reply, as the history reads it

    markdown = answer_markdown(final.answer, related=final.to_json()["related"])
    assert "> *Related reading: the closest papers; they do not answer the question*" in markdown
    assert "> - **Jets of young stars** (2021): Jet speeds reach 300 km/s\\." in markdown
