"""First pages of the ninetieth to ninety-seventh real-PDF sets (issue #44), measured blind
before these rules were written. Each rule on made-up text, and on the real page it was seen
on."""

from __future__ import annotations

from ingest.parse.ids import printed_arxiv, printed_doi
from ingest.parse.namecase import shortened
from ingest.parse.pdfaffiliation import AFFILIATION, byline_text
from ingest.parse.pdfbody import FRONT_MATTER_AFTER
from ingest.parse.pdfnames import line_names
from ingest.parse.pdfyear import find_year
from tests.realsets import held_out
from tests.realsets import read as _read

_90, _91, _92, _93 = held_out(90), held_out(91), held_out(92), held_out(93)


def test_an_arxiv_id_cited_as_another_papers_is_not_the_papers() -> None:
    """A footnote's reference on the first page ("arXiv preprint arXiv:1611.04135 (2016)", as
    reference managers print it) is another paper's id; the margin stamp is the paper's own,
    read after a numbered citation of the body too."""
    cited = 'Wu, X. "Responses to Critiques," arXiv preprint arXiv:1611.04135 (2016): 1-14.'
    assert printed_arxiv(cited) is None
    stamp = printed_arxiv("strategies [5].\r\narXiv:2511.21302v1 [math.NA] 26 Nov 2025 Zipped")
    assert stamp is not None and stamp.group(1) == "2511.21302"  # (set 91's: no citation)
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
    """ "P.O. Syomin", an affiliation and an e-mail, then the title in the same 12-point bold:
    the title is the capitals under them, the name the author."""
    paper = _read(held_out(42) / "syomin_legal_services_article.pdf")
    assert paper.title.startswith("SPATIAL AND REGRESSION ANALYSIS OF PROVISION")
    assert paper.authors == ("P.O. Syomin",)


def test_a_department_in_italian_and_its_namesake_in_quotes_are_no_authors() -> None:
    """Each author's block: the name in bold, "Dipartimento di Scienze Matematiche", the
    department's namesake in quotes ("“G. L. Lagrange”"), the university, the e-mail."""
    assert byline_text("“G. L. Lagrange”") == ""
    assert AFFILIATION.search("Dipartimento di Scienze Matematiche")
    assert _read(_91 / "berrone_zipped_fem_preprint.pdf").authors == (
        "Stefano Berrone",
        "Lorenzo Neva",
        "Moreno Pintore",
        "Gioana Teora",
        "Fabio Vicini",
    )


def test_a_roman_numeral_of_four_letters_is_no_name() -> None:
    """A PhD's cycle ("Cycle: XXXVIII") is no author; a generation ("Henry Ford III") and a
    family name in capitals that reads as letters of a numeral ("Zhitong LI") stay names."""
    assert not line_names("Cycle: XXXVIII")
    assert line_names("Henry Ford III")
    assert line_names("Zhitong LI")
    assert "Cycle Xxxviii" not in _read(_92 / "volpi_ramsey_phdthesis.pdf").authors


def test_a_year_cited_in_round_brackets_inside_a_sentence_is_another_works() -> None:
    """An unlabelled abstract citing "(Nat Commun. 2015;6:8570)" under the front matter's
    "© The Author(s) 2023": the copyright gives the year; a citation line of its own still
    does."""
    text = "aging signature identified by a meta-analysis (Nat Commun.\n2015;6:8570) and 2) 9"
    assert find_year(text, None) is None
    assert find_year("Nat Commun. 2015;6:8570", None) == 2015
    assert _read(_91 / "potente_aging_epidemiology_article.pdf").year == 2023


def test_a_countrys_name_and_a_french_research_unit_are_no_authors() -> None:
    """Fourteen authors, then their addresses with numbered lines between ("UMR ASTRE",
    "Antananarivo, Madagascar"): the fourteen only."""
    authors = _read(_91 / "rajeev_rabies_pep_access_manuscript.pdf").authors
    assert len(authors) == 14
    assert authors[-2:] == ("C.J.E. Metcalf", "Katie Hampson")


def test_an_author_named_again_in_capitals_or_inverted_is_one_author() -> None:
    """A working paper's footnotes name its authors again in capitals ("Michel JOURNÉE"), a
    citation line inverted ("Crowe M.", "Gagan M.j." of "Mary Jo Gagan"); a street ("Voie du
    Roman Pays") is an address."""
    assert shortened("Michel JOURNÉE", "Michel Journée")
    assert shortened("Crowe M.", "Marie Crowe")
    assert shortened("Gagan M.j.", "Mary Jo Gagan")
    assert not shortened("Smith J.", "Anna Smith")  # another initial: another person
    assert AFFILIATION.search("Voie du Roman Pays, 34")
    assert _read(held_out(87) / "journee_sparsepca_workingpaper.pdf").authors == (
        "Michel Journée",
        "Yurii Nesterov",
        "Peter Richtárik",
        "Rodolphe Sepulchre",
    )


def test_a_data_deposits_doi_after_its_repositorys_name_is_not_the_papers() -> None:
    """PNAS's footnote: "... calls are deposited at University of California, Merced Dash
    (https://doi.org/10.6071/M3WW84)", then the article's own DOI."""
    text = (
        "Commented code, raw SNP calls and final haplotype calls are\ndeposited at "
        "University of California, Merced Dash "
        "(https://doi.org/10.6071/M3WW84).\nwww.pnas.org/cgi/doi/10.1073/pnas.1800285115"
    )
    assert printed_doi(text) == "10.1073/pnas.1800285115"
    assert _read(_93 / "schiebelhut_seastar_article.pdf").doi == "10.1073/pnas.1800285115"


def test_aips_rights_line_and_a_manuscripts_history_close_no_abstract() -> None:
    """JASA's abstract, then "VC 2022 Acoustical Society of America. https://doi.org/...",
    "(Received ...; published online ...)" and "[Editor: ...]" on its lines."""
    tail = (
        "measurement and analysis. VC 2022 Acoustical Society of America. https://doi.org/1"
        "0.1121/10.0009576 (Received 23 October 2021; published online 16 February 2022) "
        "[Editor: Sunil Puria]"
    )
    assert FRONT_MATTER_AFTER.sub("", tail) == "measurement and analysis."
    history = "and analysis. (Received 23 October 2021; accepted 26 January 2022)"
    assert FRONT_MATTER_AFTER.sub("", history) == "and analysis."
    abstract = _read(_93 / "frost_cochlea_article.pdf").abstract
    assert abstract.endswith("importance of anatomically oriented measurement and analysis.")


def test_a_rights_lines_government_works_is_no_author() -> None:
    """Science Advances: "No claim to original U.S. Government Works." under the names."""
    authors = _read(_93 / "berv_birdgenome_article.pdf").authors
    assert len(authors) == 15
    assert not any("Government" in a for a in authors)


def test_a_german_title_pages_author_after_vorgelegt_von() -> None:
    """A Bonn bachelor thesis in English behind a German title page: "vorgelegt im Juli 2022
    von:" / "Martin Franco" / "Matrikelnummer: ..."."""
    assert _read(held_out(94) / "franco_uruguay_budget_bachelor_thesis.pdf").authors == (
        "Martin Franco",
    )


def test_stix_calligraphic_capitals_are_unicodes_script_capitals() -> None:
    """Wiley's equations in STIXMathCalligraphy leave its capitals at U+E22D-U+E246 (seen
    rendered: "𝒢(𝒱, ℰ; Ω)", a graph's vertices and edges); nothing private-use is stored."""
    from ingest.parse.symbolfont import printed

    font = "STIXMathCalligraphy-Regular"
    assert [printed(chr(c), font) for c in (0xE22D, 0xE231, 0xE23F, 0xE246)] == ["𝒜", "ℰ", "𝒮", "𝒵"]
    assert printed("\ue23f", "SomeOtherFont") == "\ue23f"  # another font's code: left be
    text = " ".join(s.text for s in _read(held_out(96) / "li_weak_signals_article.pdf").sections)
    assert "such as 𝒮, to denote" in text
    assert not any("\ue000" <= c <= "\uf8ff" for c in text)


def test_a_justified_titles_spaced_words_are_no_banner() -> None:
    """A manuscript's title justified over five lines, its first two lines' words spread wide
    apart ("Simplified   Transfer   Function"): the title, not the metadata's "IJTM/IJCEE PAGE
    TEMPLATEv2"; no author (it is anonymised)."""
    paper = _read(held_out(96) / "aydemir_rubber_bushing_manuscript.pdf")
    assert paper.title.startswith("Simplified Transfer Function Approach of Rubber Bushing")
    assert paper.authors == ()


def test_acms_placeholder_doi_and_a_mark_glued_to_the_last_full_stop() -> None:
    assert printed_doi("ACM Reference Format ... https://doi.org/10.1145/nnnnnnn.nnnnnnn") == ""
    paper = _read(held_out(96) / "peters_stock_market_thesis.pdf")
    assert paper.doi == ""
    assert paper.abstract.endswith("prediction of stock market values.")
    from ingest.parse.pdf import _TRAILING_MARK

    assert _TRAILING_MARK.sub("", "stock market values.2") == "stock market values."
    assert _TRAILING_MARK.sub("", "significant at p < 0.05") == "significant at p < 0.05"


def test_a_titles_translation_in_square_brackets_under_it_names_no_author() -> None:
    """An Indonesian title in capitals, its English translation in square brackets under it
    (justified, read as two columns), then the byline."""
    paper = _read(held_out(41) / "shemuel_lungcarcinoma_article.pdf")
    assert paper.authors[:2] == ("Josia Shemuel", "Priscilla Angelique")
    assert len(paper.authors) == 7


def test_a_forms_title_label_with_its_count_and_a_word_count_after_the_abstract() -> None:
    """A submission's title page, "Title (110 / 110 characters): Clusters of ..." and a
    "Name:" label before the corresponding author; an abstract closed by "Words: 233/250"."""
    from ingest.parse.pdftitlelabel import _LABELLED

    line = "Title (110 / 110 characters): Clusters of fatty acids"
    assert _LABELLED.sub("", line) == "Clusters of fatty acids"
    assert FRONT_MATTER_AFTER.sub("", "of the colon. Words: 233/250") == "of the colon."
    johnston = _read(held_out(95) / "johnston_diabetesfattyacids_manuscript.pdf")
    assert johnston.title.startswith("Clusters of fatty acids in the serum")
    assert "Name Anthony J. Hanley" not in johnston.authors
    flynn = _read(held_out(95) / "flynn_colonmicrobiota_manuscript.pdf")
    assert flynn.abstract.endswith("on their respective sides of the colon.")


def test_a_title_of_eight_lines_and_its_authors_again_in_vancouver_style() -> None:
    """Frontiers: a 21-point title over eight lines beside its side column, the byline, and
    the citation line "Ryu H-E, Jung DH, Heo S-J, Park B and Lee YJ (2025)" in the side
    column: the five authors once."""
    assert shortened("Ryu H-E", "Ha-Eun Ryu")
    assert shortened("DH Jung", "Dong Hyuk Jung")
    paper = _read(held_out(95) / "ryu_hdlmortality_article.pdf")
    assert paper.title.endswith("(KoGES-HEXA) cohorts")
    assert paper.authors == (
        "Ha-Eun Ryu",
        "Dong Hyuk Jung",
        "Seok-Jae Heo",
        "Byoungjin Park",
        "Yong Jae Lee",
    )


def test_texs_ff_given_the_carriage_returns_arrow_is_ff() -> None:
    """A Copenhagen thesis whose TeX font gives its ff glyph U+21B5 ("Cli↵ord+T", "Vincent
    Ste↵an"): "Clifford", "Steffan"."""
    paper = _read(held_out(97) / "steffan_tensor_thesis.pdf")
    assert paper.authors[0] == "Vincent Steffan"
    assert paper.abstract.endswith("built from Clifford+T gates using the Gottesman-Knill theorem.")


def test_a_templates_placeholders_are_no_doi_and_close_no_abstract() -> None:
    """Wiley's author template never filled in: "DOI: 10.1002/we" (the journal's code, no
    article) and "Copyright c 0000 John Wiley & Sons, Ltd." after the abstract."""
    assert printed_doi("Wind Energ. 0000; 00:1-15 DOI: 10.1002/we") == ""
    assert printed_doi("DOI: 10.1002/we.2201") == "10.1002/we.2201"
    tail = "the EU project ANEMOS.plus. Copyright c 0000 John Wiley & Sons, Ltd."
    assert FRONT_MATTER_AFTER.sub("", tail) == "the EU project ANEMOS.plus."
    paper = _read(held_out(97) / "zugno_wind_trading_preprint.pdf")
    assert paper.doi == ""
    assert paper.abstract.endswith("in the framework of the EU project ANEMOS.plus.")


def test_this_draft_after_the_first_gives_the_year() -> None:
    """A working paper's "First Draft: January 2015" then "This Draft: January 19, 2021"."""
    assert find_year("First Draft: January 2015\nThis Draft: January 19, 2021", None) == 2021
    assert _read(held_out(97) / "enamorado_ethnic_voting_workingpaper.pdf").year == 2021
