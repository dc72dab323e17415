"""First pages of the ninetieth real-PDF set (humanities and law, issue #44), measured blind
before these rules were written. Each rule on made-up text, and on the real page it was seen
on."""

from __future__ import annotations

from ingest.parse.ids import printed_arxiv
from ingest.parse.pdfaffiliation import byline_text
from ingest.parse.pdfyear import find_year
from tests.realsets import held_out
from tests.realsets import read as _read

_90 = held_out(90)


def test_an_arxiv_id_cited_as_another_papers_is_not_the_papers() -> None:
    """A footnote's reference on the first page ("arXiv preprint arXiv:1611.04135 (2016)", as
    reference managers print it, or closing a numbered entry) is another paper's id; the
    margin stamp is the paper's own."""
    cited = 'Wu, X. "Responses to Critiques," arXiv preprint arXiv:1611.04135 (2016): 1-14.'
    assert printed_arxiv(cited) is None
    assert printed_arxiv("[3] A. Author. A title. arXiv:2101.00001, 2021.") is None
    own = printed_arxiv(f"arXiv:2406.03243v2 [cs.CL] 5 Jun 2024 {cited}")
    assert own is not None and own.group(1) == "2406.03243"
    chapter = _read(_90 / "arnold_deeplearning_chapter.pdf")
    assert chapter.year is None  # the page prints no year of its own
    assert chapter.extra.get("arxiv_id", "") == ""


def test_a_degree_named_by_its_letters_makes_a_thesis_and_its_line_gives_the_year() -> None:
    line = (
        "B.A. thesis, Department of Slavic Languages and Literatures, University of Chicago, 2006"
    )
    assert find_year(line, None) == 2006
    assert find_year("MSc thesis, University of Oslo, 2019", None) == 2019
    assert find_year("A review of the literature, University of Oslo, 2019", None) is None
    assert _read(_90 / "dombrowski_novgorod_thesis.pdf").year == 2006


def test_a_bold_title_a_point_over_the_body_under_its_byline() -> None:
    """A journal that sets its body in 14-point type, the author (with an institution in
    brackets broken over two lines) over the title, the title in 16- and 14-point bold
    capitals: the title is the bold type, the author the line over it."""
    assert byline_text("Jacobus A Naudé (University of the Free State, Bloemfontein, South") == (
        "Jacobus A Naudé"
    )
    assert byline_text("Africa)") == ""
    assert byline_text("Wei Fang, and Jeremy O. Richardson a)") != ""  # a note's mark, kept
    paper = _read(_90 / "naude_biblicalhebrew_article.pdf")
    assert paper.title == (
        "LINGUISTIC DATING OF BIBLICAL HEBREW TEXTS: THE CHRONOLOGY AND TYPOLOGY DEBATE"
    )
    assert paper.authors == ("Jacobus A Naudé",)


def test_a_ligature_at_teXs_own_code_is_read_as_its_letters() -> None:
    """A TeX font with no map to Unicode leaves "fi" at T1's code 0x1C: "De\\x1cance" is
    "Defiance", not "De ance"."""
    paper = _read(_90 / "chimicles_bombing_thesis.pdf")
    assert "Defiance of Omnistate" in paper.title


def test_a_name_in_the_titles_bold_type_over_it_is_its_byline_not_its_title() -> None:
    """"P.O. Syomin", an affiliation and an e-mail, then the title in the same 12-point bold:
    the title is the capitals under them, the name the author."""
    paper = _read(held_out(42) / "syomin_legal_services_article.pdf")
    assert paper.title.startswith("SPATIAL AND REGRESSION ANALYSIS OF PROVISION")
    assert paper.authors == ("P.O. Syomin",)
