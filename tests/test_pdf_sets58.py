"""First pages of the fifty-eighth to sixtieth real-PDF sets (issue #44). Each rule on
made-up text, and on the real page it was seen on."""

from __future__ import annotations

from tests.realsets import SETS as _SETS
from tests.realsets import held_out
from tests.realsets import read as _read

_58, _59, _60 = (held_out(n) for n in range(58, 61))


def test_advent_s_symbol_font_gives_parentheses_equals_and_plus() -> None:
    """APS's PRL, typeset with Advent 3B2, draws "(" ")" "=" "+" from a symbol font whose
    map gives "ð" "Þ" "¼" "þ": "sinð2φÞ" is "sin(2φ)"."""
    from ingest.parse.symbolfont import ADVENT_SYMBOLS

    assert "".join(ADVENT_SYMBOLS.get(c, c) for c in "sinð2φÞ") == "sin(2φ)"
    prl = _read(_59 / "messelot_graphene_squid_article.pdf")
    assert prl.title.startswith("Direct Measurement of a sin(2φ) Current Phase Relation")
    assert "I(φ)" in prl.abstract + " ".join(s.text for s in prl.sections)


def test_what_a_byline_sets_beside_its_names() -> None:
    """Springer's ORCID iDs in brackets after the names, an institution in brackets after a
    name (a small-capitals manuscript), an institution after a name in capitals (APSR)."""
    from ingest.parse.pdfaffiliation import byline_text

    assert (
        byline_text("Ambroise Lafont[ 0000−0002−9299−641X ] and Neel") == "Ambroise Lafont and Neel"
    )
    assert byline_text("SHAHRYAR MINHAS (MICHIGAN STATE UNIVERSITY)") == "SHAHRYAR MINHAS"
    assert byline_text("MARKO KLAŠNJA Georgetown University") == "MARKO KLAŠNJA"
    assert byline_text("John Smith (1), Jane Doe (2)") == "John Smith (1), Jane Doe (2)"
    lncs = _read(_58 / "lafont_pattern_unification_lncs.pdf")
    assert lncs.authors == ("Ambroise Lafont", "Neel Krishnaswami")
    apsr = _read(_60 / "klasnja_incumbency_article.pdf")
    assert apsr.authors == ("Marko Klašnja", "Rocío Titiunik")
    caps = _read(_60 / "minhas_investordisputes_preprint.pdf")
    assert caps.title.casefold() == "the reputational impact of investor-state disputes"
    assert caps.authors == ("Shahryar Minhas", "Karen L. Remmer")


def test_glued_initials_a_street_and_a_proceedings_short_name() -> None:
    """ "F.S.Amaral ∗ and I.Roditi†": the initials parted from the family name (not a
    degree's "B.Sc."); a Portuguese street ("Rua Dr. Xavier Sigaud 150") is an address; IJCAI's
    running head "... Conference on Artificial Intelligence (IJCAI-20)" gives the year."""
    from ingest.parse.pdfaffiliation import AFFILIATION, byline_text
    from ingest.parse.pdfyear import find_year

    assert byline_text("F.S.Amaral ∗ and I.Roditi†") == "F.S. Amaral ∗ and I. Roditi†"
    assert byline_text("Ilias Sioutis, B.Sc., M.Sc.") == "Ilias Sioutis, B.Sc., M.Sc."
    assert AFFILIATION.search("Rua Dr. Xavier Sigaud")
    line = "Proceedings of the Twenty-Ninth International Joint Conference on AI (IJCAI-20)"
    assert find_year(line, None) == 2020
    prose = "in this paper we follow the organisers' layout guidance (IJCAI-20 style) closely"
    assert find_year(prose, None) is None  # no proceedings' line
    assert _read(_59 / "amaral_gaussian_effective_potential_preprint.pdf").authors == (
        "F.S. Amaral",
        "I. Roditi",
    )
    assert _read(_58 / "liu_dialogue_disentanglement_ijcai.pdf").year == 2020


def test_a_symbol_font_s_private_use_characters_are_read_as_printed() -> None:
    """Word's Symbol font comes out of PDFium at U+F020-U+F0FF: read through the Symbol
    encoding; Adobe's bracket pieces are Unicode's; an icon font's glyphs are dropped; any
    other private-use character is left (a font's own ligature may sit there)."""
    from ingest.parse.symbolfont import printed

    assert [printed(c, "SymbolMT") for c in "\uf028\uf061\uf02d\uf03d\uf0e5\uf0b1"] == list(
        "(α−=∑±"
    )
    assert printed("\uf061", "Wingdings") == ""  # an icon font's
    assert printed("\uf061", "EuclidMathOne") == "\uf061"  # not the Symbol encoding
    assert printed("\uf8eb", "EuclidSymbol") == "⎛"
    assert printed("\uf113", "FontAwesome") == ""
    assert printed("\ue0e0", "LinLibertineO") == "\ue0e0"  # (its "Th" at U+E049: set 70's round)
    word = _SETS / "real_pdfs53/heldout/zhong_converter_losses_conference.pdf"
    text = " ".join(s.text for s in _read(word).sections)
    assert "=" in text and not any("\uf020" <= c <= "\uf0ff" for c in text)
    poi = _read(_58 / "wang_poi_recommendation_article.pdf")  # a glyph PDFium could not map
    assert "\ufffd" not in " ".join(s.text for s in poi.sections)


def test_a_table_of_contents_entries_are_no_byline() -> None:
    """A report with no abstract: its title page, then "Contents" with "2 Particle
    Accelerators and Storage Rings": the entries are no authors."""
    report = _read(_59 / "pallaprolu_particle_physics_report.pdf")
    assert report.authors == ("Anurag Pallaprolu",)


def test_nature_s_main_heading_ends_an_abstract() -> None:
    """Springer Nature's template opens the body with the heading "Main" under the
    abstract: the abstract ends there."""
    from ingest.parse.pdfbody import is_heading
    from ingest.parse.pdfline import Line

    assert is_heading(Line("Main", 9.8, 0, 111, 184, 133, 192, bold=True), None, 9.8)
    nature = _read(_SETS / "real_pdfs63/heldout/gao_singlecell_preprint.pdf")
    assert nature.abstract.endswith("from small and noisy single-cell datasets.")


def test_advent_s_opentype_ligatures_and_dash() -> None:
    """ACS's and RSC's PDFs embed Advent 3B2's OpenType fonts ("AdvOTd3e08a55+e0": no
    subset prefix, its own "+e0"), which put "fi", "fl", "ft" and the em dash at private-use
    codes: "bene\\ue103ts" is "benefits", "ones\\ue0d5i.e." "ones—i.e."."""
    from ingest.parse.symbolfont import printed

    assert printed("\ue103", "AdvOTd3e08a55+e1") == "fi"
    assert printed("\ue0d5", "AdvOTd3e08a55+e0") == "—"
    assert printed("\ue103", "LinLibertineO") == "\ue103"
    review = _SETS / "real_pdfs40/heldout/wang_polymer_electrolytes_digitaldiscovery_review.pdf"
    text = " ".join(s.text for s in _read(review).sections)
    assert "benefits" in text and "\ue103" not in text
    acs = _read(_SETS / "real_pdfs61/heldout/sturluson_adsorption_recommender_article.pdf")
    assert "missing ones—i.e., to impute" in " ".join(s.text for s in acs.sections)


def test_supervisors_after_a_lead_in_and_a_shortened_name_again() -> None:
    """Nova SBE's cover: "Work project carried out under the supervision of:" over the
    supervisors, and page two's "André Filipe Silva" under the title again: one author,
    "André Filipe Figueiredo Marques Silva"."""
    from ingest.parse.pdfaffiliation import NOT_AUTHORS

    assert NOT_AUTHORS.match("Work project carried out under the supervision of:")
    assert not NOT_AUTHORS.match("A study of the economy under the direction of the state")
    nova = _read(_SETS / "real_pdfs62/heldout/silva_credit_guarantees_thesis.pdf")
    assert nova.authors == ("André Filipe Figueiredo Marques Silva",)


def test_a_title_s_wrapped_last_words_in_its_type_are_no_byline() -> None:
    """A title in the body's type wraps: "... Conditional Volatility Parameter for" / "Interest
    Rate Models" right under it, centred and short, is the title's end, not an author; so is
    "Voter Registration Files" on a Reed thesis's cover (whose title lines are then no
    author's either)."""
    paper = _read(_SETS / "real_pdfs62/heldout/spellane_interest_rate_volatility_paper.pdf")
    assert paper.title.endswith("Parameter for Short-term Interest Rate Models")
    assert paper.authors == ("Michael Spellane",)
    reed = _read(_SETS / "real_pdfs60/heldout/dounias_mailvoting_thesis.pdf")
    assert reed.title.endswith("Love Voter Registration Files")
    assert "Voter Registration Files" not in reed.authors
