"""The first pages of a PDF as publishers and repositories print them (issue #44): a cover
sheet before the article, a title's closing full stop kept, names with a byline, an ORCID iD
badge or a group beside them, Symbol-font bracket pieces. Generated PDFs and the reader's
own functions; the real PDFs are measured in bench/pdf_truth.py (tests/test_real_pdfs.py
holds the first two sets to their targets)."""

from __future__ import annotations

from pathlib import Path

from ingest.parse.dispatch import parse_file
from ingest.parse.pdflayout import Line
from ingest.parse.pdfnames import line_names
from ingest.parse.typeset import fix_characters
from rag.records import Paper
from tests.pdfgen import make_paper

BODY = "We study caching of attention keys on the CPU. " * 30
ABSTRACT = "Attention keys are cached on the CPU to save GPU memory during long inference runs."


def _line(text: str, size: float, y: float, x: tuple[float, float] = (50, 500)) -> Line:
    """A line of page 1 in type ``size``, its foot at ``y`` and spanning ``x`` (points)."""
    return Line(text=text, size=size, page=0, x0=x[0], y0=y, x1=x[1], y1=y + size)


def _read(path: Path) -> Paper:
    return next(i for i in parse_file(path) if isinstance(i, Paper))


def test_a_cover_sheet_is_not_the_articles_first_page(tmp_path: Path) -> None:
    cover = (
        "Journal of Caching Studies. To cite this article: A. Lee (2019) Caching keys. "
        "Downloaded at 05/04/2023. Full Terms & Conditions of access and use online."
    )
    made = make_paper(tmp_path / "covered.pdf", layout="one-column",
                      title="Caching Attention Keys on the CPU", authors=("Ann Lee", "Bo Chen"),
                      abstract=ABSTRACT, body=BODY, year=2019, cover=cover)  # fmt: skip
    paper = _read(made.path)
    assert made.pages == 2
    assert paper.title == "Caching Attention Keys on the CPU"
    assert paper.authors == ("Ann Lee", "Bo Chen")
    assert paper.abstract.startswith("Attention keys are cached")
    assert paper.year == 2019  # the article's venue line, never the cover's download date
    assert "To cite this article" not in " ".join(s.text for s in paper.sections)


def test_a_page_with_a_download_stamp_is_still_the_article(tmp_path: Path) -> None:
    # Article pages carry "Downloaded from ..." stamps too: that alone makes no cover.
    made = make_paper(tmp_path / "stamped.pdf", layout="one-column",
                      title="Downloaded from the Cache: Keys on the CPU", authors=("Ann Lee",),
                      abstract=ABSTRACT, body=BODY, year=2020)  # fmt: skip
    assert _read(made.path).title == "Downloaded from the Cache: Keys on the CPU"


def test_a_titles_closing_full_stop_is_kept_as_printed(tmp_path: Path) -> None:
    """A title is stored as its page prints it, a closing full stop too (the blind sets'
    writers kept it each of the six times one was printed)."""
    made = make_paper(tmp_path / "stop.pdf", layout="one-column",
                      title="Discourses and realities of rural development.", authors=("Ann Lee",),
                      abstract=ABSTRACT, body=BODY, year=2006)  # fmt: skip
    assert _read(made.path).title == "Discourses and realities of rural development."


def test_names_without_byline_badge_or_group() -> None:
    assert line_names("By Persi Diaconis, Susan Holmes and Radford M. Neal") == [
        "Persi Diaconis", "Susan Holmes", "Radford M. Neal"]  # fmt: skip
    assert line_names("Gregory Marslin, ID Qaisar Maqbool, Peter NickID") == [
        "Gregory Marslin", "Qaisar Maqbool", "Peter Nick"]  # fmt: skip
    assert line_names("Martin Becker, Embedded Systems, LIT CPS Lab") == ["Martin Becker"]
    assert line_names("Software Review") == [] and line_names("Mark Young") == ["Mark Young"]
    # A heading's first word is no first name; an initial without its point is.
    assert line_names("The Site") == [] and line_names("A Kumar, B Singh") == ["A Kumar", "B Singh"]
    # A byline in capitals after "By", raised letters after each name (AEA, IMS journals):
    # common words in capitals are names here ("KAREN JIANG", "ZHOU ZHOU").
    assert line_names("By PAUL GOLDSMITH-PINKHAM, KAREN JIANG, ZIRUI SONG, AND JACOB WALLACE*") == [
        "PAUL GOLDSMITH-PINKHAM", "KAREN JIANG", "ZIRUI SONG", "JACOB WALLACE"]  # fmt: skip
    assert line_names("BY XIUCAI DING1,a , ZHOU ZHOU2,b") == ["XIUCAI DING", "ZHOU ZHOU"]
    assert line_names("by Jane Doe and John Roe") == ["Jane Doe", "John Roe"]
    # Dutch particles, the apostrophe's "'t" glued or apart.
    assert line_names("Bradley B. Doll, Mascha van ’t Wout, and Alan G. Sanfey") == [
        "Bradley B. Doll", "Mascha van ’t Wout", "Alan G. Sanfey"]  # fmt: skip
    assert line_names("Mascha van’t Wout") == ["Mascha van’t Wout"]
    # Names joined by "and" with raised letters between (T&F's LaTeX), a mark from a symbol
    # font after a name (PLOS's "☯": these authors contributed equally).
    assert line_names("Natalia Aruguete a and Ernesto Calvo b and Sandra Ley d") == [
        "Natalia Aruguete", "Ernesto Calvo", "Sandra Ley"]  # fmt: skip
    assert line_names("David W. SuttererID ☯ , Joshua J. FosterID ☯ , Edward Awh*") == [
        "David W. Sutterer", "Joshua J. Foster", "Edward Awh"]  # fmt: skip
    # Raised letters alone between names (Karger's), AEA's "⃝r" (a random order), and a
    # "Key Words" label; Italian "e" and Spanish "y" join, they mark nothing.
    assert line_names("S. Haneuse a, b J. Schildcrout g P. Crane b, c J. Sonnen d E. Larson a") == [
        "S. Haneuse", "J. Schildcrout", "P. Crane", "J. Sonnen", "E. Larson"]  # fmt: skip
    assert line_names("Brett A. McCully†⃝r Torsten Jaccard‡⃝r Christoph Albert§") == [
        "Brett A. McCully", "Torsten Jaccard", "Christoph Albert"]  # fmt: skip
    assert line_names("Key Words") is None
    assert line_names("José Ortega y Gasset, Ana Pérez") == ["José Ortega y Gasset", "Ana Pérez"]


def test_no_rank_board_country_or_publisher_link_is_taken_for_an_author() -> None:
    assert line_names("Qianqian Xu, Senior Member, IEEE") == ["Qianqian Xu"]
    assert line_names("François de Soyres, Alexandre Gaillard, Federal Reserve Board") == [
        "François de Soyres", "Alexandre Gaillard"]  # fmt: skip
    assert line_names("Sam Cox, Andrew D. White, More Read Online, Article Recommendations") == [
        "Sam Cox", "Andrew D. White"]  # fmt: skip
    assert line_names("Philadelphia, United States") is None


def test_symbol_font_bracket_pieces_leave_the_private_use_area() -> None:
    assert fix_characters("\uf8eb x \uf8f6 \uf8ee y \uf8f9 \uf8f1") == "⎛ x ⎞ ⎡ y ⎤ ⎧"


def test_a_line_ending_in_a_closed_dash_runs_on() -> None:
    from ingest.parse.typeset import join_lines

    assert join_lines(["Product authenticity versus globalisation—", "The Tulsi case"]) == (
        "Product authenticity versus globalisation—The Tulsi case"
    )
    assert join_lines(["Caching keys —", "a study"]) == "Caching keys — a study"  # spaced: kept


def test_a_metadata_title_cut_short_gives_way_to_the_printed_one(tmp_path: Path) -> None:
    title = "The impact of low input DNA on the reliability of methylation arrays measured twice"
    made = make_paper(tmp_path / "cut.pdf", layout="one-column", title=title,
                      authors=("Ann Lee",), abstract=ABSTRACT, body=BODY, year=2020,
                      metadata_title=title[:60])  # fmt: skip
    assert _read(made.path).title == title


def test_a_year_dated_in_the_papers_own_language() -> None:
    from ingest.parse.pdfyear import find_year

    assert find_year("Thèse soutenue le 10 décembre 2010 devant le jury", None) == 2010
    assert find_year("San José, 3 de mayo de 2006", None) == 2006
    assert find_year("Eingereicht im Oktober 2019", None) == 2019


def test_affiliations_in_other_languages_are_not_authors() -> None:
    assert line_names("Universidad Internacional de Andalucía, La Rábida") is None
    assert line_names("Jorge Mora Alfaro") == ["Jorge Mora Alfaro"]


def test_a_mark_after_the_abstracts_last_sentence_is_dropped() -> None:
    from ingest.parse.pdf import _TRAILING_MARK

    assert _TRAILING_MARK.sub("", "to assist in the mission. 2") == "to assist in the mission."
    assert _TRAILING_MARK.sub("", "a gain of 12") == "a gain of 12"  # no sentence ends there


def test_author_lines_parted_by_bullets_or_closed_by_an_affiliation() -> None:
    assert line_names("Hardik K. Patel • Ranbir S. Fougat •") == [
        "Hardik K. Patel", "Ranbir S. Fougat"]  # fmt: skip
    first = "YAXIONG XIE and KYLE JAMIESON, Princeton University, USA"
    assert line_names(first, first=True) == ["YAXIONG XIE", "KYLE JAMIESON"]
    assert line_names("Radford M. Neal, University of Toronto", first=True) == ["Radford M. Neal"]
    # A later line so made is an address, not names; an affiliation alone is never names.
    assert line_names("Royal Holloway, University of London") is None
    assert line_names("Department of Physics, Example University", first=True) is None


def test_a_journal_banner_set_larger_than_the_title_is_not_it(tmp_path: Path) -> None:
    made = make_paper(tmp_path / "banner.pdf", layout="one-column",
                      title="Effect of Curcuma on myocardial apoptosis in rats",
                      authors=("Ipseeta Mohanty", "Suresh Kumar Gupta"), abstract=ABSTRACT,
                      body=BODY, year=2006, banner="Alternative Medicine")  # fmt: skip
    paper = _read(made.path)
    assert paper.title == "Effect of Curcuma on myocardial apoptosis in rats"
    assert paper.authors == ("Ipseeta Mohanty", "Suresh Kumar Gupta")


def test_file_names_and_page_ranges_are_no_metadata_titles(tmp_path: Path) -> None:
    from ingest.parse.pdfmeta import junk_title

    assert junk_title("1472-6882-6-3.fm") and junk_title("301 301..306")
    assert junk_title("JAAP\x08-3AAP508.DVI") and junk_title("Microsoft Word - draft.docx")
    assert not junk_title("Trophic Downgrading of Planet Earth")


def _page(*rows: tuple[str, float]) -> list:  # type: ignore[type-arg]
    """A first page's lines, top down, each (text, size), 14 pt apart from y = 700."""

    return [Line(text, size, 0, 60.0, 700.0 - 14 * i, 500.0, 700.0 - 14 * i + size)
            for i, (text, size) in enumerate(rows)]  # fmt: skip


def test_a_title_in_the_bodys_type_under_a_journals_small_lines() -> None:
    """A journal's lines in small type first, then the title in the body's type right above
    the byline: the title is found from its own line, not given up on."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("The Annals of Example Probability", 6.0),
        ("2000, Vol. 10, No. 3, 726-752", 6.0),
        ("ANALYSIS OF A NONREVERSIBLE MARKOV CHAIN SAMPLER", 10.0),
        ("By Persi Diaconis, 1 Susan Holmes and Radford M. Neal 2", 10.0),
        ("Stanford University and University of Toronto", 10.0),
        ("We analyze the convergence to stationarity of a simple chain.", 8.0),
        *[("Markov chain sampling methods are commonly used in statistics.", 10.0)] * 20,
    )
    title, after = find_title(page, 10.0, {}, frozenset())
    assert title == "ANALYSIS OF A NONREVERSIBLE MARKOV CHAIN SAMPLER" and after == 3


def test_a_title_line_naming_a_place_is_not_the_byline() -> None:
    """ "..., Lower Galilee" reads as a name, but most of its line is not names: the title
    runs on to it and the byline is the line after."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("'Atiqot 63, 2010", 8.0),
        ("Settlement Remains from the Bronze and Iron Ages at", 10.4),
        ("Horbat Menorim (El-Manara), Lower Galilee", 10.4),
        ("Karen Covello-Paran", 8.4),
        *[("The site is located in the eastern Lower Galilee on the ridge.", 10.0)] * 20,
    )
    title, after = find_title(page, 10.0, {}, frozenset())
    assert title == ("Settlement Remains from the Bronze and Iron Ages at Horbat Menorim "
                     "(El-Manara), Lower Galilee") and after == 3  # fmt: skip


def test_a_title_line_ending_on_and_the_runs_on_into_a_line_that_reads_as_names() -> None:
    """A title never ends on "the": "... SAVINGS, AND THE" goes on in "LIQUIDITY TRAP",
    which would read as a name; the byline is the line after."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("CREDIT CRISES, PRECAUTIONARY SAVINGS, AND THE", 10.0),
        ("LIQUIDITY TRAP ∗", 10.0),
        ("VERONICA GUERRIERI AND GUIDO LORENZONI", 7.5),
        *[("We study the effects of a credit crunch on consumer spending.", 10.0)] * 20,
    )
    title, after = find_title(page, 10.0, {}, frozenset())
    assert title == "CREDIT CRISES, PRECAUTIONARY SAVINGS, AND THE LIQUIDITY TRAP" and after == 2


def test_the_metadata_title_printed_with_a_side_column_between_its_words() -> None:
    """A badge and a side column's dates set on the title's lines: the metadata's title is
    printed there, its words in order, and is the title without them."""
    from ingest.parse.pdfheader import find_title

    meta = ("Medicinal Plant Leaf Extract and Pure Flavonoid Mediated Green Synthesis of "
            "Silver Nanoparticles and their Enhanced Antibacterial Property")  # fmt: skip
    page = _page(
        ("O PEN Medicinal Plant Leaf Extract and", 26.0),
        ("Pure Flavonoid Mediated Green", 26.0),
        ("Synthesis of Silver Nanoparticles", 26.0),
        (
            "Accepted: 1 November 2017 Received: 26 January 2017 and their Enhanced Antibacterial",
            8.5,
        ),
        ("Published: xx xx xxxx Property", 8.5),
        ("Siddhant Jain & Mohan Singh Mehata", 10.0),
        *[("The rewards of using plants over other biological methods.", 9.0)] * 20,
    )
    assert find_title(page, 9.0, {"Title": meta}, frozenset())[0] == meta
    # Words of another title in the metadata, even all printed somewhere, are not taken.
    other = "Green Synthesis of Gold Nanoparticles from Tea Leaves"
    assert find_title(page, 9.0, {"Title": other}, frozenset())[0].startswith("O PEN Medicinal")


def test_names_parted_only_by_their_affiliations_numbers() -> None:
    """Wiley's byline: no commas, each name followed by its affiliation's number set apart;
    a name broken after its particle runs on."""
    from ingest.parse.pdfnames import authors

    lines = [
        Line("Jonas Fritzsch 1 Justus Bogner 1 Ana Cristina Franco da", 12, 0, 45, 596, 496, 608),
        Line("Silva 1 Carolin Rubner 2 Matthias Saft 2", 12, 0, 45, 580, 285, 590),
    ]
    assert authors(lines, frozenset()) == (
        "Jonas Fritzsch", "Justus Bogner", "Ana Cristina Franco da Silva", "Carolin Rubner",
        "Matthias Saft",
    )  # fmt: skip


def test_an_articles_type_above_its_title_is_not_the_title() -> None:
    """Hindawi prints "Research Article" in the title's own type above it."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("Nursing Research and Practice", 8.0),
        ("Research Article", 17.9),
        ("Time in Care for Older People Living in Nursing Homes", 17.9),
        ("K. B. E. Thorsell, B. M. Nordstrom and B. V. Sivberg", 12.0),
        *[("In order to measure actual care needs in relation to resources.", 9.0)] * 20,
    )
    title, after = find_title(page, 9.0, {}, frozenset())
    assert title == "Time in Care for Older People Living in Nursing Homes" and after == 3


def test_a_family_name_printed_in_capitals_beside_whole_given_names() -> None:
    from ingest.parse.pdfnames import line_names

    assert line_names("LI Kanglan, Wanjuan PENG and MAI Yingren") == [
        "Kanglan Li", "Wanjuan Peng", "Yingren Mai",
    ]  # fmt: skip
    # Two-letter family names too, in a list where others have three letters or more.
    assert line_names("Kanglan LI 1 , Shouchao WEI 2 , Zhou LIU 1 , Li HU 2") == [
        "Kanglan Li", "Shouchao Wei", "Zhou Liu", "Li Hu",
    ]  # fmt: skip
    # Vancouver initials after a name, and a group, are no family names in capitals.
    assert line_names("Alhadainy HA, Darrag AM, ALEPH Collaboration") == [
        "HA Alhadainy", "AM Darrag", "ALEPH Collaboration",
    ]  # fmt: skip


def test_names_in_a_row_parted_only_by_wide_gaps(tmp_path: Path) -> None:
    """ICLR's byline: "Sergey Levine   Pieter Abbeel" on one line, no comma between."""
    from fpdf import FPDF

    from ingest.parse.pdflayout import page_lines
    from ingest.parse.pdfnames import authors

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.text(100, 100, "Sergey Levine")
    pdf.text(100 + pdf.get_string_width("Sergey Levine") + 14, 100, "Pieter Abbeel")
    pdf.output(str(tmp_path / "row.pdf"))
    import pypdfium2 as pdfium

    line = page_lines(pdfium.PdfDocument(str(tmp_path / "row.pdf")), 0)[0]
    assert line.text == "Sergey Levine Pieter Abbeel"  # the text reads on as printed
    assert authors([line], frozenset()) == ("Sergey Levine", "Pieter Abbeel")


def test_bylines_in_capitals_each_over_its_affiliation() -> None:
    """Econometrica: each name in capitals on its own line (common words: "MICHAEL WALKER"),
    its affiliation under it, an affiliation's last word alone on a line ("Berkeley")."""
    from ingest.parse.pdfnames import authors

    rows = ["EDWARD MIGUEL", "Department of Economics, University of California, Berkeley, NBER,",
            "Berkeley", "PAUL NIEHAUS", "Department of Economics, University of California",
            "MICHAEL WALKER", "CEGA, University of California, Berkeley"]  # fmt: skip
    lines = [Line(t, 8.5, 0, 100, 600 - 12 * i, 400, 608 - 12 * i) for i, t in enumerate(rows)]
    assert authors(lines, frozenset()) == ("Edward Miguel", "Paul Niehaus", "Michael Walker")


def test_a_byline_printed_above_the_title(tmp_path: Path) -> None:
    """Cambridge's Business and Politics prints the authors over the title."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 8)
    pdf.text(240, 60, "Business and Politics 2018; 20(4): 492-522")
    pdf.set_font("Helvetica", "", 12)
    pdf.text(60, 110, "Hanna Breetz*, Matto Mildenberger, and Leah Stokes")
    pdf.set_font("Helvetica", "B", 17)
    pdf.text(60, 140, "The political logics of clean")
    pdf.text(60, 160, "energy transitions")
    pdf.set_font("Helvetica", "", 9.5)
    pdf.text(60, 190, "Abstract: Technology costs and deployment rates are typically seen")
    for i in range(12):
        pdf.text(
            60,
            203 + 13 * i,
            "as the main factors in the global clean energy transition from fossil fuels.",
        )
    pdf.output(str(tmp_path / "above.pdf"))
    paper = _read(tmp_path / "above.pdf")
    assert paper.title == "The political logics of clean energy transitions"
    assert paper.authors == ("Hanna Breetz", "Matto Mildenberger", "Leah Stokes")


def test_an_articles_own_how_to_cite_line_makes_no_cover(tmp_path: Path) -> None:
    """Medknow's first page prints "How to cite this article: ..." under its abstract: a
    page with an "Abstract" heading is the article, not a cover sheet."""
    made = make_paper(tmp_path / "cite.pdf", layout="one-column",
                      title="Caching Attention Keys on the CPU", authors=("Ann Lee", "Bo Chen"),
                      abstract=ABSTRACT, body="How to cite this article: Lee A, Chen B. " + BODY,
                      year=2019, body_pages=1)  # fmt: skip
    paper = _read(made.path)
    assert paper.title == "Caching Attention Keys on the CPU"
    assert paper.authors == ("Ann Lee", "Bo Chen")


def test_a_title_and_its_subtitle_set_smaller_right_under_it() -> None:
    """Medicine's title in 20 pt and its subtitle in 16 pt, no line between, the byline
    under the subtitle: one title, not a banner over it; a "Working Paper" label is none."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("Working Paper", 20.0),
        ("Pedicle screw versus hybrid instrumentation", 20.0),
        ("in adolescent idiopathic scoliosis", 20.0),
        ("A systematic review and meta-analysis with emphasis", 16.0),
        ("on complications and reoperations", 16.0),
        ("Ming Luo, MMed, Ning Li, MD, Mingkui Shen, MMed", 10.5),
        *[("Adolescent idiopathic scoliosis is a deformity of the spine.", 9.0)] * 20,
    )
    title, after = find_title(page, 9.0, {}, frozenset())
    assert title == (
        "Pedicle screw versus hybrid instrumentation in adolescent idiopathic scoliosis: "
        "A systematic review and meta-analysis with emphasis on complications and reoperations"
    )
    assert after == 5


def test_a_byline_set_large_is_never_the_title() -> None:
    """SAGE's 64-name byline in 12 pt bold under the title, a side panel's small lines
    between: the block right above the next names is the byline itself, not a title."""
    from ingest.parse.pdfheader import find_title

    page = _page(
        ("A Multilab Preregistered Replication of the", 18.0),
        ("Ego-Depletion Effect", 18.0),
        ("Reprints and permissions:", 7.0),
        ("M. S. Hagger,* N. L. D. Chatzisarantis,* H. Alberts, C. O. Anggono,", 12.0),
        ("C. Batailler, A. R. Birt, R. Brand, M. J. Brandt, G. Brewer, S. Bruyneel,", 12.0),
        ("D. P. Calvillo, W. K. Campbell, P. R. Cannon, M. Carlucci, N. P. Carruth,", 12.0),
        ("T. Cheung, A. Crowell, D. T. D. De Ridder, S. Dewitte, M. Elson,", 12.0),
        ("B. A. Fay, B. M. Fennis, A. Finley, Z. Francis, E. Heise, H. Hoemann,", 12.0),
        *[("Good self-control has been linked to adaptive outcomes in life.", 9.0)] * 20,
    )
    title, after = find_title(page, 9.0, {}, frozenset())
    assert title == "A Multilab Preregistered Replication of the Ego-Depletion Effect"
    assert after == 2


def test_marks_before_a_name_and_an_editors_panel() -> None:
    """Bracketed marks set apart before the next name ("Hulse,[ a ] Mohammadali ..."), and
    a side panel's "Edited by" with the editor's name under it (ReScience)."""
    from ingest.parse.pdfnames import authors, line_names

    assert line_names("Simon G. Hulse,[ a ] Mohammadali Foroozandeh*[ a ], Gareth A. Morris") == [
        "Simon G. Hulse", "Mohammadali Foroozandeh", "Gareth A. Morris",
    ]  # fmt: skip
    rows = ["Karl W. Broman 1, ID", "Edited by", "Karthik Ram ID", "Reviewed by", "Leah Wang ID"]
    lines = [Line(t, 9.0, 0, 60, 600 - 12 * i, 300, 609 - 12 * i) for i, t in enumerate(rows)]
    assert authors(lines, frozenset()) == ("Karl W. Broman",)


def test_a_logo_drawn_as_a_figure_under_the_byline_is_no_title(tmp_path: Path) -> None:
    """A system's name in 72 pt letters, embedded as a figure (a PDF page placed as a form
    XObject, as LaTeX includes one) under the authors: the title stays the printed one and
    the byline is read."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw
    from fpdf import FPDF

    logo = FPDF(unit="pt", format=(400, 120))
    logo.add_page()
    logo.set_font("Helvetica", "B", 72)
    logo.text(10, 90, "MEGASYS")
    logo.output(str(tmp_path / "logo.pdf"))
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.text(60, 90, "Scheduling Serverless Functions with Megasys")
    pdf.set_font("Helvetica", "", 11)
    pdf.text(60, 115, "Jane Roe, John Doe and Ann Poe")
    pdf.set_font("Helvetica", "B", 10)
    pdf.text(60, 330, "Abstract")
    pdf.set_font("Helvetica", "", 10)
    pdf.text(60, 345, "We present Megasys, a scheduler for serverless functions that packs")
    pdf.text(60, 358, "them on few machines. It cuts cold starts by half on real traces.")
    pdf.set_font("Helvetica", "B", 10)
    pdf.text(60, 390, "1 Introduction")
    pdf.set_font("Helvetica", "", 10)
    for j in range(20):
        pdf.text(60, 405 + 13 * j, "Serverless platforms run short functions on shared machines.")
    pdf.output(str(tmp_path / "paper.pdf"))
    doc, src = (
        pdfium.PdfDocument(str(tmp_path / "paper.pdf")),
        pdfium.PdfDocument(str(tmp_path / "logo.pdf")),
    )
    xobject = raw.FPDF_NewXObjectFromPage(doc.raw, src.raw, 0)
    form = raw.FPDF_NewFormObjectFromXObject(xobject)
    raw.FPDFPageObj_SetMatrix(form, raw.FS_MATRIX(1.2, 0, 0, 1.2, 60, 842 - 300))
    page = doc[0]
    raw.FPDFPage_InsertObject(page.raw, form)
    raw.FPDFPage_GenerateContent(page.raw)
    raw.FPDF_CloseXObject(xobject)
    doc.save(str(tmp_path / "with_logo.pdf"))
    from ingest.parse.pdflayout import page_lines

    texts = [
        line.text for line in page_lines(pdfium.PdfDocument(str(tmp_path / "with_logo.pdf")), 0)
    ]
    assert "MEGASYS" in texts  # the logo's letters are on the page, in the largest type
    paper = _read(tmp_path / "with_logo.pdf")
    assert paper.title == "Scheduling Serverless Functions with Megasys"
    assert paper.authors == ("Jane Roe", "John Doe", "Ann Poe")


def test_a_title_in_the_bodys_type_over_a_byline_in_capitals(tmp_path: Path) -> None:
    """The AMS's first page: "q-BIC FORMS" in the body's type, "RAYMOND CHENG" in smaller
    capitals under it (common words, which a heading in capitals could also be), then the
    abstract; and RSC's template label "ARTICLE TYPE" over a title is no part of it."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Times", "", 10.5)
    pdf.text(250, 80, "q-BIC FORMS")
    pdf.set_font("Times", "", 8.6)
    pdf.text(255, 100, "RAYMOND CHENG")
    lines = ["ABSTRACT. A q-bic form is a pairing linear in the second variable and",
             "Frobenius linear in the first; this article develops their geometry."]  # fmt: skip
    for j, line in enumerate(lines):
        pdf.text(80, 125 + 10 * j, line)
    pdf.set_font("Times", "", 10.5)
    for j in range(30):
        pdf.text(70, 170 + 13 * j, "Eschewing the semi-linear view, a q-bic form is bilinear.")
    path = tmp_path / "ams.pdf"
    pdf.output(str(path))
    paper = _read(path)
    assert paper.title == "q-BIC FORMS"
    assert paper.authors == ("Raymond Cheng",)


def test_the_titles_quotes_are_the_printed_ones_and_a_template_label_no_part_of_it() -> None:
    from ingest.parse.pdfheader import find_title

    rsc = [  # RSC's template: its "ARTICLE TYPE" label right above the title, larger
        Line(text="ARTICLE TYPE", size=20, page=0, x0=414, y0=689, x1=557, y1=704),
        Line(text="Robust living polymerization of NIPAM", size=16, page=0,
             x0=61, y0=656, x1=559, y1=670),
        Line(text="Christopher Waldron, Qiang Zhang and Zaidong Li", size=12, page=0,
             x0=61, y0=630, x1=400, y1=642),
        Line(text="Polymers were made in vodka with copper wire.", size=10, page=0,
             x0=61, y0=100, x1=400, y1=110),
    ]  # fmt: skip
    assert find_title(rsc, 10.0, {}, frozenset())[0] == "Robust living polymerization of NIPAM"

    page = [
        Line(text="The ASA’s Statement on p-Values", size=14, page=0,
             x0=48, y0=673, x1=430, y1=686),
        Line(text="In February the forum asked why colleges teach it.", size=10, page=0,
             x0=48, y0=649, x1=298, y1=659),
    ]  # fmt: skip
    metadata = {"Title": "The ASA's Statement on p-Values"}
    assert find_title(page, 10.0, metadata, frozenset())[0] == "The ASA’s Statement on p-Values"


def test_a_title_read_past_a_side_column_and_in_one_type_within_half_a_point() -> None:
    """Science Advances sets its copyright lines in a side column level with the title's two
    lines, and the byline under the title; Springer's title lines come as 16.0 and 16.3
    points (one type)."""
    from ingest.parse.pdfheader import find_title

    science = [
        _line("A new approach to both high safety and high", 18, 661, (36, 384)),
        _line("exclusive licensee", 7, 659, (491, 543)),
        _line("performance of lithium-ion batteries", 18, 642, (37, 318)),
        _line("American Association", 7, 649, (491, 554)),
        _line("of Science. No claim to", 7, 629, (491, 557)),
        _line("Shanhai Ge, Yongjun Leng, Teng Liu, Chao-Yang Wang", 10, 621, (36, 422)),
        _line(
            "We present a novel concept to achieve high safety of batteries.", 9.5, 100, (36, 500)
        ),
    ]
    title, after = find_title(science, 9.5, {}, frozenset())
    assert (
        title == "A new approach to both high safety and high performance of lithium-ion batteries"
    )
    assert science[after].text.startswith("Shanhai Ge")
    springer = [
        _line("Structural analysis of cosmid clone pcAFT-2 carrying", 16.0, 700, (50, 500)),
        _line("a dehydrogenase involved in AF-toxin production in the", 16.0, 682, (50, 500)),
        _line("pathotype of Alternaria alternata", 16.3, 664, (50, 300)),
        _line("Received: May 26, 2004 / Accepted: July 23, 2004", 8, 640, (50, 300)),
        _line("Abstract The strawberry pathotype of Alternaria alternata", 9.5, 100, (50, 500)),
    ]
    assert find_title(springer, 9.5, {}, frozenset())[0] == (
        "Structural analysis of cosmid clone pcAFT-2 carrying a dehydrogenase involved in "
        "AF-toxin production in the pathotype of Alternaria alternata"
    )


def test_a_researchgate_cover_and_a_companys_lab_are_not_the_paper_or_its_authors() -> None:
    from ingest.parse.pdfcover import cover_words
    from ingest.parse.pdfnames import line_names

    assert cover_words("See discussions, stats, and author profiles for this publication at")
    assert not line_names("Google Brain")
    assert not line_names("Google AI Language")
    assert not line_names("Risk Analytics Division, Ipsos Public Affairs")
    assert line_names("Ashish Vaswani, Noam Shazeer") == ["Ashish Vaswani", "Noam Shazeer"]


def test_a_stamp_on_every_page_makes_no_cover_sheet(tmp_path: Path) -> None:
    """Wiley's and JSTOR's download stamps name their "Terms and Conditions" on every page,
    the article's first included: that page is the article's, not a cover."""
    from ingest.parse.pdfcover import cover_words, stamped

    stamp = (
        "Downloaded from https://onlinelibrary.wiley.com/doi/10.1002/hec.1615 by a "
        "library on [10/03/2023]. See the Terms and Conditions (https://onlinelibrary"
    )
    first = "DOES LEAVING WELFARE IMPROVE HEALTH?\n" + stamp
    said = cover_words(first)
    assert said is not None
    assert stamped(said, first, "for unemployment insurance payments ...\n" + stamp)
    cover = "To cite this article: A. Lee (2019) Caching keys. Full Terms & Conditions of use."
    said = cover_words(cover)
    assert said is not None and not stamped(said, cover, "Caching keys\nAnn Lee\n" + stamp)


def test_a_footnote_number_after_the_title_is_no_part_of_it() -> None:
    """The metadata's title shows where the printed one ends: a number set after it is a
    footnote's ("The Social Structure of the World Polity 1"), not the rest of a title the
    metadata cut short."""
    from ingest.parse.pdfheader import find_title

    page = [
        Line(text="The Social Structure of the World Polity 1", size=15.4, page=0,
             x0=150, y0=650, x1=460, y1=665),
        Line(text="Jason Beckfield", size=10, page=0, x0=150, y0=620, x1=260, y1=630),
        Line(text="World polity research argues that modern states are shaped by it.",
             size=10, page=0, x0=150, y0=100, x1=460, y1=110),
    ]  # fmt: skip
    metadata = {"Title": "The Social Structure of the World Polity"}
    assert find_title(page, 10.0, metadata, frozenset())[0] == (
        "The Social Structure of the World Polity"
    )


def test_a_sentence_with_an_affiliations_word_may_open_the_abstract() -> None:
    from ingest.parse.pdfabstract import first_prose

    lines = [
        _line(text, 10, y, (150, 460))
        for text, y in (
            ("Jason Beckfield", 640),
            ("Department of Sociology, Harvard University", 628),
            ("World polity research argues that modern states are shaped by em-", 600),
            ("beddedness in a network of international organizations, and yet the", 588),
        )
    ]
    assert first_prose(lines, 0) == 2


def test_names_with_a_capital_beyond_ascii_or_a_mark_read_as_a_hyphen() -> None:
    assert line_names("Łukasz Kaiser, Illia Polosukhin") == ["Łukasz Kaiser", "Illia Polosukhin"]
    # Health Economics' raised mark, which PDFium gives as its line-end hyphen mark
    assert line_names("MARTIN HUBER, MICHAEL LECHNER\x02 ,2 and CONNY WUNSCH", first=True) == [
        "MARTIN HUBER", "MICHAEL LECHNER", "CONNY WUNSCH"]  # fmt: skip
    # a thesis's copyright page, and a licence's sentence run on: no names
    assert not line_names("All Rights Reserved")
    assert not line_names("original U.S. Government Works. Distributed under a Creative")


def test_a_byline_above_the_title_past_a_rights_line() -> None:
    """Springer's plant pathology journal prints the names, then its rights lines, then the
    title: the names are read over the rights lines."""
    from ingest.parse.pdfmeta import byline_above

    lines = [
        _line("FUNGAL DISEASES", 9.5, 720),
        _line("Sheila Ruswandi · Keiji Kitani · Kazuya Akimitsu", 9.5, 700),
        _line("Takashi Tsuge · Tomonori Shiraishi · Mikihiro Yamamoto", 9.5, 688),
        _line("© The Phytopathological Society of Japan", 8, 670),
        _line("and Springer-Verlag Tokyo 2005", 8, 660),
        _line("Structural analysis of cosmid clone pcAFT-2", 16, 630),
        _line("Received: May 26, 2004 / Accepted: July 23, 2004", 8, 600),
    ]
    assert byline_above(lines, 6, frozenset()) == (
        "Sheila Ruswandi", "Keiji Kitani", "Kazuya Akimitsu",
        "Takashi Tsuge", "Tomonori Shiraishi", "Mikihiro Yamamoto",
    )  # fmt: skip


def test_capitals_closed_by_an_affiliation_and_a_titles_spacingas_printed() -> None:
    from ingest.parse.pdfheader import find_title
    from ingest.parse.pdfnames import authors
    from ingest.parse.typeset import join_lines

    byline = [_line("CARLOS A. GOMEZ-URIBE and NEIL HUNT, Netflix, Inc.", 10, 595, (45, 440))]
    assert authors(byline, frozenset()) == ("Carlos A. Gomez-Uribe", "Neil Hunt")
    assert join_lines(["through Středa ’s Formula"]) == "through Středa’s Formula"
    page = [
        _line("Adult restoration of Shank3 expression rescues", 22, 700, (45, 440)),
        _line("selective autistic-like phenotypes", 22, 676, (45, 440)),
        _line("Yuan Mei, Patricia Monteiro, Guoping Feng", 9, 650, (45, 440)),
        _line(
            "Because autism spectrum disorders are neurodevelopmental disorders",
            9.3,
            100,
            (45, 440),
        ),
    ]
    typed = {"Title": "Adult restoration ofShank3 expression rescues selective autistic-like "
             "phenotypes"}  # fmt: skip
    assert find_title(page, 9.3, typed, frozenset())[0] == (
        "Adult restoration of Shank3 expression rescues selective autistic-like phenotypes"
    )


def test_a_compounds_hyphen_after_a_number_and_rights_run_on_after_the_abstract() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER
    from ingest.parse.typeset import join_lines

    assert join_lines(["the 9,10-epoxy-8-hydroxy-9-", "methyl-decatrienoic acid"]) == (
        "the 9,10-epoxy-8-hydroxy-9-methyl-decatrienoic acid"
    )
    assert join_lines(["a 10-", "fold rise"]) == "a 10-fold rise"
    assert join_lines(["in 2019-", "and 2020"]) == "in 2019- and 2020"
    for rights in ("Crown Copyright © 2023 Published by Elsevier Inc. This is an open access",
                   "Copyright r 2010 John Wiley & Sons, Ltd. Received 19 August 2009"):  # fmt: skip
        text = f"for the 3 months following their fracture. {rights}"
        assert FRONT_MATTER_AFTER.sub("", text) == "for the 3 months following their fracture."


def test_a_side_columns_small_type_is_not_joined_to_a_title_line_level_with_it(
    tmp_path: Path,
) -> None:
    """SAGE sets its "Reprints and permission: sagepub.com/..." lines in 7 pt beside the
    title's 18 pt lines: they are no part of the title's line."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.text(48, 100, "False-Positive Psychology: Undisclosed")
    pdf.text(48, 120, "Flexibility in Data Collection and Analysis")
    pdf.set_font("Helvetica", "", 7)
    pdf.text(450, 118, "sagepub.com/journalsPermissions.nav")
    pdf.set_font("Helvetica", "", 12)
    pdf.text(48, 160, "Joseph P. Simmons, Leif D. Nelson, and Uri Simonsohn")
    pdf.set_font("Helvetica", "", 10)
    for j in range(30):
        pdf.text(48, 200 + 13 * j, "In this article we show that flexibility in data collection.")
    path = tmp_path / "sage.pdf"
    pdf.output(str(path))
    paper = _read(path)
    assert paper.title == (
        "False-Positive Psychology: Undisclosed Flexibility in Data Collection and Analysis"
    )
    assert paper.authors == ("Joseph P. Simmons", "Leif D. Nelson", "Uri Simonsohn")


def test_jel_codes_in_brackets_a_funders_part_and_a_web_address_broken_after_its_scheme() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER
    from ingest.parse.typeset import join_lines

    for tail in (" (JEL: C93, J6, O15)", " (JEL D44, H75, I21, I28)",
                 " Funding National Prevention Research Initiative."):  # fmt: skip
        assert FRONT_MATTER_AFTER.sub("", "on earnings of Syrians." + tail) == (
            "on earnings of Syrians."
        )
    kept = "we found that. Funding cuts were large in 2010 and costs rose."
    assert FRONT_MATTER_AFTER.sub("", kept) == kept  # a sentence of the abstract
    assert join_lines(["available at https://", "pyblp.readthedocs.io."]) == (
        "available at https://pyblp.readthedocs.io."
    )
    assert join_lines(["see https://x.org", "and more"]) == "see https://x.org and more"


def test_a_byline_in_capitals_and_a_given_name_of_two_syllables() -> None:
    assert line_names("JOHN COPAS and JIAN QING SHI", first=True) == [
        "JOHN COPAS", "JIAN QING SHI"]  # fmt: skip
    assert line_names("Wen-tau Yih†, Tim Rocktäschel†‡") == ["Wen-tau Yih", "Tim Rocktäschel"]
    assert not line_names("DATA AND METHODS")  # a heading in capitals stays none
    assert not line_names("Part of the Criminal Law Commons")


def test_a_postcode_is_no_name() -> None:
    assert line_names("Andrew Mitchell, Francesco Aletta, Jian Kang") == [
        "Andrew Mitchell", "Francesco Aletta", "Jian Kang"]  # fmt: skip
    assert not line_names("WC1H 0NN")
    assert line_names("Peter Nick", first=True) == ["Peter Nick"]


def test_a_name_broken_after_its_initial_is_joined() -> None:
    """ "Joel J." ends a line and "Adamson" opens the next: one name, not two."""
    from ingest.parse.pdfnames import authors

    lines = [
        _line("Philippe Desjardins-Proulx 1 , , , Ethan P. White 4 , Joel J.", 12.0, 584),
        _line("Adamson 5 , Karthik Ram 6 , Timothée Poisot 2 , , , and Dominique", 12.0, 570),
        _line("Gravel 2 ,", 12.0, 556),
    ]
    assert authors(lines, frozenset()) == (
        "Philippe Desjardins-Proulx", "Ethan P. White", "Joel J. Adamson", "Karthik Ram",
        "Timothée Poisot", "Dominique Gravel")  # fmt: skip


def test_a_title_about_preprints_or_journals_is_no_venue_line(tmp_path: Path) -> None:
    """A venue's line ("Preprint submitted to ...", "Journal of ...") is never the title, but
    a title may be about preprints or journals."""
    title = "The case for open preprints in biology and the journals that accept them"
    made = make_paper(tmp_path / "preprints.pdf", layout="one-column", title=title,
                      authors=("Ann Lee", "Bo Chen"), abstract=ABSTRACT, body=BODY,
                      year=2013)  # fmt: skip
    assert _read(made.path).title == title


def _with_abstract(pdf, path: Path, heading: str = "Abstract. ") -> Paper:  # type: ignore[no-untyped-def]
    """The page ``pdf`` holds, the abstract (after ``heading``) and the body set under it in
    10-point type, written to ``path`` and read."""
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(pdf.w - 120, 13, heading + ABSTRACT + " " + BODY, new_x="LMARGIN",
                   new_y="NEXT")  # fmt: skip
    pdf.output(str(path))
    return _read(path)


def test_a_features_name_over_the_title_is_not_part_of_it(tmp_path: Path) -> None:
    """JEP sets its feature's name ("Retrospectives") over the title in the title's type; a
    title's own first line is never one short word over a line twice as wide, unless a
    colon ends it ("BERT:" over the rest)."""
    from tests.pdfgen import _pdf

    def page(first: str, title: str, path: Path) -> Paper:
        pdf = _pdf()
        pdf.add_page()
        pdf.set_font("Helvetica", size=20)
        for text in (first, title):
            pdf.cell(0, 26, text, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=14)
        pdf.cell(0, 20, "Ann Lee, Bo Chen and Carla Diaz", new_x="LMARGIN", new_y="NEXT")
        return _with_abstract(pdf, path)

    title = "Tragedy of the Commons after Fifty Years"
    assert page("Retrospectives", title, tmp_path / "jep.pdf").title == title
    bert = page("BERT:", "Pre-training of Deep Bidirectional Transformers", tmp_path / "b.pdf")
    assert bert.title == "BERT: Pre-training of Deep Bidirectional Transformers"


def test_a_titles_line_ending_in_a_colon_runs_on_into_its_subtitle(tmp_path: Path) -> None:
    """ "Voting for Violence:" in large type over its subtitle in smaller type: one title."""
    from tests.pdfgen import _pdf

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=17)
    pdf.cell(0, 22, "Voting for Violence:", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 16, "Crime and the Election of Law-and-order Politicians", new_x="LMARGIN",
             new_y="NEXT")  # fmt: skip
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 16, "Tiago Ventura", new_x="LMARGIN", new_y="NEXT")
    paper = _with_abstract(pdf, tmp_path / "colon.pdf")
    assert paper.title == "Voting for Violence: Crime and the Election of Law-and-order Politicians"
    assert paper.authors == ("Tiago Ventura",)


def test_a_byline_in_capitals_one_name_to_a_line_above_the_title(tmp_path: Path) -> None:
    """JMCB prints its authors over the title, one to a line in capitals; words common
    enough to be a heading's ("DANIEL J. VINE") are names there, a title's words in
    capitals after names ("INTERACTIONS WITH ...") are not."""
    from ingest.parse.pdfnames import authors
    from tests.pdfgen import _pdf

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for name in ("BRETT A. MCCULLY", "KAREN M. PENCE", "DANIEL J. VINE"):
        pdf.cell(0, 15, name, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=16)
    pdf.cell(0, 22, "How Much Are Car Purchases Driven by Home Equity?", new_x="LMARGIN",
             new_y="NEXT")  # fmt: skip
    pdf.set_font("Helvetica", size=9)
    pdf.multi_cell(pdf.w - 120, 12, ABSTRACT + " " + BODY, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "jmcb.pdf"
    pdf.output(str(path))
    assert [a.casefold() for a in _read(path).authors] == [
        "brett a. mccully", "karen m. pence", "daniel j. vine"]  # fmt: skip
    lines = [_line("S.-T. WANG, C. SHEN", 11, 700), _line("INTERACTIONS WITH SPINS", 11, 686)]
    assert authors(lines, frozenset()) == ("S.-T. Wang", "C. Shen")


def test_a_manuscripts_labelled_front_matter_is_read_without_its_labels(tmp_path: Path) -> None:
    """A line-numbered manuscript labels its front matter: "1 Title: ...", "2 Authors: ...",
    "abstract.- ...". The title, the names and the abstract are read without the labels."""
    from tests.pdfgen import _pdf

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for text in ("1 Title: DateLife: Leveraging databases to reveal the dated Tree of Life",
                 "2 Authors: Luna L. Sanchez-Reyes 1 , Brian C. O'Meara 1",
                 "3 1. Department of Ecology, University of Tennessee, USA"):  # fmt: skip
        pdf.cell(0, 14, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(10)
    paper = _with_abstract(pdf, tmp_path / "labelled.pdf", "abstract.- ")
    assert paper.title == "DateLife: Leveraging databases to reveal the dated Tree of Life"
    assert paper.authors == ("Luna L. Sanchez-Reyes", "Brian C. O'Meara")
    assert paper.abstract.startswith("Attention keys are cached")


def test_a_titles_line_numbers_and_the_date_under_it_are_not_its_words() -> None:
    """A line-numbered manuscript numbers the title's lines; a working paper sets its date
    under the title in the title's type."""
    from ingest.parse.pdfheader import _unnumbered

    numbered = ["1 A Goldilocks Principle for the Gut Microbiome", "2 Matters for Cancer"]
    assert _unnumbered(numbered) == ["A Goldilocks Principle for the Gut Microbiome",
                                     "Matters for Cancer"]  # fmt: skip
    assert _unnumbered(["JUE Insight: Condominiums", "November 2022"]) == [
        "JUE Insight: Condominiums"
    ]
    assert _unnumbered(["3 Ways to Cache Keys"]) == ["3 Ways to Cache Keys"]  # one line: kept
    assert _unnumbered(["12 Angry Men", "and the Jury"]) == ["12 Angry Men", "and the Jury"]


def test_a_titles_line_ending_on_a_preposition_runs_on() -> None:
    """ "... the Potato Psyllid Under" / "Field Conditions": a title never ends on a
    preposition, whatever type its next line is set in."""
    from ingest.parse.pdfheader import _runs_on

    assert _runs_on("Efficacy of Control Agents Against the Potato Psyllid Under")
    assert _runs_on("Trade Flows Between") and not _runs_on("Trade Flows and Beyond")


def test_a_title_printed_in_capitals_takes_the_metadata_s_case_and_the_page_s_marks() -> None:
    """A page prints "DON’T KEEP ..." (curly apostrophe), the metadata "Don't keep ...":
    the title is the metadata's case with the page's apostrophe; a mark the page sets after
    the title ("ALGORITHMS'") is no part of it when the metadata's ends in a word, and a
    closing quote the metadata ends with too stays."""
    from ingest.parse.pdfline import Line
    from ingest.parse.pdfmeta import as_printed

    def top(*texts: str) -> list[Line]:
        return [Line(t, 20, 0, 50, 700 - 24 * i, 500, 720 - 24 * i) for i, t in enumerate(texts)]

    page = top("DON’T KEEP YOUR INTERNET", "CUSTOMERS WAITING", "Charles B. Weinberg")
    assert as_printed("Don't keep your Internet customers waiting", page, frozenset()) == (
        "Don’t keep your Internet customers waiting"
    )
    page = top("WEAK CONVERGENCE OF RANDOM WALK ALGORITHMS'", "By G. O. Roberts")
    assert as_printed("Weak Convergence of Random Walk Algorithms", page, frozenset()) == (
        "Weak Convergence of Random Walk Algorithms"
    )
    page = top("Commentary on Nagel, ‘Knowledge as a Mental State’", "Stephen Butterfill")
    assert as_printed("Commentary on Nagel, 'Knowledge as a Mental State'", page, frozenset()) == (
        "Commentary on Nagel, ‘Knowledge as a Mental State’"
    )
    assert as_printed("Another Title Entirely", page, frozenset()) == "Another Title Entirely"
