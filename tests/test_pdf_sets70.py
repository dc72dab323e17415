"""First pages of the seventieth to seventy-eighth real-PDF sets, and the older sets' misses
their round took up (issue #44). Each rule on made-up text, and on the real page it was seen
on."""

from __future__ import annotations

from tests.realsets import held_out
from tests.realsets import read as _read

_10, _14, _31, _46 = held_out(10), held_out(14), held_out(31), held_out(46)
_49, _65, _73, _75 = held_out(49), held_out(65), held_out(73), held_out(75)
_76, _77, _78 = held_out(76), held_out(77), held_out(78)
_70, _71, _72 = held_out(70), held_out(71), held_out(72)


def test_the_serif_copyright_sign_is_read_and_ends_the_abstract() -> None:
    """Wiley's Symbol font draws "©" at Adobe's corporate-use code U+F6D9 (the Adobe Glyph
    List's copyrightserif): read as the sign, so "Copyright © 2002 John Wiley & Sons" is the
    abstract's trailer, not its last sentence, and no private-use character is stored."""
    from ingest.parse.symbolfont import printed

    assert printed("\uf6d9", "Symbol") == "©" and printed("\uf6db", "Times") == "™"
    assert printed("\ue000", "Symbol") == "\ue000"  # any other private-use code as it is
    article = _read(_72 / "bai_structural_change_article.pdf")
    assert article.abstract.endswith("All methods discussed are implemented in a GAUSS program.")
    assert not any("\ue000" <= c <= "\uf8ff" for c in article.abstract)


def test_a_revised_working_paper_is_of_its_revision_s_year() -> None:
    """ "August 2008" / "Revised April 2013" under a staff report's title: the version in
    hand is the revision; a journal's "Received ... Revised ..." history is no version."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Staff Report No. 340\nAugust 2008\nRevised April 2013\n", None) == 2013
    assert find_year("March 2019; this version: May 2021", None) == 2021
    assert find_year("May 2010\nJune 2012 Workshop on Trade", None) == 2010
    assert find_year("Received 11 September 1998\nRevised 4 October 2001", None) == 2001
    report = _read(_72 / "adrian_term_structure_staffreport.pdf")
    assert report.year == 2013


def test_a_statement_on_work_in_progress_before_the_title_page_is_a_cover() -> None:
    """A master's thesis opens with a statement that it is still under review, quoting its
    title: the title page after it is the thesis's first page."""
    from ingest.parse.pdfcover import cover_words

    assert cover_words("Statement on Work in Progress:\nI present my thesis, titled ...")
    thesis = _read(_72 / "wang_income_comparison_thesis.pdf")
    assert thesis.title == "The Importance of Colleagues as a Reference Group in Income Comparison"
    assert thesis.authors == ("Xinyue Wang",)


def test_a_title_whose_lines_run_on_into_prose_is_no_byline() -> None:
    """An anonymised dissertation's three-line title in large type opens with words that
    read as two names ("Jobless Unemployed Workers and Temporary Layoff"), but its next
    line reads as none: a title, and the paper has no authors (an exam number only)."""
    paper = _read(_72 / "anonymous_temporary_layoff_dissertation.pdf")
    assert paper.title.startswith("Jobless Unemployed Workers and Temporary Layoff Workers")
    assert paper.title.endswith("in the US Labour Market") and paper.authors == ()


def test_project_muse_s_cover_and_a_byline_under_the_title_in_its_type() -> None:
    """Project MUSE's cover ("For additional information about this article") comes before
    the article; the cover prints the title over its authors, and the article sets the
    authors in the title's type under it: a byline, not the title's last words."""
    from ingest.parse.pdfcover import cover_words

    assert cover_words("Learning complex segments\nFor additional information about this article")
    article = _read(_70 / "gouskova_complex_segments_article.pdf")
    assert article.title == "Learning complex segments"
    assert article.authors == ("Maria Gouskova", "Juliet Stanton")
    assert article.abstract.startswith("Sequences such as [mb, kp, ts] pattern as")
    # (its last sentence's note mark, "phonetics.*", is no word of it)
    assert article.abstract.endswith("from phonotactics and from phonetics.")


def test_a_german_research_centre_is_no_author() -> None:
    """ "Forschungszentrum Deutscher Sprachatlas," under an author's name is where they
    work, not a second author."""
    article = _read(_70 / "list_chinese_dialects_article.pdf")
    assert article.authors == (
        "Johann-Mattis List", "Shijulal Nelson-Sathi", "William Martin", "Hans Geisler"
    )  # fmt: skip


def test_a_title_s_version_label_and_a_main_title_s_own_punctuation() -> None:
    """ "... Hamburg Concerto (draft)": the label says which version, not the title. A main
    title ending in "!" takes its subtitle with no colon added."""
    draft = _read(_70 / "shaffer_ligeti_draft.pdf")
    assert draft.title.endswith("in György Ligeti’s Hamburg Concerto")
    thesis = _read(_70 / "szawerna_polish_variation_thesis.pdf")
    assert thesis.title.startswith("IŻ SWÓJ JĘZYK MAJĄ! An exploration of")


def test_the_year_of_a_how_to_cite_sidebar() -> None:
    """Ubiquity Press prints "TO CITE THIS ARTICLE:" in a sidebar whose lines the text layer
    interleaves with the abstract's: "Wyatt-Spratt, S. 2022. After the Revolution ..."."""
    from ingest.parse.pdfyear import find_year

    sidebar = "TO CITE THIS ARTICLE:\nuse of 3D modelling in 1999 studies\nSmith, J. 2022. After"
    assert find_year(sidebar, None) == 2022
    review = _read(_70 / "wyattspratt_lithics_review.pdf")
    assert review.year == 2022


def test_a_thesis_s_year_closing_its_institute_s_line_or_its_academic_year() -> None:
    """A bachelor thesis's title page ends "Institutt for matematiske fag — NTNU 2019"; a
    "Master thesis in physics" printed at "University of Würzburg, 2012-13" was handed in
    as that academic year ended."""
    from ingest.parse.pdfyear import find_year

    assert (
        find_year("Schemes\nTorgeir Aambø\nInstitutt for matematiske fag — NTNU 2019", None) == 2019
    )
    assert (
        find_year("Master thesis in physics\nby\nD. L.\nUniversity of Würzburg, 2012-13", None)
        == 2013
    )
    bachelor = _read(_71 / "aambo_naive_homotopy_thesis.pdf")
    assert bachelor.year == 2019
    # its abstract's page has a running head "ABSTRACT" / "i" over the heading "Abstract"
    assert bachelor.abstract.startswith("In this thesis we attempt to understand naive")
    assert _read(_71 / "luposchainsky_environmental_entropy_thesis.pdf").year == 2013


def test_a_co_supervisor_is_no_author() -> None:
    """ "Co-supervisor:" / "Dr. Giulio Colombini" beside "Submitted by:" / "Matteo Shqemza"."""
    from ingest.parse.pdfaffiliation import SUPERVISOR

    assert SUPERVISOR.match("Co-supervisor:") and SUPERVISOR.match("Cosupervisor:")
    thesis = _read(_71 / "shqemza_network_entropy_thesis.pdf")
    assert thesis.authors == ("Matteo Shqemza",)


def test_a_side_column_set_between_the_abstract_s_lines_is_not_read_into_it() -> None:
    """JAMA's "Key Points" column stands right of the abstract, its lines at the heights of
    the abstract's: they are passed over (not pieces of the abstract's lines, which continue
    on the same baseline a little to the right), and its smaller note ("Author affiliations
    ... listed at the end of this article.") no longer ends the abstract mid-sentence."""
    jama = _read(_49 / "lai_llm_risk_of_bias_article.pdf")
    assert "Question Are large language models" not in jama.abstract
    assert "LLM 2 reached a significantly higher rate of 89.5%" in jama.abstract
    assert jama.abstract.endswith("potential as supportive tools in systematic review processes.")
    lancet = _read(_65 / "shah_hivcardiovascular_article.pdf")
    assert lancet.abstract.endswith("in sub-Saharan Africa and the Asia Pacific regions.")
    # PNAS's "Significance" box heading level with a line that reaches the column's edge
    pnas = _read(held_out(21) / "jakesch_ai_language_heuristics_pnas.pdf")
    assert pnas.abstract.endswith("limiting the subversion of human intuition.")


def test_keywords_and_a_heading_in_a_byline_s_place_are_no_authors() -> None:
    """ "Stochastic Disease Progression", "Lead Contact", "Monash Health": a manuscript's
    keywords, Cell's label, a hospital network, each set where names stand."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Sequential Bayesian Inference, Theoretical Framework") in (None, [])
    assert _read(_31 / "koivu_bayesian_adaptive_trial_preprint.pdf").authors == ("Jesse Koivu",)
    assert "Lead Contact" not in _read(_10 / "jfoster_CurrBio2017.pdf").authors
    assert "Monash Health" not in _read(_73 / "bennett_icu_data_preprint.pdf").authors
    stanford = _read(_75 / "millardball_peaktravel_preprint.pdf").authors  # a building's name
    assert (
        stanford[:2] == ("Adam Millard-Ball", "Lee Schipper") and "Energy Building" not in stanford
    )


def test_a_title_s_second_block_opening_in_lower_case_runs_on() -> None:
    """ "Weed Seed Movement" (36 pt) / "via Combines: 2019-2020 Case Study" (18 pt): one
    title, no colon between."""
    sheet = _read(_46 / "arneson_weed_seed_combines_extension.pdf")
    assert sheet.title == "Weed Seed Movement via Combines: 2019-2020 Case Study"


def test_linux_libertine_s_ligatures_at_private_use_codes() -> None:
    """A PDF set in Linux Libertine with no map to Unicode gives its "tt", "Th" and "ft"
    ligatures at private-use codes: read as the letters."""
    from ingest.parse.symbolfont import printed

    assert printed("\ue03c", "LinLibertineO") == "tt" and printed("\ue049", "LinLibertineT") == "Th"
    assert printed("\ue03c", "Times") == "\ue03c"  # another font's code is its own
    paper = _read(_14 / "butterfill_knowledge_explain.pdf")
    assert "This commentary" in paper.abstract and "attempts" in paper.abstract
    assert not any("\ue000" <= c <= "\uf8ff" for c in paper.abstract)


def test_a_thesis_submitted_on_a_date_by_its_author() -> None:
    """Bonn's title page: "Submitted in July 2022 by:" / "Jakob R. Juergens"."""
    from ingest.parse.pdfthesis import _BY

    assert _BY.match("Submitted in July 2022 by:") and _BY.match("presented by")
    thesis = _read(_73 / "juergens_permutation_tests_thesis.pdf")
    assert thesis.authors == ("Jakob R. Juergens",)


def test_an_equal_contribution_note_and_an_arxiv_submission_number() -> None:
    """ "SRB and MT contributed equally to this work." after an abstract's last sentence is
    a note on its authors; "arXiv:submit/6224127" numbers a submission, no paper."""
    article = _read(_73 / "bhatnagar_casebase_survival_article.pdf")
    assert article.abstract.endswith("all these features through three different case studies.")
    preprint = _read(_73 / "xiang_local_fdr_preprint.pdf")
    assert preprint.extra.get("arxiv_id", "") == ""


def test_line_numbers_given_with_their_lines_and_alone_on_blank_lines() -> None:
    """A TRB manuscript numbers every line, blank ones too: "1 ESTIMATING ON-DEMAND ..." /
    "2 AND SYNTHETIC POPULATION" / "3" / "4" / "5" / "6 Yangyang Wang". The numbers alone
    count in the run of numbers, and go with the ones given with their lines."""
    from ingest.parse.pdfline import Line
    from ingest.parse.pdfnumbers import without_line_numbers

    texts = ["1 A TITLE OF", "2 TWO LINES", "3", "4", "5 Ann Lee", "6 A University", "7", "8",
             "9 Bo Li", "10 Another University", "11", "12 Abstract", "13 goes on"]  # fmt: skip
    lines = [
        Line(t, 12.0, 0, 57.0, 700.0 - 14 * i, 300.0, 712.0 - 14 * i) for i, t in enumerate(texts)
    ]
    assert [x.text for x in without_line_numbers(lines)] == [
        "A TITLE OF", "TWO LINES", "Ann Lee", "A University", "Bo Li", "Another University",
        "Abstract", "goes on",
    ]  # fmt: skip
    paper = _read(_75 / "wang_deliverydemand_trbpaper.pdf")
    assert paper.title.startswith("ESTIMATING ON-DEMAND DELIVERY DEMANDS WITH MACHINE LEARNING")
    assert paper.authors == ("Yangyang Wang", "Tayo Fabusuyi")
    assert paper.abstract.startswith("The rapid growth of on-demand delivery")


def test_a_submission_system_s_form_is_a_cover_though_it_holds_the_abstract() -> None:
    """Editorial Manager's "--Manuscript Draft--" form (title, abstract, classifications)
    comes before the manuscript's own title page."""
    from ingest.parse.pdfcover import cover_words

    assert cover_words("TRB Annual Meeting\nA Title\n--Manuscript Draft--\nAbstract: We ...")
    paper = _read(_75 / "zheng_transitreliability_trbmanuscript.pdf")
    assert paper.title.startswith("ANALYZING SPATIOTEMPORAL PATTERNS OF TRANSIT SERVICE")
    assert paper.authors == ("Anran Zheng", "Luyu Liu", "Xiang Yan")


def test_a_note_on_an_author_and_a_labelled_iso_date() -> None:
    """ "Sebastian Hörl (joint first co-author)" is Sebastian Hörl; "Corresponding Author"
    under a name is no name; "Date of submission: 2017-08-01" dates the manuscript."""
    from ingest.parse.pdfaffiliation import byline_text
    from ingest.parse.pdfyear import find_year

    assert byline_text("Sebastian Hörl (joint first co-author)") == "Sebastian Hörl"
    assert find_year("A title\nDate of submission: 2017-08-01\n", None) == 2017
    paper = _read(_75 / "hoerl_fleetcontrol_trbpaper.pdf")
    assert paper.authors[:2] == ("Sebastian Hörl", "Claudio Ruch") and paper.year == 2017
    assert "Corresponding Author" not in _read(_75 / "black_visionzero_trbpaper.pdf").authors


def test_a_report_s_roles_a_committee_and_a_supporting_information_box_are_no_names() -> None:
    """ "Principal Investigator" under a report's names, a dissertation's "Reading
    Committee:" and ACS's "S Supporting Information" box name no author."""
    from ingest.parse.pdfaffiliation import SUPERVISOR

    assert SUPERVISOR.match("Reading Committee:") and SUPERVISOR.match("Supervisory Committee:")
    report = _read(_76 / "kulig_labortrafficking_report.pdf")
    assert "Principal Investigator" not in report.authors and report.authors[0] == "Teresa C. Kulig"
    assert _read(_76 / "lanfear_collectiveefficacy_dissertation.pdf").authors == (
        "Charles C. Lanfear",
    )
    acs = _read(_77 / "smith_eutectic_article.pdf")
    assert acs.authors[-1] == "John C. Goeltz"


def test_rsc_s_featured_cover_a_doi_broken_after_journal_and_an_image_s_path() -> None:
    """RSC's "As featured in:" page promotes the paper before it; PLOS's citation breaks its
    DOI after "journal." ("pone.0289890" on the next line); a thesis's missing logo left
    its path ("./figures/ox_black.pdf") after the title."""
    from ingest.parse.pdfcover import cover_words

    assert cover_words("As featured in:\nShowcasing research from Dr S. Pakhira's laboratory")
    assert _read(_77 / "parveen_mof_article.pdf").title.startswith("Designing organic bridging")
    assert _read(_77 / "jamir_repositioning_article.pdf").doi == "10.1371/journal.pone.0289890"
    thesis = _read(_77 / "yong_nmr_thesis.pdf")
    assert thesis.title == "Optimising NMR Spectroscopy through Method and Software Development"


def test_a_bold_title_s_lines_are_all_bold() -> None:
    """Inderscience sets the first author in the title's size, not bold, under the bold
    title: a byline, not the title's last line; so does Psychological Science (2003)."""
    paper = _read(_78 / "lipschultz_tutorabstraction_ijlt.pdf")
    assert paper.title.endswith("in tutor responses to students")
    assert paper.authors[0] == "Michael Lipschultz"
    # Psychological Science's bold capitals over "Yaffa Yeshurun and Liat Levy"
    old = _read(held_out(74) / "yeshurun_attention_article.pdf")
    assert old.title.casefold() == "transient spatial attention degrades temporal resolution"
    # a feature's bold label over a title in plain type is still passed over
    assert _read(held_out(9) / "poe_Frischmann_2019_Tragedy.pdf").title.startswith("Tragedy")
