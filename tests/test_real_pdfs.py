"""Real PDFs nobody here wrote (tests/data/real_pdfs, see its SOURCES.md), read against ground
truth written by hand from the printed pages; the typesetting the reader undoes; hostile
PDFs that must cost one clear line each."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from bench.pdf_truth import REAL_PDFS, run, summary
from ingest.parse import pdf as pdf_module
from ingest.parse.dispatch import parse_file
from ingest.parse.pdfabstract import with_heading_colons
from ingest.parse.typeset import fix_characters, join_lines, vocabulary
from rag.answer.roles import roles
from rag.records import Notice, Paper, Skipped
from rag.sentences import split_sentences

# The issue's targets for the real set (bench/pdf_truth.py prints the figures).
TARGETS = {
    "title": 0.95,
    "first_author": 0.95,
    "authors": 0.85,
    "year": 0.90,
    "abstract_start": 0.90,
    "abstract_end": 0.90,
    "clean_text": 1.0,
}


# The second set was found after the reader was written and first scored as it stood
# (docs/benchmarks.md gives those figures); both are held to the targets now.
SECOND = REAL_PDFS.parent / "real_pdfs_heldout"


@pytest.fixture(scope="module")
def results() -> list:  # type: ignore[type-arg]
    return run(REAL_PDFS) + run(SECOND)


def test_the_real_sets_are_public_small_and_varied() -> None:
    pdfs = sorted([*REAL_PDFS.glob("*.pdf"), *SECOND.glob("*.pdf")])
    assert len(pdfs) >= 15
    assert sum(p.stat().st_size for p in pdfs) < 10_000_000  # every PDF in the repo
    for folder in (REAL_PDFS, SECOND):
        sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
        assert all(p.name in sources for p in folder.glob("*.pdf"))  # origin and licence


def test_headers_of_real_pdfs_meet_the_targets(results: list) -> None:  # type: ignore[type-arg]
    got = summary(results)
    misses = {
        field: [r.file for r in results if not r.right[field]]
        for field, target in TARGETS.items()
        if got[field] < target
    }
    assert not misses, (got, misses)


# The third set (bench/data/real_pdfs3): papers right per field, at least as many as when
# docs/benchmarks.md last reported them (its held-out third meets the issue's targets but
# for clean text, whose two misses are the PDFs' own U+FFFD and private-use codes, and it
# was looked at while the reader was changed).
# The fourth (bench/data/real_pdfs4, all held out, measured blind once and looked at after).
BENCH_SETS = Path(__file__).resolve().parent.parent / "bench" / "data"
LATER_FLOORS = {
    "real_pdfs3/dev": {"title": 46, "first_author": 45, "authors_in_order": 39, "year": 47,
                       "abstract_start": 45, "abstract_end": 37},
    "real_pdfs3/heldout": {"title": 24, "first_author": 24, "authors_in_order": 23, "year": 25,
                           "abstract_start": 25, "abstract_end": 23},
    "real_pdfs4/heldout": {"title": 27, "first_author": 26, "authors_in_order": 23, "year": 26,
                           "abstract_start": 26, "abstract_end": 23},
}  # fmt: skip


@pytest.mark.parametrize("part", sorted(LATER_FLOORS))
def test_the_later_real_sets_hold_their_figures(part: str) -> None:
    results = run(BENCH_SETS / part)
    got = {field: sum(r.right[field] for r in results) for field in LATER_FLOORS[part]}
    fell = {f: (got[f], floor) for f, floor in LATER_FLOORS[part].items() if got[f] < floor}
    assert not fell, fell


def test_no_soft_hyphen_ligature_or_hyphen_mark_is_stored() -> None:
    for path in sorted([*REAL_PDFS.glob("*.pdf"), *SECOND.glob("*.pdf")]):
        paper = next(i for i in parse_file(path) if isinstance(i, Paper))
        texts = [paper.title, paper.abstract, *paper.authors]
        texts += [t for s in paper.sections for t in (s.title, s.text)]
        for text in texts:
            assert not any(c in text for c in "\u00ad\ufffe\x02\ufb00\ufb01\ufb02\ufb03"), path


def test_two_columns_are_read_in_order_and_the_body_has_pages() -> None:
    paper = next(
        i
        for i in parse_file(REAL_PDFS / "compressed.tracemonkey-pldi-09.pdf")
        if isinstance(i, Paper)
    )
    assert paper.title == "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
    intro = paper.sections[0]
    assert intro.title == "1. Introduction" and intro.page == 1
    assert intro.text.startswith("Dynamic languages such as JavaScript, Python, and Ruby")
    titles = [s.title for s in paper.sections]
    assert "3.1 Traces" in titles and "7. Evaluation" in titles
    assert [s.page for s in paper.sections] == sorted(s.page for s in paper.sections)
    assert all(not s.title.lower().startswith("references") for s in paper.sections)
    # Words broken at a line end are joined ("al-" "ternative" in the abstract).
    assert "alternative compilation technique" in paper.abstract


def test_abstract_only_reads_no_body() -> None:
    path = REAL_PDFS / "P14-1059.pdf"
    full = next(i for i in parse_file(path) if isinstance(i, Paper))
    head = next(i for i in parse_file(path, abstract_only=True) if isinstance(i, Paper))
    assert full.sections and not head.sections
    assert head.abstract == full.abstract and head.title == full.title


@pytest.mark.parametrize(
    ("lines", "joined"),
    [
        (["we show predic-", "tions of it"], "we show predictions of it"),
        (["the blood-", "brain barrier"], "the blood-brain barrier"),  # a compound stays
        (["a zebroid-", "allocator is"], "a zebroid-allocator is"),  # unknown: kept
        (["the zebroid allo\x02", "cator packs"], "the zebroid allocator packs"),
        (["Cap-", "Ital after a hyphen"], "Cap-Ital after a hyphen"),  # no lowercase: kept
        (["use of biochem-", "ical agents"], "use of biochemical agents"),  # "ical": no word
        (["a well-", "known result"], "a well-known result"),
        (["a rare frob-", "nicated well-", "known"], "a rare frobnicated well-known"),
    ],
)
def test_line_end_hyphens(lines: list[str], joined: str) -> None:
    words = vocabulary(["the allocator packs", "a frob-", "nicated thing"])
    assert join_lines(lines, words) == joined


def test_a_table_set_apart_inside_a_sentence_is_left_out_of_the_body() -> None:
    """REVTeX prints Table I (9 pt cells, centred across the columns) where a sentence of
    the 10 pt body runs on: its cells are not read into the sentence; the small, centred
    section headings are kept."""
    [paper] = [p for p in parse_file(REAL_PDFS / "2304.10117.pdf") if isinstance(p, Paper)]
    assert "(-11.8, 6.4)" not in paper.body and "68% credible region(%)" not in paper.body
    assert (
        "we combine the last three waveform models, IMRPhenomXPHM: HighSpin, IMRPhenomXPHM: "
        "LowSpin, and SEOBNRv4PHM, with a weight of 1:1:2" in paper.body
    )
    assert {"II. METHOD", "III. RESULTS"} <= {s.title for s in paper.sections}


def test_a_paper_numbering_its_sections_gets_no_unnumbered_bold_line_as_a_section() -> None:
    """An algorithm's "Input:" / "Output:", a table's row ("NetHEPT") or a figure's label
    ("SZ") set in bold had become sections, and a citation read "p. 12, SZ"; in a paper whose
    headings are numbered they stay in the section they sit in. A named heading stays one,
    "Appendix. Model specification" too; a paper without numbered headings keeps its bold
    ones (the generated PDFs of tests/test_pdf.py)."""

    def titles(name: str) -> set[str]:
        [paper] = [p for p in parse_file(REAL_PDFS / name) if isinstance(p, Paper)]
        return {s.title for s in paper.sections}

    influence = titles("superscripttest.pdf")
    assert not influence & {"SZ", "Output: S", "Input: S1, k", "NetHEPT", "Sel ← False"}
    assert {"1. Introduction", "4. Evaluation and experimental results"} <= influence
    assert "Appendix. Model specification" in titles("0807.3577.pdf")
    assert not titles("test_Grobid_1_05452615.pdf") & {"Matrix C", "Matrix D"}


def test_contact_footnotes_and_addresses_are_left_out_of_the_body() -> None:
    """A corresponding author's footnote printed inside a sentence (BMC), an author block
    read after the abstract (ACM): out of the body, the sentence whole; a line of running
    text with an affiliation's word in it ("research") stays."""

    def body(name: str) -> str:
        [paper] = [p for p in parse_file(REAL_PDFS / name) if isinstance(p, Paper)]
        return paper.body

    bmc = body("cermine_test1.pdf")
    assert "Correspondence" not in bmc and "@" not in bmc
    assert "with low molecular weight heparins (LMWHs) as the primary DVT prophylactic" in bmc
    assert "Montbonnot" not in body("sample.pdf")
    ieee = body("test_Grobid_2_05982691.pdf")
    assert "@" not in ieee and "perception entirely shifting the paradigm of research" in ieee


def test_a_structured_abstracts_inline_headings_get_a_colon() -> None:
    lines = ["Aim To test two fillings.", "Methodology A split-tooth model was used.",
             "Results Both warm ones were better.", "Conclusions Warm is better."]  # fmt: skip
    assert with_heading_colons(lines) == [
        "Aim: To test two fillings.", "Methodology: A split-tooth model was used.",
        "Results: Both warm ones were better.", "Conclusions: Warm is better.",
    ]  # fmt: skip
    running = ["Design Patterns are reusable.", "results show a gain.", "We test it."]
    assert with_heading_colons(running) == running  # one heading-like line alone is text
    wrapped = ["We explore the", "Design Space of caches.", "Methods A and B are compared."]
    assert with_heading_colons(wrapped) == wrapped  # not after a sentence's end; both "method"
    backwards = ["Results Both were better.", "Methods A split-tooth model was used."]
    assert with_heading_colons(backwards) == backwards  # not in a structured abstract's order
    [paper] = [p for p in parse_file(REAL_PDFS / "two_pages.pdf") if isinstance(p, Paper)]
    assert paper.abstract.startswith("Aim: To test the ability of gutta-percha")
    assert roles(split_sentences(paper.abstract))[:2] == ("aim", "method")


def test_typeset_characters_are_undone() -> None:
    assert fix_characters("e\ufb03cient \ufb01ne \ufb02ow") == "efficient fine flow"
    assert fix_characters("Gr\u00b4egory Franc\u00b8ois M\u00a8uller") == "Grégory François Müller"
    assert fix_characters("soft\u00adhyphen") == "softhyphen"
    assert fix_characters("\uf06e \uf03d 1 at 300 \uf0b0C") == "ν = 1 at 300 °C"
    assert fix_characters("x^2 and ~10% and `code`") == "x^2 and ~10% and `code`"  # left be


def _raw_pdf(objects: list[bytes]) -> bytes:
    """A minimal PDF (no xref table: PDFium rebuilds it, as readers do)."""
    out = b"%PDF-1.7\n"
    for i, body in enumerate(objects, 1):
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    return out + b"trailer\n<< /Root 1 0 R /Size %d >>\n%%%%EOF\n" % (len(objects) + 1)


def _page_objects(
    content: bytes, *, mediabox: bytes = b"[0 0 612 792]", count: int = 1, flate: bool = False
) -> list[bytes]:
    stream = zlib.compress(content) if flate else content
    filters = b" /Filter /FlateDecode" if flate else b""
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count %d >>" % count,
        b"<< /Type /Page /Parent 2 0 R /MediaBox " + mediabox + b" /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d%s >>\nstream\n" % (len(stream), filters) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]


TEXT = (
    b"BT /F1 12 Tf 72 700 Td (Serving models is costly because every request keeps a cache.) Tj ET"
)


def _items(path: Path) -> list[Paper | Skipped | Notice]:
    return list(parse_file(path))


def test_hostile_pdfs_cost_one_clear_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Deep nesting: an array 100,000 levels deep hung off the catalogue.
    deep = [*_page_objects(TEXT), b"[" * 100_000 + b"]" * 100_000]
    deep[0] = b"<< /Type /Catalog /Pages 2 0 R /Deep 6 0 R >>"
    (tmp_path / "deep.pdf").write_bytes(_raw_pdf(deep))
    # A page the size of a building, and a page tree claiming a hundred million pages.
    huge = _raw_pdf(_page_objects(TEXT, mediabox=b"[0 0 14400 14400]"))
    (tmp_path / "huge.pdf").write_bytes(huge)
    (tmp_path / "count.pdf").write_bytes(_raw_pdf(_page_objects(TEXT, count=100_000_000)))
    for name in ("deep.pdf", "huge.pdf", "count.pdf"):
        items = _items(tmp_path / name)
        papers = [i for i in items if isinstance(i, Paper)]
        skipped = [i for i in items if isinstance(i, Skipped)]
        assert len(papers) + len(skipped) == 1, (name, items)
        if papers:
            assert "every request keeps a cache" in papers[0].abstract
    # Not a PDF at all, named .pdf.
    (tmp_path / "notes.pdf").write_text("just some notes, not a PDF\n" * 20)
    [skip] = _items(tmp_path / "notes.pdf")
    assert isinstance(skip, Skipped) and skip.reason.startswith("not a readable PDF")
    # A content-stream bomb (a small file that inflates a lot): reading stops at the budget
    # past the first pages, keeps what was read, and says so.
    bomb = _page_objects(TEXT + b"\n" + b"BT /F1 1 Tf 9 9 Td (x) Tj ET\n" * 20_000, flate=True)
    (tmp_path / "bomb.pdf").write_bytes(_raw_pdf(bomb))
    assert any(isinstance(i, Paper) for i in _items(tmp_path / "bomb.pdf"))


def test_reading_stops_at_the_time_budget_and_keeps_what_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_module, "MAX_PDF_SECONDS", 0.0)
    items = list(parse_file(REAL_PDFS / "compressed.tracemonkey-pldi-09.pdf"))
    [notice] = [i for i in items if isinstance(i, Notice) and "stopped reading" in i.message]
    assert "stopped reading at page 3 of 14" in notice.message and "split it" in notice.message
    [paper] = [i for i in items if isinstance(i, Paper)]
    assert paper.title.startswith("Trace-based") and paper.abstract
    assert max(s.page for s in paper.sections) <= 2


def test_a_pdf_without_doi_or_arxiv_id_is_known_by_its_bytes() -> None:
    """So a later reader that extracts its abstract differently updates the same paper
    instead of storing it twice."""
    import hashlib

    path = REAL_PDFS / "gadr.pdf"
    paper = next(i for i in parse_file(path) if isinstance(i, Paper))
    assert paper.id == "pdf:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    with_doi = next(i for i in parse_file(REAL_PDFS / "0807.3577.pdf") if isinstance(i, Paper))
    assert with_doi.id == "doi:10.1088/1475-7516/2008/10/003"


def test_line_numbers_in_the_margin_are_left_out(tmp_path: Path) -> None:
    """A review copy numbers its lines in the margin: they are not part of the text."""
    prose = (
        "Large models are served to many users at once. Their caches grow with every request "
        "and fill the memory of the accelerators quickly. We propose a pager for these caches "
        "that moves cold blocks to host memory and brings them back when they are needed."
    )
    text = prose.split()
    lines, row = [], []
    for word in text:
        row.append(word)
        if len(" ".join(row)) > 60:
            lines.append(" ".join(row))
            row = []
    lines.append(" ".join(row))
    ops = [b"BT /F1 16 Tf 72 720 Td (A Pager for Caches of Served Models) Tj ET",
           b"BT /F1 11 Tf 72 690 Td (Abstract) Tj ET"]  # fmt: skip
    for i, line in enumerate(lines):
        y = 670 - 14 * i
        ops.append(b"BT /F1 10 Tf 44 %d Td (%d) Tj ET" % (y, i + 1))  # the line number
        ops.append(b"BT /F1 10 Tf 72 %d Td (%s) Tj ET" % (y, line.encode()))
    ops.append(b"BT /F1 11 Tf 72 %d Td (1 Introduction) Tj ET" % (650 - 14 * len(lines)))
    (tmp_path / "numbered.pdf").write_bytes(_raw_pdf(_page_objects(b"\n".join(ops))))
    [paper] = [i for i in _items(tmp_path / "numbered.pdf") if isinstance(i, Paper)]
    assert paper.abstract == " ".join(text)


def test_a_number_set_apart_inside_a_justified_line_is_text(tmp_path: Path) -> None:
    ops = [
        b"BT /F1 16 Tf 72 720 Td (Scaling Models of Many Parameters) Tj ET",
        b"BT /F1 11 Tf 72 690 Td (Abstract) Tj ET",
        b"BT /F1 10 Tf 72 670 Td (We trained a model with) Tj ET",
        b"BT /F1 10 Tf 215 670 Td (10) Tj ET",  # wide justified spaces either side
        b"BT /F1 10 Tf 250 670 Td (billion parameters on a cluster of many machines.) Tj ET",
        b"BT /F1 11 Tf 72 640 Td (1 Introduction) Tj ET",
    ]
    (tmp_path / "spaced.pdf").write_bytes(_raw_pdf(_page_objects(b"\n".join(ops))))
    [paper] = [i for i in _items(tmp_path / "spaced.pdf") if isinstance(i, Paper)]
    assert "a model with 10 billion parameters" in paper.abstract


def test_the_body_questions_stay_honest() -> None:
    """bench/data/pdf_questions.jsonl: every fact on its page and not in the abstract, no
    run of five words copied from the paper (bench/check_pdf_questions.py)."""
    from bench.check_pdf_questions import main as check_questions

    questions = REAL_PDFS.parents[2] / "bench" / "data" / "pdf_questions.jsonl"
    args = ["--questions", str(questions), "--pdfs", str(REAL_PDFS)]
    assert check_questions([*args, "--truth", str(REAL_PDFS / "truth.jsonl")]) == 0


def test_an_article_info_column_beside_the_abstract_is_not_read_into_it(tmp_path: Path) -> None:
    """Elsevier's layout: "article info" (history, keywords) in a narrow column beside the
    abstract, their lines level with the abstract's."""
    prose = [
        "The species of cichlid fishes in the great lakes are the most diverse radiations.",
        "Here we present a new phylogeny based on the largest set of nuclear markers yet.",
        "We find strong support for the position of four tribes outside of one clade.",
    ]
    side = ["Article history:", "Received 25 November 2013", "Accepted 8 October 2014"]
    ops = [
        b"BT /F1 14 Tf 33 720 Td (A tribal phylogeny of cichlid fishes) Tj ET",
        b"BT /F1 9 Tf 33 690 Td (article info) Tj ET",
        b"BT /F1 9 Tf 197 690 Td (abstract) Tj ET",
    ]
    for i, (left, right) in enumerate(zip(side, prose, strict=True)):
        ops.append(b"BT /F1 6 Tf 33 %d Td (%s) Tj ET" % (671 - 10 * i, left.encode()))
        ops.append(b"BT /F1 7 Tf 197 %d Td (%s) Tj ET" % (670 - 10 * i, right.encode()))
    ops.append(b"BT /F1 10 Tf 33 600 Td (1. Introduction) Tj ET")
    (tmp_path / "sidebar.pdf").write_bytes(_raw_pdf(_page_objects(b"\n".join(ops))))
    [paper] = [i for i in _items(tmp_path / "sidebar.pdf") if isinstance(i, Paper)]
    assert paper.abstract == " ".join(prose)


# The third set (bench/data/real_pdfs3, issue #44: 76 PDFs of 31 repositories, cut to three
# pages) is far from the targets; it is held to no fewer papers right than the reader gets
# today (bench/results/pdf_truth_real3_*.json), so a change that helps some papers cannot
# quietly lose others.
THIRD = REAL_PDFS.parent.parent.parent / "bench" / "data" / "real_pdfs3"
THIRD_TODAY = {
    "title": 59, "first_author": 60, "authors": 47, "authors_in_order": 46, "year": 68,
    "doi": 74, "arxiv_id": 76, "abstract_start": 61, "abstract_end": 53, "clean_text": 74,
}  # fmt: skip


@pytest.mark.slow
def test_the_third_real_set_is_read_no_worse_than_today() -> None:
    results = run(THIRD / "dev") + run(THIRD / "heldout")
    assert len(results) == 76
    got = {field: sum(r.right[field] for r in results) for field in THIRD_TODAY}
    assert all(got[f] >= n for f, n in THIRD_TODAY.items()), (got, THIRD_TODAY)


def test_the_truth_checker_drops_a_first_label_closed_by_a_colon_or_a_full_stop() -> None:
    """The stored abstract keeps a structured abstract's first label ("Background:",
    PeerJ's and Medical Decision Making's "Background."); the truth gives the words after
    it, so the checker drops it either way, and no first word that is not a label."""
    from bench.pdf_truth import _STRUCTURED

    assert _STRUCTURED.sub("", "Background. Large-scale work", count=1) == "Large-scale work"
    assert _STRUCTURED.sub("", "Background: We asked", count=1) == "We asked"
    assert _STRUCTURED.sub("", "Backgrounds differ here.", count=1) == "Backgrounds differ here."
