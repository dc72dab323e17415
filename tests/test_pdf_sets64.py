"""First pages of the sixty-fourth to sixty-sixth real-PDF sets (issue #44). Each rule on
made-up text, and on the real page it was seen on."""

from __future__ import annotations

from tests.realsets import held_out
from tests.realsets import read as _read

_64, _65 = held_out(64), held_out(65)


def test_a_doi_glued_to_the_next_word_ends_at_its_own() -> None:
    """medRxiv's stamp prints "doi: https://doi.org/10.1101/2020.05.03.20089698.this version
    posted May 6": "this" is the next words', not the DOI's; a DOI ending in a letter stays."""
    from ingest.parse.ids import printed_doi

    stamp = "medRxiv preprint doi: https://doi.org/10.1101/2020.05.03.20089698.this version posted"
    assert printed_doi(stamp) == "10.1101/2020.05.03.20089698"
    assert printed_doi("doi:10.1111/j.1365-2648.2007.04503.x here") == (
        "10.1111/j.1365-2648.2007.04503.x"
    )
    preprint = _read(_65 / "fieldingmiller_covid_preprint.pdf")
    assert preprint.doi == "10.1101/2020.05.03.20089698"


def test_a_capitalised_das_ends_a_name_and_van_still_runs_on() -> None:
    """ "Ranendra K. Das 3 ," at a line's end is a whole name (Das, Du, Le: surnames when
    capitalised), while "Edward Van" and "Maria das" still run on to the next line."""
    from ingest.parse.namecase import unfinished

    assert not unfinished("Ranendra K. Das") and not unfinished("Xin Du")
    assert unfinished("Edward Van") and unfinished("Maria das") and unfinished("Joel J.")
    lancet = _read(_65 / "satyanarayana_pharmacies_article.pdf")
    assert lancet.authors[-4:] == ("Ranendra K Das", "Veena Das", "Jishnu Das", "Madhukar Pai")


def test_word_counts_are_no_abstract_and_a_dated_title_loses_its_date() -> None:
    """A manuscript's "Abstract: 209 words" line is a count, not the abstract's heading (the
    abstract is on the next page); a form's "Abstract 350 words maximum:" label still is one.
    A report's date set under its title in the title's type is not the title's."""
    from ingest.parse.pdfabstract import _WORD_COUNT

    assert _WORD_COUNT.match(" 209 words") and _WORD_COUNT.match(" 1,588 words.")
    assert not _WORD_COUNT.match(" 350 words maximum: (PLEASE TYPE)")
    preprint = _read(_65 / "panczak_socioeconomic_preprint.pdf")
    assert preprint.abstract.startswith("Background: The Swiss neighbourhood index")
    report = _read(_65 / "icnarc_covid_report.pdf")
    assert report.title == "ICNARC report on COVID-19 in critical care"


def test_a_title_set_twice_over_itself_and_a_year_opening_a_symposium_line() -> None:
    """IntechOpen's chapter has a hidden layer's copy of its title under the visible one:
    read once. CIGRE's "2019 Grid of the Future Symposium": the year opens the venue's line
    (not prose: "2019 we held a workshop")."""
    from ingest.parse.pdfyear import find_year

    chapter = _read(_64 / "labib_fibre_cement_chapter.pdf")
    assert chapter.title == "Fibre Reinforced Cement Composites"
    assert find_year("Paris\n2019 Grid of the Future Symposium\nVoltage", None) == 2019
    assert find_year("2021 IEEE International Conference on Robotics\n", None) == 2021
    assert find_year("2019 we held a workshop on it", None) is None
    assert _read(_64 / "ibrahim_voltage_stability_conference.pdf").year == 2019


def test_a_contents_page_or_a_thesis_behind_a_bare_cover_has_no_abstract() -> None:
    """Where no abstract is headed, the first prose is no abstract when it is an entry of a
    table of contents ("i. Patient Count by Diagnosis Type"), nor when the text opens on a
    thesis's title page, found on the second page behind a bare cover (its title and author
    alone: IIT Kharagpur's). A sentence set under a manuscript's contents still opens one."""
    from ingest.parse.pdfcontents import contents_entry
    from ingest.parse.pdfline import Line

    def line(text: str, y: float) -> Line:
        return Line(text=text, size=10.0, x0=72.0, x1=500.0, y0=y, y1=y + 10.0, page=0)

    page = [line("Contents", 700), line("1. Introduction", 680), line("a. Figure 1", 660)]
    assert contents_entry([*page, line("i. Patient Count by Diagnosis Type", 640)], 3)
    assert contents_entry([*page, line("Legislatures..............53 E. Reaction", 640)], 3)
    prose = line("Background: Hemorrhagic shock is the leading cause of deaths. True", 640)
    assert not contents_entry([*page, prose], 3)
    assert _read(_65 / "kamyab_dementia_thesis.pdf").abstract == ""
    thesis = _read(_64 / "roy_turbine_blade_cooling_thesis.pdf")
    assert thesis.abstract == "" and thesis.authors == ("Preetam Debasish Saha Roy",)


def test_what_an_abstract_closes_on_that_is_not_its_own() -> None:
    """After an abstract's last sentence: its own citation in the journal's short form
    (Forest Science's "FOR. SCI. 53(4):486-492."), a manuscript's word count ("(174 words)."),
    a rule drawn in underscores. Elsevier's preprint head "Journal xx (2024) 1–27" (its
    volume a placeholder) gives the year; a study cited in prose with pages does not."""
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER
    from ingest.parse.pdfyear import find_year

    def cut(text: str) -> str:
        return FRONT_MATTER_AFTER.sub("", text)

    assert cut("predicting height growth. FOR.SCI. 53(4):486 – 492.") == "predicting height growth."
    assert cut("not category-specific. (174 words).") == "not category-specific."
    assert cut("between countries. ____________________") == "between countries."
    prose = "We found 12 cases. NATO 5(2): 3-4 shows it"
    assert cut(prose) == prose
    assert find_year("xx (2024) 1–27\nA Title", None) == 2024
    assert find_year("as Smith et al (2019) 12–15 found", None) is None
    sets = held_out(67), held_out(69)
    forest = _read(sets[0] / "stage_forestsitefactor_article.pdf")
    assert forest.abstract.endswith("predicting Douglas-fir height growth.")
    assert _read(sets[1] / "andre_price_dispersion_manuscript.pdf").abstract.endswith(
        "insufficiently category-specific."
    )
    assert _read(sets[1] / "ljubic_ordered_median_preprint.pdf").year == 2024


def test_a_grave_and_a_euro_drawn_over_a_letter_are_its_accent() -> None:
    """TeX's grave drawn back over a letter ("HOANG `" is "HOÀNG"), and the diaeresis
    Taylor & Francis's font maps to "€" ("Huseyin €" is "Hüseyin"): placed by the glyphs'
    boxes; a quote or a euro sign beside letters stays what it is."""
    from ingest.parse.typeset import place_accents

    chars = list("HOANG `")
    spans = [(0, 8), (8, 16), (16, 24), (24, 32), (32, 40), (40, 43), (18, 22)]
    placed = place_accents(chars, spans)
    assert "".join(c for i, c in enumerate(chars) if i not in placed).strip() == "HOÀNG"
    chars = list("u€x")
    assert place_accents(chars, [(0, 5), (5, 10), (10, 15)]) == set() and chars == list("u€x")
    assert _read(held_out(69) / "zhang_robust_inventory_article.pdf").authors[1] == (
        "Hasan Hüseyin Turan"
    )
    assert _read(held_out(69) / "hoang_steiner_packing_report.pdf").authors[0] == "Nam-Dũng Hoàng"
