"""The library as browsed: the catalogue's column helpers (search, masks, sorted pages; the
heap and the full sort agree), the engine's pages, a paper's view with its sections and
pages, and the picture (real embedded Chroma, the real embedder)."""

from __future__ import annotations

import json
import random

import pytest

from rag.errors import QueryError
from rag.index import browse
from rag.index.catalogue import Catalogue
from rag.library import library_page
from rag.records import PaperRow
from rag.retrieve import Filters
from rag.settings import load_settings
from tests.conftest import ROOT, SAMPLE
from ui.app import App


def _row(i: int, title: str, **fields: object) -> PaperRow:
    base: dict[str, object] = {"id": f"p{i}", "label": "", "title": title, "authors": (),
                               "year": None, "source": "a.bib", "position": i,
                               "n_chunks": 1}  # fmt: skip
    return PaperRow(**(base | fields))  # type: ignore[arg-type]


ROWS = [
    _row(0, "beta", authors=("Zoë Zed",), year=2020, collections=("x",)),
    _row(1, "", label="Alpha label", year=None, has_abstract=False, source="b.bib"),
    _row(2, "Émile and accents", authors=("Ann Lee", "Bob Kay"), year=2021,
         collections=("x", "y"), source="/home/me/c.ris", zotero_uri="zotero://select/1"),
    _row(3, "alpha", authors=("ann lee",), year=2020, source="a.bib"),
    _row(4, "“Quoted” gamma 漢字", authors=("Ünal Öz",), year=2019, source="d.csv"),
    _row(5, "beta", authors=("Zoë Zed",), year=2020, collections=("x",)),  # a tie with p0
]  # fmt: skip


def _ids(catalogue: Catalogue, positions: list[int]) -> list[str]:
    return [catalogue.ids[i] for i in positions]


@pytest.mark.parametrize(
    ("by", "ascending", "descending"),
    [
        ("title", ["p4", "p3", "p1", "p0", "p5", "p2"], ["p2", "p0", "p5", "p1", "p3", "p4"]),
        ("year", ["p4", "p0", "p3", "p5", "p2", "p1"], ["p2", "p0", "p3", "p5", "p4", "p1"]),
        ("authors", ["p2", "p3", "p4", "p0", "p5", "p1"], ["p0", "p5", "p4", "p2", "p3", "p1"]),
        ("collections", ["p0", "p5", "p2", "p1", "p3", "p4"],
         ["p2", "p0", "p5", "p1", "p3", "p4"]),
        ("has_abstract", ["p1", "p0", "p2", "p3", "p4", "p5"],
         ["p0", "p2", "p3", "p4", "p5", "p1"]),
        ("source", ["p0", "p3", "p5", "p1", "p4", "p2"], ["p2", "p4", "p1", "p0", "p3", "p5"]),
        ("", ["p0", "p1", "p2", "p3", "p4", "p5"], ["p0", "p1", "p2", "p3", "p4", "p5"]),
    ],
)  # fmt: skip
def test_sorts_keep_ties_in_source_order_and_put_what_is_missing_last(
    by: str, ascending: list[str], descending: list[str]
) -> None:
    """Accents and case aside ("Émile" among the e's), typographic quotes as plain ones
    (before letters, as symbols sort), an untitled paper by its label; ties (p0 and p5) in
    source order in both directions."""
    catalogue = Catalogue.from_rows(ROWS)
    for wanted, down in ((ascending, False), (descending, True)):
        total, page = browse.ordered(catalogue, by, descending=down, limit=50)
        assert total == 6 and _ids(catalogue, page) == wanted, (by, down)
        if by:  # the kept full order agrees with the heap's page
            assert _ids(catalogue, browse.order(catalogue, by, descending=down).tolist()) == wanted


def test_pages_offsets_and_limits() -> None:
    catalogue = Catalogue.from_rows(ROWS)
    assert _ids(catalogue, browse.ordered(catalogue, "title", offset=3, limit=2)[1]) == ["p0", "p5"]
    assert browse.ordered(catalogue, "title", offset=6, limit=5) == (6, [])  # past the end
    assert browse.ordered(catalogue, "title", offset=99, limit=5) == (6, [])
    assert browse.ordered(catalogue, "title", offset=0, limit=0) == (6, [])
    assert browse.ordered(catalogue, "", offset=5, limit=9) == (6, [5])
    with pytest.raises(ValueError, match="unknown sort"):
        browse.ordered(catalogue, "colour")


def test_an_empty_library_has_empty_pages() -> None:
    empty = Catalogue.from_rows([])
    for by in browse.SORTS:
        assert browse.ordered(empty, by) == (0, [])
    assert library_page(empty, search="x", filters=Filters(year_from=2000)) == (0, [])
    assert library_page(empty, sort="year", descending=True, has_abstract=True) == (0, [])


def test_search_is_case_and_accent_exact_substring_over_what_is_shown() -> None:
    catalogue = Catalogue.from_rows(ROWS)

    def found(needle: str) -> set[str]:
        return {pid for pid, keep in zip(catalogue.ids, browse.matching(catalogue, needle),
                                         strict=True) if keep}  # fmt: skip

    assert found("ALPHA") == {"p1", "p3"}  # a title, and an untitled paper's label
    assert found("émile") == {"p2"} and found("ZOË") == {"p0", "p5"}
    assert found("2019") == {"p4"} and found("漢字") == {"p4"}
    assert found("zotero") == {"p2"}  # its source as shown
    assert found("c.ris") == set()  # a Zotero paper shows "Zotero", not its file
    assert found("p3") == {"p3"} and found("  ann   lee ") == {"p2", "p3"}
    assert found("") == set(catalogue.ids) and found("nothing at all") == set()
    assert found("a") == set(catalogue.ids)  # each paper once, however many a's


def test_a_line_break_in_a_field_does_not_shift_the_search() -> None:
    rows = [_row(0, "one\ntwo"), _row(1, "three", label="x\ny"), _row(2, "four")]
    catalogue = Catalogue.from_rows(rows)
    assert browse.matching(catalogue, "four").tolist() == [False, False, True]
    assert browse.matching(catalogue, "one two").tolist() == [True, False, False]


def test_an_author_filter_reads_the_authors_only() -> None:
    catalogue = Catalogue.from_rows(ROWS)

    def kept(needle: str) -> list[str]:
        return [pid for pid, k in zip(catalogue.ids, browse.by_author(catalogue, needle),
                                      strict=True) if k]  # fmt: skip

    assert kept("lee") == ["p2", "p3"] and kept("beta") == []  # a title is not an author
    assert kept("ann lee; bob") == [] and kept("ÜNAL") == ["p4"] and kept("") == list(catalogue.ids)


def test_filters_by_column_agree_with_filtering_rows() -> None:
    catalogue = Catalogue.from_rows(ROWS)
    for filters in (Filters(year_from=2020), Filters(year_to=2020), Filters(collection="y"),
                    Filters(author="ANN"), Filters(source="bib"),
                    Filters(paper_ids=("p4", "zz")),
                    Filters(year_from=2020, year_to=2021, collection="x",
                            author="zed")):  # fmt: skip
        total, rows = library_page(catalogue, sort="", filters=filters)
        assert [r.id for r in rows] == [r.id for r in ROWS if filters.matches(r)], filters
        assert total == len(rows)
    assert [r.id for r in library_page(catalogue, has_abstract=False)[1]] == ["p1"]
    total, rows = library_page(catalogue, search="beta", sort="year", limit=1, offset=1)
    assert total == 2 and [r.id for r in rows] == ["p5"]  # rows made for the page only
    with pytest.raises(QueryError, match="unknown sort"):
        library_page(catalogue, sort="colour")
    with pytest.raises(QueryError):
        library_page(catalogue, limit=100_000)


def test_the_heap_the_subset_sort_and_the_kept_order_give_the_same_pages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A larger library, read page by page every way a page can be made."""
    rng = random.Random(7)
    # The last six begin with letters whose collated form differs (ß, a ligature, a mark...)
    words = "cache Über attention émigré kv Zeta alpha “q” ßeta ﬁsh \u0301x İz 7b ǅemal".split()  # noqa: SIM905
    words.append("")
    rows = [_row(i, " ".join(rng.choices(words, k=3)), label=f"label {i % 7}",
                 year=rng.choice([None, 2019, 2020, 2021]),
                 authors=tuple(rng.choices(["Ann", "bob", "Çelik", "Zoë"], k=rng.randint(0, 2))),
                 collections=tuple(rng.sample(["x", "y", "z"], k=rng.randint(0, 2))),
                 source=rng.choice(["a.bib", "b.ris"]))
            for i in range(600)]  # fmt: skip
    for by in ("title", "year", "authors", "collections", "source", "id"):
        for down in (False, True):
            for keep in (None, "x", "y"):
                cat = Catalogue.from_rows(rows)
                mask = None if keep is None else browse.in_collection(cat, keep)
                if by == "title" and keep is None:  # first pages from titles' first letters
                    few = browse._title_leads(cat, mask, 40, descending=down)
                    assert few is not None and len(few) < len(rows) // 4
                pages = [browse.ordered(cat, by, descending=down, keep=mask, offset=o, limit=40)
                         for o in range(0, 640, 40)]  # fmt: skip
                whole = browse.order(Catalogue.from_rows(rows), by, descending=down).tolist()
                if mask is not None:
                    whole = [i for i in whole if mask[i]]
                assert [i for _, page in pages for i in page] == whole, (by, down, keep)
                monkeypatch.setattr(browse, "_HEAP", 0)  # every page from the full sort
                again = [browse.ordered(cat, by, descending=down, keep=mask, offset=o, limit=40)
                         for o in range(0, 640, 40)]  # fmt: skip
                monkeypatch.undo()
                assert again == pages


# -- through the engine: real Chroma, the real embedder --------------------------------------


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> App:
    """The sample, a PDF with its full text into a collection, and dated papers."""
    from ui.cli.main import main

    data = tmp_path_factory.mktemp("shelf")
    dated = data / "dated.jsonl"
    dated.write_text("".join(
        json.dumps({"id": f"d{y}", "title": f"Dated paper of {y}", "year": y,
                    "doi": f"10.1000/d{y}",
                    "abstract": f"A study from {y} of caching attention keys on the CPU."}) + "\n"
        for y in (2019, 2020, 2020 + 1)))  # fmt: skip
    pdf = ROOT / "tests" / "data" / "real_pdfs" / "0807.3577.pdf"
    for args in ([str(SAMPLE), str(dated)], [str(pdf), "--collection", "cosmology"]):
        assert main(["ingest", *args, "--data-dir", str(data), "--json"]) == 0
    return App.from_settings(load_settings(data_dir=data))


@pytest.mark.slow
def test_engine_pages_paper_view_and_picture(shelf: App) -> None:
    engine = shelf.engine
    total, rows = engine.library_page(sort="year", descending=True, limit=2)
    assert total == 36 and [r.id for r in rows] == ["d2021", "d2020"]
    total, rows = engine.library_page("dated", filters=Filters(year_from=2020), sort="title")
    assert (total, [r.id for r in rows]) == (2, ["d2020", "d2021"])
    total, rows = engine.library_page(filters=Filters(collection="cosmology"))
    assert total == 1 and rows[0].title == "Apparent and average accelerations of the Universe"
    pdf = rows[0]

    details = engine.paper_details(pdf.id)
    assert details is not None and details.paper.abstract.startswith("In this paper we consider")
    headings = [s.heading for s in details.sections]
    assert headings[:2] == ["1. Introduction", "2. The Buchert scheme"]
    assert (details.sections[0].first, details.sections[0].last) == (2, 4)
    sample = engine.paper_details(engine.library_page("Llumnix")[1][0].id)
    assert (
        sample is not None and sample.sections == () and "live migration" in sample.paper.abstract
    )
    assert engine.paper_details("no-such-paper") is None

    picture = engine.library_picture()
    assert picture.papers == 36 and picture.undated == 32
    assert dict(picture.years) == {2008: 1, 2019: 1, 2020: 1, 2021: 1}
    assert dict(picture.collections) == {"cosmology": 1}
    assert picture.themes and picture.sampled == 36 and not picture.estimated
    assert sum(t.papers for t in picture.themes) == 36  # every paper at its nearest theme
    assert all(t.words for t in picture.themes[:-1]) and all(t.examples for t in picture.themes)
    assert engine.library_picture() is picture  # kept for this version of the library
    engine.remove(["d2019"])
    again = engine.library_picture(themes=False)
    assert again.papers == 35 and 2019 not in dict(again.years)


# -- one paper as stored: `paperchat papers show` and GET /api/papers/{id} --------------------


def _pdf_id(shelf: App) -> str:
    return shelf.engine.library_page(filters=Filters(collection="cosmology"))[1][0].id


@pytest.mark.slow
def test_papers_show_prints_what_was_stored(shelf: App, capsys: pytest.CaptureFixture) -> None:
    from ui.cli.main import main

    pid, data = _pdf_id(shelf), str(shelf.settings.data_dir)
    assert main(["papers", "show", pid, "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Apparent and average accelerations of the Universe\n")
    assert "Krzysztof Bolejko" in out and "collections: cosmology" in out
    assert "\nAbstract\nIn this paper we consider" in out
    assert "  1. Introduction  (pp. 2-4)" in out
    assert main(["papers", "show", pid, "--json", "--text", "--data-dir", data]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["paper_id"] == pid and got["abstract"].startswith("In this paper we consider")
    assert got["sections"][0] == {"heading": "1. Introduction", "first_page": 2, "last_page": 4}
    text = got["text"]
    assert text and text[0]["page"] >= 1 and all(t["text"] for t in text)
    assert any("Buchert" in t["text"] for t in text)
    # An abstract-only paper says so; an unknown id is an error naming it, exit 1.
    llumnix = shelf.engine.library_page("Llumnix")[1][0].id
    assert main(["papers", "show", llumnix, "--data-dir", data]) == 0
    assert "(no full text stored: abstract only)" in capsys.readouterr().out
    assert main(["papers", "show", "no-such-paper", "--data-dir", data]) == 1
    assert "no paper with id 'no-such-paper' is stored" in capsys.readouterr().err
    # Listing still works without an action.
    assert main(["papers", "--limit", "1", "--data-dir", data]) == 0


@pytest.mark.slow
@pytest.mark.integration
def test_api_gives_one_paper_as_stored(shelf: App) -> None:
    import httpx

    from tests.test_api import Server

    pid = _pdf_id(shelf)
    with Server(shelf.settings.data_dir) as server:
        got = httpx.get(f"{server.url}/api/papers/{pid}", timeout=30).json()
        assert got["title"] == "Apparent and average accelerations of the Universe"
        assert got["sections"][1]["heading"] == "2. The Buchert scheme" and "text" not in got
        full = httpx.get(f"{server.url}/api/papers/{pid}", params={"text": "true"}, timeout=30)
        assert any("Buchert" in t["text"] for t in full.json()["text"])
        missing = httpx.get(f"{server.url}/api/papers/no-such-paper", timeout=30)
        assert missing.status_code == 404 and "no-such-paper" in missing.text
