"""First pages of the ninety-ninth and later real-PDF sets (issue #44), measured blind
before these rules were written. Each rule on made-up text, and on the real page it was seen
on."""

from __future__ import annotations

from ingest.parse.dispatch import parse_file
from ingest.parse.pdfnames import line_names
from rag.records import Paper, Skipped
from tests.realsets import held_out
from tests.realsets import read as _read

_100 = held_out(100)


def test_a_manuscript_whose_abstract_is_a_templates_placeholder_is_stored_on_its_body() -> None:
    """A draft printing "150-250 words" under its "Abstract" heading: no abstract, but its
    title, authors and body are a paper (stored without an abstract), not a record dropped
    for too short an abstract."""
    path = _100 / "lewis_antifungal_manuscript.pdf"
    found = list(parse_file(path))
    assert not any(isinstance(f, Skipped) for f in found)
    paper = next(f for f in found if isinstance(f, Paper))
    assert paper.title == (
        "Antifungal Prophylaxis in the Era of Targeted Therapy for Acute Myelogenous Leukemia"
    )
    assert not paper.has_abstract and paper.sections


def test_a_line_opening_with_a_position_held_names_no_author() -> None:
    """ "2 Director of Hematopoietic Stem Cell Transplantation and Cellular Therapy, ...": an
    affiliation's line opening with the position its author holds, not names parted by
    "and"; a name followed by its position stays a name."""
    for line in (
        "2 Director of Hematopoietic Stem Cell Transplantation and Cellular Therapy, Hematology",
        "1 Associate Professor of Medicine, Department of Molecular Medicine, University of",
        "Head of Research and Development, Acme Labs",
    ):
        assert line_names(line) is None, line
    assert line_names("Russell E. Lewis and Marta Stanzani") == [
        "Russell E. Lewis", "Marta Stanzani"]  # fmt: skip
    paper = _read(_100 / "lewis_antifungal_manuscript.pdf")
    assert paper.authors == ("Russell E. Lewis", "Marta Stanzani")


def test_a_labelled_abstract_ends_where_a_skipped_line_and_an_indent_open_the_body() -> None:
    """An abstract run in after its bold label, the body's first paragraph under it in the
    same type with no heading: a skipped line and an indented first line together end the
    abstract (either alone is a paragraph of the abstract itself)."""
    paper = _read(_100 / "xie_pooledtesting_preprint.pdf")
    assert paper.abstract.startswith("For many diseases, patients need to be screened")
    assert paper.abstract.endswith("avoiding pollution caused by used masks.")
    assert "In many cases, patients need to be identified" not in paper.abstract


def test_a_drafts_status_under_its_title_in_its_type_is_no_title() -> None:
    """ "Preliminary and Incomplete. Do Not Cite." set under a working paper's title in the
    title's type is the draft's status, not the title's last line; a title ending on such a
    word in a sentence of its own keeps it."""
    from ingest.parse.pdfheader import _unnumbered

    title = ["Testing Customized Behavioral Contracts in a Public",
             "Sector Setting: Experimental Evidence from Pakistan"]  # fmt: skip
    for status in ("Preliminary and Incomplete. Do Not Cite. ∗", "Very Preliminary Draft",
                   "Comments welcome", "Please do not circulate without permission"):  # fmt: skip
        assert _unnumbered([*title, status]) == title, status
    kept = ["A Draft of the Constitution:", "Preliminary Work on Its Sources"]
    assert _unnumbered(kept) == kept
    paper = _read(held_out(99) / "callen_contracts_workingpaper.pdf")
    assert paper.title == " ".join(title)


def test_a_manuscripts_word_count_opening_its_abstract_is_no_word_of_it() -> None:
    """A journal's submission form prints the abstract's word count before it ("(current:
    140 words; max 150 words)"): the abstract opens after it."""
    paper = _read(held_out(99) / "vandercruyssen_honesty_manuscript.pdf")
    assert paper.abstract.startswith("Shalvi, Eldar, and Bereby-Meyer (2012) found across two")
