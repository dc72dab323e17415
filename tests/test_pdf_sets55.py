"""First pages of the fifty-fifth to fifty-seventh real-PDF sets (issue #44). Each rule on
made-up text, and on the real page it was seen on."""

from __future__ import annotations

from tests.realsets import SETS as _SETS
from tests.realsets import held_out
from tests.realsets import read as _read

_55, _56, _57 = (held_out(n) for n in range(55, 58))


def test_the_paper_s_history_and_its_own_citation_end_its_abstract() -> None:
    """ "Submitted 2014 September 16; accepted 2015 April 9." under an abstract, NLM's
    citation of the paper ("(JMIR Mhealth Uhealth 2025;13:e67117) doi: ..."), and AIP's
    rights line with its link in brackets are no part of the abstract; a year in prose and
    a parenthesis of the abstract's own stay."""
    from ingest.parse.pdfabstract import _HISTORY
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER

    assert _HISTORY.match("Submitted 2014 September 16; accepted 2015 April 9.")
    assert _HISTORY.match("Received: 24 February 2023")
    assert not _HISTORY.match("Accepted theories of 2015 are wrong.")
    cut = FRONT_MATTER_AFTER.sub
    assert cut("", "sampling. (JMIR Mhealth Uhealth 2025;13:e67117) doi: 10.2196/67117") == (
        "sampling."
    )
    assert cut("", "as before. (Smith et al. 2020; 3 studies) We find") == (
        "as before. (Smith et al. 2020; 3 studies) We find"
    )
    assert cut("", "we show. Published by AIP Publishing. [http://dx.doi.org/10.1063/1.49]") == (
        "we show."
    )
    emr = _read(_57 / "leveillegauvin_sixties_harmony_article.pdf")
    assert emr.abstract.endswith("during the second half of the decade.")
    jmir = _read(_56 / "prochnow_ema_compliance_article.pdf")
    assert jmir.abstract.endswith("developing adaptive sampling techniques.")
    assert jmir.year == 2025  # its running foot: "JMIR Mhealth Uhealth 2025 | vol. 13 | ..."
    aip = _read(_55 / "domingo_bounded_noise_article.pdf")
    assert aip.abstract.endswith("whose solutions we formally show.")


def test_a_journal_s_foot_with_its_volume_gives_the_year() -> None:
    from ingest.parse.pdfyear import find_year

    assert find_year("JMIR Mhealth Uhealth 2025 | vol. 13 | e67117 | p. 1", None) == 2025
    assert find_year("Some Journal 2019, Vol. 45(2) 100-120", None) == 2019
    assert find_year("the 2019 volume of essays", None) is None


def test_a_word_s_space_after_an_accent_is_kept_and_the_orcid_badge_dropped() -> None:
    """PLOS draws "Chloé Allémann" with the space after the accent drawn back over the "e":
    the space still parts the names; the ORCID badge after "Salathé" is no part of it."""
    from ingest.parse.pdfnames import _ORCID

    assert _ORCID.sub("", "SalathéID") == "Salathé"
    assert _ORCID.sub("", "DAVID") == "DAVID"
    plos = _read(_56 / "heritier_nutrition_cohort_article.pdf")
    assert plos.authors[1] == "Chloé Allémann" and "Noé Froidevaux" in plos.authors
    assert plos.authors[-1] == "Marcel Salathé" and len(plos.authors) == 18


def test_a_thesis_s_author_is_named_after_by_not_its_jury() -> None:
    """A thesis's title page names its author after "by" ("Par" in French); the professors
    and the department beside its title, and the committee under "Approved:", are not its
    authors."""
    from ingest.parse.pdfthesis import _BY

    assert _BY.match("Par")
    assert _BY.match("Por: Ana Souza")
    assert not _BY.match("Paris, France")
    geneva = _read(_55 / "fischer_yang_mills_higgs_thesis.pdf")
    assert geneva.authors == ("Simon-Raphael Fischer",)
    utah = _read(_57 / "zupon_denominal_verbs_thesis.pdf")
    assert utah.authors == ("Andrew Lee Zupon",)


def test_a_student_s_number_and_a_course_s_years_on_a_thesis() -> None:
    """ "Author: Phol Wehaprasirtsak (CID: 01859075)": the number in brackets is no name;
    "MSc in Mathematics and Finance, 2023-2024": the thesis is of the year its course
    closes; a span of more than a year is no course's."""
    from ingest.parse.pdfyear import find_year

    thesis = "A thesis submitted for the degree of\n"
    assert find_year(thesis + "MSc in Mathematics and Finance, 2023-2024", None) == 2024
    assert find_year(thesis + "Master of Arts, 2019/20", None) == 2020
    assert find_year(thesis + "The Ammunition Market, 2006-2015", None) is None
    imperial = _read(_55 / "wehaprasirtsak_uncertain_volatility_thesis.pdf")
    assert (imperial.authors, imperial.year) == (("Phol Wehaprasirtsak",), 2024)


def test_a_named_lecture_over_a_title_and_the_title_s_note_are_no_part_of_it() -> None:
    """IMS prints "1999 REITZ LECTURE" over the title, and the title's note number after
    it in the body's size."""
    from ingest.parse.pdfheader import _KICKER

    assert _KICKER.fullmatch("1999 REITZ LECTURE")
    assert _KICKER.fullmatch("Presidential Address")
    assert not _KICKER.fullmatch("Lectures on the Theory of Games and Economic Behaviour")
    friedman = _read(_55 / "friedman_gradient_boosting_article.pdf")
    assert friedman.title == "GREEDY FUNCTION APPROXIMATION: A GRADIENT BOOSTING MACHINE"
    assert friedman.authors == ("Jerome H. Friedman",)


def test_a_spaced_out_kicker_an_author_under_its_label_and_a_title_on_manuscripts() -> None:
    """Tübingen's cover sets "Master’s Thesis" spaced out over the title, and "Author:"
    over the author's name, a column of supervisors beside it; a title may be about
    manuscripts ("Literary manuscript text recognition"), a submission system's
    "Manuscript ID" line is no title."""
    from ingest.parse.pdfheader import _KICKER
    from ingest.parse.pdfnames import VENUE

    assert _KICKER.fullmatch("Master’sThesis")
    assert not VENUE.search("CREMMA Medii Aevi: Literary manuscript text recognition in")
    assert VENUE.search("Wiley - Manuscript type: Rapid Communication")
    assert VENUE.search("Author Manuscript")
    tubingen = _read(_57 / "blaschke_explainable_dialects_thesis.pdf")
    assert tubingen.title.startswith("Explainable Machine Learning in Linguistics")
    assert tubingen.authors == ("Verena Blaschke",)
    cremma = _read(_57 / "clerice_medieval_latin_htr_datapaper.pdf")
    assert cremma.title == "CREMMA Medii Aevi: Literary manuscript text recognition in Latin"
    assert cremma.authors[0] == "Thibault Clérice" and len(cremma.authors) == 3


def test_a_list_s_third_item_and_a_numbered_keywords_line() -> None:
    """ "(c) required writing while listening" is an abstract's list, not a rights line
    ("(c) 2017 Elsevier", "(c) The Authors" are); a manuscript's numbered line "29 Keywords:
    ..." closes its abstract as the keywords do (the abstract is not cut to a length)."""
    from ingest.parse.pdfabstract import _RIGHTS, KEYWORDS_LINE

    assert not _RIGHTS.search("(c) required writing while listening. The purpose of")
    assert _RIGHTS.search("(c) 2017 Elsevier Ltd.") and _RIGHTS.search("(c) The Authors")
    assert KEYWORDS_LINE.match("29 Keywords: oral biofilm model, starch")
    sage = _read(_57 / "buonviri_melodic_dictation_article.pdf")
    assert sage.abstract.endswith("better prepared to make wise decisions during dictation.")
    numbered = _read(_57 / "bartholdy_dental_calculus_starch_manuscript.pdf")
    assert numbered.abstract.endswith("associated with dietary research on dental calculus.")


def test_a_family_name_after_an_elided_particle_is_a_name() -> None:
    """ "Alberto d’Onofrio" between two authors (AIP) is one of them; a French laboratory's
    name ("Laboratoire d’Informatique") is none."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Alberto d’Onofrio", byline=True) == ["Alberto d’Onofrio"]
    assert not line_names("Laboratoire d’Informatique", byline=True)
    aip = _read(_55 / "domingo_bounded_noise_article.pdf")
    assert aip.authors == ("Dario Domingo", "Alberto d’Onofrio", "Franco Flandoli")


def test_a_space_before_an_accent_drawn_back_is_no_word_s_space() -> None:
    """Chicago's title page draws "NICOLÁS OJEDA BÄR" as "... B", a space, the acute of
    "NICOLÁS" drawn back over it, then "AR": the space is a jump in the drawing order, not
    a word's."""
    chicago = _read(_55 / "ojedabar_breuil_kisin_dissertation.pdf")
    assert chicago.authors == ("Nicolás Ojeda Bär",)


def test_an_affiliation_s_last_word_is_no_name_s() -> None:
    """ "Utrecht University, ..., Faculty of Social and Behavioral" / "Sciences." under a
    byline whose last name lacks the others' mark: "Sciences." is the affiliation's tail,
    not the name's."""
    from ingest.parse.pdfnames import line_names

    assert not line_names("Sciences.")
    utrecht = _read(_55 / "cremers_circular_regression_manuscript.pdf")
    assert utrecht.authors == ("J. Cremers", "I. Jansen", "I. Klugkist")


def test_a_title_ends_at_a_by_line_of_its_own() -> None:
    """Berkeley's dissertation page: the title in the body's type, "by" on a line of its
    own, then the author: the title stops at "by" (and a thesis's "An Honors Thesis
    Presented" / "By" above its author is still no title)."""
    berkeley = _read(_SETS / "real_pdfs51/heldout/poulos_american_frontier_phdthesis.pdf")
    assert berkeley.title == "Essays on the Political Economy of the American Frontier"
    assert berkeley.authors == ("Jason V Poulos",)
    honors = _read(_SETS / "real_pdfs25/heldout/keller_parking_functions_thesis.pdf")
    assert honors.title == "COMBINATORICS OF PARKING FUNCTIONS"
