"""First pages of the eighty-second to eighty-ninth real-PDF sets (issue #44), measured blind
before these rules were written. Each rule on made-up text, and on the real page it was seen
on."""

from __future__ import annotations

from ingest.parse.pdfyear import find_year
from tests.realsets import held_out
from tests.realsets import read as _read

_82, _83, _84, _86, _87 = held_out(82), held_out(83), held_out(84), held_out(86), held_out(87)
_88, _89 = held_out(88), held_out(89)


def test_the_paper_citing_itself_gives_the_year() -> None:
    """A foot or head citing the paper by its authors ("Mastej et al. (2026). SMACT v4 ...")
    is its own print; a sentence citing another work in its middle is not such a line."""
    assert find_year("Mastej et al. (2026). SMACT v4: Enhanced Screening.", None) == 2026
    assert find_year("Konings, & Bandera. (2025). Advanced mDSC software", None) == 2025
    assert find_year("Lun Yeh, M. (2025). Enhancing EFL textbooks", None) == 2025
    assert find_year("as shown by Smith et al. (2019). Then we", None) is None
    assert _read(_83 / "mastej_smact_article.pdf").year == 2026
    assert _read(_83 / "konings_mdsc_article.pdf").year == 2025
    assert _read(_82 / "yeh_efl_textbook_article.pdf").year == 2025


def test_where_a_paper_says_it_is_published_gives_the_year() -> None:
    assert find_year("(published in Dialectica 59 (2005), pp. 5–18)", None) == 2005
    assert find_year("Forthcoming in Mind (2024)", None) == 2024
    assert _read(_82 / "esfeld_mental_causation_preprint.pdf").year == 2005


def test_a_copyright_drawn_before_its_publisher_gives_the_year() -> None:
    """The sign drawn round a "c", the publisher, then the year."""
    assert find_year("c Oxford University Press, 2010", None) == 2010
    assert find_year("c Springer Verlag 2010", None) is None  # no publisher's word ends it
    assert _read(_83 / "polson_shrinkage_proceedings.pdf").year == 2010


def test_a_licence_a_firms_unit_or_a_rank_is_no_author() -> None:
    """A repository cover's "CC BY-NC", "EDF R&D" under its engineers' names, and a Belgian
    thesis's "Aspirant F.N.R.S." and "Ingénieur Civil ..." under its author's."""
    cover = _read(_82 / "hansen_performance_management_aam.pdf")
    assert cover.authors == ("Allan Hansen",)
    assert cover.year == 2021  # its citation line, not the cover's "Download date: ... 2025"
    assert _read(_84 / "elhefni_condenser_modelling_conference.pdf").authors == (
        "Baligh El Hefni",
        "Daniel Bouskela",
    )
    assert _read(_84 / "rixen_substructuring_phdthesis.pdf").authors == ("Daniel J. Rixen",)


def test_a_copyright_with_a_long_holder_a_holder_in_capitals_or_its_sign_read_as_hash() -> None:
    """ "© Springer-Verlag Berlin Heidelberg 2007" (a holder's name of 34 characters), "c 2002
    WILEY-VCH Verlag" (the sign drawn round a "c", the holder in capitals) and a sign the text
    layer reads as "#" before a publisher's line; not a heading that opens on "#"."""
    assert find_year("© Springer-Verlag Berlin Heidelberg 2007", None) == 2007
    assert find_year("c 2002 WILEY-VCH Verlag GmbH & Co. KGaA, Weinheim", None) == 2002
    line = "# Springer Science+Business Media, LLC, part of Springer Nature 2020"
    assert find_year(f"Mahesh Balan U 1 & Saji K. Mathew 1\n{line}\nAbstract", None) == 2020
    assert find_year("# Results for 2020\nText", None) is None
    assert _read(_87 / "balan_onlinewordofmouth_article.pdf").year == 2020
    assert _read(_87 / "escardo_domainrealizability_article.pdf").year == 2002
    assert _read(_87 / "morris_callisto_proceedings.pdf").year == 2007


def test_a_departments_discipline_is_no_author() -> None:
    assert _read(_87 / "frigyik_dirichlet_techreport.pdf").authors == (
        "Bela A. Frigyik",
        "Amol Kapila",
        "Maya R. Gupta",
    )


def test_an_english_abstract_after_one_in_another_language_is_the_abstract() -> None:
    """A Montréal cahier prints its "RÉSUMÉ" first, then its "ABSTRACT": the English one."""
    cahier = _read(_86 / "meddahi_volatility_cahier.pdf")
    assert cahier.abstract.startswith("In this paper, we introduce a new approach for")
    assert cahier.abstract.endswith("vi) these models are closed under temporal aggregation.")


def test_initials_alone_or_a_blinded_manuscripts_label_name_no_author() -> None:
    """A corrigendum's "A. R. Todd" set with its initials apart ("A. R."), and a submission
    system's "Blinded Manuscript": no author (the blinded paper names none)."""
    from ingest.parse.pdfnames import line_names

    assert line_names("A. R., K. C.") == []
    assert line_names("Andrew R. Todd, K. C. Thiem") == ["Andrew R. Todd", "K. C. Thiem"]
    assert _read(_89 / "todd_race_threat_article.pdf").authors == (
        "Andrew R. Todd",
        "Kelsey C. Thiem",
        "Rebecca Neel",
    )
    assert _read(_89 / "makowski_deception_manuscript.pdf").authors == ()


def test_a_degree_after_a_name_is_no_part_of_it() -> None:
    """A medical manuscript's byline: "Thomas P Spargo MSc 1, Alfredo Iacoangeli PhD 1"."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Thomas P Spargo MSc 1, Alfredo Iacoangeli PhD 1") == [
        "Thomas P Spargo",
        "Alfredo Iacoangeli",
    ]
    assert _read(_88 / "spargo_genetic_screening_manuscript.pdf").authors[0] == "Thomas P Spargo"
