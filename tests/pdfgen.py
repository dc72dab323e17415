"""Test PDFs made with fpdf2 (a dev dependency): real layouts with known titles and abstracts.

:func:`make_corpus` writes papers in four layouts, built from the sample abstracts:
``one-column`` (an "Abstract" heading line, "1 Introduction" after), ``inline`` ("Abstract."
in front of the text, "Keywords:" after), ``two-column`` (title across the page, abstract
and body in columns) and ``no-heading`` (no "Abstract" at all). Each comes back with the
title and abstract that were printed, so extraction can be scored exactly.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from rag.records import normalise_text

LAYOUTS = ("one-column", "inline", "two-column", "no-heading")
_ASCII = str.maketrans({"–": "-", "—": "-", "’": "'", "‘": "'", "“": '"', "”": '"', "…": "..."})


def latin1(text: str) -> str:
    """What the core PDF fonts can print."""
    return normalise_text(text.translate(_ASCII)).encode("latin-1", "replace").decode("latin-1")


@dataclass(frozen=True)
class Made:
    path: Path
    layout: str
    title: str
    abstract: str  # "" for no-heading: there is no abstract to find
    authors: tuple[str, ...]
    year: int | None  # the year printed on it (None: none is)
    doi: str = ""
    arxiv: str = ""
    pages: int = 1


def _pdf():  # type: ignore[no-untyped-def]
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_auto_page_break(True, margin=60)
    pdf.set_margins(60, 60, 60)
    return pdf


def make_paper(
    path: Path,
    *,
    layout: str,
    title: str,
    authors: tuple[str, ...],
    abstract: str,
    body: str,
    year: int,
    doi: str = "",
    arxiv: str = "",
    metadata_title: str = "",
    body_pages: int = 0,
    references: str = "",
    cover: str = "",
    banner: str = "",
) -> Made:
    """One paper PDF in ``layout``; ``body_pages`` more pages of body text after page 1."""
    title, abstract, body = latin1(title), latin1(abstract), latin1(body)
    pdf = _pdf()
    if metadata_title:
        pdf.set_title(metadata_title)
    if cover:  # a repository's cover sheet first, in large type, as they print them
        pdf.add_page()
        pdf.set_font("Helvetica", "B", size=24)
        pdf.multi_cell(pdf.w - 120, 30, latin1(cover), new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    first = len(pdf.pages)
    width = pdf.w - 120
    if arxiv:
        pdf.set_font("Helvetica", size=8)
        pdf.cell(0, 10, f"arXiv:{arxiv}v2 [cs.LG] 14 Jun {year}", new_x="LMARGIN", new_y="NEXT")
    if banner:  # a journal's name set larger than the title, and the article's type
        pdf.set_font("Helvetica", "B", size=24)
        pdf.cell(0, 28, latin1(banner), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=12)
        pdf.cell(0, 16, "Research article", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "B", size=18)
    pdf.multi_cell(width, 22, title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(width, 14, ", ".join(authors), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    pdf.multi_cell(
        width, 11, "Department of Computer Science, Example University", align="C",
        new_x="LMARGIN", new_y="NEXT",
    )  # fmt: skip
    if layout != "two-column":
        pdf.multi_cell(width, 11, f"Proceedings of the Example Conference {year}", align="C",
                       new_x="LMARGIN", new_y="NEXT")  # fmt: skip
    pdf.ln(10)
    if layout == "one-column":
        pdf.set_font("Helvetica", "B", size=11)
        pdf.cell(0, 14, "Abstract", align="C", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(width, 12, abstract, new_x="LMARGIN", new_y="NEXT")
        _section(pdf, width, "1 Introduction", body)
    elif layout == "inline":
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(width, 12, f"Abstract. {abstract}", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        pdf.multi_cell(width, 12, "Keywords: systems, machine learning", new_x="LMARGIN",
                       new_y="NEXT")  # fmt: skip
        _section(pdf, width, "1 Introduction", body)
    elif layout == "two-column":
        top = pdf.get_y()
        column = (width - 20) / 2
        pdf.set_font("Helvetica", "B", size=11)
        pdf.set_xy(60, top)
        pdf.cell(column, 14, "Abstract", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.set_x(60)
        pdf.multi_cell(column, 12, abstract, new_x="LEFT", new_y="NEXT")
        pdf.ln(6)
        pdf.set_font("Helvetica", "B", size=11)
        pdf.set_x(60)
        pdf.cell(column, 14, "1 Introduction", new_x="LEFT", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        words = body.split()
        half = len(words) // 3
        pdf.set_x(60)
        pdf.multi_cell(column, 12, " ".join(words[:half]), new_x="LEFT", new_y="NEXT")
        pdf.set_xy(60 + column + 20, top)
        pdf.multi_cell(column, 12, " ".join(words[half:]), new_x="LEFT", new_y="NEXT")
    else:  # no-heading
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(width, 12, body, new_x="LMARGIN", new_y="NEXT")
        abstract = ""
    if doi:  # a footer on page 1, as publishers print it
        pdf.page = first
        pdf.set_auto_page_break(False)
        pdf.set_font("Helvetica", size=8)
        pdf.set_xy(60, pdf.h - 40)
        pdf.cell(0, 10, f"https://doi.org/{doi}")
        pdf.set_auto_page_break(True, margin=60)
        pdf.page = len(pdf.pages)
    for _ in range(body_pages):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(width, 12, body, new_x="LMARGIN", new_y="NEXT")
    if references:
        _section(pdf, width, "References", latin1(references))
    pdf.output(str(path))
    printed = year if arxiv or layout != "two-column" else None
    return Made(path, layout, title, abstract, authors, printed, doi, arxiv,
                1 + body_pages + bool(cover))  # fmt: skip


def _section(pdf, width: float, heading: str, body: str) -> None:  # type: ignore[no-untyped-def]
    pdf.ln(6)
    pdf.set_font("Helvetica", "B", size=11)
    pdf.cell(0, 14, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(width, 12, body, new_x="LMARGIN", new_y="NEXT")


def make_scan(path: Path) -> Path:
    """A page that is only an image of text (no text layer), as a scanner makes."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (600, 200), 255)
    ImageDraw.Draw(image).text((20, 80), "A scanned paper: nothing to select here.", fill=0)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    pdf = _pdf()
    pdf.add_page()
    pdf.image(buffer, x=60, y=60, w=400)
    pdf.output(str(path))
    return path


def make_encrypted(path: Path) -> Path:
    pdf = _pdf()
    pdf.set_encryption(owner_password="owner-secret", user_password="user-secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 14, "A confidential paper about caches. " * 10)
    pdf.output(str(path))
    return path


_TITLES = (
    "{label}: Efficient Systems for Large Models",
    "{label}: Scaling Inference on Commodity Hardware",
    "Towards Practical {label} for Deep Learning Workloads",
    "{label}: A Study of Memory and Throughput",
)
_AUTHORS = (
    ("Ada Lovelace", "Alan Turing"),
    ("Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"),
    ("Donald Knuth",),
    ("Frances Allen", "John Backus"),
)


def make_corpus(folder: Path, n: int, *, body_pages: int = 0) -> list[Made]:
    """``n`` paper PDFs in ``folder``, cycling through :data:`LAYOUTS`, from data/sample."""
    from ingest.parse.dispatch import parse_file
    from rag.records import Paper

    sample = Path(__file__).resolve().parent.parent / "data" / "sample"
    papers = [p for f in sorted(sample.glob("*.txt")) for p in parse_file(f)]
    papers = [p for p in papers if isinstance(p, Paper)]
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(n):
        paper = papers[i % len(papers)]
        body = " ".join(papers[(i + k) % len(papers)].abstract for k in (1, 2))
        layout = LAYOUTS[i % len(LAYOUTS)]
        title = _TITLES[i % len(_TITLES)].format(label=paper.label)
        made.append(
            make_paper(
                folder / f"paper{i:03d}-{layout}.pdf",
                layout=layout,
                title=title,
                authors=_AUTHORS[i % len(_AUTHORS)],
                abstract=paper.abstract,
                body=body,
                year=2018 + i % 7,
                doi=f"10.5555/test.{i:04d}" if i % 3 == 0 else "",
                arxiv=f"24{i % 12 + 1:02d}.{10000 + i}" if i % 3 == 1 else "",
                metadata_title=latin1(title) if i % 5 == 0 else "",
                body_pages=body_pages,
            )
        )
    return made
