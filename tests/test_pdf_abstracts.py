"""Where a PDF's abstract starts and ends as publishers set it (issue #44): a side column of
affiliations, dates and licence level with the abstract's lines, line numbers of a
manuscript, a structured abstract's part labels on lines of their own and running on to the
next page, a classification code or keywords run on after the last sentence, a heading in
another language, the body set far below with no heading. Generated PDFs and the reader's
own functions; the real PDFs are measured in bench/pdf_truth.py."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ingest.parse.dispatch import parse_file
from ingest.parse.pdflayout import Line
from rag.records import Notice, Paper

TITLE = "Side Columns and the Abstracts Beside Them"
SENTENCES = [
    "We study how journals set a narrow column of addresses beside the abstract.",
    "Readers of such pages join each line of the column to the abstract line level with it.",
    "We split a line where its gap ends at the left edge that the main column keeps.",
    "The abstract then reads as printed and the addresses stay out of it.",
]
SIDE = [
    "1 Institute of Physics,",
    "University of Example,",
    "Example City, Germany",
    "Correspondence",
    "Jane Roe, Institute of",
    "Physics, Example City",
    "Received: 1 May 2021",
    "Accepted: 9 June 2021",
]


def _read(path: Path) -> Paper:
    return next(i for i in parse_file(path) if isinstance(i, Paper))


def _lines(sentences: list[str], width: int) -> list[str]:
    words, out, line = " ".join(sentences).split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*out, line]


def _titled_page(x: float):  # type: ignore[no-untyped-def]
    """An A4 page (fpdf2) with TITLE and its byline printed at ``x``, as a first page opens."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.text(x, 90, TITLE)
    pdf.set_font("Helvetica", "", 11)
    pdf.text(x, 115, "Jane Roe and John Doe")
    return pdf


def _side_column_page(path: Path) -> Path:
    """A Wiley- or PLOS-like first page: the abstract at x = 170 and, level with its lines, a
    side column at x = 40 whose lines end 10 to 30 points short of it."""
    pdf = _titled_page(40)
    pdf.set_font("Helvetica", "B", 10)
    pdf.text(170, 160, "Abstract")
    y = 160.0
    abstract = _lines(SENTENCES, 70)
    for i in range(max(len(abstract), len(SIDE))):
        if i < len(SIDE):
            pdf.set_font("Helvetica", "", 7)
            pdf.text(40, y + 2, SIDE[i])
        if i < len(abstract):
            pdf.set_font("Helvetica", "", 9)
            pdf.text(170, y + 14, abstract[i])
        y += 12
    pdf.set_font("Helvetica", "B", 10)
    pdf.text(170, y + 30, "1 Introduction")
    pdf.set_font("Helvetica", "", 9)
    for j, line in enumerate(_lines(["The body explains the method at length."] * 12, 70)):
        pdf.text(170, y + 46 + 12 * j, line)
    pdf.output(str(path))
    return path


def test_a_side_column_level_with_the_abstract_stays_out_of_it(tmp_path: Path) -> None:
    paper = _read(_side_column_page(tmp_path / "side.pdf"))
    assert paper.title == TITLE
    assert paper.abstract == " ".join(SENTENCES)


def test_a_manuscripts_line_numbers_are_not_its_text(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    rows = [("B", 16, TITLE), ("", 11, "Jane Roe and John Doe"), ("B", 12, "Abstract")]
    rows += [("", 10, line) for line in _lines(SENTENCES, 80)]
    rows += [("B", 12, "Introduction")]
    rows += [("", 10, line) for line in _lines(["The body explains the method."] * 20, 80)]
    for n, (style, size, text) in enumerate(rows, 1):
        pdf.set_font("Helvetica", style, size)
        pdf.text(50, 80 + 20 * n, f"{n} {text}")  # the number in the line's own text
    pdf.output(str(tmp_path / "numbered.pdf"))
    paper = _read(tmp_path / "numbered.pdf")
    assert paper.title == TITLE
    assert paper.abstract == " ".join(SENTENCES)


def _at(text: str, size: float, y: float, x0: float = 200.0, page: int = 0) -> Line:
    return Line(text, size, page, x0, y, x0 + 6 * len(text) * size / 10, y + size)


def test_a_structured_abstracts_labels_on_their_own_lines_run_on_to_the_next_page() -> None:
    """PLOS Medicine's abstract: "Background", "Methods and findings", "Conclusions" set
    larger on lines of their own, the text running on to the next page past a footer and
    beside a side column there; the body's "Introduction" ends it."""
    from ingest.parse.pdfabstract import abstract_end

    anchor = _at("Abstract", 14.5, 600)
    lines = [
        _at("Background", 11.5, 580),
        _at("Glucose levels in pregnancy go with the infant's methylation.", 9.5, 565),
        _at("Methods and findings", 11.5, 545),
        _at("We studied 557 women in a randomised trial of a diet and", 9.5, 530),
        _at("PLOS Medicine | 1 / 29", 8.0, 30, x0=37),  # the footer, in the page's margin
        _at("Funding: the funders had no role in the study.", 8.0, 707, x0=37, page=1),
        _at("exercise, and 159 of them had gestational diabetes.", 9.5, 706, page=1),
        _at("Conclusions", 11.5, 686, page=1),
        _at("The infants' methylation changed with their mothers' glucose.", 9.5, 671, page=1),
        _at("Trial registration", 11.5, 651, page=1),
        _at("ISRCTN89971375.", 9.5, 636, page=1),
        _at("Introduction", 11.5, 600, page=1),
        _at("Gestational diabetes affects one pregnancy in seven worldwide.", 9.5, 585, page=1),
    ]
    footer = lines[4]
    lines[4] = Line(*(getattr(footer, f) for f in ("text", "size", "page", "x0", "y0")),
                    x1=120.0, y1=38.0, margin=True)  # fmt: skip
    lines[5] = Line(lines[5].text, 8.0, 1, 37.0, 707.0, 160.0, 715.0)  # left of the abstract
    kept, end = abstract_end(lines, 10.0, anchor=anchor)
    texts = [line.text for line in kept]
    assert texts == [
        "Background:",
        "Glucose levels in pregnancy go with the infant's methylation.",
        "Methods and findings:",
        "We studied 557 women in a randomised trial of a diet and",
        "exercise, and 159 of them had gestational diabetes.",
        "Conclusions:",
        "The infants' methylation changed with their mothers' glucose.",
        "Trial registration:",
        "ISRCTN89971375.",
    ]
    assert lines[end].text == "Introduction"


def test_an_abstract_ends_where_the_body_starts_far_below_it_without_a_heading() -> None:
    """An ACS letter: the abstract, a graphic, then the body in the same type with no
    heading: the abstract ends at the gap, not at the page's foot."""
    from ingest.parse.pdfabstract import abstract_end

    anchor = _at("ABSTRACT: We derive a formulation of molecular dynamics.", 10.0, 560, x0=52)
    lines = [
        anchor,
        _at("It generates only symmetric configurations.", 10.0, 549, x0=52),
        _at("Molecular dynamics has long been proposed as a method for", 10.0, 401, x0=52),
        _at("predicting crystal structures.", 10.0, 390, x0=52),
    ]
    kept, end = abstract_end(lines, 10.0, anchor=anchor)
    assert len(kept) == 2 and end == 2


def test_keywords_or_a_classification_run_on_after_the_last_sentence_are_cut() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER, FRONT_MATTER_AFTER

    cut = FRONT_MATTER_AFTER.sub
    assert cut("", "the output response can be larger. JEL Codes: E30, E44, D52.") == (
        "the output response can be larger."
    )
    assert cut("", "no matter how large u is. MSC (2010). 35Q30, 76D05.") == (
        "no matter how large u is."
    )
    assert cut("", "We did it. Keywords: caching, attention") == "We did it."
    kept = "Models learn key words. Keywords such as these are common."
    assert cut("", kept) == kept  # a sentence that opens with the word is kept
    assert FRONT_MATTER.match("Mots-clés : apprentissage")
    assert FRONT_MATTER.match("2010 Mathematics Subject Classification: 35Q30")


def test_an_abstract_heading_in_another_language() -> None:
    from ingest.parse.pdfabstract import ABSTRACT

    for printed in ("Résumé. Une façon", "Resumen: Una forma", "Zusammenfassung Eine Art"):
        assert ABSTRACT.match(printed), printed
    assert not ABSTRACT.match("Résumés et interrogations de logs")  # a title's first word


def test_unicode_hyphens_are_the_keyboards_hyphen() -> None:
    from ingest.parse.typeset import fix_characters

    assert fix_characters("loss\u2011of\u2011function cyber\u2010physical") == (
        "loss-of-function cyber-physical"
    )


def test_a_year_comes_from_the_papers_own_print_not_its_body(tmp_path: Path) -> None:
    """A month and a year in the body's prose ("sales for July 2008") and a cited work's
    year after "journals" are not the paper's year: with nothing else printed there is none;
    the venue line centred in the foot of a two-column page is read (it was dropped)."""

    def page(foot: str) -> Path:
        pdf = _titled_page(60)
        pdf.set_font("Helvetica", "B", 10)
        pdf.text(60, 150, "Abstract")
        pdf.set_font("Helvetica", "", 10)
        body = (
            "The queries asked for the sales of July 2008 in Paris. Data sharing is now "
            "required by journals (Whitlock et al. 2010) and by funders. "
        ) * 6
        for column, x in enumerate((60, 310)):
            for j, line in enumerate(_lines([body], 42)):
                pdf.text(x, 170 + 13 * j + 40 * column, line)
        pdf.set_font("Helvetica", "", 8)
        if foot:
            pdf.text(200, 812, foot)  # the page's foot, across its middle
        path = tmp_path / f"year{len(foot)}.pdf"
        pdf.output(str(path))
        return path

    assert _read(page("")).year is None
    assert _read(page("Proceedings of the Workshop, pages 1-9, June 2014")).year == 2014


def test_a_citation_line_with_an_issue_or_in_vancouver_style_dates_a_paper() -> None:
    from ingest.parse.pdfyear import find_year

    assert find_year("Science in Context 19(4), 591–600 (2006). Copyright", None) == 2006
    assert find_year("© 2022 The Authors. Softw Pract Exper. 2023;53:790–810.", None) == 2023
    assert find_year("BMC Med 2018;16(1):45", None) == 2018


def test_a_footnote_or_citation_number_raised_after_punctuation_is_no_text(
    tmp_path: Path,
) -> None:
    """ "S2ORC,¹ a large corpus": the raised number after the comma is a footnote's; after a
    word it stays set apart (an author's affiliation mark, a unit's power)."""
    from fpdf import FPDF

    from ingest.parse.pdflayout import page_lines

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.set_xy(60, 100)
    pieces = [("We introduce S2ORC,", False), ("1", True), (" a corpus of 8 m", False),
              ("2", True), (" plots.", False), ("12", True), (" It grows.", False)]  # fmt: skip
    for text, raised in pieces:
        pdf.char_vpos = "SUP" if raised else "LINE"
        pdf.write(12, text)
    pdf.output(str(tmp_path / "marks.pdf"))
    import pypdfium2 as pdfium

    line = page_lines(pdfium.PdfDocument(str(tmp_path / "marks.pdf")), 0)[0]
    assert line.text == "We introduce S2ORC, a corpus of 8 m 2 plots. It grows."


def test_a_structured_label_of_two_names_printed_without_a_colon() -> None:
    from ingest.parse.pdfabstract import with_heading_colons

    lines = ["Aims/hypothesis The channel couples beta cell activity to secretion.",
             "Methods A woman was diagnosed at 31.",
             "Results Surface expression fell by 40%.",
             "Conclusions/interpretation The mutation is paradoxical."]  # fmt: skip
    assert [line.split(":")[0] for line in with_heading_colons(lines)] == [
        "Aims/hypothesis", "Methods", "Results", "Conclusions/interpretation",
    ]  # fmt: skip


def test_a_rights_line_run_on_after_the_last_sentence_is_cut() -> None:
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER

    text = "the optical torque is studied. © 2007 American Institute of Physics. DOI: 10.1/x"
    assert FRONT_MATTER_AFTER.sub("", text) == "the optical torque is studied."


def test_a_web_address_broken_at_a_line_end_is_one_address() -> None:
    from ingest.parse.typeset import join_lines

    assert join_lines(
        ["which is accessible via http://ad.informatik.", "uni-freiburg.de/pub."]
    ) == ("which is accessible via http://ad.informatik.uni-freiburg.de/pub.")
    assert join_lines(["see www.example.org.", "The next sentence."]) == (
        "see www.example.org. The next sentence."
    )


def test_a_web_address_s_scheme_is_never_split() -> None:
    """An ACL page breaks the line after "https:"; a justified RAND Journal line and
    others print a space inside the scheme. Prose with a colon stays as it is."""
    from ingest.parse.typeset import join_lines

    assert join_lines(["can be obtained from https:", "//github.com/thunlp/NRE."]) == (
        "can be obtained from https://github.com/thunlp/NRE."
    )
    assert join_lines(["is available at https:// pyblp.readthedocs.io."]) == (
        "is available at https://pyblp.readthedocs.io."
    )
    assert join_lines(["see https: //x.org"]) == "see https://x.org"
    assert join_lines(["two protocols, http:", "// is older"]) == (
        "two protocols, http: // is older"
    )


def test_a_prime_raised_after_its_symbol_stays_on_it() -> None:
    from ingest.parse.pdflayout import _PRIME

    assert _PRIME.sub(r"\1", "MAXIMAL p-CORE p ′ -PARTITIONS") == "MAXIMAL p-CORE p′-PARTITIONS"


def test_an_accent_drawn_as_its_own_glyph_goes_on_the_letter_under_it() -> None:
    """Hindawi draws "Nordström"'s diaeresis after the comma that follows the name; a TREE
    page draws "Müller"'s between the "u" and the "l"; TeX draws it before its letter."""
    from ingest.parse.typeset import place_accents

    def letters(text: str, at: float = 0.0) -> list[tuple[float, float]]:
        return [(at + 6 * i, at + 6 * i + 5) for i in range(len(text))]

    chars = list("Nordstrom,¨")
    spans = [*letters("Nordstrom,"), (42.5, 46.5)]  # over the second "o" (42-47)
    dropped = place_accents(chars, spans)
    assert "".join(c for i, c in enumerate(chars) if i not in dropped) == "Nordström,"
    chars, spans = list("Mu¨ller"), [*letters("Mu"), (7.0, 10.0), *letters("ller", 12)]
    dropped = place_accents(chars, spans)
    assert "".join(c for i, c in enumerate(chars) if i not in dropped) == "Müller"
    chars, spans = list("L ¨ojtnant"), [(0, 5), None, (6.5, 9.5), *letters("ojtnant", 6)]
    dropped = place_accents(chars, spans)
    assert "".join(c for i, c in enumerate(chars) if i not in dropped) == "Löjtnant"


def test_the_first_paragraph_of_prose_is_no_byline_nor_licence() -> None:
    """With no "Abstract" heading the first paragraph of prose is stored: not a byline whose
    marks read as lowercase words, nor a rights and licence paragraph; and a first line
    ending in a broken word ("Undiminished-") belongs to its paragraph."""
    from ingest.parse.pdfabstract import first_prose

    rows = [
        "Ladislas Nalborczyk, a,b Cédric Batailler, c Hélène Lœvenbruck, and Anne Vilain d",
        "Copyright © 2010 K. Thorsell et al. This is an open access article distributed under",
        "the Creative Commons License, which permits unrestricted use, provided the original",
        "work is properly cited.",
        "We present CUPID (Computer-assisted Undiminished-",
        "sensitivity Protocol for Ideal Decoupling), a technique which removes the couplings",
        "from spectra and which is simple to use on any spectrometer in every laboratory.",
    ]
    lines = [Line(t, 9.0, 0, 60, 600 - 11 * i, 500, 609 - 11 * i) for i, t in enumerate(rows)]
    assert first_prose(lines, 0) == 4


def test_a_journal_line_in_the_titles_type_does_not_take_the_titles_place(
    tmp_path: Path,
) -> None:
    """APS prints "PHYSICAL REVIEW E 102, 022404 (2020)" above the title in the title's
    type, and no "Abstract" heading: the metadata's title is printed, so the byline is read
    under its lines, and the abstract is the paragraph after the byline, not the title."""
    from fpdf import FPDF

    title = "Information processing capacity of a simple genetic circuit"
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", "", 12)
    pdf.text(180, 60, "PHYSICAL REVIEW E 102, 022404 (2020)")
    pdf.text(60, 110, title)
    pdf.set_font("Helvetica", "", 10)
    pdf.text(60, 130, "Manuel Razo-Mejia, Sarah Marzen, and Rob Phillips")
    pdf.set_font("Helvetica", "", 9)
    pdf.text(80, 145, "Division of Biology, California Institute of Technology, Pasadena")
    abstract = (
        "Genetically identical cells exposed to the same inputs produce different "
        "outputs, and we predict how much information such a circuit can carry. "
    ) * 3
    for j, line in enumerate(_lines([abstract], 90)):
        pdf.set_font("Helvetica", "", 9)
        pdf.text(80, 170 + 11 * j, line)
    pdf.set_font("Helvetica", "", 10)
    for j, line in enumerate(_lines(["Living organisms sense their surroundings. " * 40], 95)):
        pdf.text(60, 240 + 12 * j, line)
    path = tmp_path / "aps.pdf"
    pdf.output(str(path))
    paper = _read(path)
    assert paper.title == title
    assert paper.authors == ("Manuel Razo-Mejia", "Sarah Marzen", "Rob Phillips")
    assert paper.abstract.startswith("Genetically identical cells")
    assert paper.year == 2020


def test_a_year_is_the_papers_own_not_a_download_stamps_a_references_or_a_thumbnails() -> None:
    from ingest.parse.pdfyear import find_year

    # The citation line beats the dates a manuscript went through; RSC's and IOP's lines.
    dated = "Materials 2012, 5, 27-46\nReceived: 3 November 2011 / Published: 27 December 2011"
    assert find_year(dated, None) == 2012
    assert find_year("J. Burns, Polym. Chem., 2013, DOI: 10.1039/C3PY01075A.", None) == 2013
    assert find_year("Journal of Physics: Conference Series\n2188 (2022) 012011", None) == 2022
    # A copyright whose sign is drawn, not typed; a download stamp is no date of the paper's.
    stamped = (
        "2010 by The University of Chicago. All rights reserved.\n"
        "This content downloaded from 132.174.251.002 on January 14, 2020"
    )
    assert find_year(stamped, None) == 2010
    assert find_year("This content downloaded from 10.0.0.1 on January 14, 2020", None) is None
    # A venue's name on one line is not read with a cited year on the next.
    assert find_year("American Journal of Sociology\nas Boli (2005, p. 384) argues", None) is None
    # A running head's "1997, Vol. 7" is a citation line, read before the manuscript's dates.
    annals = "Received September 1995; revised October 1996.\nThe Annals\n1997, Vol. 7, No. 1, 110"
    assert find_year(annals, None) == 1997
    # A copyright sign drawn around a "c" (SIAM); ACL's footers keep an old one, so the venue
    # line goes first; "submission to" a venue names its year.
    siam = "THEORY PROBAB. APPL.\n\x02c 2005 Society for Industrial and Applied Mathematics"
    assert find_year(siam + "\nReceived by the editors October 15, 2001.", None) == 2005
    acl = "Proceedings of NAACL-HLT 2018, pages 84-91\nc 2017 Association for Computational"
    assert find_year(acl, None) == 2018
    assert find_year("Anonymous submission to INTERSPEECH 2023", None) == 2023
    assert find_year("CVPR 2017 Submission #1047. CONFIDENTIAL REVIEW COPY.", None) == 2017
    # Another work cited in brackets inside a sentence, a meeting thanked: not the paper's
    # year; a bracketed line of its own is (JOLE's).
    cited = "so non-natively [A. Koplenig, Royal Society Open Science, 6, 181274 (2019)]."
    assert find_year(cited, None) is None
    thanked = "audiences at the Student Conference in Complexity Science 2014 (Sussex)\n4 May 2017"
    assert find_year(thanked, None) == 2017
    assert find_year("[Journal of Labor Economics, 2021, vol. 39, no. 1]\n© 2020 by", None) == 2021


def test_a_reference_list_on_the_first_page_gives_no_year() -> None:
    from ingest.parse.pdflayout import Line
    from ingest.parse.pdfyear import printed_apart

    def line(text: str, size: float, y: float) -> Line:
        return Line(text=text, size=size, x0=50, x1=300, y0=y, y1=y + size, page=0)

    heads = [
        line("1. Curtin, B. J. The Myopias (Harper & Row, Philadelphia, 1985).", 6.0, 100),
        line("2. Tay, M. T. et al. Ann. Acad. Med. Singap. 21, 785–791 (1992).", 6.0, 92),
        line("Epidemiol. Rev. 18, 175–187 (1996).", 6.0, 84),
        line("NATURE | VOL 399 | 13 MAY 1999 | www.nature.com", 6.8, 20),
    ]
    printed = list(printed_apart(heads, set(), 9.3))
    assert printed == ["NATURE | VOL 399 | 13 MAY 1999 | www.nature.com"]


def test_more_of_a_papers_own_print_dates_it() -> None:
    from ingest.parse.pdfyear import find_year

    assert find_year("American Economic Review 2016, 106(7): 1878–1920", None) == 2016
    assert (
        find_year("Statistics, December 2019, 101(5): 743–762\n© 2018 by the President", None)
        == 2019
    )
    assert find_year("Trauma 1990, 30:748-50.", None) is None  # a reference's, no issue
    assert find_year("Michigan Law Review\nVolume 123 Issue 8\n2025", None) == 2025
    assert find_year("& 2018 The Authors. Published by the Royal Society", None) == 2018
    assert (
        find_year("c 2011. The copyright of this document resides with its authors.", None) == 2011
    )
    assert find_year("To appear in OSDI 2004", None) == 2004
    assert find_year("OVERVIEW OF THE CLEF 2008", None) is None  # an event in a title


def test_a_citation_line_with_the_year_after_the_volume_or_an_e_number() -> None:
    from ingest.parse.pdfyear import find_year

    oup = "Journal of Semantics, 33, 2016: 755–802\n© The Author 2015. All rights reserved."
    assert find_year(oup, None) == 2016  # the issue's year, not the online copyright's
    assert find_year("To be cited as: Angew. Chem. Int. Ed. 2023, e202218575", None) == 2023
    assert find_year("Utrecht University\n12 June, 2020", None) == 2020


def test_a_thesis_contents_entry_is_not_its_abstract(tmp_path: Path) -> None:
    """A thesis's first pages: a title page, then a table of contents whose entries name
    "Abstract" with its page. The entry is no abstract heading: the thesis is stored with
    its title (it had been refused for an 11-character abstract, "Declaration")."""
    from tests.pdfgen import _pdf

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=24)
    title = "MULTI-STATE MODELS OF KIDNEY CARE"
    pdf.multi_cell(pdf.w - 120, 30, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    for text in ("A thesis submitted to the University of Example for the degree of Doctor of "
                 "Philosophy in the Faculty of Biology, Medicine and Health", "2020", "By",
                 "Jane Q. Roe"):  # fmt: skip
        pdf.multi_cell(pdf.w - 120, 14, text, new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=24)
    pdf.cell(0, 30, "Contents", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    for entry, page in (("Abstract", 11), ("Declaration", 13), ("Introduction", 19)):
        pdf.cell(200, 14, entry)
        pdf.cell(0, 14, str(page), new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 14, "1.1 Clinical Prediction Models . . . . . . . . . . 22", new_x="LMARGIN",
             new_y="NEXT")  # fmt: skip
    path = tmp_path / "thesis.pdf"
    pdf.output(str(path))
    paper = _read(path)
    assert paper.title == title
    assert not paper.abstract.startswith("Declaration")


def test_a_structured_abstract_with_labels_in_capitals_runs_through_its_parts(
    tmp_path: Path,
) -> None:
    """JAMA prints no "Abstract" heading: its parts are paragraphs opening with a label in
    capitals ("IMPORTANCE ...", "DESIGN, SETTING, AND PARTICIPANTS ..."). The abstract found
    without a heading ends at a paragraph break, but not while such parts go on in order."""
    from tests.pdfgen import _pdf

    parts = [
        "IMPORTANCE Medicare provides nearly universal health insurance at age 65 years. How "
        "eligibility affects disparities in access to care is poorly understood.",
        "OBJECTIVE To assess the association of Medicare with disparities in access to care.",
        "DESIGN, SETTING, AND PARTICIPANTS This cross-sectional study uses a regression "
        "discontinuity design to compare disparities before and after age 65 years.",
        "EXPOSURES Eligibility for Medicare at age 65 years.",
        "RESULTS Insurance coverage increased more for Black and Hispanic respondents than "
        "for White respondents, narrowing the gaps by about half.",
        "CONCLUSIONS AND RELEVANCE Eligibility for Medicare was associated with marked "
        "reductions in disparities in insurance coverage and access to care.",
    ]
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=18)
    title = "Disparities in Access to Care at Age 65 Years"
    pdf.multi_cell(pdf.w - 120, 24, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    pdf.multi_cell(pdf.w - 120, 12, "Jane Roe, PhD; John Doe, MD", new_x="LMARGIN", new_y="NEXT")
    for part in parts:
        pdf.ln(8)
        pdf.multi_cell(pdf.w - 120, 11, part, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(16)
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(pdf.w - 120, 13, BODY_START, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "jama.pdf"
    pdf.output(str(path))
    paper = _read(path)
    assert paper.abstract.startswith("IMPORTANCE: Medicare provides")
    assert paper.abstract.endswith("insurance coverage and access to care.")
    assert "Thirty years of survey" not in paper.abstract


BODY_START = (
    "Thirty years of survey data show that insurance differs by race and ethnicity in the "
    "United States, and much of the literature asks why these differences persist."
)


def test_an_abstract_broken_by_the_pages_foot_runs_on_overleaf() -> None:
    """A sentence of the abstract left open at the page's foot goes on over the footnotes, a
    licence and the next page's running head (IOP's New Journal of Physics); a finished one
    ends there."""
    from ingest.parse.pdfabstract import abstract_end

    def line(text: str, size: float, page: int, y: float) -> Line:
        return Line(text=text, size=size, page=page, x0=72, y0=y, x1=500, y1=y + size)

    first = [
        line("We review the spin and orbital angular momenta of light in free space.", 12, 0, 200),
        line("Applying the theory to vortex beams validates our results. Our", 12, 0, 186),
        line("Content from this work may be used under the terms of the CC BY licence.", 8, 0, 90),
        line("© 2014 IOP Publishing Ltd and Deutsche Physikalische Gesellschaft", 8, 0, 80),
        line("New J. Phys. 16 (2014) 093037", 9, 1, 760),
    ]
    rest = [
        line("treatment yields a consistent description of the momenta.", 12, 1, 730),
        line("Keywords: spin and orbital angular momentum of light", 12, 1, 700),
    ]
    kept, _ = abstract_end(first + rest, 12.0)
    assert [x.text for x in kept][-1] == rest[0].text
    closed = [*first[:1], replace(first[1], text="Applying the theory validates our results."),
              *first[2:], *rest]  # fmt: skip
    kept, _ = abstract_end(closed, 12.0)
    assert kept[-1].text == "Applying the theory validates our results."


def test_a_character_past_u_ffff_is_stored_as_itself() -> None:
    """PDFium gives a character past U+FFFF ("𝛽", mathematical italic beta) as UTF-16's two
    halves, one character index each; read one at a time they were stored as two U+FFFD.
    A real paper of the eleventh real-PDF set prints "[𝛽 = -3.0; 95% Confidence ...]"."""
    path = Path(__file__).parents[1] / "bench/data/real_pdfs11/heldout/sleepbp_paper.pdf"
    paper = _read(path)
    assert "\ufffd" not in paper.abstract
    assert "[𝛽 = -3.0; 95% Confidence" in paper.abstract


_TWELFTH = Path(__file__).parents[1] / "bench/data/real_pdfs12/heldout"


def test_a_titles_finite_volume_is_no_venue_line() -> None:
    """A venue's volume has its number ("Volume 12"); "A finite volume framework for damage
    and fracture" is a title's first line and was dropped from it as a venue's."""
    from ingest.parse.pdfnames import VENUE

    assert not VENUE.search("A finite volume framework for damage and fracture")
    assert VENUE.search("Journal of Applied Mechanics, Volume 12") and VENUE.search("Volume XII")
    paper = _read(_TWELFTH / "fvdamage_sn_article.pdf")
    title = "A finite volume framework for damage and fracture prediction in wire drawing"
    assert paper.title == title


def test_a_space_the_next_letter_follows_closer_than_a_space_is_no_gap() -> None:
    """ "Özgür" is drawn as "O", a spacing "¨" over it, "zgu", "¨", "r", and PDFium puts a
    space before "r" that is a sixth of a space wide: it was read "Özgü r", not a name."""
    paper = _read(_TWELFTH / "sachs_asar2015.pdf")
    assert paper.authors[:2] == ("Özgür Asar", "James Ritchie")


def test_authors_come_from_the_pdfs_metadata_when_the_page_gives_none() -> None:
    """Names set in one line with their affiliations ("Per Kragh Andersen Department of
    Biostatistics, ...") give no author line; the document information's "Author" does.
    A computer's account there ("Windows User") is no author."""
    from ingest.parse.pdfmeta import metadata_authors

    paper = _read(_TWELFTH / "sachs_andersen2002.pdf")
    assert paper.authors == ("Per Kragh Andersen", "Niels Keiding")
    assert metadata_authors({"Author": "Windows User"}) == ()
    assert metadata_authors({"Author": "A. Author; B. Writer"}) == ()
    assert metadata_authors({"Author": "jsmith"}) == ()
    assert metadata_authors({"Author": "John Smith, Jane Doe"}) == ("John Smith", "Jane Doe")


def test_a_theses_supervisors_are_no_authors() -> None:
    paper = _read(_TWELFTH / "randsd_thesis.pdf")
    assert paper.authors == ("Fabio Matti",)


def test_a_name_like_covid_19_in_a_sentence_is_no_venues_year() -> None:
    """ "IJCAI-07" in a footer is a venue's year; "COVID-19" in the abstract's sentence is
    not: a manuscript printing no year has none (it had 2019)."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Proceedings of IJCAI-07", None) == 2007
    assert find_year("Pressure from the COVID-19 pandemic resulted in lenient grades", None) is None
    assert _read(_TWELFTH / "gpa_sn_article.pdf").year is None


def test_a_manuscripts_line_numbers_are_not_the_abstracts_words() -> None:
    """Every line of a line-numbered manuscript opens on its number ("15 We speculate ..."
    / "16 responses."): the numbers rise line by line and are dropped; an abstract whose
    lines open on figures that do not rise keeps them."""
    from ingest.parse.pdfabstract import with_heading_colons

    paper = _read(_TWELFTH / "bbbq_frontiers.pdf")
    assert paper.abstract.endswith("that enable pathogens to evade T cell responses.")
    assert with_heading_colons(["15 We speculate", "16 that it", "17 holds."]) == [
        "We speculate", "that it", "holds."
    ]  # fmt: skip
    counts = ["12 patients had it", "12 did not", "3 left."]
    assert with_heading_colons(counts) == counts


def test_an_abstract_runs_on_overleaf_past_a_long_footnote() -> None:
    """A sentence cut at the page's foot ("Next, exploiting") goes on overleaf past fifteen
    lines of acknowledgements, dates and rights in smaller type and the next page's head."""
    paper = _read(_TWELFTH / "edenhofer_fowler_qjps.pdf")
    assert paper.abstract.endswith(
        "dramatically alter election outcomes and resulting public policies."
    )


def test_a_double_spaced_abstracts_paragraph_gap_does_not_end_it() -> None:
    """In a double-spaced preprint a paragraph's gap is wider than two and a half times the
    type's size, yet narrow for its own line pitch: the abstract's second paragraph is kept."""
    paper = _read(_TWELFTH / "mcotsar_elsarticle.pdf")
    assert paper.abstract.endswith("amongst workshops producing exactly the same amphoric type.")


def test_a_journal_issues_cover_before_the_article_is_passed_over() -> None:
    """ChemComm's issue cover (the journal, the featured article's title, ISSN, volume,
    number, pages: a few words) comes before the article's first page: the authors and the
    abstract are read from the article. An article's own page printing its ISSN and volume
    among many words is no cover."""
    from ingest.parse.pdfcover import cover_words

    paper = _read(_TWELFTH / "shuster_chemcomm.pdf")
    assert paper.authors[0] == "Hannah B. Castillo"
    assert paper.abstract.startswith("Lipogenesis is a vital but often dysregulated metabolic")
    issue = "ChemComm\nISSN 1359-7345\nVolume 60\nNumber 23\n21 March 2024\nPages 3089–3206"
    assert cover_words(issue)
    assert not cover_words(issue + " We measured the lipids of the cells." * 20)


_THIRTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs13/heldout"


def test_a_digital_commons_cover_is_passed_over() -> None:
    """A university repository's cover ("Follow this and additional works at: ...",
    "Recommended Citation") comes before a law review's article: its abstract is read from
    the article's page, not from the cover's lines."""
    paper = _read(_THIRTEENTH / "gowder_transnational_nclr.pdf")
    assert paper.abstract.startswith("In this Article we use game theory to")


def test_a_table_of_contents_and_a_running_head_hold_no_authors() -> None:
    """Under a law review article's byline its table of contents ("TABLE OF CONTENTS",
    entries with dot leaders) and the title again as a running head hold no names."""
    from ingest.parse.pdfnames import line_names

    assert line_names("TABLE OF CONTENTS") is None
    assert line_names("A. Current Law Enforcement Privilege Doctrine.......... 1415") is None
    path = Path(__file__).parents[1] / "bench/data/real_pdfs7/heldout"
    paper = _read(path / "lawrev_michigan_law_review_law_enforcement_privilege.pdf")
    assert paper.authors == ("Rebecca Wexler",)
    assert paper.abstract.startswith("You can’t question a secret you haven’t been")


def test_a_templates_placeholder_doi_is_no_doi() -> None:
    from ingest.parse.ids import printed_doi

    assert printed_doi("https://doi.org/10.3390/vision1010000") == ""
    assert printed_doi("Digital Object Identifier 10.1109/ACCESS.2017.DOI") == ""
    assert printed_doi("doi:10.3390/xxxxx") == ""
    assert printed_doi("https://doi.org/10.3390/s21010123") == "10.3390/s21010123"
    assert _read(_THIRTEENTH / "hsieh_toxics_mdpi.pdf").doi == ""


def test_a_name_in_capitals_with_its_affiliation_run_on_after_it() -> None:
    """APSR prints "DANIEL DE KADT London School of Economics, United Kingdom"."""
    from ingest.parse.pdfnames import line_names

    assert line_names("JOHN SMITH Harvard University", first=True) == ["JOHN SMITH"]
    assert line_names("DEPARTMENT OF ECONOMICS Harvard University", first=True) is None
    assert _read(_THIRTEENTH / "dekadt_apsr.pdf").authors == ("Daniel de Kadt",)


def test_a_theses_year_stands_alone_on_its_title_page() -> None:
    """ "A Dissertation ... Doctor of Philosophy at the University of Connecticut" / "2015"."""
    assert _read(_THIRTEENTH / "pwsmith_thesis.pdf").year == 2015


def test_a_footnote_mark_read_as_a_letter_after_the_titles_question_mark() -> None:
    """Elsevier's footnote star after "What is a standard error?" is read as "I"; the
    correspondence note's "(A. Gelman)" is the same author as "Andrew Gelman"."""
    from ingest.parse.namecase import shortened

    paper = _read(_THIRTEENTH / "rodazuero_gelman_jeconom.pdf")
    assert paper.title == "What is a standard error?"
    assert paper.authors == ("Andrew Gelman",)
    assert shortened("A. Alexandrova", "Anastassia N. Alexandrova")
    assert not shortened("J.R. Hansen", "J.B. Hansen")  # two authors of a collaboration


def test_the_title_set_again_before_the_abstract_holds_no_authors() -> None:
    """An NBER paper's second page sets the title again ("... Treatment Effects" / "More
    Rapidly and Precisely") above the byline: its words are no names."""
    paper = _read(_THIRTEENTH / "rodazuero_nber_w26463.pdf")
    assert paper.authors == ("Susan Athey", "Raj Chetty", "Guido W. Imbens", "Hyunseung Kang")


def test_an_abstract_ends_before_its_authors_addresses() -> None:
    """NBER prints each author's address under the abstract, the names as in the byline
    ("Susan Athey" / "Graduate School of Business" ...): after the abstract's last sentence
    a line naming an author ends it."""
    paper = _read(_THIRTEENTH / "rodazuero_nber_w26463.pdf")
    assert paper.abstract.endswith("short-term treatment effects into a surrogate index.")


_FOURTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs14/heldout"


def test_a_names_number_after_a_hyphen_at_a_lines_end_joins_it() -> None:
    """ "COVID-" at a line's end, "19 pandemic" on the next: one name, "COVID-19"."""
    from ingest.parse.typeset import join_lines

    assert join_lines(["during the COVID-", "19 pandemic"]) == "during the COVID-19 pandemic"
    paper = _read(_FOURTEENTH / "stars_allen_plosone.pdf")
    assert paper.title.endswith("during the COVID-19 pandemic")


def test_elseviers_covid_19_permission_cover_is_passed_over() -> None:
    """Elsevier's cover ("Since January 2020 Elsevier has created a COVID-19 resource
    centre ...") before the article: the title and authors are the article's."""
    paper = _read(_FOURTEENTH / "stars_lim_clinbiochem.pdf")
    assert paper.title.startswith("Staff rostering, split team arrangement, social distancing")
    assert paper.authors[0] == "Chun Yee Lim"


def test_a_venue_lines_volume_without_its_dot_gives_the_year() -> None:
    """ "Dermatological Nursing 2016, Vol 15, No 4" in the page's footer, as "1997, Vol. 7"."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Dermatological Nursing 2016, Vol 15, No 4 www.bdng.org.uk", None) == 2016
    assert _read(_FOURTEENTH / "oakley_emollients.pdf").year == 2016


def test_a_position_under_a_name_is_no_name() -> None:
    """ASME's byline sets each author's position on the line under the name ("Student",
    "Scientist", "Assistant Professor"): no author, and no part of the next name."""
    paper = _read(_FOURTEENTH / "rakeshss_asme_flow_noise.pdf")
    assert len(paper.authors) == 3
    assert paper.authors[0] == "Rakesh Sekharipuram Sekar"
    assert paper.authors[2] == "Anoop Akkoorath Mana"


_FIFTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs15/heldout"


def test_line_numbers_in_columns_beside_the_text_are_no_part_of_a_line_level_with_them() -> None:
    """Econometrica's class numbers lines in both margins: "1 PUBLIC GOODS, ... ASSETS 1" is
    the title between two numbers, not a title holding them (nor a list of names); SIAM's
    numbers between two byline lines do not part "and Florian" from "Schäfer"."""
    paper = _read(_FIFTEENTH / "douglaspatton_hedonic_econometrica.pdf")
    assert paper.title == "PUBLIC GOODS, PECUNIARY EXTERNALITIES, AND HEDONIC ASSETS"
    assert paper.authors == ("Douglas Patton",)
    paper = _read(_FIFTEENTH / "stephenhuan_cholesky_siam.pdf")
    assert paper.authors[-2:] == ("Houman Owhadi", "Florian Schäfer")


def test_a_generation_after_a_name_stays_after_it() -> None:
    """ "Jonathan J. Foley IV" is no Vancouver-style "Foley IV" (family name, initials)."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Kimberly Fernando† , and Jonathan J. Foley IV ∗", first=True) == [
        "Kimberly Fernando",
        "Jonathan J. Foley IV",
    ]
    assert line_names("Alhadainy HA, Smith JB", first=True) == ["HA Alhadainy", "JB Smith"]
    assert _read(_FIFTEENTH / "jayfoleyiv_hot_carriers_acs.pdf").authors[-1] == (
        "Jonathan J. Foley IV"
    )


def test_a_title_pages_field_and_its_figure_is_no_author() -> None:
    """ "Word Count: 701" under the corresponding author's address is a field, not a name."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Word Count: 701") is None
    assert line_names("Phone: 650.736.9477") is None
    paper = _read(_FIFTEENTH / "ppml_vaccination_disparities.pdf")
    assert paper.authors == (
        "Marissa B. Reitsma",
        "Jeremy D. Goldhaber-Fiebert",
        "Joshua A. Salomon",
    )


def test_a_date_in_numbers_on_a_line_of_its_own_dates_a_paper() -> None:
    """pandoc's "2022-03-09" under the authors: the paper's date; "2022-13-40" is none."""
    from ingest.parse.pdfyear import find_year

    assert find_year("Lisha Li Barry Quinn\n2022-03-09\n1 Introduction", None) == 2022
    assert find_year("Lisha Li Barry Quinn\n2022-13-40\n", None) is None
    assert find_year("sampled on 2022-03-09 in the field\n", None) is None
    assert _read(_FIFTEENTH / "barryquinn1_etf_flows_wp.pdf").year == 2022


def test_a_watermark_drawn_inside_a_word_does_not_part_it() -> None:
    """A diagonal "DRAFT" drawn between "r" and "espirator" (PDFium breaking the line before
    and after it) is left out, and the word is one: "respirator"."""
    paper = _read(_FIFTEENTH / "rechtman_welders_ms.pdf")
    assert paper.abstract.endswith("effect of respirator usage on brain white matter in welders.")
    assert "DRAFT" not in paper.abstract


def test_a_paper_opening_on_its_introduction_has_no_abstract() -> None:
    """A working paper whose text opens under "1 Introduction", nothing before it but the
    title, authors and date: it has no abstract (its introduction is not one); the text is
    stored as its body and the paper as one without an abstract. An abstract set without a
    heading before any introduction (Econometrica's) is still read."""
    paper = _read(_FIFTEENTH / "barryquinn1_etf_flows_wp.pdf")
    assert paper.abstract == "" and not paper.has_abstract
    assert paper.sections[0].title == "1 Introduction"
    assert paper.sections[0].text.startswith("Quantitative easing (QE)")
    notices = [str(n) for n in parse_file(_FIFTEENTH / "barryquinn1_etf_flows_wp.pdf")
               if isinstance(n, Notice)]  # fmt: skip
    assert any("no abstract" in n and "full text" in n for n in notices)
    unlabelled = _read(_FIFTEENTH / "douglaspatton_hedonic_econometrica.pdf")
    assert unlabelled.abstract.startswith("To address a lack of attention to the welfare")
    assert unlabelled.has_abstract


def test_a_thesis_title_page_holds_no_abstract() -> None:
    """A master's thesis's title page ("M A S T E R ' S T H E S I S", its letters spaced,
    then the supervisors, the chair, the school and a date) has no abstract on it: its lines
    are not passed off as one. A dissertation whose abstract opens its first page ("In this
    dissertation, I investigate ...") keeps it."""
    from ingest.parse.pdfthesis import thesis_title_page

    at = _at("M A S T E R ’ S T H E S I S", 13.8, 700.0)
    prose = _at("In this dissertation, I investigate the nature of grammatical features", 12, 600)
    assert thesis_title_page([at], 12.0) and not thesis_title_page([prose], 12.0)
    paper = _read(Path(__file__).parents[1] / "bench/data/real_pdfs12/heldout/randsd_thesis.pdf")
    assert paper.abstract == ""
    kept = _read(_THIRTEENTH / "pwsmith_thesis.pdf")
    assert kept.abstract.startswith("In this dissertation, I investigate the nature of")


_SIXTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs16/heldout"


def test_a_title_pages_labels_and_a_numbered_lines_number_are_no_names() -> None:
    """A manuscript whose 5-point line numbers PDFium gives with some of the 10-point lines
    ("4 Running Title", "11 Affiliations"): the numbers go, and the labels are no authors."""
    paper = _read(_SIXTEENTH / "darcyj_microbial_recruitment_ms.pdf")
    assert paper.authors[0] == "John L. Darcy" and paper.authors[-1] == "Catherine A. Lozupone"
    assert len(paper.authors) == 6


def test_degrees_credit_roles_and_a_papers_kind_are_no_part_of_a_name() -> None:
    """ "Charlotte Hulme, PhD Jessica Fisher-Stokes, MRes": the degree is no part of the next
    name; CRediT's roles ("Dommett Conceptualization"), "Job Market Paper" and "Junior
    Seminar" are no names."""
    from ingest.parse.pdfnames import line_names

    names = line_names("Charlotte Hulme, PhD Jessica Fisher-Stokes, MRes Mandy Peffers, PhD")
    assert names is not None and names[:3] == [
        "Charlotte Hulme",
        "Jessica Fisher-Stokes",
        "Mandy Peffers",
    ]
    assert "Dommett Conceptualization" not in (
        line_names("Katharine Dommett Conceptualization") or []
    )
    assert _read(_SIXTEENTH / "scamara91_borrowing_constraints_jmp.pdf").authors == (
        "Santiago Camara",
        "Máximo Sangiácomo",
    )
    assert (
        _read(_SIXTEENTH / "hmateus_sci_proteomics_rmd.pdf").authors[3] == "Jessica Fisher-Stokes"
    )


def test_a_templates_doi_is_none() -> None:
    from ingest.parse.ids import printed_doi

    assert printed_doi("DOI: 10.1177/ToBeAssigned www.sagepub.com/") == ""
    assert printed_doi("DOI: 10.1039/b000000x/ Paper") == ""
    assert printed_doi("DOI: 10.1039/c4cp05509h") == "10.1039/c4cp05509h"


def test_a_season_an_ordinal_day_a_labelled_date_and_a_drawn_sign_date_a_paper() -> None:
    """ "Fall 2021", "April 12th, 2021", "Working paper 2025-01-03", SAGE's "c The Author(s)
    2020" (its sign drawn)."""
    from ingest.parse.pdfyear import find_year

    assert find_year("SOC 280\nFall 2021\n", None) == 2021
    assert find_year("By Shen Zhou Hong\nApril 12th, 2021\n", None) == 2021
    assert find_year("Working paper 2025-01-03\n", None) == 2025
    assert find_year("XX(X):1–23\nc The Author(s) 2020\n", None) == 2020
    assert _read(_SIXTEENTH / "hpp_manipulation_planning_sage.pdf").year == 2020


def test_the_metadatas_title_is_taken_as_its_lines_print_it() -> None:
    """The metadata's "A Tourist's Journal ..." is printed "A Tourist’s Journal ...": the
    printed form is kept; a title printed in capitals keeps the metadata's case."""
    paper = _read(_SIXTEENTH / "shenzhouhong_kant_critique_essay.pdf")
    assert paper.title.startswith("A Tourist’s Journal of the Critique")
    assert paper.authors == ("Shen Zhou Hong",) and paper.year == 2021
    ninth = Path(__file__).parents[1] / "bench/data/real_pdfs9/heldout"
    assert _read(ninth / "newmh_WeakConvergence97.pdf").title.startswith("Weak Convergence and")


def test_a_summary_past_the_introduction_is_no_abstract_heading() -> None:
    """An unlabelled abstract under the byline, then "Introduction", then a "Summary"
    section: the abstract is the one under the byline."""
    paper = _read(_SIXTEENTH / "tomstafford_faith_in_reason_wp.pdf")
    assert paper.abstract.startswith("What we believe about other people matters.")
    assert paper.year == 2025


def test_a_submission_note_is_no_prose_and_an_open_bracket_goes_on() -> None:
    """ "Paper submitted for publication in ..." over an unlabelled abstract whose first line
    ends inside a bracketed citation ("[F. A. Evangelista, ..., J. Phys. Chem.")."""
    paper = _read(_SIXTEENTH / "wderricotte_xray_ocdft_rsc.pdf")
    assert paper.abstract.startswith("Orthogonality constrained density functional theory (OCDFT)")
    assert paper.doi == ""


def test_a_name_without_the_mark_every_other_name_has_goes_on_the_next_line() -> None:
    """ "..., Pietro Coletti 3 , W. John" / "Edmunds 4 , Amy Gimma 4": one name, "W. John
    Edmunds"; a whole last name without a mark before another line of names stays whole."""
    from ingest.parse.pdfnames import authors

    broken = [
        _at("Pietro Coletti 3 , Anna Berg 2, W. John", 10, 620),
        _at("Edmunds 4 , Amy Gimma 4", 10, 600),
    ]
    assert authors(broken, frozenset()) == (
        "Pietro Coletti",
        "Anna Berg",
        "W. John Edmunds",
        "Amy Gimma",
    )
    whole = [
        _at("John Smith 1, Jane Doe 2, Bob Lee", 10, 620),
        _at("Alice Wu 1, Carl Ma 2", 10, 600),
    ]
    assert authors(whole, frozenset()) == (
        "John Smith",
        "Jane Doe",
        "Bob Lee",
        "Alice Wu",
        "Carl Ma",
    )
    assert "W. John Edmunds" in _read(_SIXTEENTH / "rivmsyso_contacts_covid_scirep.pdf").authors


_SEVENTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs17/heldout"


def test_small_line_numbers_given_with_their_lines_go() -> None:
    """eLife's class numbers lines in 5 points beside 9-point text, some given by PDFium in
    one run with their line ("8 Abstract A critical step ..."): the numbers go, and the
    abstract's heading is read."""
    paper = _read(_SEVENTEENTH / "mishra_t4_calcium_elife.pdf")
    assert paper.abstract.startswith("A critical step in neural information processing is")
    assert paper.authors == ("Abhishek Mishra", "Alexander Borst", "Juergen Haag")


def test_a_small_raised_c_in_a_name_in_capitals() -> None:
    """amsart's "BENJAMIN M c KAY" (the c set small and raised) is Benjamin McKay."""
    from ingest.parse.pdfnames import authors

    def names(text: str) -> tuple[str, ...]:
        return authors([_at(text, 8, 653)], frozenset())

    assert names("BENJAMIN M c KAY") == ("Benjamin McKay",)
    assert names("ROBERT MCCARTHY") == ("Robert McCarthy",)
    assert _read(_SEVENTEENTH / "benmckay_cominuscule_flag_amsart.pdf").authors == (
        "Benjamin McKay",
    )


def test_subject_classifications_after_an_abstract_are_cut() -> None:
    """IMS's "MSC2020 subject classifications: Primary 62C10, ..." closing the abstract."""
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER

    text = "to identify genes. MSC2020 subject classifications: Primary 62C10, 62H25."
    assert FRONT_MATTER_AFTER.sub("", text) == "to identify genes."
    paper = _read(_SEVENTEENTH / "johndinh_sparse_factor_imsart.pdf")
    assert paper.abstract.endswith("to identify important biological relevant genes.")


_EIGHTEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs18/heldout"


def test_superscript_marks_and_letter_marked_names_broken_at_a_line_end() -> None:
    """Unicode superscript marks ("Cristian Mesquida¹²") are no part of a name; a name
    without the letter mark ("a") or the number its line's other names carry goes on the
    next line ("Claudio Augusto Oller" / "Nascimento a", "Megan Beney" / "Kilgore 3 ·")."""
    assert _read(_EIGHTEENTH / "mesquida_sports_zcurve_ms.pdf").authors[0] == "Cristian Mesquida"
    paper = _read(_EIGHTEENTH / "policarpo_copper_biosorption_ms.pdf")
    assert paper.authors[2] == "Claudio Augusto Oller Nascimento"
    paper = _read(_EIGHTEENTH / "raylc_paleolithic_transmission_svjour.pdf")
    assert paper.authors == (
        "Justin Pargeter",
        "Megan Beney Kilgore",
        "Cheng Liu",
        "Dietrich Stout",
    )


def test_a_structured_abstracts_funding_part_is_cut() -> None:
    """The Lancet's last part, "Funding: National Agency ..., Fondecyt 1191282." or
    "Funding World Health Organization Regional Office ... (WPRO), AIR@InnoHK", is no part
    of the abstract; a sentence opening on "Funding" as prose stays."""
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER

    kept = "Results held. Funding agencies should weigh this."
    assert FRONT_MATTER_AFTER.sub("", kept) == kept
    paper = _read(_EIGHTEENTH / "fondecyt_chile_protests_ms.pdf")
    assert paper.abstract.endswith("negative effects of civil unrest on population health.")
    paper = _read(_EIGHTEENTH / "shihuijin_vaccine_acceptance_word.pdf")
    assert paper.abstract.endswith("in reducing vaccine hesitancy and ramping up immunisation.")


_NINETEENTH = Path(__file__).parents[1] / "bench/data/real_pdfs19/heldout"


def test_an_abstract_opening_on_an_affiliations_words_starts_there() -> None:
    """AIAA's abstract opens "Presently at the Von Karman Institute for Fluid Dynamics (VKI),
    a comprehensive" and goes on in lowercase: the line is the abstract's, not an
    affiliation's."""
    paper = _read(_NINETEENTH / "roysdon_blended_wing_body_aiaa.pdf")
    assert paper.abstract.startswith("Presently at the Von Karman Institute for Fluid Dynamics")


def test_a_heading_in_larger_type_ends_an_unfinished_abstract() -> None:
    """achemso's abstract ends "Compare isotherms with VDW equation" (no full stop) over a
    "Graphical TOC Entry" heading in larger type: the heading is no part of it."""
    paper = _read(_NINETEENTH / "sweet_molecular_dynamics_achemso.pdf")
    assert paper.abstract.endswith("Compare isotherms with VDW equation")


def test_marks_of_letters_and_numbers_part_pnas_names() -> None:
    """PNAS: "Sydney Levine a,b,1 , Max Kleiman-Weiner a,b , ..., Joshua Tenenbaum b,1 , and
    Fiery Cushman a": the marks that mix letters and numbers are marks, the line names."""
    from ingest.parse.pdfnames import line_names

    line = "Sydney Levine a,b,1 , Laura Schulz b , Joshua Tenenbaum b,1 , and Fiery Cushman a"
    assert line_names(line, first=True) == [
        "Sydney Levine",
        "Laura Schulz",
        "Joshua Tenenbaum",
        "Fiery Cushman",
    ]
    assert len(_read(_NINETEENTH / "levine_universalization_pnas.pdf").authors) == 5


def test_the_journals_name_over_the_title_is_no_author() -> None:
    """Translational Psychiatry prints its name over the title and no byline under it: the
    journal (the document information's subject, and after "et al." in the citation line)
    is no author; the document information's author is taken instead."""
    from ingest.parse.pdfmeta import not_the_venue

    meta = {"Subject": "Translational Psychiatry, doi:10.1038/s41398-021-01276-z"}
    assert not_the_venue(("Translational Psychiatry",), meta, "") == ()
    cited = "Piras et al. Translational Psychiatry (2021) 11:173"
    assert not_the_venue(("Translational Psychiatry",), {}, cited) == ()
    assert not_the_venue(("Fabrizio Piras",), meta, cited) == ("Fabrizio Piras",)
    paper = _read(_NINETEENTH / "piras_ocd_white_matter_translpsych.pdf")
    assert "Translational Psychiatry" not in paper.authors


def test_tex_math_italic_without_a_unicode_map_reads_as_it_shows() -> None:
    """CMMI10 embedded with no map to Unicode gives its script l as "`" and its Greek
    letters as control characters: read from that font they are "ℓ" and the letters."""
    from ingest.parse.typeset import MATH_ITALIC

    assert MATH_ITALIC["`"] == "ℓ" and MATH_ITALIC["\x0b"] == "α" and MATH_ITALIC["\x1f"] == "χ"
    paper = _read(_NINETEENTH / "kjellqvist_robust_control_pmlr.pdf")
    assert "bounded ℓ2-gain adaptive control" in paper.abstract
    assert "`" not in paper.abstract


_TWENTIETH = Path(__file__).parents[1] / "bench/data/real_pdfs20/heldout"


def test_a_thesis_title_page_names_its_author_after_presented_by_and_its_latest_year() -> None:
    """ETH's title page: "presented by" / "ALEXANDER FRANCIS MASSEY", then "born 18 May 1983"
    and "2015" at its foot: the author, and the thesis's year, not the author's birth."""
    from ingest.parse.pdfyear import latest_year

    assert latest_year(["born 18 May 1983", "2015"]) == 2015
    assert latest_year(["Doctoral thesis"]) is None
    paper = _read(_TWENTIETH / "massey_forest_inventory_thesis.pdf")
    assert paper.authors == ("Alexander Francis Massey",)
    assert paper.year == 2015
    assert _read(_TWENTIETH / "cagua_plant_pollinator_thesis.pdf").year == 2019


def test_a_place_an_address_closes_with_is_no_name() -> None:
    """JOV: "Abu Dhabi, United Arab Emirates" under a name is its address, not two names."""
    from ingest.parse.pdfnames import AFFILIATION

    assert AFFILIATION.search("Abu Dhabi, United Arab Emirates")
    assert not AFFILIATION.search("Olivia S. Cheung")
    paper = _read(_TWENTIETH / "jin_holistic_face_processing_jov.pdf")
    assert paper.authors == ("Haiyang Jin", "William G. Hayward", "Olivia S. Cheung")


def test_a_note_that_supplementary_material_is_online_is_no_part_of_the_abstract() -> None:
    """IOP's "Supplementary material for this article is available online" under the
    abstract goes; OUP's labelled part "Supplementary information: Supplementary data are
    available at Bioinformatics online." is the abstract's."""
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER

    kept = "We did it. Supplementary information: Supplementary data are available online."
    assert FRONT_MATTER_AFTER.sub("", kept) == kept
    cut = "We did it. Supplementary material for this article is available online"
    assert FRONT_MATTER_AFTER.sub("", cut) == "We did it."
    paper = _read(_TWENTIETH / "li_ballistic_josephson_graphene_iop.pdf")
    assert paper.abstract.endswith("in CVD-graphene-based Josephson junctions.")


_TWENTY_FIRST = Path(__file__).parents[1] / "bench/data/real_pdfs21/heldout"


def test_abstract_run_on_in_lowercase_is_a_titles_word_not_a_heading() -> None:
    """A master's thesis titled "Abstract error analysis for Cahn–Hilliard type equations
    ...": the title keeps its first word, and no abstract starts there; "Abstract: we ..."
    and "ABSTRACT We ..." stay headings. Its author follows "submitted by"."""
    from ingest.parse.pdfabstract import heading_at
    from ingest.parse.pdfline import Line

    def at(text: str) -> bool:
        return heading_at([Line(text, 12.0, 0, 0, 0, 100, 12)], 0)

    assert not at("Abstract error analysis for")
    assert at("Abstract: we study") and at("ABSTRACT We study") and at("Abstract")
    paper = _read(_TWENTY_FIRST / "harder_cahn_hilliard_masterthesis.pdf")
    assert paper.title.startswith("Abstract error analysis for Cahn–Hilliard")
    assert paper.authors == ("Paula Harder",)


def test_a_possessive_or_a_review_status_is_no_name_and_a_year_alone_dates_a_paper() -> None:
    """A subtitle under the title ("On Livengood and Sytsma’s Revolver Case") and F1000's
    "Approval Status" are no authors; "2023" alone on a line of the front matter is the
    year; a template's empty date ("Submitted: 01 January 1970") is none."""
    from ingest.parse.pdfnames import line_names
    from ingest.parse.pdfyear import find_year

    assert not line_names("On Livengood and Sytsma’s Revolver Case", first=True)
    front = "Corresponding Author\n2023\nPhilosophy of Science 89 (1), 180–192"
    assert find_year(front, None) == 2023
    assert find_year("Submitted: 01 January 1970\nPublished: 01 January 1970", None) is None
    paper = _read(_TWENTY_FIRST / "bauer_revolver_case_philosophy.pdf")
    assert paper.authors == ("Alexander Max Bauer", "Jan Romann") and paper.year == 2023
    assert "Approval Status" not in _read(_TWENTY_FIRST / "law_design_matrices_f1000.pdf").authors


def test_a_page_left_blank_on_purpose_is_no_prose() -> None:
    from ingest.parse.pdfabstract import first_prose
    from ingest.parse.pdfline import Line

    lines = [
        Line("This page was intentionally left blank.", 12.0, 0, 0, 100, 300, 112),
        Line("We study the energy lost in a stress driven shear flow.", 12.0, 0, 0, 80, 300, 92),
    ]
    assert first_prose(lines, 0) == 1


_TWENTY_SECOND = Path(__file__).parents[1] / "bench/data/real_pdfs22/heldout"


def test_a_question_mark_for_a_star_and_a_labs_broken_name_are_no_part_of_names() -> None:
    """LNCS's footnote star read as "?" ("Xinzhe Luo and Xiahai Zhuang ?"); "Computer Science
    and Artificial" / "Intelligence Laboratory," beside a byline: no "Artificial Wen Ning
    Zhao"; a journal's side panel ("Frequency Monthly", "Language English") is no byline."""
    from ingest.parse.pdfnames import line_names

    assert line_names("Xinzhe Luo and Xiahai Zhuang ?", first=True) == [
        "Xinzhe Luo",
        "Xiahai Zhuang",
    ]
    paper = _read(_TWENTY_SECOND / "mcdermott_gene_expression_benchmarks_biokdd.pdf")
    assert "Wen Ning Zhao" in paper.authors and not any("Artificial" in a for a in paper.authors)
    panel = _read(_TWENTY_SECOND / "vanitha_kidney_disease_iarjms.pdf")
    assert "Frequency Monthly" not in panel.authors


def test_ams_subject_classifications_end_an_abstract_and_as_of_dates_nothing() -> None:
    """EJS: "AMS 2000 subject classifications: Primary 62J07; ..." after the abstract is no
    part of it; a footnote's "As of March 2022, [16] has over 35K citations" is no date of
    the paper."""
    from ingest.parse.pdfbody import FRONT_MATTER_AFTER
    from ingest.parse.pdfyear import find_year

    text = "the true excess risk. AMS 2000 subject classifications: Primary 62J07; secondary 62J05."
    assert FRONT_MATTER_AFTER.sub("", text) == "the true excess risk."
    assert find_year("1. As of March 2022, [16] has over 35K citations.", None) is None
    paper = _read(_TWENTY_SECOND / "alquier_pac_bayesian_sparse_ejs.pdf")
    assert paper.abstract.endswith("in probability for the true excess risk.")


_TWENTY_THIRD = Path(__file__).parents[1] / "bench/data/real_pdfs23/heldout"


def test_an_email_after_a_names_mark_and_one_initial_after_two_words() -> None:
    """LNCS: "Prasad Honnavalli B 1 (prasadhb@pes.edu), Ethadi Sushma 2": each name's e-mail
    after its mark is no affiliation ending the byline, and "Prasad Honnavalli B" keeps its
    order (one initial after two words is a given name's, not Vancouver's "Alhadainy HA");
    a company's e-mail ("Matthew R. Lehnert, Axle Informatics (m@axleinfo.com)") still
    closes the line as its affiliation."""
    from ingest.parse.pdfnames import line_names

    line = "Prasad Honnavalli B 1 (prasadhb@pes.edu), Ethadi Sushma 2"
    assert line_names(line, first=True) == ["Prasad Honnavalli B", "Ethadi Sushma"]
    assert line_names("Alhadainy HA, Darrag AM", first=True) == ["HA Alhadainy", "AM Darrag"]
    company = "Matthew R. Lehnert, Axle Informatics (Matthew.Lehnert@axleinfo.com)"
    assert line_names(company, first=True) == ["Matthew R. Lehnert"]
    paper = _read(_TWENTY_THIRD / "honnavalli_botnet_ransomware_lncs.pdf")
    assert len(paper.authors) == 6 and paper.authors[0] == "Prasad Honnavalli B"


def test_a_templates_arxiv_id_and_subject_areas_are_none() -> None:
    """imsart's "arXiv: arXiv:0000.0000" is no id and no year; old Scientific Reports'
    SUBJECT AREAS panel ("Electronic Structure", "Computational Methods") is no byline."""
    paper = _read(_TWENTY_THIRD / "kim_gene_coexpression_correlation_imsart.pdf")
    assert paper.id.startswith("pdf:") and paper.year is None  # no "arxiv:0000.0000" id
    paper = _read(_TWENTY_THIRD / "pilania_materials_ml_scirep.pdf")
    assert paper.authors[-1] == "Ramamurthy Ramprasad" and len(paper.authors) == 5


_TWENTY_FOURTH = Path(__file__).parents[1] / "bench/data/real_pdfs24/heldout"


def test_a_footnote_number_raised_after_the_title_is_no_part_of_it() -> None:
    """A title ending "... experimental data¹": the raised 1 is its footnote's, not its last
    word; a number set on the line ("Llama 2") is."""
    paper = _read(_TWENTY_FOURTH / "moroz_zilo_noun_classes.pdf")
    assert paper.title == "Variability in noun classes assignment in Zilo Andi: experimental data"
    line = Line("Llama 2", 16.0, 0, 100, 700, 200, 716)
    assert line.mark == ""


def test_a_title_card_of_one_word_is_a_cover_not_the_first_page() -> None:
    """A "PREPRINT" card alone on page 1: the article starts on page 2 (its title, its
    authors); a page of a title and a name is no card."""
    from ingest.parse.pdfcover import cover_words, stamped

    paper = _read(_TWENTY_FOURTH / "woodin_metaphor_line_graphs_preprint.pdf")
    assert paper.title.startswith("Conceptual metaphor and graphical convention influence")
    assert paper.authors == ("Greg Woodin", "Bodo Winter", "Lace Padilla")
    card = cover_words("PREPRINT\n")
    assert card is not None and not stamped(card, "PREPRINT\n", "Preprint. Title ...")
    assert cover_words("A Short Title\nJane Doe and John Roe\n") is None
    assert cover_words("") is None  # a blank page (no text layer) is not read as a card


def test_a_labelled_link_after_the_abstract_and_an_institutions_letters() -> None:
    """elsarticle: "Source code: https://github.com/..." after the last sentence is a field,
    not the abstract's; "ETH Zürich" under a name is its affiliation, not a second author."""
    paper = _read(_TWENTY_FOURTH / "simon_pyiast_adsorption.pdf")
    assert paper.abstract.endswith("to yield a desired adsorbed phase composition.")
    paper = _read(_TWENTY_FOURTH / "schulz_gender_pricing_salons.pdf")
    assert paper.authors == ("Richard Schulz",)


def test_a_theses_title_page_dated_by_its_place_and_year() -> None:
    """A bachelor thesis's title page closing on "Wrocław 2021"."""
    from ingest.parse.pdfyear import latest_year

    assert latest_year(["Bachelor thesis", "Wrocław 2021"]) == 2021
    assert latest_year(["New Haven, 2019"]) == 2019
    assert latest_year(["Index number: 250193", "We ran 2021 trials"]) is None
    assert _read(_TWENTY_FOURTH / "pawlowski_xxz_integrals_thesis.pdf").year == 2021


_TWENTY_FIFTH = Path(__file__).parents[1] / "bench/data/real_pdfs25/heldout"


def test_an_aip_cover_and_its_rights_line_after_the_abstract() -> None:
    """AIP's cover ("View online: ... View Table of Contents: ...") is not the article's
    first page; "Published by AIP Publishing. https://doi.org/..." run on after the last
    sentence is no part of the abstract."""
    paper = _read(_TWENTY_FIFTH / "yuan_quantum_dots_jcp_aip.pdf")
    assert paper.title == "Addition and removal energies of circular quantum dots"
    assert len(paper.authors) == 6 and paper.authors[-1] == "Morten Hjorth-Jensen"
    assert paper.abstract.endswith(
        "extrapolations to the infinite basis limit using a power-law model."
    )


def test_a_theses_supervisors_named_beside_the_author_are_no_authors() -> None:
    """ "Thesis Advisor: Patrick Cozzi", "Advisor: John Eric Humphries" on lines of their own,
    "Oishani Bandopadhyay, supervised by Professor Will Styler" on the author's line, "EAS
    499 Senior Capstone Thesis" and "Honors Program Director" under the names."""
    for name, author in (
        ("rittgers_open_source_thesis.pdf", "Sarah Rittgers"),
        ("zhao_undergraduate_borrowing_thesis.pdf", "Amy Zhao"),
        ("bandopadhyay_asr_dialects_thesis.pdf", "Oishani Bandopadhyay"),
    ):
        assert _read(_TWENTY_FIFTH / name).authors == (author,)
    assert (
        _read(_TWENTY_FIFTH / "rittgers_open_source_thesis.pdf").year == 2019
    )  # "May 1 st , 2019"


def test_a_theses_title_in_capitals_in_the_bodys_type_is_its_title_not_a_name() -> None:
    """An honors thesis's title page sets everything in one type: "COMBINATORICS OF PARKING
    FUNCTIONS" above "An Honors Thesis Presented" is its title ("of" is in no name)."""
    from ingest.parse.pdfnames import line_names

    assert not line_names("COMBINATORICS OF PARKING FUNCTIONS")
    assert line_names("Catalina de la Torre") == ["Catalina de la Torre"]
    paper = _read(_TWENTY_FIFTH / "keller_parking_functions_thesis.pdf")
    assert paper.title == "COMBINATORICS OF PARKING FUNCTIONS"
    assert paper.authors == ("Christo M Keller",)


def test_a_year_from_a_copyright_without_its_sign_not_from_the_papers_talks() -> None:
    """SAGE's "© The Author(s). 2012." with the sign missing from the text layer dates the
    paper; "This project was presented at the 2021 and 2022 DGPE workshops, the 2022 EHES
    conference, ..." in a note does not."""
    from ingest.parse.pdfyear import find_year

    assert _read(_TWENTY_FIFTH / "cranmer_alliance_network_sage.pdf").year == 2012
    assert _read(_TWENTY_FIFTH / "vedel_perfect_storm_short_version.pdf").year is None
    assert find_year("Proceedings of the 2019 Conference on X", None) == 2019


_TWENTY_SIXTH = Path(__file__).parents[1] / "bench/data/real_pdfs26/heldout"


def test_a_manuscripts_title_printed_twice_and_its_author_note_is_no_byline() -> None:
    """An APA manuscript's title page, all in one type: its title, printed again over the
    abstract on page 2, is the title; the author note's prose ("... is an assistant
    professor ... I am grateful to Bart de Langhe, Bram van den Bergh, ...") names no author."""
    paper = _read(_TWENTY_SIXTH / "andre_outlier_exclusion_jepg_manuscript.pdf")
    assert (
        paper.title == "Outlier Exclusion Procedures Must be Blind to the Researcher’s Hypothesis"
    )
    assert paper.authors == ("Quentin André",)


def test_keywords_over_an_unlabelled_abstract_and_a_component_doi() -> None:
    """ "Key words: ..." set above an abstract without a heading is not its start; eLife's
    abstract DOI "10.7554/eLife.17290.001" is the article's "10.7554/eLife.17290"."""
    from ingest.parse.ids import printed_doi

    paper = _read(_TWENTY_SIXTH / "charmouh_nuptial_gifts_biorxiv.pdf")
    assert paper.abstract.startswith("Nuptial gift-giving occurs in several taxonomic groups")
    assert printed_doi("DOI: 10.7554/eLife.17290.001") == "10.7554/eLife.17290"
    assert printed_doi("doi:10.1371/journal.pone.0123456.g001") == "10.1371/journal.pone.0123456"
    assert printed_doi("doi: 10.1000/abc.001") == "10.1000/abc.001"
    assert printed_doi("(doi: 10.5281/zenodo.11243763):") == "10.5281/zenodo.11243763"


def test_a_title_begun_in_the_top_margin_and_one_name_to_a_line() -> None:
    """IEEE's template sets the title's first line up in the page's margin; names one to a
    line keep their printed order ("Suburaaj R": Vancouver's order only in a list of such
    names), a degree line ("M.tech VLSI Design") and a glued title ("Dr.Sriadhibhatla")
    are no names."""
    from ingest.parse.pdfnames import line_names

    paper = _read(_TWENTY_SIXTH / "kautikwar_sram_ieee_conf.pdf")
    assert paper.title == "DESIGN OF LOW POWER SINGLE-ENDED 6T SRAM ARCHITECTURE"
    assert paper.authors == (
        "Ajinkya Sureshrao Kautikwar", "Suburaaj R", "Annamalai S", "Sriadhibhatla Sridevi",
    )  # fmt: skip
    assert line_names("Alhadainy H, Darrag A", first=True) == ["H Alhadainy", "A Darrag"]


def test_a_postcode_and_a_raised_mark_in_four_fifths_of_the_type() -> None:
    """ "Warrington WA4 4AD, United" / "Kingdom" is an address; "M c Cabe" is McCabe;
    "McCaffrey" with its raised "a" at 8 of 10 points is no "McCaffreya"; an NIH
    manuscript's "Published in final edited form as: Stat Med. 2013 August 30; 32(19):
    3388–3414" dates it, not "available in PMC 2014"."""
    from ingest.parse.pdfyear import find_year

    paper = _read(_TWENTY_SIXTH / "loeffler_free_energy_reproducibility_achemso.pdf")
    assert paper.authors[-1] == "Julien Michel" and len(paper.authors) == 7
    assert _read(_TWENTY_SIXTH / "summers_monolayer_tribology_manuscript.pdf").authors[-1] == (
        "Clare McCabe"
    )
    paper = _read(_TWENTY_SIXTH / "mccaffrey_propensity_scores_nihms.pdf")
    assert paper.authors[0] == "Daniel F. McCaffrey" and paper.year == 2013
    assert find_year("Stat Med. 2013 August 30; 32(19): 3388–3414.", None) == 2013


def test_an_abstract_on_in_the_next_column_past_the_footnotes_to_a_heading() -> None:
    """Biological Bulletin: the abstract's sentence runs past the first column's footnotes
    into the second, and ends before "Types of Aggregations", a heading in its own type."""
    paper = _read(_TWENTY_SIXTH / "parrish_fish_schools_biolbull.pdf")
    assert paper.abstract.endswith(
        "identify relationships between behavioral parameters and group-level statistics."
    )


def test_a_long_unlabelled_abstract_and_a_repositorys_two_cover_pages() -> None:
    """Frontiers' abstract of 302 words, set without a heading, is kept whole; a Digital
    Commons cover and its abstract page ("This paper is posted at ScholarlyCommons") come
    before the paper, whose own page gives its year ("April 2004")."""
    paper = _read(_TWENTY_SIXTH / "yosipof_drug_likeness_frontiers_chemistry.pdf")
    assert paper.abstract.endswith("disease-category(ies) or organ(s) of action of a molecule.")
    assert _read(_TWENTY_SIXTH / "ooi_simpsons_paradox_wharton_cover.pdf").year == 2004


_TWENTY_SEVENTH = Path(__file__).parents[1] / "bench/data/real_pdfs27/heldout"


def test_a_subtitle_running_on_is_no_byline_and_a_course_number_no_name() -> None:
    """ "Arminius the Turbulator" over "Depicting Germanness and Combating Foreigners in" /
    "German Collective Memory": the smaller lines are its subtitle (a line ending on "in"
    is no byline), and "HIS 492 Sec 02" is a course, no name."""
    from ingest.parse.pdfnames import line_names

    paper = _read(_TWENTY_SEVENTH / "oriordan_arminius_memory_history_seminar.pdf")
    assert paper.title == (
        "Arminius the Turbulator: Depicting Germanness and Combating Foreigners in German "
        "Collective Memory"
    )
    assert paper.authors == ("Conor O’Riordan",)
    assert not line_names("HIS 492 Sec 02")


def test_a_title_labelled_as_one_and_a_university_under_a_title_in_its_type() -> None:
    """ "Title- The Psychological Impact of ..." labels the title over its lines; a thesis
    page's "Swedish University of Agricultural Sciences", set in the title's type under it,
    is no part of it ("... in Southern" / "Sweden" still is)."""
    paper = _read(_TWENTY_SEVENTH / "headache_stroke_tbi_distress_dissertation.pdf")
    assert paper.title == (
        "The Psychological Impact of Chronic Headaches in Stroke and Traumatic Brain Injury "
        "Survivors: A Comprehensive Analysis of Depression, Anxiety, and Stress"
    )
    paper = _read(_TWENTY_SEVENTH / "adu_scots_pine_biomass_slu_msc_thesis.pdf")
    assert paper.title.endswith("Young Scots pine Stand in Southern Sweden")
    from ingest.parse.pdftitlelabel import _LABELLED

    assert _LABELLED.match("Title: A Study") and _LABELLED.match("Title - A Study")
    assert not _LABELLED.match("Title-based retrieval of scanned papers")


def test_an_abstract_ended_by_its_keywords_is_not_cut_at_the_length_cap() -> None:
    """A Frontiers abstract of 437 words, set without a heading: its "Keywords:" line shows
    where it ends, so the cap on an unlabelled abstract (350 words, for a first paragraph
    whose end nothing marks) does not cut it."""
    paper = _read(_TWENTY_SEVENTH / "haine_misclassification_bias_frontiers_vet.pdf")
    assert paper.abstract.endswith("the null value, even with near perfect diagnosis.")
    assert len(paper.abstract.split()) > 350


_TWENTY_EIGHTH = Path(__file__).parents[1] / "bench/data/real_pdfs28/heldout"


def test_a_subtitle_in_smaller_type_above_the_byline_and_console_output_are_no_names() -> None:
    """Quarto's title page: a subtitle in smaller type between the title and a larger author
    line is no byline ("Probabilities Across Ethnic Groups" / "Akshat Aneja"), while names
    in smaller type with something between them and a larger line (a heading) stay; R's
    console output knitted under a byline ("## [1] FALSE TRUE") names nobody."""
    from ingest.parse.pdfnames import authors, line_names

    paper = _read(_TWENTY_EIGHTH / "aneja_toronto_arrest_booking_racial_bias.pdf")
    assert paper.authors == ("Akshat Aneja",)
    paper = _read(_TWENTY_EIGHTH / "chen_interview_disruptions_survey_quality.pdf")
    assert paper.authors == ("Dezhen Chen",)
    paper = _read(_TWENTY_EIGHTH / "alkhalili_trauma_audit_filters_manuscript.pdf")
    assert paper.authors == ("Josef Al-Khalili",)
    assert line_names('## [1] "ISS TE"') is None and line_names("[12] A. Smith, B. Jones") is None
    subtitle = [_at("Family Interference and Survey Methods", 12, 700),
                _at("Respondent Comprehension", 12, 686),
                _at("Dezhen Chen", 14.3, 668)]  # fmt: skip
    assert authors(subtitle, frozenset()) == ("Dezhen Chen",)
    apart = [_at("Joel Constantin Arenz", 12, 700), _at("March 1, 2026", 12, 686),
             _at("Theoretical Framework", 14.3, 668)]  # fmt: skip
    assert authors(apart, frozenset())[0] == "Joel Constantin Arenz"


def test_a_doi_named_as_a_deposit_of_code_data_or_a_replication_is_not_the_papers() -> None:
    """A replication's footnote ("Full Replication on Social Science Reproduction platform
    available at https://doi.org/10.48152/...") and a data set's DOI cited in parentheses in
    the prose ("(Zenodo 10.5281/zenodo.11243763)") are deposits' DOIs; a preprint's own Zenodo
    DOI in its citation line and a published version "available at" its DOI are the paper's."""
    from ingest.parse.ids import printed_doi

    paper = _read(_TWENTY_EIGHTH / "jain_covid_school_closures_replication.pdf")
    assert paper.doi == ""
    paper = _read(_TWENTY_EIGHTH / "zermeno_cardiac_positronium_pet_preprint.pdf")
    assert paper.doi == ""
    assert printed_doi("Code is deposited at doi:10.5281/zenodo.42 and the data too") == ""
    assert printed_doi("Cite as: A. Lee (2024). Title. Zenodo. https://doi.org/10.5281/zenodo.1")
    assert printed_doi("Published version available at https://doi.org/10.1016/j.x.2020.01.001")


def test_an_abstract_heading_set_larger_after_a_table_of_contents_opens_the_abstract() -> None:
    """A knitted manuscript: "Contents" lists "1 Abstract", "2 Introduction" ... in the
    body's type, then "1 Abstract" stands larger under it: that heading is the text's own,
    the entries are not (neither the abstract's heading nor an introduction's)."""
    from ingest.parse.pdfabstract import heading_at
    from ingest.parse.pdfcontents import toc_entry

    paper = _read(_TWENTY_EIGHTH / "skog_trauma_shock_ofi_manuscript.pdf")
    assert paper.abstract.startswith("Background: Hemorrhagic shock is the leading cause")
    assert paper.abstract.endswith("using validated shock classifications in future research.")
    page = [_at("Contents", 14.3, 700), _at("Abstract", 10, 686), _at("1", 10, 686, 500),
            _at("2 Introduction", 10, 672), _at("Abstract", 14.3, 640)]  # fmt: skip
    assert [toc_entry(page, i) for i in range(1, 5)] == [True, True, True, False]
    assert not heading_at(page, 1) and heading_at(page, 4)


_TWENTY_NINTH = Path(__file__).parents[1] / "bench/data/real_pdfs29/heldout"


def test_an_institutions_name_is_no_title_and_a_titles_words_are_no_institution() -> None:
    """ "Johns Hopkins University" set under a title, over the author, is neither the title
    nor its subtitle; "Laboratory Test Volumes Using Time-series Analysis" is the title's
    second line, not an institution's; a title of six lines beside a side column is whole;
    a byline in the title's type ends it."""
    from ingest.parse.pdfaffiliation import INSTITUTION as _INSTITUTION
    from ingest.parse.pdfaffiliation import INSTITUTION_NAME as _INSTITUTION_NAME

    paper = _read(_TWENTY_NINTH / "du_unemployment_scarring_jmp.pdf")
    assert paper.title == "The Macroeconomic Consequences of Unemployment Scarring"
    paper = _read(_TWENTY_NINTH / "mohammed_lab_test_volume_forecasting_jpi.pdf")
    assert paper.title.endswith("of Clinical Laboratory Test Volumes Using Time-series Analysis")
    paper = _read(_TWENTY_NINTH / "nekmat_connective_action_social_media_comres.pdf")
    assert paper.title.endswith("Perceived Source Credibility on Personalness of Source")
    assert _INSTITUTION_NAME.match("University of Virginia")
    assert not _INSTITUTION_NAME.match("Evidence from University Admissions")
    assert _INSTITUTION.search("Swedish University of Agricultural Sciences")
    assert _INSTITUTION.search("School of Medicine") and not _INSTITUTION.search("School Closures")
    assert not _INSTITUTION.search("Institutional Investors and Laboratory Tests")
    seventh = Path(__file__).parents[1] / "bench/data/real_pdfs7/heldout"
    paper = _read(seventh / "imgan_J_Biol_Chem-2008-Brocker-10559-67.pdf")
    assert paper.authors[:2] == ("Markus J. Bröcker", "Simone Virus")


def test_a_name_with_a_combining_accent_a_proofs_query_mark_and_a_side_panels_reviewers() -> None:
    """ "Su" + U+0308 + "ltmann" is "Sültmann" (NFC), not a word that is no name; a proof's
    "Q1" in the margin beside the title's last line does not hide the byline under it;
    ReScience's side panel: its reviewers under their label, with a reference's lines
    between ("→ Benincà, E., Huisman, J., ..."), and its "Licence CC-BY" are no authors."""
    from ingest.parse.pdfnames import line_names

    paper = _read(_TWENTY_NINTH / "praveen_ampk_egfr_lung_cancer_scirep.pdf")
    assert "Holger Sültmann" in paper.authors and len(paper.authors) == 5
    paper = _read(_TWENTY_NINTH / "westcott_16s_otu_clustering_peerj_proof.pdf")
    assert paper.authors == ("Sarah L. Westcott", "Patrick Schloss")
    paper = _read(_TWENTY_NINTH / "petchey_plankton_chaos_rescience.pdf")
    assert paper.authors == ("Owen Petchey", "Marco Plebani", "Frank Pennekamp")
    assert line_names("Benincà, E., Huisman, J., Heerkloss, R., Jöhnk, K.D.,") is None
    assert line_names("R. Barate, D. Buskulic, D. Decamp, P. Ghez") == [
        "R. Barate", "D. Buskulic", "D. Decamp", "P. Ghez"]  # fmt: skip


def test_a_power_ending_a_title_and_a_structured_abstracts_part_over_the_page() -> None:
    """A raised "2" ending a title is a power ("... on S 2 × S 2"), not its first note; a
    structured abstract whose "Results:" ends at the page's foot goes on with
    "Conclusion:" over the footnote and the next page's running head."""
    paper = _read(_TWENTY_NINTH / "mcneice_hopf_product_metric_senior_thesis.pdf")
    assert paper.title.endswith("Product Metric on S 2 × S 2")
    paper = _read(_TWENTY_NINTH / "garren_kurtosis_ttest_wilcoxon_cjast.pdf")
    assert "Results: The false positive rate" in paper.abstract
    assert paper.abstract.endswith("the t-test is preferred over all three mixture tests.")
    assert "Corresponding author" not in paper.abstract and "CJAST" not in paper.abstract


_THIRTIETH = Path(__file__).parents[1] / "bench/data/real_pdfs30/heldout"


def test_a_titles_pairs_of_common_words_are_no_byline_and_a_name_before_its_contact() -> None:
    """ "Visual Environment, Attention Allocation," opens a title in its large type: pairs of
    common words, no initial and no name's word, are no byline, so the title runs on over
    its three lines; SSRN's "Pablo Fernández. Professor of Corporate Finance. e-mail: ..."
    is a name closed by a full stop before its position and e-mail (or its institution),
    not "Radford M." before "Neal, University of Toronto"."""
    from ingest.parse.pdfheader import byline as _byline
    from ingest.parse.pdfnames import line_names

    paper = _read(_THIRTIETH / "fisher_classroom_visual_environment_psychsci.pdf")
    assert paper.title.endswith("Young Children: When Too Much of a Good Thing May Be Bad")
    assert paper.authors == ("Anna V. Fisher", "Karrie E. Godwin", "Howard Seltman")
    assert not _byline("Visual Environment, Attention Allocation,")
    assert _byline("M. S. Hagger,* N. L. D. Chatzisarantis,* H. Alberts")
    paper = _read(_THIRTIETH / "fernandez_beat_sp500_ssrn.pdf")
    assert paper.authors == ("Pablo Fernández", "Pablo Fernández Acín")
    assert line_names("Ann Lee. Professor of Economics. e-mail: ann@uni.edu") == ["Ann Lee"]
    assert line_names("Radford M. Neal, University of Toronto", first=True) == ["Radford M. Neal"]
    assert line_names("Universidad de Chile. Dr. Carlos Lorca Tobar 999, Santiago") is None


def test_a_labelled_titles_lines_are_joined_as_lines_are_and_a_degree_before_its_field() -> None:
    """ "Title: ... meta-community pro-" / "cesses to assembly ..." is "processes" (the
    labelled title's lines joined as any lines are); "Jesse Koivu, PhD Mathematics" names
    no "PhD Mathematics", while "Md Amiruzzaman" keeps his given name's short form."""
    from ingest.parse.pdfnames import authors

    thirty_first = Path(__file__).parents[1] / "bench/data/real_pdfs31/heldout"
    paper = _read(thirty_first / "gravel_neutral_metacommunity_manuscript.pdf")
    assert "meta-community processes to assembly" in paper.title
    assert authors([_at("Jesse Koivu, PhD Mathematics", 11, 600)], frozenset()) == ("Jesse Koivu",)
    byline = _at("Priyanka Logasubramanian, Md Amiruzzaman * , Ashik Ahmed Bhuiyan", 11, 600)
    assert "Md Amiruzzaman" in authors([byline], frozenset())


def test_a_citation_whose_bracket_opens_on_the_line_before_gives_no_year() -> None:
    """A REVTeX abstract cites "[J. Fluid Mech. 407, 27 (2000); PRL" / "86, 3316 (2001)]":
    another work's year, its bracket opened on the line before; "(Dated: August 22, 2024)"
    above it is the paper's."""
    from ingest.parse.pdfyear import find_year

    thirty_first = Path(__file__).parents[1] / "bench/data/real_pdfs31/heldout"
    assert _read(thirty_first / "sanjay_drop_impact_scaling_prl.pdf").year == 2024
    cited = (
        "(Dated: May 2, 2024)\nas in turbulence [J. Fluid Mech. 407, 27 (2000); PRL\n"
        "86, 3316 (2001)]"
    )
    assert find_year(cited, None) == 2024
    assert find_year("[Journal of Labor Economics, 2021, vol. 39]\nA Title", None) == 2021
