"""Reference-manager exports: CSL-JSON (Zotero) and RIS, BibTeX entry types kept, entries
without an abstract stored and never quoted, and one id for one paper across formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ingest.parse.detect import detect_format
from ingest.parse.dispatch import parse_file
from ingest.parse.ids import arxiv_id, doi, identifier_id, printed_doi
from rag.answer.references import format_references
from rag.engine import Engine
from rag.index.connect import open_store
from rag.records import Notice, Paper, Skipped
from rag.retrieve import Filters
from rag.settings import load_settings
from tests.fakes import HashEmbedder
from ui.app import App
from ui.cli.main import main

REFS = Path(__file__).parent / "data" / "refs"
PAGED = "doi:10.1145/3600006.3613165"
ALPHAFOLD = "doi:10.1038/s41586-021-03819-2"


def _split(
    items: list[Paper | Skipped | Notice],
) -> tuple[list[Paper], list[Skipped], list[Notice]]:
    return (
        [i for i in items if isinstance(i, Paper)],
        [i for i in items if isinstance(i, Skipped)],
        [i for i in items if isinstance(i, Notice)],
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2406.03243", "arxiv:2406.03243"),
        ("arXiv:2406.03243v2", "arxiv:2406.03243"),
        ("https://arxiv.org/abs/2406.03243v3", "arxiv:2406.03243"),
        ("https://arxiv.org/pdf/2406.03243v1.pdf", "arxiv:2406.03243"),
        ("hep-th/9901001v2", "arxiv:hep-th/9901001"),
        ("10.48550/arXiv.2406.03243", "arxiv:2406.03243"),
        ("https://doi.org/10.1145/3600006.3613165", PAGED),
        ("doi:10.1145/3600006.3613165", PAGED),
        ("10.1038/S41586-021-03819-2", ALPHAFOLD),
        ("not an id", ""),
    ],
)
def test_identifiers_are_normalised(value: str, expected: str) -> None:
    assert identifier_id(value, value) == expected


def test_doi_and_arxiv_helpers_refuse_what_they_are_not() -> None:
    assert doi("2406.03243") == "" and arxiv_id("10.1145/3600006.3613165") == ""
    assert doi("https://dx.doi.org/10.1145/X.") == "10.1145/X"


def test_csljson_from_zotero(tmp_path: Path) -> None:
    path = tmp_path / "My Library.json"
    shutil.copy(REFS / "zotero.json", path)
    assert detect_format(path) == "csljson"
    found, skipped, notices = _split(list(parse_file(path)))
    paged, flash, alphafold = found
    assert (paged.id, paged.year, paged.authors) == (
        PAGED,
        2023,
        ("Woosuk Kwon", "Zhuohan Li", "Ion Stoica"),
    )
    assert paged.extra["entry_type"] == "inproceedings" and paged.has_abstract
    assert paged.extra["venue"].startswith("Proceedings of the 29th Symposium")
    assert (flash.id, flash.extra["entry_type"]) == ("arxiv:2307.08691", "article")
    assert (alphafold.id, alphafold.has_abstract, alphafold.abstract) == (ALPHAFOLD, False, "")
    assert alphafold.authors == ("John Jumper", "DeepMind")
    assert alphafold.extra["keywords"] == ["protein folding", "structural biology"]
    assert [n.position for n in notices] == [3]
    assert "no abstract: stored and indexed on its title and keywords" in notices[0].message
    assert [(s.position, s.reason) for s in skipped] == [
        (4, "item 4 is not a JSON object: fix or remove it"),
        (
            5,
            "item 5 (id 'http://zotero.org/users/1234567/items/EMPTY001'): has neither an "
            "abstract nor a title: add one or drop it",
        ),
    ]


def test_broken_csljson_is_one_clear_skip(tmp_path: Path) -> None:
    path = tmp_path / "lib.json"
    path.write_text((REFS / "zotero.json").read_text()[:900], encoding="utf-8")
    [only] = list(parse_file(path, format="csljson"))
    assert isinstance(only, Skipped) and only.reason.startswith("truncated JSON")
    assert "re-export the file" in only.reason


def test_ris(tmp_path: Path) -> None:
    path = tmp_path / "export.ris"
    shutil.copy(REFS / "zotero.ris", path)
    assert detect_format(path) == "ris"
    txt = tmp_path / "export.txt"  # RIS saved as .txt is still RIS
    shutil.copy(REFS / "zotero.ris", txt)
    assert detect_format(txt) == "ris"
    found, skipped, notices = _split(list(parse_file(path)))
    assert skipped == []
    paged, alphafold, moe, report = found
    assert (paged.id, paged.extra["entry_type"], paged.authors[0]) == (
        PAGED,
        "inproceedings",
        "Woosuk Kwon",
    )
    assert (alphafold.id, alphafold.has_abstract) == (ALPHAFOLD, False)
    assert moe.abstract.endswith("so that compute per token stays constant while parameters grow.")
    assert moe.id.startswith("h:") and moe.extra["entry_type"] == "article"
    assert (report.position, report.extra["entry_type"], report.year) == (4, "techreport", 2020)
    assert [n.position for n in notices] == [2, 4]
    assert "has no 'ER  -' line" in notices[1].message


def test_ris_lines_outside_records_and_bad_bytes_are_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.ris"
    path.write_bytes(
        b"TY  - JOUR\nTI  - Good one\nAB  - An abstract that is long enough to keep.\nER  - \n"
        b"stray text\n"
        b"TY  - JOUR\nTI  - Caf\xe9\nAB  - Another abstract that is long enough to keep.\nER  - \n"
    )
    found, skipped, _ = _split(list(parse_file(path)))
    assert [p.title for p in found] == ["Good one"]
    assert skipped[0].reason.startswith("line 5 is outside any record")
    assert skipped[1].position == 2 and "not valid UTF-8 at byte" in skipped[1].reason


def test_bibtex_keeps_entry_types_keys_and_entries_without_abstract(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@inproceedings{kwon2023paged,\n  title = {Efficient Memory Management for Large "
        "Language Model Serving with {PagedAttention}},\n  author = {Kwon, Woosuk and Li, "
        "Zhuohan},\n  booktitle = {SOSP},\n  year = {2023},\n  doi = {10.1145/3600006.3613165},\n"
        "  keywords = {LLM serving; KV cache},\n}\n"
        "@article{dao2023flash,\n  title = {FlashAttention-2},\n  author = {Dao, Tri},\n"
        "  year = {2023},\n  eprint = {2307.08691v1},\n  archivePrefix = {arXiv},\n"
        "  abstract = {FlashAttention-2 partitions work better and runs twice as fast.},\n}\n",
        encoding="utf-8",
    )
    found, skipped, notices = _split(list(parse_file(path)))
    paged, flash = found
    assert skipped == [] and len(notices) == 1
    assert (paged.id, paged.has_abstract) == (PAGED, False)  # same id as from CSL-JSON, RIS
    assert paged.extra["entry_type"] == "inproceedings"
    assert paged.extra["bibtex_key"] == "kwon2023paged"
    assert paged.extra["keywords"] == ["LLM serving", "KV cache"]
    assert flash.id == "arxiv:2307.08691"  # same as from Zotero's CSL-JSON


@pytest.fixture
def library(tmp_path: Path) -> App:
    settings = load_settings(min_relevance=0.0)
    engine = Engine(settings, store=open_store(settings), embedder=HashEmbedder(), chat=None)
    app = App.around(engine)
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@inproceedings{kwon2023paged, title = {PagedAttention}, author = {Kwon, Woosuk},"
        " year = {2023}, doi = {10.1145/3600006.3613165}, abstract = {PagedAttention stores the"
        " KV cache in pages like virtual memory, so serving systems waste little memory.}}\n",
        encoding="utf-8",
    )
    report = app.ingester.ingest([REFS / "zotero.json", REFS / "zotero.ris", bib])
    # The same papers from three files are one paper each: the first file's record is kept.
    assert report.added == 5, report.to_json()
    return app


def test_references_without_abstract_are_found_but_never_quoted(library: App) -> None:
    engine = library.engine
    rows = {r.id: r for r in engine.papers()[1]}
    assert rows[ALPHAFOLD].has_abstract is False and rows[PAGED].has_abstract is True
    assert rows[ALPHAFOLD].to_json()["has_abstract"] is False
    hits = engine.search("protein folding structural biology", k=3, mode="lexical")
    assert hits and hits[0].paper.id == ALPHAFOLD  # indexed on its title and keywords
    dense = engine.search("protein structure prediction AlphaFold", k=1, mode="dense")
    assert dense[0].paper.id == ALPHAFOLD
    answer = engine.ask("How is protein structure predicted by AlphaFold?")
    assert ALPHAFOLD not in {s.paper_id for s in answer.sources}
    assert all(c.quote.strip() for c in answer.final.citations)


def test_exported_bibtex_keeps_the_entry_type(library: App) -> None:
    answer = library.engine.ask(
        "How does PagedAttention manage KV cache memory?", k=1, filters=Filters(paper_ids=(PAGED,))
    )
    [citation] = answer.final.citations
    assert citation.source.paper_id == PAGED
    text = format_references(answer.final.citations, "bibtex")
    assert text.startswith("@inproceedings{")
    assert "doi = {10.1145/3600006.3613165}" in text


def test_bibtex_key_of_the_users_own_bib_is_kept(tmp_path: Path) -> None:
    settings = load_settings(min_relevance=0.0)
    engine = Engine(settings, store=open_store(settings), embedder=HashEmbedder(), chat=None)
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@inproceedings{kwon2023paged, title = {PagedAttention}, author = {Kwon, Woosuk},"
        " year = {2023}, abstract = {PagedAttention stores the KV cache in pages like virtual"
        " memory, so serving systems waste little memory.}}\n",
        encoding="utf-8",
    )
    App.around(engine).ingester.ingest([bib])
    answer = engine.ask("How does PagedAttention manage KV cache memory?", k=1)
    text = format_references(answer.final.citations, "bibtex")
    assert text.startswith("@inproceedings{kwon2023paged,\n")


def test_cli_ingests_exports_and_shows_missing_abstracts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(REFS / "zotero.ris", folder / "a.ris")
    assert main(["ingest", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == 4 and report["skipped"] == []
    assert main(["ingest", str(folder / "a.ris"), "--format", "ris", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unchanged"] == 4  # idempotent
    assert main(["papers"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.endswith("(no abstract)")] == [
        line for line in lines if line.startswith(ALPHAFOLD)
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a supplement's link first, the article's DOI in its running foot
        (
            "Supporting information at https://www.pnas.org/lookup/suppl/\r\n"
            "doi:10.1073/pnas.2021520118/-/DCSupplemental.\r\nPublished April 2021\r\n"
            "https://doi.org/10.1073/pnas.2021520118 | 1 of 7",
            "10.1073/pnas.2021520118",
        ),
        # broken after the prefix's slash, and after a dot with digits going on
        (
            "http://dx.doi.org/10.1016/\r\nS0140-6736(13)62243-6\r\nSee Comment",
            "10.1016/S0140-6736(13)62243-6",
        ),
        (
            "PLoS ONE 9(12): e115884. doi:10.1371/journal.pone.\r\n0115884\r\nEditor: A. Lee",
            "10.1371/journal.pone.0115884",
        ),
        # a sentence's full stop, then the next line
        ("doi: 10.1145/3341301.3359630.\r\nNext line", "10.1145/3341301.3359630"),
        # a JSTOR stable URL and a download stamp's landing page are other sites' links
        (
            "Stable URL: https://www.jstor.org/stable/10.2307/27042271\r\nJSTOR is ...\r\n"
            "https://doi.org/10.1257/pandp.20211084",
            "10.1257/pandp.20211084",
        ),
        (
            "Downloaded from https://academic.oup.com/restud/advance-article/doi/10.1093/restud/"
            "rdab052/6354371 by guest\r\nThe Review of Economic Studies (2021) doi:10.1093/restud/"
            "rdab052",
            "10.1093/restud/rdab052",
        ),
        ("arXiv DOI 10.48550/arXiv.2406.03243", ""),
        ("Crops 2025, 5, x. https://doi.org/10.3390/xxxxx", ""),  # a template's placeholder
    ],
)
def test_the_papers_own_doi_among_those_its_pages_print(text: str, want: str) -> None:
    assert printed_doi(text) == want
