"""First pages of the forty-sixth to fifty-fourth real-PDF sets (issue #44). Each rule on
made-up text, and on the real page it was seen on."""

from __future__ import annotations

from tests.realsets import SETS as _SETS
from tests.realsets import held_out
from tests.realsets import read as _read

_46, _47, _48 = (held_out(n) for n in range(46, 49))


def test_a_thesis_is_of_the_academic_year_it_closes() -> None:
    """ "Academic Year 2021 - 2022" on a thesis's cover: the thesis is handed in as the year
    ends; in the languages theses are printed in, and with the year's last two digits."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Master Thesis\nAcademic Year\n2021 - 2022", None) == 2022
    assert find_year("ACADEMIC YEAR 2017 - 2018", None) == 2018
    assert find_year("Année académique 2019-20", None) == 2020
    assert find_year("Academic year 1999-00", None) == 2000
    assert find_year("Session: 2022-2024", None) is None  # a programme's years, not its year
    assert _read(_47 / "claes_go_futures_thesis.pdf").year == 2022
    kinif = _read(_48 / "kinif_greencompanies_thesis.pdf")
    assert (kinif.year, kinif.authors) == (2018, ("Pierrick Kinif",))


def test_labels_and_firms_on_a_title_page_are_no_authors() -> None:
    """A cover's field labels ("Submission Date", "Academic Year"), a degree's
    specialisation, a firm's or a place's word ("Capital", "Township") and a school
    named in French ("École Polytechnique") are no person's name."""
    from ingest.parse.pdfnames import line_names

    assert not line_names("Submission Date")
    assert not line_names("Academic Year")
    assert not line_names("Bahan Township")
    assert not line_names("Finance Specialization")
    assert not line_names("Quantica Capital")
    assert not line_names("EcolePolytechnique Fédérale de Lausanne")
    assert line_names("Martin Dudler, Bruno Gmür") == ["Martin Dudler", "Bruno Gmür"]
    dudler = _read(_48 / "dudler_momentum_workingpaper.pdf")
    assert dudler.authors == ("Martin Dudler", "Bruno Gmür", "Semyon Malamud")
    ajay = _read(_46 / "ajay_wheat_survey_data_article.pdf")
    assert ajay.authors[-1] == "Andrew McDonald" and len(ajay.authors) == 12


def test_an_affiliations_capital_after_a_name_is_a_mark() -> None:
    """CSIRO sets its affiliation marks as capitals in the name's type ("A. Meats A"): a
    lone capital after a name whose initials have their points is a mark; an initial
    after a name with none is the name's ("Senthil Rajan S")."""
    from ingest.parse.pdfnames import line_names

    assert line_names("A. Meats A , B and A. D. Clift A") == ["A. Meats", "A. D. Clift"]
    assert line_names("Senthil Rajan S") == ["Senthil Rajan S"]
    meats = _read(_46 / "meats_fruit_fly_eradication_article.pdf")
    assert meats.authors == ("A. Meats", "A. D. Clift")


def test_additional_keywords_end_an_abstract() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER

    assert FRONT_MATTER.match("Additional keywords: invasions, incursions, Allee effect.")
    assert FRONT_MATTER.match("Author keywords: trust")
    assert not FRONT_MATTER.match("Additional experiments confirm the keywords")
    meats = _read(_46 / "meats_fruit_fly_eradication_article.pdf")
    assert meats.abstract.endswith("at a level suited to the purpose of the declaration.")


def test_a_thesis_kind_in_the_titles_type_is_no_title() -> None:
    """ "Master Thesis" set largest on a cover names the document's kind; the title is the
    block under it. A thesis's author printed beside the label "Author:" is read."""
    from ingest.parse.pdfheader import _KICKER

    for kind in ("Master Thesis", "Master's Thesis", "PhD Thesis", "Doctoral Dissertation",
                 "Research Article", "Thesis"):  # fmt: skip
        assert _KICKER.fullmatch(kind), kind
    assert not _KICKER.fullmatch("Thesis on Stock Returns")
    furrer = _read(_48 / "furrer_indexing_thesis.pdf")
    assert furrer.title == (
        "Analyzing the Indexing Effect on Stock Returns – Evidence from the German Stock Market"
    )
    assert (furrer.authors, furrer.year) == (("Jonas Furrer",), 2023)


def test_an_abstract_ends_at_its_jel_codes_and_before_how_to_cite_it() -> None:
    """The AEA closes an abstract with its JEL codes in brackets: the body's first lines run
    on after them (its drop cap read into the line) are no abstract. A line saying how to
    cite the paper (the IMF's "RECOMMENDED CITATION:", PLOS's "Citation:") follows one."""
    from ingest.parse.pdfbody import FRONT_MATTER, FRONT_MATTER_AFTER

    text = "We find no effect. (JEL D83, J44) I co-workers? The answer to this question is"
    assert FRONT_MATTER_AFTER.sub("", text) == "We find no effect."
    assert FRONT_MATTER.match("RECOMMENDED CITATION: Bellon, M., and Warwick, R. (2025).")
    assert FRONT_MATTER.match("Citation: Smith J (2020) A study. PLoS ONE 15(3): e0229.")
    assert not FRONT_MATTER.match("Citation counts rose over the decade.")
    guryan = _read(_48 / "guryan_peereffects_article.pdf")
    assert guryan.abstract.endswith("and with the form of incentives faced.")
    bellon = _read(_48 / "bellon_taxcapacity_workingpaper.pdf")
    assert bellon.abstract.endswith("associated with other developmental progress is sufficient.")


def test_prepared_by_opens_a_byline() -> None:
    """The IMF's "Prepared by Matthieu Bellon and Ross Warwick": the label is no name."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Prepared by Matthieu Bellon and Ross Warwick", byline=True) == [
        "Matthieu Bellon",
        "Ross Warwick",
    ]
    assert _read(_48 / "bellon_taxcapacity_workingpaper.pdf").authors == (
        "Matthieu Bellon",
        "Ross Warwick",
    )


def test_a_year_from_the_papers_own_citation_line() -> None:
    """A journal's citation line in its other forms: the issue after the volume
    ("Linguistics 49–3 (2011), 525–553"), the year before the volume ("2023 (25): 2,
    1-10"), a running head citing the paper ("Ajay et al. 2021, Open Data Journal ...,
    vol. 7."); not a date the manuscript was accepted."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Linguistics 49–3 (2011), 525–553", None) == 2011
    assert find_year("Maderas 2023 (25): 2, 1-10\nAccepted: 27.09.2022", None) == 2023
    assert find_year("Ajay et al. 2021, Open Data Journal for Agricultural Research, vol. 7.",
                     None) == 2021  # fmt: skip
    assert find_year("In 2019, the survey was repeated.", None) is None
    assert _read(_47 / "tribushinina_norms_comparison_article.pdf").year == 2011
    assert _read(_46 / "gavilan_radiata_pine_lumber_article.pdf").year == 2023
    assert _read(_46 / "ajay_wheat_survey_data_article.pdf").year == 2021


def test_an_email_in_brackets_after_the_one_name_on_its_line_is_contact() -> None:
    """CogSci's byline: "Roman Tikhonov (rtikhono@andrew.cmu.edu)", one name to a line;
    a line naming a firm before the e-mail stays an affiliation's."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Roman Tikhonov (rtikhono@andrew.cmu.edu)") == ["Roman Tikhonov"]
    assert line_names("Simon DeDeo (sdedeo@andrew.cmu.edu) ,") == ["Simon DeDeo"]
    tikhonov = _read(_47 / "tikhonov_free_exploration_proceedings.pdf")
    assert tikhonov.authors == ("Roman Tikhonov", "Simon DeDeo")


def test_the_body_after_a_blank_line_in_the_abstracts_type_is_no_abstract() -> None:
    """Psychological Science sets the body in the abstract's type under a blank line's gap:
    once the abstract has lines enough to know its own spacing, a drop of more than two and
    a half of them after a finished sentence ends it (a shorter one stays a paragraph's)."""
    lupyan = _read(_47 / "lupyan_redundant_labels_article.pdf")
    assert lupyan.abstract.startswith("In addition to having communicative functions")
    assert lupyan.abstract.endswith(
        "concrete and bear directly on the language-and-thought debate."
    )
    davoli = _read(_SETS / "real_pdfs45/heldout/davoli_romansword_article.pdf")
    assert davoli.abstract.endswith("as its find context is not stratigraphically reliable.")


def test_a_mark_before_an_abstracts_first_word_is_no_word() -> None:
    """MIT Press sets a square before the abstract's first word, read as "&"."""
    from ingest.parse.pdf import _OPENING_MARK

    assert _OPENING_MARK.sub("", "& This study investigated") == "This study investigated"
    assert _OPENING_MARK.sub("", "&-closed sets are studied") == "&-closed sets are studied"
    daffner = _read(_47 / "daffner_stimulus_deviance_article.pdf")
    assert daffner.abstract.startswith("This study investigated the role of stimulus deviance")


_49, _50, _51 = (_SETS / f"real_pdfs{n}/heldout" for n in range(49, 52))


def test_metadata_written_as_utf8_and_read_as_latin1_is_put_back() -> None:
    from ingest.parse.pdfmeta import unmangled

    assert unmangled("Anna SzÃ¼cs") == "Anna Szücs"
    assert unmangled("donâ€™t") == "don’t"
    assert unmangled("SÃO PAULO") == "SÃO PAULO"  # Portuguese in capitals, not mangled
    assert unmangled("pâte à choux") == "pâte à choux"


def test_a_thesis_cover_names_its_field_its_term_and_its_supervisors() -> None:
    """A department's field under the author ("Theoretical Physics") is no name; Oxford's
    "Trinity 2019" dates a thesis as a season does; "Dissertation Committee:" and "under
    guidance of" label supervisors; "Vienna University of Technology" is an institution's
    name, no title."""
    from ingest.parse.pdfaffiliation import INSTITUTION_NAME, NOT_AUTHORS
    from ingest.parse.pdfnames import line_names
    from ingest.parse.pdfyear import find_year

    assert not line_names("Theoretical Physics")
    assert not line_names("ORIGINAL REPORT")  # an article's kind over its title
    lannsjo = _read(_49 / "lannsjo_diffuse_axonal_injury_article.pdf")
    assert lannsjo.authors[0].casefold() == "marianne lannsjö"  # (her family name in capitals)
    assert find_year("Trinity 2019", None) == 2019
    assert find_year("Michaelmas Term 2021", None) == 2021
    assert NOT_AUTHORS.match("Dissertation Committee:")
    assert NOT_AUTHORS.match("under guidance of")
    assert INSTITUTION_NAME.match("Vienna University of Technology")
    assert not INSTITUTION_NAME.match("Towards a University of the Future for All")
    gispen = _read(_50 / "gispen_polymer_brush_thesis.pdf")
    assert (gispen.authors, gispen.year) == (("Willem Gispen",), 2019)
    kronberger = _read(_50 / "kronberger_microreactor_thesis.pdf")
    assert kronberger.title == (
        "Characterization of Continuum Gas Flow in a High-Pressure Micro-Reactor Assembly"
    )
    assert kronberger.authors == ("Martin Kronberger",)


def test_a_reports_kind_before_its_title_and_a_supervisor_after_its_abstract() -> None:
    """ "Technical Report: VINS-Mono: ..." names the document's kind before the title; a
    student paper's "Supervisor: Dr. ..." under its abstract is no part of it."""
    from ingest.parse.pdf import _TITLE_LABEL
    from ingest.parse.pdfbody import FRONT_MATTER

    assert _TITLE_LABEL.sub("", "Technical Report: VINS-Mono: A Robust Estimator") == (
        "VINS-Mono: A Robust Estimator"
    )
    assert _TITLE_LABEL.sub("", "Working Papers: A History") == "Working Papers: A History"
    assert FRONT_MATTER.match("Supervisor: Dr. Trencsényi Réka")
    _53 = _SETS / "real_pdfs53/heldout"
    assert _read(_53 / "qin_visual_inertial_report.pdf").title.startswith("VINS-Mono: A Robust")
    ecg = _read(_53 / "gerelmaa_ecg_arrhythmia_paper.pdf")
    assert ecg.abstract.endswith("1 MB space while requiring 7.8 MB memory.")
