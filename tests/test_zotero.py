"""Zotero libraries read where they live and kept in sync: a real ``zotero.sqlite`` built from
Zotero's own schema (tests/zotero_lib.py), real PDFs, the real embedder and Chroma."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from ingest.collection import add_to_collection
from ingest.zotero.local import ZoteroReadError, read_local
from rag.settings import load_settings
from tests.conftest import ROOT
from tests.pdfgen import make_encrypted, make_paper
from tests.zotero_lib import ZoteroLib
from ui.app import App
from ui.cli.main import main
from ui.web.render import paper_links

REAL_PDF = ROOT / "tests/data/real_pdfs/submission_363.pdf"
ABSTRACT = (
    "We measure how soil moisture sensors drift over three growing seasons in irrigated "
    "maize fields and propose a recalibration schedule that halves the error of the "
    "readings without removing the probes from the ground."
)
BODY = (
    "The probes were buried at three depths in twelve plots. Each week a gravimetric sample "
    "was taken beside every probe, dried at 105 degrees and weighed, and the drift was "
    "computed as the difference between the probe reading and the gravimetric value."
)


def _library(root: Path, version: str = "7") -> tuple[ZoteroLib, dict[str, str]]:
    """A library of several item types, nested collections, tags, a Better BibTeX key, a
    stored and a linked PDF, a note and a trashed item."""
    z = ZoteroLib(root, version)  # type: ignore[arg-type]
    thesis = z.add_collection("Thesis")
    chapter = z.add_collection("Chapter 2", parent=thesis)
    reading = z.add_collection("Reading")
    keys = {}
    keys["article"] = z.add_item(
        "journalArticle",
        fields={
            "title": "Drift of soil moisture sensors in irrigated maize",
            "abstractNote": ABSTRACT,
            "DOI": "10.1234/soil.2019.7",
            "date": "2019-03",
            "publicationTitle": "Agricultural Water Management",
            "url": "https://example.org/soil",
        },
        creators=[
            ("author", "Ada", "Lovelace"),
            ("author", "Alan", "Turing"),
            ("editor", "Grace", "Hopper"),
        ],
        tags=["soil", "sensors"],
        collections=[chapter],
    )
    pdf = make_paper(
        root.parent / "soil.pdf", layout="one-column", title="Drift of soil moisture sensors",
        authors=("Ada Lovelace", "Alan Turing"), abstract=ABSTRACT, body=BODY, year=2019,
    ).path  # fmt: skip
    keys["article_pdf"] = z.attach_pdf(keys["article"], pdf)
    keys["paper"] = z.add_item(
        "conferencePaper",
        fields={
            "title": "A paper whose abstract only its PDF has",
            "date": "2021",
            "proceedingsTitle": "Proceedings of Examples",
        },
        creators=[("author", "Edsger", "Dijkstra")],
        collections=[reading, chapter],
    )
    z.attach_pdf(keys["paper"], REAL_PDF, linked=True)
    keys["book"] = z.add_item(
        "book",
        fields={
            "title": "Irrigation Handbook",
            "abstractNote": "A handbook of irrigation "
            "practice for growers, from scheduling to drip lines and their upkeep.",
            "date": "2010",
        },
        creators=[("editor", "Barbara", "Liskov")],
        collections=[thesis],
    )
    keys["note"] = z.add_note(None, "<p>Remember to read the irrigation handbook.</p>")
    keys["trashed"] = z.add_item(
        "journalArticle",
        fields={"title": "A paper in the trash", "abstractNote": ABSTRACT + " Trashed."},
    )
    z.trash(keys["trashed"])
    z.write_bbt_citekeys({keys["article"]: "lovelace2019drift"})
    return z, keys


@pytest.mark.parametrize("version", ["6", "7"])
def test_read_local_gives_items_as_zotero_holds_them(tmp_path: Path, version: str) -> None:
    z, keys = _library(tmp_path / "Zotero", version)
    lib = read_local(z.root)
    items = {i.key: i for i in lib.items}
    assert set(items) == {keys["article"], keys["paper"], keys["book"]}  # no note, no trash
    assert lib.trashed == {keys["trashed"]}
    assert lib.collections == ["Reading", "Thesis", "Thesis/Chapter 2"]
    article = items[keys["article"]]
    assert article.item_type == "journalArticle"
    assert article.fields["DOI"] == "10.1234/soil.2019.7"
    assert article.fields["venue"] == "Agricultural Water Management"
    assert [(c.kind, c.full) for c in article.creators] == [
        ("author", "Ada Lovelace"), ("author", "Alan Turing"), ("editor", "Grace Hopper")
    ]  # fmt: skip
    assert article.tags == ("sensors", "soil")
    assert article.collections == ("Thesis/Chapter 2",)
    assert article.citation_key == "lovelace2019drift"
    (stored,) = article.attachments
    assert stored.path is not None and stored.path.is_file() and not stored.linked
    assert stored.path.parent.parent == (z.root / "storage").resolve()
    (linked,) = items[keys["paper"]].attachments
    assert linked.linked and linked.path == REAL_PDF
    assert items[keys["paper"]].fields["venue"] == "Proceedings of Examples"
    assert items[keys["paper"]].collections == ("Reading", "Thesis/Chapter 2")


def _app() -> App:
    return App.from_settings(load_settings())


def _rows(app: App) -> dict[str, object]:
    _, rows = app.engine.papers()
    return {r.id: r for r in rows}


def test_first_sync_stores_items_with_pdfs_collections_and_links(tmp_path: Path) -> None:
    z, keys = _library(tmp_path / "Zotero")
    app = _app()
    report = app.ingester.sync_zotero(z.root)
    assert report.ok, report.to_json()
    assert (report.items, report.ingest.added, report.trashed) == (3, 3, 1)
    rows = _rows(app)
    article = rows["doi:10.1234/soil.2019.7"]
    assert article.title == "Drift of soil moisture sensors in irrigated maize"  # Zotero's title
    assert article.authors == ("Ada Lovelace", "Alan Turing")  # editors apart
    assert article.year == 2019 and article.cite_key == "lovelace2019drift"
    assert article.collections == ("Thesis/Chapter 2",)
    assert article.source == str((z.root / "zotero.sqlite").resolve())
    stored = app.engine.store.first_chunks([article.id])[article.id]
    extra = json.loads(stored["extra"])
    assert article.zotero_uri == f"zotero://select/library/items/{keys['article']}"
    assert ("Zotero", article.zotero_uri) in paper_links(article)  # the sources panel's links
    assert extra["editors"] == ["Grace Hopper"] and extra["keywords"] == ["sensors", "soil"]
    assert article.n_chunks > 1  # the PDF's body is stored too
    book = rows[f"zotero:{keys['book']}"]  # no DOI: the item key names it
    assert book.authors == ("Barbara Liskov",) and book.collections == ("Thesis",)
    # The conference paper has no abstract in Zotero: its PDF gives one.
    paper = next(r for r in rows.values() if r.title.startswith("A paper whose abstract"))
    full = app.engine.paper(paper.id)
    assert paper.has_abstract and full is not None and len(full.abstract) > 100
    assert set(paper.collections) == {"Reading", "Thesis/Chapter 2"}
    answer = app.engine.ask("How was sensor drift measured against gravimetric samples?", k=3)
    assert answer.final.citations[0].source.paper_id == article.id


def test_resync_without_change_reads_and_embeds_nothing(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    z, _ = _library(tmp_path / "Zotero")
    app = _app()
    app.ingester.sync_zotero(z.root)
    import ingest.zotero.papers as papers

    def no_pdf(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("an unchanged item's PDF was read again")

    monkeypatch.setattr(papers, "parse_pdf", no_pdf)
    again = app.ingester.sync_zotero(z.root)
    data = again.to_json()
    assert (data["added"], data["updated"], data["unchanged"], data["chunks_written"]) == (
        0, 0, 3, 0,
    )  # fmt: skip
    assert again.removed == [] and again.moved == 0


def test_changes_in_zotero_reach_only_the_changed_papers(tmp_path: Path) -> None:
    z, keys = _library(tmp_path / "Zotero")
    app = _app()
    other = tmp_path / "mine.jsonl"
    mine = {"id": "mine-1", "title": "Not from Zotero", "abstract": "Added by hand. " * 5}
    other.write_text(json.dumps(mine) + "\n")
    app.ingester.ingest([other], collection="Mine")
    app.ingester.sync_zotero(z.root)
    add_to_collection(app.engine.store, [f"zotero:{keys['book']}"], "Favourites")  # the user's
    app.engine.refresh()

    revised = "A revised handbook of irrigation practice, with a new chapter on soil sensors."
    z.update_item(keys["book"], fields={"abstractNote": revised})
    z.move(keys["book"], [])  # out of "Thesis"; the user's "Favourites" stays
    z.trash(keys["article"])
    new = z.add_item("journalArticle", fields={"title": "A new paper on drip irrigation",
                     "abstractNote": "Drip lines save water in orchards " * 4})  # fmt: skip
    report = app.ingester.sync_zotero(z.root)
    data = report.to_json()
    assert (data["added"], data["updated"], data["unchanged"]) == (1, 1, 1), data
    assert report.removed == ["doi:10.1234/soil.2019.7"]
    rows = _rows(app)
    assert "mine-1" in rows and rows["mine-1"].collections == ("Mine",)  # untouched
    book = rows[f"zotero:{keys['book']}"]
    assert book.collections == ("Favourites",)
    assert "new chapter" in app.engine.paper(book.id).abstract  # type: ignore[union-attr]
    assert f"zotero:{new}" in rows

    z.delete(new)  # emptied from the trash
    z.restore(keys["article"])
    report = app.ingester.sync_zotero(z.root)
    assert report.removed == [f"zotero:{new}"] and report.ingest.added == 1


def test_a_paper_already_added_from_a_bib_is_the_same_paper(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{x, title={Drift}, doi={10.1234/SOIL.2019.7}, year={2019},\n"
                   f" abstract={{{ABSTRACT}}}}}\n")  # fmt: skip
    app = _app()
    app.ingester.ingest([bib])
    report = app.ingester.sync_zotero(z.root)
    assert report.ingest.updated == 1 and report.ingest.added == 2
    assert sum(1 for pid in _rows(app) if pid.startswith("doi:")) == 1


def test_collection_syncs_one_subtree(tmp_path: Path) -> None:
    z, _keys = _library(tmp_path / "Zotero")
    app = _app()
    report = app.ingester.sync_zotero(z.root, collection="Thesis/Chapter 2")
    assert report.items == 2 and report.ingest.added == 2
    report = app.ingester.sync_zotero(z.root, collection="Reading")
    assert report.items == 1 and report.unchanged == 1 and not report.removed
    with pytest.raises(ZoteroReadError, match=r"no collection 'Nope'.*Thesis/Chapter 2"):
        app.ingester.sync_zotero(z.root, collection="Nope")


def test_sync_reads_while_zotero_holds_its_lock(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    with z.lock():
        with pytest.raises(sqlite3.OperationalError):
            sqlite3.connect(z.db_path, timeout=0).execute("BEGIN IMMEDIATE")
        report = _app().ingester.sync_zotero(z.root)
    assert report.ingest.added == 3


def test_bad_attachments_are_one_line_each_and_the_item_is_kept(tmp_path: Path) -> None:
    z, keys = _library(tmp_path / "Zotero")
    locked = z.attach_pdf(keys["book"], make_encrypted(tmp_path / "locked.pdf"))
    gone = tmp_path / "gone.pdf"
    shutil.copy(REAL_PDF, gone)
    z.attach_pdf(keys["book"], gone, linked=True)
    gone.unlink()
    escape = z.attach_pdf(keys["book"], REAL_PDF)
    _raw_path(z, escape, "storage:../../../etc/passwd.pdf")
    report = _app().ingester.sync_zotero(z.root)
    lines = [n.message for n in report.ingest.notices]
    assert any("encrypted" in line and locked in line for line in lines), lines
    assert any("file missing" in line for line in lines), lines
    assert any("leaves Zotero's storage folder" in line for line in lines), lines
    assert report.unread == 3 and not report.ok and report.ingest.added == 3


def _raw_path(z: ZoteroLib, key: str, path: str) -> None:
    with sqlite3.connect(z.db_path) as con:
        con.execute("UPDATE itemAttachments SET path = ? WHERE itemID = ?", (path, z.item_id(key)))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d.mkdir(), "is not a Zotero data directory"),
        (lambda d: (d.mkdir(), (d / "zotero.sqlite").write_bytes(b"\x00garbage" * 100)),
         "not a readable SQLite database"),
        (lambda d: (d.mkdir(), (d / "zotero.sqlite").write_bytes(b"")), "not a Zotero database"),
    ],
    ids=["no-database", "binary", "empty"],
)  # fmt: skip
def test_a_library_that_cannot_be_read_changes_nothing(tmp_path: Path, make, message) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "Zotero"
    make(folder)
    app = _app()
    sample = ROOT / "data/sample"
    app.ingester.ingest([sample])
    before = len(_rows(app))
    with pytest.raises(ZoteroReadError, match=message):
        app.ingester.sync_zotero(folder)
    assert len(_rows(app)) == before


def test_truncated_and_old_databases_are_refused_with_what_to_do(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    half = tmp_path / "Half"
    half.mkdir()
    data = z.db_path.read_bytes()
    (half / "zotero.sqlite").write_bytes(data[: len(data) // 3])
    with pytest.raises(ZoteroReadError, match=r"truncated|malformed|readable"):
        read_local(half)
    with sqlite3.connect(z.db_path) as con:
        con.execute("UPDATE version SET version = 80 WHERE schema = 'userdata'")
    with pytest.raises(ZoteroReadError, match=r"older than Zotero 5.*upgrade"):
        read_local(z.root)
    with sqlite3.connect(z.db_path) as con:
        con.execute("UPDATE version SET version = 140 WHERE schema = 'userdata'")
    lib = read_local(z.root)
    assert lib.items and "newer than paperchat knows" in lib.problems[0][1]


def test_cli_sync_reports_and_exits_3_when_an_attachment_is_unread(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    z, keys = _library(tmp_path / "Zotero")
    assert main(["zotero", "sync", str(z.root)]) == 0
    out = capsys.readouterr().out
    assert "3 items, 1 in the trash, 3 collections" in out and "3 added" in out
    z.attach_pdf(keys["book"], make_encrypted(tmp_path / "locked.pdf"))
    assert main(["zotero", "sync", str(z.root), "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["attachments_unread"] == 1 and data["unchanged"] == 3  # 1 read again, same
    assert main(["zotero", "sync", str(tmp_path / "nowhere")]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.integration
def test_web_library_syncs_incrementally_through_the_cli(
    tmp_path: Path, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`paperchat zotero sync --user ID` against a fake Zotero web API on a real socket."""
    from tests.zotero_webfake import fake_zotero

    with fake_zotero("k" * 24) as fake:
        lib = fake.library("users", 7)
        folder = lib.add_collection("Hydrology")
        first = lib.add_item("journalArticle", title="Drift of soil moisture sensors",
                             abstractNote=ABSTRACT, DOI="10.1234/soil.2019.7",
                             collections=[folder], date="2019-03-01",
                             creators=[{"creatorType": "author", "firstName": "Ada",
                                        "lastName": "Lovelace"}])  # fmt: skip
        lib.add_attachment(first, pdf=REAL_PDF.read_bytes())
        second = lib.add_item("book", title="Irrigation Handbook",
                              abstractNote="A handbook of irrigation practice " * 3)  # fmt: skip
        monkeypatch.setenv("ZOTERO_API_KEY", "k" * 24)
        monkeypatch.setenv("PAPERCHAT_ZOTERO_API_URL", fake.url)
        assert main(["zotero", "sync", "--user", "7", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert (data["items"], data["added"], data["source"]) == (2, 2, "zotero.org/users/7")
        fake.clear()
        assert main(["zotero", "sync", "--user", "7", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert (data["added"], data["updated"], data["unchanged"]) == (0, 0, 2)
        assert not fake.downloads()  # the PDF's md5 did not change
        lib.trash(second)
        assert main(["zotero", "sync", "--user", "7", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["removed"] == [f"zotero:{second}"] and data["unchanged"] == 1
    rows = _rows(_app())
    assert rows["doi:10.1234/soil.2019.7"].collections == ("Hydrology",)
    monkeypatch.delenv("ZOTERO_API_KEY")
    assert main(["zotero", "sync", "--user", "7"]) == 1
    assert "ZOTERO_API_KEY" in capsys.readouterr().err


def test_local_group_libraries_are_synced_as_collections_of_their_own(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    lab = z.add_group_library("Soil Lab", group_id=4242)
    methods = z.add_collection("Methods", library_id=lab)
    shared = z.add_item(
        "report",
        fields={
            "title": "Calibrating probes: the lab's protocol",
            "abstractNote": "How the lab calibrates its soil probes each spring. " * 2,
        },
        collections=[methods],
        library_id=lab,
    )
    lib = read_local(z.root)
    item = next(i for i in lib.items if i.key == shared)
    assert item.library == "groups/4242"
    assert item.collections == ("Soil Lab", "Soil Lab/Methods")
    app = _app()
    assert app.ingester.sync_zotero(z.root).ingest.added == 4
    row = _rows(app)[f"zotero:groups/4242/{shared}"]
    assert row.zotero_uri == f"zotero://select/groups/4242/items/{shared}"
    assert app.ingester.sync_zotero(z.root, collection="Soil Lab").unchanged == 1


def test_a_doi_printed_in_the_pdf_does_not_rename_the_item(tmp_path: Path) -> None:
    """A DOI on a PDF's first pages may be one it cites: the item keeps its Zotero key."""
    z = ZoteroLib(tmp_path / "Zotero")
    key = z.add_item("journalArticle", fields={"title": "Drift of soil moisture sensors"})
    cited = BODY + " As shown before (doi:10.5555/cited.paper.1), probes drift."
    pdf = make_paper(
        tmp_path / "p.pdf", layout="one-column", title="Drift of soil moisture sensors",
        authors=("Ada Lovelace",), abstract=ABSTRACT, body=cited, year=2019,
    ).path  # fmt: skip
    z.attach_pdf(key, pdf)
    app = _app()
    app.ingester.sync_zotero(z.root)
    assert list(_rows(app)) == [f"zotero:{key}"]
