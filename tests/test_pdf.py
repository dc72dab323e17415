"""PDF papers: title, authors, abstract, year, DOI and arXiv id from generated PDFs in
several layouts; every broken kind of PDF is one clear Skipped and the run goes on."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import numpy as np
import pytest

from ingest.parse import pdf as pdf_module
from ingest.parse.dispatch import parse_file
from rag.answer import body as answer_body
from rag.answer import candidates, params
from rag.answer.gather import gather
from rag.answer.question import analyse
from rag.engine import Engine
from rag.index.connect import open_store
from rag.records import Notice, Paper, Skipped
from rag.settings import load_settings
from tests.apiserver import serve_api
from tests.fakes import HashEmbedder
from tests.pdfgen import latin1, make_encrypted, make_paper, make_scan
from ui.app import App
from ui.cli.main import main

ABSTRACT = (
    "Serving large language models is limited by the memory of the key-value cache. We "
    "present PageKV, which stores the cache in fixed-size blocks and shares them between "
    "requests. PageKV raises throughput by 2.1 times over the best baseline at the same "
    "latency, and 3.0 Titan models fit on one node."
)
BODY = (
    "Large models are everywhere. Serving them is costly because every request keeps its "
    "own cache in GPU memory, and the memory is fragmented. " * 6
)
TITLE = "PageKV: Block-Based Key-Value Caches for Language Model Serving"
AUTHORS = ("Ada Lovelace", "Alan Turing", "Grace Hopper")


def _one(path: Path) -> tuple[Paper, list[Notice]]:
    items = list(parse_file(path))
    papers = [i for i in items if isinstance(i, Paper)]
    assert len(papers) == 1, items
    return papers[0], [i for i in items if isinstance(i, Notice)]


def _reason(path: Path) -> str:
    [item] = list(parse_file(path))
    assert isinstance(item, Skipped) and item.position is None
    return item.reason


def _full_text_app(tmp_path: Path, body: str, abstract: str = ABSTRACT) -> App:
    """An app over one PageKV PDF with this body (full text, hash embedder)."""
    path = tmp_path / "paper.pdf"
    make_paper(path, layout="one-column", title=TITLE, authors=AUTHORS, abstract=abstract,
               body=body, year=2023, body_pages=2)  # fmt: skip
    settings = load_settings(min_relevance=0.0)
    app = App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))
    app.ingester.ingest([path])
    return app


def _body_quotes(app: App, question: str) -> tuple[str, list[str]]:
    """The answer to ``question`` and the body quotes it cites."""
    answer = app.engine.ask(question).final
    quoted = [q for c in answer.citations for q, p in ((c.quote, c.passage), *c.body_quotes) if p]
    return answer.answer, quoted


@pytest.mark.parametrize("layout", ["one-column", "inline", "two-column"])
def test_title_authors_abstract_and_ids(tmp_path: Path, layout: str) -> None:
    path = tmp_path / f"{layout}.pdf"
    made = make_paper(
        path,
        layout=layout,
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2023,
        doi="10.1145/3600006.3613165",
        body_pages=2,
    )
    paper, notices = _one(path)
    assert notices == []
    assert paper.title == TITLE and paper.abstract == latin1(ABSTRACT) == made.abstract
    assert paper.authors == AUTHORS
    assert (paper.id, paper.doi) == ("doi:10.1145/3600006.3613165", "10.1145/3600006.3613165")
    assert paper.year == (None if layout == "two-column" else 2023)  # printed or not
    assert (paper.position, paper.extra["format"]) == (1, "pdf")


def test_arxiv_stamp_gives_id_and_year(tmp_path: Path) -> None:
    path = tmp_path / "arxiv.pdf"
    make_paper(
        path,
        layout="two-column",
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2024,
        arxiv="2406.03243",
    )
    paper, _ = _one(path)
    assert (paper.id, paper.year, paper.extra["arxiv_id"]) == (
        "arxiv:2406.03243",
        2024,
        "2406.03243",
    )


def test_without_an_abstract_heading_the_opening_text_is_taken_with_a_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "plain.pdf"
    make_paper(
        path,
        layout="no-heading",
        title=TITLE,
        authors=AUTHORS,
        abstract="",
        body=BODY * 5,
        year=2022,
    )
    paper, [notice] = _one(path)
    assert "no 'Abstract' heading found: the first paragraph" in notice.message
    assert paper.title == TITLE and paper.authors == AUTHORS
    assert paper.abstract.startswith("Large models are everywhere.")
    # No paragraph break in this layout: the first paragraph is cut at a sentence end, at
    # most 350 words in (journals allow up to 350).
    assert paper.abstract.endswith(".") and 250 < len(paper.abstract.split()) <= 350


def test_the_printed_title_wins_over_a_metadata_title_not_printed(tmp_path: Path) -> None:
    """A metadata title is often stale (a draft's, a template's): the title printed on
    page 1 is taken, and junk metadata ("Microsoft Word - ...") never."""
    good, junk = tmp_path / "good.pdf", tmp_path / "junk.pdf"
    make_paper(
        good,
        layout="one-column",
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2023,
        metadata_title="PageKV (camera-ready title)",
    )
    make_paper(
        junk,
        layout="one-column",
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2023,
        metadata_title="Microsoft Word - pagekv_final.docx",
    )
    assert _one(good)[0].title == TITLE
    assert _one(good)[0].authors == AUTHORS
    assert _one(junk)[0].title == TITLE


def test_broken_pdfs_are_one_clear_skip_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _reason(make_scan(tmp_path / "scan.pdf")).startswith(
        "PDF has no text layer (a scan or images only): run OCR on it first"
    )
    assert _reason(make_encrypted(tmp_path / "locked.pdf")).startswith(
        "PDF is encrypted (password protected): save an unprotected copy"
    )
    good = tmp_path / "good.pdf"
    make_paper(
        good,
        layout="one-column",
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2023,
        body_pages=3,
    )
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert _reason(truncated) == (
        "not a readable PDF (Data format error): it is corrupt or cut short; re-download it"
    )
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    assert _reason(garbage).startswith("not a readable PDF")
    monkeypatch.setattr(pdf_module, "MAX_PDF_PAGES", 3)
    assert _reason(good) == "PDF has 4 pages, over the 3-page limit: split it"
    monkeypatch.setattr(pdf_module, "MAX_PDF_BYTES", 1000)
    assert _reason(good).startswith("PDF is ") and "over the 1,000-byte limit" in _reason(good)


def test_a_folder_of_pdfs_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    make_paper(
        folder / "a.pdf",
        layout="one-column",
        title=TITLE,
        authors=AUTHORS,
        abstract=ABSTRACT,
        body=BODY,
        year=2023,
        doi="10.1145/3600006.3613165",
    )
    make_paper(
        folder / "b.pdf",
        layout="two-column",
        title="FedAvg Revisited Today",
        authors=("Yang Xiang",),
        abstract=BODY,
        body=ABSTRACT,
        year=2021,
    )
    make_scan(folder / "c-scan.pdf")
    make_encrypted(folder / "d-locked.pdf")
    bib = folder / "refs.bib"  # the same paper as a.pdf, by its DOI: one paper
    bib.write_text("@inproceedings{kwon23, title = {PageKV}, doi = {10.1145/3600006.3613165}}\n")
    assert main(["ingest", str(folder), "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == 2 and report["files"] == 5
    reasons = {Path(s["source"]).name: s["reason"] for s in report["skipped"]}
    assert set(reasons) == {"c-scan.pdf", "d-locked.pdf", "refs.bib"}
    assert reasons["refs.bib"].startswith("same paper id 'doi:10.1145/3600006.3613165' as ")
    assert main(["ingest", str(folder), "--json"]) == 3  # idempotent
    assert json.loads(capsys.readouterr().out)["unchanged"] == 2
    assert main(["search", "key-value cache blocks", "--json", "-k", "1"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["paper_id"] == "doi:10.1145/3600006.3613165" and hit["title"] == TITLE


@pytest.mark.integration
def test_pdf_upload_over_http(tmp_path: Path) -> None:
    good = tmp_path / "paper.pdf"
    make_paper(good, layout="inline", title=TITLE, authors=AUTHORS, abstract=ABSTRACT,
               body=BODY, year=2023)  # fmt: skip
    scan = make_scan(tmp_path / "scan.pdf")
    settings = load_settings()
    app = App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))
    files = [
        ("files", ("paper.pdf", good.read_bytes(), "application/pdf")),
        ("files", ("scan.pdf", scan.read_bytes(), "application/pdf")),
    ]
    with serve_api(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        report = client.post("/api/ingest", files=files).json()
        assert report["added"] == 1 and not report["ok"]
        [skip] = report["skipped"]
        assert skip["source"] == "scan.pdf" and "no text layer" in skip["reason"]
        [paper] = client.get("/api/papers").json()["papers"]
        assert paper["title"] == TITLE and paper["authors"] == list(AUTHORS)


def test_the_body_is_indexed_and_quoted_unless_abstract_only(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    body = (
        "Our evaluation runs on eight graphics cards. The quarantine scheduler isolates "
        "noisy tenants and the zebra allocator packs blocks tightly. "
    ) * 12 + "\n"
    make_paper(path, layout="one-column", title=TITLE, authors=AUTHORS, abstract=ABSTRACT,
               body=body, year=2023, body_pages=2,
               references="[1] A. Author. A cited work. 2019.")  # fmt: skip
    settings = load_settings(min_relevance=0.0)
    app = App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))
    plain = app.ingester.ingest([path], abstract_only=True)
    assert plain.chunks_written == 1
    full = app.ingester.ingest([path])  # the default: the full text
    assert full.updated == 1 and full.chunks_written > 3
    paper = next(i for i in parse_file(path) if isinstance(i, Paper))
    assert paper.abstract == latin1(ABSTRACT) and "zebra allocator" in paper.body
    assert paper.body.endswith("packs blocks tightly.")  # the last references are cut off
    assert all(s.page >= 1 for s in paper.sections)
    [hit] = app.engine.search("quarantine scheduler zebra allocator", k=1, mode="dense")
    assert hit.paper.id == paper.id and "zebra" in hit.snippet
    [hit] = app.engine.search("zebra allocator", k=1, mode="lexical")  # BM25 reads the body
    assert hit.paper.id == paper.id
    answer = app.engine.ask("What does the zebra allocator do with the blocks?").final
    quoted = [(q, p) for c in answer.citations for q, p in ((c.quote, c.passage), *c.body_quotes)]
    body_quotes = [(q, p) for q, p in quoted if p is not None]
    assert body_quotes, answer.answer  # the body answers what the abstract does not say
    for quote, passage in body_quotes:  # verbatim, and named by page
        assert quote in passage.text and passage.page in (1, 2, 3)
        assert f"(p. {passage.page}" in answer.answer
    assert answer.answer.index("zebra") > answer.answer.index("[1]")  # the abstract first
    again = app.ingester.ingest([path], abstract_only=True)  # back to the abstract only
    assert again.updated == 1 and app.engine.stats()["chunks"] == 1


def test_a_question_about_one_pdf_is_answered_from_its_body(tmp_path: Path) -> None:
    """The words that say which paper is meant (its title, its authors, "the paper by ...
    et al.") do not pick the body sentence quoted; a "which ... methods" question that
    retrieval narrows to one paper gets that paper's prose answer, body included."""
    body = (
        "Block-based key-value caches for language model serving were studied by Lovelace, "
        "Turing and Hopper in earlier work. "
        + "Serving requests at scale is a question of memory. " * 8
        + "The eviction policy combines two methods: a recency clock and a frequency sketch. "
        + "Batches are formed every ten milliseconds. " * 8
    ) + "\n"
    abstract = f"{ABSTRACT} Its eviction policy combines methods of two kinds."
    app = _full_text_app(tmp_path, body, abstract)
    named = "In the block-based key-value cache paper by Lovelace et al., what does it combine?"
    assert any("recency clock" in q for q in _body_quotes(app, named)[1])
    listed = "Which methods does the eviction policy combine?"
    assert any("recency clock" in q for q in _body_quotes(app, listed)[1])


@pytest.mark.parametrize("figure_weight", [answer_body.FIGURE_WEIGHT, 0.0])
def test_a_how_many_question_quotes_the_body_sentence_with_the_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, figure_weight: float
) -> None:
    """Among sentences of one passage, the one giving a figure by the question's words
    answers "how many"; without FIGURE_WEIGHT, the one holding more of its words wins
    (the body gives one sentence here, so the first one picked is the one quoted)."""
    monkeypatch.setattr(answer_body, "FIGURE_WEIGHT", figure_weight)
    monkeypatch.setattr(answer_body, "BODY_SENTENCES", 1)
    body = (
        "Serving requests at scale is a question of memory. " * 10
        + "The vectors of the corpus were trained on web pages and trained on news. "
        + "We used 2.8 billion tokens for the vectors. "
        + "Batches are formed every few milliseconds. " * 10
    ) + "\n"
    app = _full_text_app(tmp_path, body)
    text, quoted = _body_quotes(app, "How many tokens were PageKV's corpus vectors trained on?")
    assert len(quoted) == 1, text
    assert ("2.8 billion tokens" in quoted[0]) is (figure_weight > 0), quoted


def test_an_acronym_the_abstract_leaves_undefined_is_spelled_out_from_the_body(
    tmp_path: Path,
) -> None:
    """Asked what ZAP and RCS stand for, the body sentence that spells them out is quoted,
    though it is a long enumeration (longer sentences of a PDF are otherwise taken for
    tables run together) and other sentences hold more of the question's words."""
    enumeration = (
        "Roughly speaking, we discuss and present the following parts of the cache in turn: "
        "(1) a block table that maps each request to the pages of memory it holds, (2) ZAP "
        "(Zebra Allocation Policy), which hands out free blocks in stripes so that neighbouring "
        "requests never share a page, and (3) RCS (Recency Clock Sweep), which reclaims the "
        "blocks of finished requests while new requests are admitted by the scheduler. "
    )
    assert len(enumeration.split()) > answer_body.MAX_BODY_SENTENCE_WORDS
    body = (
        "Serving requests at scale is a question of memory. " * 8
        + enumeration
        + "ZAP and RCS stand side by side in the cache; ZAP and RCS are both cheap. " * 3
        + "Batches are formed every ten milliseconds. " * 8
    ) + "\n"
    app = _full_text_app(tmp_path, body)
    text, quoted = _body_quotes(app, "In the PageKV paper, what do ZAP and RCS stand for?")
    assert any("(Zebra Allocation Policy)" in q for q in quoted), text


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ('Search terms included: "DVT", "deep venous thrombosis", "trauma", "injury", '
         '"heparin" and/or "IVC filter".', True),
        ("Search terms included: “DVT”, “trauma”, “injury”, “heparin”, “chemical”.", True),
        ('The verbs "sell" and "buy" convey different meanings.', False),
        ("In this review we calculated the risk of bleeding to be 3.9%.", False),
    ],
)  # fmt: skip
def test_a_list_of_quoted_terms_is_no_body_quote(text: str, listed: bool) -> None:
    assert answer_body.is_term_list(text) is listed


def test_a_pdf_read_again_under_another_id_replaces_its_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later reader (or an upgrade) gives the same file another id: the paper stored
    before from that file is replaced, never kept twice; a .bib's papers are left be."""
    path = tmp_path / "paper.pdf"
    make_paper(path, layout="one-column", title=TITLE, authors=AUTHORS, abstract=ABSTRACT,
               body=BODY, year=2023)  # fmt: skip
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a1, title={One}, abstract={An abstract about caches and memory.}}\n")
    settings = load_settings(min_relevance=0.0)
    app = App.around(Engine(settings, store=open_store(settings), embedder=HashEmbedder()))
    first = app.ingester.ingest([path, bib])
    [old] = [pid for pid in first.paper_ids if pid.startswith("pdf:")]
    monkeypatch.setattr(pdf_module, "_file_hash", lambda _path: "0123456789abcdef")
    again = app.ingester.ingest([path])
    assert again.added == 1 and again.replaced == [old]
    ids = {row.id for row in app.engine.papers()[1]}
    assert ids == {"pdf:0123456789abcdef", "bib:a1"}


def test_the_refusal_evidence_weighs_the_body_passage_nearest_the_question(
    tmp_path: Path,
) -> None:
    """A question the body of a full-text paper answers, and its abstract does not, is
    weighed on the sentence of its nearest body passage too (the real PDFs' "how long does
    the VM wait before recording again?" was refused on the abstract's sentences alone)."""
    body = (
        "Serving requests at scale is a question of memory. " * 8
        + "After a failed recording the monitor waits for 32 further loop iterations. "
        + "Batches are formed every ten milliseconds. " * 8
    ) + "\n"
    app = _full_text_app(tmp_path, body)
    engine = app.engine
    question = "How many loop iterations does the monitor wait after a failed recording?"
    shipped = params.current()  # nothing refused: the sources are kept beside the evidence
    never = {**shipped.evidence, "threshold": -1e9, "min_margin": -1e9}
    params.use(replace(shipped, evidence=never))
    try:
        found = gather(analyse(question), question, retriever=engine.retriever, names=None,
                       filters=None, k=5, min_relevance=-1.0,
                       noise=engine.noise_floor())  # fmt: skip
    finally:
        params.use(shipped)
    ev, [top] = found.evidence, found.sources
    assert ev is not None and top.passages
    query = engine.answer_embedder.embed_query(question)

    def nearest(sentences: list[candidates.Sentence]) -> float:
        return float(np.max(candidates.with_vectors_of(sentences, engine.answer_embedder) @ query))

    abstract = nearest(candidates.sentences([top]))
    passage = nearest(candidates.sentences([replace(top, passages=top.passages[:1])], body=True))
    assert passage > abstract
    assert ev.sentence == pytest.approx(passage - engine.noise_floor(), abs=1e-5)
