"""First pages of the fortieth to forty-fifth real-PDF sets (issue #44). Each rule on
made-up text, and on the real page it was seen on."""

from __future__ import annotations

from pathlib import Path

from ingest.parse.dispatch import parse_file
from ingest.parse.typeset import LIGATURE_MARK, ligature_mark, lost_ligatures
from rag.records import Paper

_SETS = Path(__file__).parents[1] / "bench/data"
_40, _41, _42, _43, _44, _45 = (_SETS / f"real_pdfs{n}/heldout" for n in range(40, 46))


def _read(path: Path) -> Paper:
    return next(i for i in parse_file(path) if isinstance(i, Paper))


def test_a_ligature_the_font_gave_no_letters_is_spelled_as_the_word_needs() -> None:
    """A glyph PDFium has no character for, as wide as a ligature, inside a word: the
    ligature that makes the word English, the wider ones tried first for a wider glyph."""
    two, three = ligature_mark(0.78), ligature_mark(0.92)
    assert ligature_mark(0.55) == LIGATURE_MARK
    assert lost_ligatures(f"non-local e{two}ects") == "non-local effects"
    assert lost_ligatures(f"Scienti{LIGATURE_MARK}c force {LIGATURE_MARK}elds") == (
        "Scientific force fields"
    )
    assert lost_ligatures(f"su{three}ciently e{three}cient") == "sufficiently efficient"
    assert lost_ligatures(f"zq{LIGATURE_MARK}x") == "zqfix"  # no word either way: the first tried
    paper = _read(_40 / "stern_torsion_bond_orders_manubot_preprint.pdf")
    assert paper.title.startswith("Capturing through-bond non-local effects in torsion")
    assert paper.abstract.startswith("Accurate small molecule force fields are crucial for")


def test_names_beside_labels_and_lists_closed_are_no_authors() -> None:
    """A line closing a list the line before opened ("Field Consortium’]"), a series'
    number ("IZA DP No. 16884"), four dictionary words ("Future European Parliamentary
    Elections") are no names; Springer's bullet read as "Æ" parts names, and an accented
    letter the text layer set apart joins its name ("Vučkovi ć")."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Field Consortium’]") is None
    assert not line_names("IZA DP No. 16884")
    assert not line_names("Future European Parliamentary Elections")
    assert line_names("Jackie Chi Kit Cheung") == ["Jackie Chi Kit Cheung"]  # short words: a name
    assert line_names("Theresa Casey Æ Jeffrey Bond Æ Scott Tighe Æ") == [
        "Theresa Casey",
        "Jeffrey Bond",
        "Scott Tighe",
    ]
    assert line_names("Jesse Lu ∗ and Jelena Vučkovi ć") == ["Jesse Lu", "Jelena Vučković"]
    assert _read(_41 / "casey_breaststroma_article.pdf").authors[:2] == (
        "Theresa Casey",
        "Jeffrey Bond",
    )
    stern = _read(_40 / "stern_torsion_bond_orders_manubot_preprint.pdf")
    assert "Josh Fass" in stern.authors and not any("Consortium" in a for a in stern.authors)
    assert _read(_42 / "fasani_key_workers_iza_dp.pdf").authors == (
        "Francesco Fasani",
        "Jacopo Mazza",
    )


def test_a_theses_supervisors_examiners_and_committee_are_no_authors() -> None:
    """Labelled people on a thesis's title page: a label alone with the name beside it
    ("Supervisor:" / "Prof. Dr. Stefan Klumpp"), "First Examiner and Supervisor:",
    "Committee:" with roles in brackets, Portuguese "orientada por:"; and the thesis's own
    author labelled after its abstract ("Author: Alexandru Serban, S3841502") over the
    document information's initials ("A S")."""
    from ingest.parse.pdfaffiliation import NOT_AUTHORS, SUPERVISED, SUPERVISOR

    assert NOT_AUTHORS.match("First Examiner and Supervisor:") and SUPERVISOR.match("Committee:")
    assert SUPERVISOR.match("Second referee: Prof. Dr. Peter Sollich")
    assert NOT_AUTHORS.match("Dissertação orientada por:")
    assert SUPERVISED.sub("", "Edward A. Miguel (Outside Reader)") == "Edward A. Miguel"
    cases = {
        _40 / "seiferth_coarse_graining_biochemical_thesis.pdf": ("David Seiferth",),
        _41 / "malato_malaria_thesis.pdf": ("João Torrado Malato",),
        _42 / "mkhayan_language_change_ma_thesis.pdf": ("Yuliya Mkhayan",),
        _42 / "hoces_policy_analysis_dissertation.pdf": ("Fernando Hoces de la Guardia",),
        _42 / "serban_vc_ipo_msc_thesis.pdf": ("Alexandru Serban",),
    }
    for path, named in cases.items():
        assert _read(path).authors == named, path.name


def test_theses_titles_stop_at_their_author_and_degree() -> None:
    """A thesis's title is not run on into its German degree statement ("zur Erlangung des
    akademischen Grades ... vorgelegt von"), nor into "By" and its author's name; a line
    opening on "How" is a title's, not two names ("How Transparency and Reproducibility
    Can"); a title's second line in the same type as the byline under it is the title's."""
    from ingest.parse.pdfaffiliation import DEGREE

    assert DEGREE.search("zur Erlangung des akademischen Grades eines")
    graz = _read(_40 / "parislopez_qcd_functional_methods_thesis.pdf")
    assert graz.title.endswith("IN LOW-ENERGY QCD MODELS") and graz.authors == (
        "Jordi París-López",
    )
    assert _read(_41 / "diaz_rodents_dissertation.pdf").title == (
        "OF RODENTS AND RANDOMNESS: MACROECOLOGICAL APPROACHES TO COMMUNITY STRUCTURE"
    )
    assert _read(_42 / "hoces_policy_analysis_dissertation.pdf").title.startswith(
        "How Transparency and Reproducibility Can Increase Credibility in Policy Analysis: A Case"
    )
    assert _read(_42 / "ryvin_eu_elections_thesis.pdf").title == (
        "Creating Methods to Predict Future European Parliamentary Elections"
    )


def test_a_thesis_abstract_page_setting_its_title_again_starts_at_the_prose() -> None:
    """Under "Abstract", a thesis sets its title, author, degree and year again on short
    lines: the abstract starts at the first line of prose. A line of a narrow column that
    mentions "his thesis" does not make a review's first page a thesis's title page."""
    toronto = _read(_40 / "ingliswhalen_scet_power_corrections_thesis.pdf")
    assert toronto.abstract.startswith("In this thesis a recent formulation of Soft-Collinear")
    review = _read(_40 / "wang_polymer_electrolytes_digitaldiscovery_review.pdf")
    assert review.abstract.startswith("Solid polymer electrolytes (SPEs) have been regarded")


def test_banners_covers_and_addresses_are_no_titles() -> None:
    """A banner's pieces set apart on one line ("Bank of Israel   Research Department"), a
    school's name in capitals on a journal's cover, a line holding an address, a print
    job's name in the document information ("Tierney, James--JALE(3)1--REMOPT") and a date
    far above the title are no title; a title in capitals is told from the byline under it
    in mixed case."""
    from ingest.parse.pdfaffiliation import INSTITUTION_NAME
    from ingest.parse.pdfmeta import junk_title

    assert INSTITUTION_NAME.match("THE UNIVERSITY OF PENNSYLVANIA LAW SCHOOL")
    assert junk_title("Tierney, James--JALE(3)1--REMOPT")
    assert not junk_title("Tierney and James: a Study of Two Styles")
    assert _read(_42 / "ilek_housing_dsge_discussion_paper.pdf").title.startswith(
        "Assessing the Impact of Monetary and Macroprudential Policies"
    )
    assert _read(_42 / "tierney_polar_bear_treaty_article.pdf").title == (
        "THE POLAR BEAR TREATY AND THE CHANGING GEOGRAPHY OF THE HIGH ARCTIC"
    )
    assert "doi.org" not in _read(_42 / "syomin_legal_services_article.pdf").title


def test_years_from_a_manuscripts_build_and_not_from_references_listed_initials_first() -> None:
    """Manubot's "This manuscript ... was automatically generated from ... on April 19,
    2020" dates the manuscript (a download's "generated" date still does not); a first
    page's references numbered with initials first ("1. Y. Tang, Z. Wang, ... (2010).")
    are the cited works', not the paper's year (its © 2012)."""
    from ingest.parse.pdfyear import find_year

    built = "This manuscript (permalink) was generated from a/b@19e28 on April 19, 2020."
    assert find_year(built, None) == 2020
    assert find_year("This PDF was generated on April 19, 2020 by a service.", None) is None
    assert _read(_40 / "stern_torsion_bond_orders_manubot_preprint.pdf").year == 2020
    assert _read(_41 / "arick_rohugenome_manuscript.pdf").year == 2022
    assert _read(_40 / "lu_objective_first_couplers_optexp_preprint.pdf").year == 2012


def test_covers_of_images_a_period_of_years_and_a_heading_under_the_byline() -> None:
    """Pages of next to no text before the article (an e-reader's cover image, a series'
    name alone) are covers, not a scan; a title closing on a period of years ("1955–1975")
    is no venue's page range; a heading in capitals under the byline ("HIGHLIGHTS") is no
    part of the last name; a job title ("Aerospace Engineer") is no name."""
    from ingest.parse.pdfnames import VENUE, line_names

    sword = _read(_45 / "davoli_romansword_article.pdf")
    assert sword.title.startswith("A New “Roman” Sword") and sword.authors == (
        "Paola Davoli",
        "Christian Miks",
    )
    assert not VENUE.search("J.H. Prynne in Context, 1955–1975") and VENUE.search(
        "Nature 12, 34–56"
    )
    thesis = _read(_45 / "goddard_prynne_phdthesis.pdf")
    assert (thesis.title, thesis.authors) == (
        "J.H. Prynne in Context, 1955–1975",
        ("Louis Goddard",),
    )
    assert _read(_43 / "yang_composite_stress_strain_article.pdf").authors[-1] == "Grace X. Gu"
    assert not line_names("Aerospace Engineer")


def test_a_doi_closed_by_its_bracket_and_a_templates_zeros_are_not_read_on() -> None:
    """A DOI whose bracket and point close it ("...096309)." / "1") does not take the next
    line's footnote number; a template's DOI of zeros ("10.18637/jss.v000.i00") is none."""
    from ingest.parse.ids import printed_doi

    assert printed_doi("(http://dx.doi.org/10.1136/\nbjsports-2016-096309).\n1\nLa Trobe") == (
        "10.1136/bjsports-2016-096309"
    )
    assert printed_doi("doi: 10.18637/jss.v000.i00") == ""
    assert printed_doi("doi: 10.18637/jss.v102.i01") == "10.18637/jss.v102.i01"
    assert _read(_44 / "carey_trainingloads_article.pdf").doi == "10.1136/bjsports-2016-096309"
