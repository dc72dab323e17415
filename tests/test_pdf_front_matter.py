"""First pages of the thirty-second and thirty-third real-PDF sets (issue #44): a series'
cover and AIP's later download cover passed over, a title checked against its cover, a
labelled title that stops at its byline, a column of record details beside an abstract, a
page's number under it, LIPIcs' subject classification, a repository's abstract page before
the paper's own title page, IEEE's ordinals and AIP's "a)" marks in a byline, an AMS title's
second line in capitals, and years: "COVID-19" is no venue, a labelled date in numbers is.
Each rule on made-up lines, and on the real page it was seen on."""

from __future__ import annotations

from pathlib import Path

from ingest.parse.dispatch import parse_file
from ingest.parse.pdflayout import Line
from rag.records import Paper

_SETS = Path(__file__).parents[1] / "bench/data"
_32, _33 = _SETS / "real_pdfs32/heldout", _SETS / "real_pdfs33/heldout"


def _read(path: Path) -> Paper:
    return next(i for i in parse_file(path) if isinstance(i, Paper))


def _at(text: str, size: float, y: float, x0: float = 72.0, x1: float = 440.0, page: int = 0,
        parts: tuple[str, ...] = ()) -> Line:  # fmt: skip
    return Line(text, size, page, x0, y, x1, y + size, parts=parts)


def test_a_series_cover_and_aips_later_cover_are_passed_over() -> None:
    from ingest.parse.pdfcover import cover_words

    series = (
        "Courant Research Centre\nGeorg-August-Universität Göttingen\nNo. 131\n"
        "Instant Trend-Seasonal Decomposition of Time Series\nLuis Rosales\nNovember 2012\n"
        "Discussion Papers\nWilhelm-Weber-Str. 2 37073 Goettingen Germany"
    )
    assert cover_words(series)
    # a working paper's own first page: its abstract on it, whatever its number
    assert cover_words(series + "\nAbstract\nWe present a method.") is None
    assert cover_words("Discussion Papers\nA title\nAnn Lee") is None  # no paper's number
    aip = "\ue929\nView\nOnline\n\ue92d\nExport\nCitation\nCrossMark\nRESEARCH ARTICLE | 2003"
    assert cover_words(aip)
    paper = _read(_33 / "rosales_trend_seasonal_splines_wp.pdf")
    assert paper.title == "Instant Trend-Seasonal Decomposition of Time Series with Splines"
    assert paper.authors == ("Luis Francisco Rosales", "Tatyana Krivobokova")
    paper = _read(_33 / "calvin_exafs_crystallite_size_jap.pdf")
    assert paper.title.endswith("using extended x-ray absorption fine structure")
    assert paper.abstract.startswith("An extended x-ray absorption fine structure was collected")


def test_a_titles_next_line_joins_it_when_the_cover_prints_them_as_one() -> None:
    from ingest.parse.pdfcover import covered_title

    page = [_at("Customer Acquisition via Display Advertising", 12, 700),
            _at("Using Multi-Armed Bandit Experiments", 12, 686),
            _at("Eric M. Schwartz, Eric T. Bradlow", 12, 650)]  # fmt: skip
    cover = (
        "Working Paper\nCustomer Acquisition via Display Advertising Using Multi\ufffeArmed Bandit"
    )
    cover += " Experiments\nEric M. Schwartz"
    title = "Customer Acquisition via Display Advertising"
    assert covered_title(title, 1, page, cover) == (f"{title} {page[1].text}", 2)
    assert covered_title(title, 1, page, "") == (title, 1)  # no cover: as found
    assert covered_title(title, 1, page, "A cover of another title") == (title, 1)


def test_a_labelled_title_stops_at_the_byline_in_its_type() -> None:
    from ingest.parse.pdftitlelabel import labelled_title

    page = [_at("Title: Variation in leaf transcriptome responses to elevated ozone", 12, 700),
            _at("across maize inbred lines", 12, 686),
            _at("Adalena V. Nanni 1,4 , Alison M. Morse 1,4 , Jeremy R. B. Newman 3,4", 12, 672),
            _at("Lauren M McIntyre* 1,4", 12, 658)]  # fmt: skip
    assert labelled_title(page, frozenset()) == (
        "Variation in leaf transcriptome responses to elevated ozone across maize inbred lines",
        2,
    )
    paper = _read(_32 / "nanni_maize_ozone_transcriptome_manuscript.pdf")
    assert paper.authors[0] == "Adalena V. Nanni" and len(paper.authors) == 10


def test_a_column_of_record_details_beside_the_abstract_is_no_part_of_it() -> None:
    """Taylor & Francis: "ARTICLE HISTORY" level with "ABSTRACT", right of it; where its
    lines share a baseline with the abstract's they are read as one line, its piece last;
    its "KEYWORDS" label does not end the abstract."""
    from ingest.parse.pdfabstract import abstract_end

    anchor = _at("ABSTRACT", 7.5, 597, x1=108)
    lines = [
        _at("ARTICLE HISTORY", 7.5, 597, x0=459, x1=520),
        _at("Two experiments were conducted on the way readers Received 25 May 2017", 9, 585,
            x1=529, parts=("Two experiments were conducted on the way readers",
                           "Received 25 May 2017")),
        _at("engage with emotional information while reading. Texts presenting", 9, 575),
        _at("KEYWORDS", 7.5, 562, x0=459, x1=499),
        _at("characters were read from either perspective and times measured.", 9, 555),
        _at("reading; comprehension;", 8, 551, x0=459, x1=535),
        _at("Readers were more sensitive to inconsistent information that way.", 9, 543),
    ]  # fmt: skip
    kept, _ = abstract_end(lines, 10.0, anchor=anchor)
    text = " ".join(x.text for x in kept)
    assert "Received" not in text and "KEYWORDS" not in text and "comprehension;" not in text
    assert text.startswith("Two experiments") and text.endswith(
        "inconsistent information that way."
    )
    paper = _read(_32 / "child_emotion_perspective_lcn.pdf")
    assert paper.abstract.endswith(
        "more sensitive to inconsistent emotional information from that perspective."
    )


def test_a_pages_number_and_a_subject_classification_end_no_abstract_with_them() -> None:
    from ingest.parse.pdfabstract import abstract_end

    lines = [_at("Scaling down the device demands low temperatures, and large Coulomb", 11, 160),
             _at("energy scales are necessary.", 11, 141, x1=221),
             _at("ii", 11, 115, x0=303, x1=309),
             _at("Acknowledgments", 24.8, 595, page=1)]  # fmt: skip
    kept, end = abstract_end(lines, 11.0, heading=True)
    assert [x.text for x in kept][-1] == "energy scales are necessary." and end == 3
    paper = _read(_33 / "fichte_weighted_model_counting_lipics.pdf")
    assert paper.abstract.endswith("half of counting and weighted counting benchmark instances.")
    paper = _read(_33 / "ritter_quantum_dot_cellular_automata_phd_thesis.pdf")
    assert not paper.abstract.endswith(" ii")


def test_the_byline_on_the_papers_own_title_page_after_a_repositorys_abstract_page() -> None:
    from ingest.parse.pdfbyline import under_title_again

    lines = [_at("Keywords", 10, 550, page=1), _at("ticket sales, events", 11, 538, page=1),
             _at("Suher", 12, 745, page=2), _at("Forecasting Event Ticket Sales", 12, 500, page=2),
             _at("Jacob Suher", 12, 378, page=2), _at("May 15, 2008", 12, 362, page=2)]  # fmt: skip
    assert [x.text for x in under_title_again(lines, "forecasting event ticket sales")] == [
        "Jacob Suher", "May 15, 2008"]  # fmt: skip
    assert under_title_again(lines, "another title") == []
    paper = _read(_32 / "suher_event_ticket_sales_wharton_report.pdf")
    assert paper.authors == ("Jacob Suher",) and paper.year == 2008


def test_ieee_ordinals_aip_marks_and_a_two_letter_family_name_in_capitals() -> None:
    from ingest.parse.pdfnames import line_names

    assert line_names("1 st Zhitong LI *", first=True) == ["Zhitong Li"]
    assert line_names("2 nd Yida ZHANG", first=True) == ["Yida Zhang"]
    assert line_names("S. Calvin, a) M. M. Miller, R. Goswami, b) S.-F. Cheng", first=True) == [
        "S. Calvin", "M. M. Miller", "R. Goswami", "S.-F. Cheng"]  # fmt: skip
    # in a list of names two capitals after a family name are still its initials
    assert line_names("Alhadainy HA, Darrag AM, Smith JB") == [
        "HA Alhadainy",
        "AM Darrag",
        "JB Smith",
    ]
    paper = _read(_33 / "li_bp_pid_power_supply_ieee.pdf")
    assert paper.authors == ("Zhitong Li", "Yida Zhang", "Yuyao Deng", "Xin Li")
    paper = _read(_33 / "calvin_exafs_crystallite_size_jap.pdf")
    assert paper.authors[:2] == ("S. Calvin", "M. M. Miller") and len(paper.authors) == 7


def test_a_title_line_opening_on_a_preposition_is_no_byline() -> None:
    paper = _read(_33 / "holst_newest_vertex_bisection_preprint.pdf")
    assert paper.title == "NEWEST VERTEX BISECTION OVER GENERAL TRIANGULAR MESHES"
    assert paper.authors == ("Michael Holst", "Martin Licht", "Zhao Lyu")


def test_covid_19_is_no_venue_and_a_labelled_date_in_numbers_is_the_papers() -> None:
    from ingest.parse.pdfyear import find_year

    assert (
        find_year("Keywords: broadband, European\nUnion, COVID-19, Digital transformation", None)
        is None
    )
    assert find_year("IJCAI-07", None) == 2007  # a venue's footer still is
    dates = (
        "SUBMISSION DATE: 08/05/2016// ACCEPTANCE DATE: 11/07/2016 //\nPUBLICATION DATE: 16/07/2017"
    )
    assert find_year(dates, None) == 2017  # published, not submitted or accepted
    assert find_year("SUBMISSION DATE: 08/05/2016", None) == 2016
    assert find_year("measured on 12/05/2017 in the field", None) is None  # unlabelled
    assert _read(_32 / "orujov_broadband_price_elasticity_springer_preprint.pdf").year is None
    assert _read(_32 / "ugarteundurraga_household_workers_film_article.pdf").year == 2017


_34, _35 = _SETS / "real_pdfs34/heldout", _SETS / "real_pdfs35/heldout"


def test_a_group_in_the_byline_is_one_author_and_a_lancet_side_note_no_part_of_the_abstract() -> (
    None
):
    from ingest.parse.pdfnames import line_names

    line = "Russell Hope, Daniela De Angelis,the COVID-19 Genomics UK (COG-UK) consortium†,"
    group = "the COVID-19 Genomics UK (COG-UK) consortium"
    assert line_names(line, byline=True) == ["Russell Hope", "Daniela De Angelis", group]
    assert line_names("Ann Lee, ALEPH Collaboration", byline=True) == [
        "Ann Lee",
        "ALEPH Collaboration",
    ]
    assert line_names("The study group met in March and the investigators found it") is None
    paper = _read(_34 / "twohig_sars_cov2_delta_hospital_risk_article.pdf")
    assert len(paper.authors) == 16 and paper.authors[13].endswith("(COG-UK) consortium")
    assert paper.abstract.endswith("greater burden on health-care services than the alpha variant.")


def test_bylines_as_wiley_and_others_set_them() -> None:
    """One name in capitals and its affiliation to a line (Wiley); "Md" a Bangladeshi given
    name's short form, not a degree; marks a font draws as "⁎" or "„"; a name hyphenated
    at a line's end before a capital keeps its hyphen ("Shih-" / "Cheng")."""
    from ingest.parse.pdfnames import line_names

    assert line_names("STEWART W. BRECK, United States Department of Agriculture") == [
        "STEWART W. BRECK"
    ]
    assert line_names("Royal Holloway, University of London") is None  # an address's line
    assert line_names("Md Abdullah Al Maruf, Swakkahr Shatabda ⁎", first=True) == [
        "Md Abdullah Al Maruf", "Swakkahr Shatabda"]  # fmt: skip
    assert _read(_34 / "poessel_human_coyote_conflicts_article.pdf").authors == (
        "Sharon A. Poessel", "Stewart W. Breck", "Tara L. Teel", "Stephanie Shwiff",
        "Kevin R. Crooks", "Lisa Angeloni")  # fmt: skip
    assert (
        _read(_35 / "aristimunha_eeg_autoencoder_replication.pdf").authors[-1]
        == "Raphael Y. de Camargo"
    )
    assert (
        "Shih-Cheng Huang" in _read(_35 / "rule_jupyter_notebooks_ten_rules_editorial.pdf").authors
    )


def test_titles_in_small_capitals_labelled_alone_or_under_a_one_word_banner() -> None:
    paper = _read(_34 / "goodman_bacon_childhood_medicaid_working_paper.pdf")
    assert paper.title.startswith("THE LONG-RUN EFFECTS OF CHILDHOOD INSURANCE COVERAGE")
    paper = _read(_35 / "layer_binary_interval_search_manuscript.pdf")  # "BIOINFORMATICS" over it
    assert (
        paper.title
        == "Binary Interval Search (BITS): An Optimal Algorithm for Interval Intersection Counting"
    )
    assert paper.authors[0] == "Ryan M. Layer"
    paper = _read(_35 / "tritt_spinsim_quantum_simulation_software_paper.pdf")  # "2 Title" alone
    assert paper.title.startswith(
        "Spinsim: a GPU optimized python package"
    ) and paper.title.endswith("systems")
    # a template's metadata title, not the printed one, and its placeholder authors
    paper = _read(_35 / "chen_banded_semiseparable_qr_preprint.pdf")
    assert paper.title.startswith("THE QR FACTORIZATION FOR BANDED-PLUS-SEMISEPARABLE")
    assert paper.authors == ("Tao Chen", "Sheehan Olver")


def test_a_portuguese_thesis_title_page() -> None:
    """ "Universidade de São Paulo" / "Instituto de Física" is no title; "Orientador:" names
    the supervisor; "Jeric ó" is one name with its accent; "Tese de Doutorado" names a
    thesis, whose title page holds no abstract."""
    from ingest.parse.pdfaffiliation import INSTITUTION_NAME

    assert INSTITUTION_NAME.match("Universidade de São Paulo") and INSTITUTION_NAME.match(
        "Instituto de Física"
    )
    paper = _read(_35 / "jerico_statistical_mechanics_economic_systems_thesis.pdf")
    assert paper.title == "Statistical Mechanics of Economic Systems"
    assert paper.authors == ("João Pedro Jericó",) and paper.abstract == ""


def test_quotes_dates_dois_and_rights_as_printed() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER
    from ingest.parse.pdfyear import find_year
    from ingest.parse.typeset import fix_characters

    assert fix_characters("‘‘I’ll Take Chop Suey’’") == "“I’ll Take Chop Suey”"
    assert find_year("Klaus Krippendorff\n2011.1.25", None) == 2011
    assert find_year("tested 2011.1.25 in the lab", None) is None  # not a line of its own
    assert FRONT_MATTER_AFTER.sub("", "to help reduce bias. 2012 The Wildlife Society.") == (
        "to help reduce bias.")  # fmt: skip
    assert (
        FRONT_MATTER_AFTER.sub("", "We ran it. 2012 was the year.")
        == "We ran it. 2012 was the year."
    )
    assert (
        _read(_34 / "adda_p_hacking_clinical_trials_article.pdf").doi == "10.1073/pnas.1919906117"
    )
    assert _read(_34 / "krippendorff_alpha_reliability_postprint.pdf").year == 2011


_36, _37 = _SETS / "real_pdfs36/heldout", _SETS / "real_pdfs37/heldout"


def test_a_doi_closing_a_reference_entry_or_a_deposit_is_not_the_papers() -> None:
    from ingest.parse.ids import printed_doi

    text = (
        "References [1] R. E. Kalman: J. Basic Eng. 82 (1960) 35. DOI:10.1115/1.3662552 "
        "[2] M. S. Grewal: Kalman Filtering (Wiley, 2015). ... inertial sensors. "
        "© IEICE 2016 DOI: 10.1587/elex.13.20160043 Received January 14, 2016"
    )
    assert printed_doi(text) == "10.1587/elex.13.20160043"
    # the only DOI printed is kept, cited or not
    only = "[1] R. E. Kalman: J. Basic Eng. 82 (1960) 35. DOI:10.1115/1.3662552"
    assert printed_doi(only) == "10.1115/1.3662552"
    deposit = (
        "are available on the American Journal of Political Science Dataverse within the "
        "Harvard Dataverse Network, at: https://doi.org/10.7910/DVN/AWSQTW. "
        "DOI: 10.1111/ajps.12638"
    )
    assert printed_doi(deposit) == "10.1111/ajps.12638"
    assert _read(_36 / "chavez-bracamontes_kalman_filter_vlsi_ieice_letter.pdf").doi == (
        "10.1587/elex.13.20160043")  # fmt: skip


def test_verification_materials_after_an_abstract_are_no_part_of_it() -> None:
    paper = _read(_37 / "hollyer_parties_charisma_article.pdf")
    assert paper.abstract.endswith("Austria, and Spain are consistent with our predictions.")
    assert paper.doi == "10.1111/ajps.12638"


def test_a_name_with_its_affiliation_set_apart_beside_it_on_each_line() -> None:
    """AJPS sets each author on a line, the university beside the name after a wide gap:
    every such line is a name, not only the first."""
    from ingest.parse.pdfnames import authors

    lines = [
        _at("James R. Hollyer University of Minnesota", 11.5, 617,
            parts=("James R. Hollyer", "University of Minnesota")),
        _at("Marko Klašnja Georgetown University", 11.5, 602,
            parts=("Marko Klašnja", "Georgetown University")),
    ]  # fmt: skip
    assert authors(lines, frozenset()) == ("James R. Hollyer", "Marko Klašnja")
    paper = _read(_37 / "hollyer_parties_charisma_article.pdf")
    assert paper.authors == ("James R. Hollyer", "Marko Klašnja", "Rocío Titiunik")


def test_a_name_broken_after_its_initial_sages_drawn_sign_a_law_and_a_forms_placeholder() -> None:
    """ "Patrick D" / "Schloss" is Patrick D Schloss (no Vancouver turn for a line's last
    name broken after its initial); SAGE's "ª The Author(s) 2020" is a copyright; "the
    Copyright Act 1968" is a law's name, no year; "(Please type)" is a form's, no name; "KU
    Leuven" an institution."""
    from ingest.parse.pdfnames import authors, line_names
    from ingest.parse.pdfyear import find_year

    byline = [_at("Marc A Sze 1 , Mary AM Rogers 2 , and Patrick D", 12, 547),
              _at("Schloss 1 †", 12, 526)]  # fmt: skip
    assert authors(byline, frozenset()) == ("Marc A Sze", "Mary AM Rogers", "Patrick D Schloss")
    assert line_names("Alhadainy HA, Darrag AM") == ["HA Alhadainy", "AM Darrag"]  # still
    assert (
        find_year("Volume 19: 1–9\nª The Author(s) 2020\nArticle reuse guidelines:", None) == 2020
    )
    assert find_year("reproduced under the Copyright Act 1968 for study", None) is None
    assert find_year("Copyright 2010 by The University of Chicago", None) == 2010
    assert line_names("Please Type", first=True) in (None, [])
    assert line_names("KU Leuven") is None
    paper = _read(
        _SETS / "real_pdfs39/heldout/kalokerinos_emotion_differentiation_psychsci_article.pdf"
    )
    assert paper.authors[-1] == "Peter Kuppens"
    assert (
        _read(_SETS / "real_pdfs39/heldout/xu_thematic_analysis_education_article.pdf").year == 2020
    )
