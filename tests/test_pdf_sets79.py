"""First pages of the seventy-ninth to eighty-first real-PDF sets, and the older sets' papers
their round had to keep (issue #44). Each rule on made-up text, and on the real page it was
seen on."""

from __future__ import annotations

from tests.realsets import held_out
from tests.realsets import read as _read

_35, _42, _79, _80, _81 = held_out(35), held_out(42), held_out(79), held_out(80), held_out(81)


def test_an_institution_over_the_title_in_its_type_is_passed_over() -> None:
    """EPFL's name and PEER's in the title's type above it: an institution, never the title;
    the title is that type's next lines. Read on so, a line of names under it in the same
    type is the byline (São Paulo's thesis), and a date is no title ("May 2009")."""
    from ingest.parse.pdfaffiliation import INSTITUTION_NAME

    assert INSTITUTION_NAME.match("École polytechnique fédérale de Lausanne")
    assert INSTITUTION_NAME.match("PACIFIC EARTHQUAKE ENGINEERING RESEARCH CENTER")
    assert not INSTITUTION_NAME.match("Research Center Selection for Clinical Trials: a Review")
    thesis = _read(_81 / "bessette_heated_jet_thesis.pdf")
    assert thesis.title.startswith("Turbulent heated jet: scientific machine learning")
    assert thesis.authors == ("Gabriel Bessette",)
    report = _read(_81 / "terzic_column_blind_prediction_report.pdf")
    assert report.title == (
        "Concrete Column Blind Prediction Contest 2010: Outcomes and Observations"
    )
    assert report.authors[0] == "Vesna Terzic"
    jerico = _read(_35 / "jerico_statistical_mechanics_economic_systems_thesis.pdf")
    assert jerico.title == "Statistical Mechanics of Economic Systems"
    assert jerico.authors == ("João Pedro Jericó",)
    treaty = _read(_42 / "tierney_polar_bear_treaty_article.pdf")
    assert treaty.title.startswith("THE POLAR BEAR TREATY AND THE CHANGING GEOGRAPHY")


def test_a_title_set_apart_over_by_is_a_thesis_title() -> None:
    """A Word title page in one bold type throughout: the title, far above a "BY" line and
    its author's name."""
    thesis = _read(_81 / "adenekan_monopole_antenna_thesis.pdf")
    assert thesis.title == "MOMENT-METHOD ANALYSIS OF A NON-UNIFORM MONOPOLE ANTENNAS"
    assert thesis.authors == ("Olubunmi Adeolu Adenekan",)


def test_a_forms_project_title_is_the_title_up_to_the_next_label() -> None:
    """A dissertation's form: "Project Title: ..." labels the title, and "Course:" on the
    next line ends it; neither label is a name."""
    from ingest.parse.pdfaffiliation import NOT_A_PERSON

    assert {"title", "federation", "republic", "kingdom"} <= NOT_A_PERSON
    form = _read(_81 / "mitov_induction_motor_dissertation.pdf")
    assert form.title == "3 Phase Induction Motor Fault Detection (Student 3)"
    assert form.authors == ("Boyan Kirilov Mitov",)
    bridge = _read(_81 / "drobotun_directional_bridge_conference.pdf")
    assert "Russian Federation" not in bridge.authors and len(bridge.authors) == 2


def test_a_date_alone_in_numbers_day_first_gives_the_year() -> None:
    """A repository cover's "1-1-2002", a thesis's "14/08/2020": the year closes the date,
    whichever of day and month comes first (a Windows line end too)."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Research Online\r\n1-1-2002 \r\nTheoretical Modelling\r\n", None) == 2002
    assert find_year("Supervisor: Dr. M. Carey\n14/08/2020\n", None) == 2020
    assert find_year("It rose 1-1-2002 in the text.", None) is None  # a date in prose
    assert _read(_81 / "wypych_rotary_valve_paper.pdf").year == 2002
    assert _read(_79 / "mcmahon_mastitis_thesis.pdf").year == 2020


def test_a_society_journals_footer_gives_the_year() -> None:
    """ "Agronomy New Zealand 45, 2015": a journal's name, volume and year alone in the
    footer, the only place the small society's paper prints them."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Agronomy New Zealand 45, 2015\n", None) == 2015
    assert find_year("we sowed 45, 2015 seeds\n", None) is None
    assert _read(_79 / "craigie_wheat_article.pdf").year == 2015


def test_a_degree_statement_closing_on_its_author_names_him() -> None:
    """ "... for the degree of Doctor in Philosophy by Joseph Michael Lewis"."""
    thesis = _read(_80 / "lewis_sepsis_malawi_thesis.pdf")
    assert thesis.authors == ("Joseph Michael Lewis",)


def test_a_surname_street_after_an_initial_is_a_name() -> None:
    """ "Nathaniel R Street" closes BMC's second byline line: an initial before it makes it
    a name, not an address ("25 Gower Street" stays one)."""
    from ingest.parse.pdfaffiliation import AFFILIATION

    assert not AFFILIATION.search("Stefan Jansson 1 and Nathaniel R Street 1*")
    assert AFFILIATION.search("25 Gower Street, London")
    paper = _read(_79 / "robinson_aspen_article.pdf")
    assert len(paper.authors) == 10 and paper.authors[-1] == "Nathaniel R Street"


def test_a_title_translated_under_it_is_no_subtitle() -> None:
    """Die Bodenkultur prints the German title under the English one: another language's
    block is left out of the title."""
    from ingest.parse.pdfmeta import foreign

    assert foreign("Auswirkungen von zwei Jahrzehnten organischer und mineralischer Düngung")
    assert not foreign("A systematic review and meta-analysis of randomised trials")
    assert not foreign("Spinsim: a GPU optimized Python package")  # too short to tell
    paper = _read(_79 / "spiegel_earthworms_article.pdf")
    assert paper.title.endswith("on earthworms and standardized litter decomposition")


def test_a_name_then_its_positions_and_address_is_a_byline_line() -> None:
    """An ASABE meeting paper sets one author a line: the name, degrees and positions, the
    e-mail ("Hongwei Xin, PhD, Professor, Director of the Egg Industry Center, hxin@...");
    the name is read, the rest set aside. A list of names stays one."""
    from ingest.parse.pdfaffiliation import byline_text

    line = "Hongwei Xin, PhD, Professor, Director of the Egg Industry Center, hxin@iastate.edu"
    assert byline_text(line) == "Hongwei Xin"
    assert byline_text("Smith, J., Jones, K.") == "Smith, J., Jones, K."
    paper = _read(_79 / "mendes_ammonia_conference.pdf")
    assert paper.authors == ("Luciano Barreto Mendes", "Hongwei Xin", "Hong Li")
