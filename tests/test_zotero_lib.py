"""The Zotero test helper builds what Zotero 6 and 7 would have written (tests/zotero_lib.py)."""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.zotero_lib import (
    DATA,
    KEY_CHARS,
    LINK_MODE_IMPORTED_FILE,
    LINK_MODE_IMPORTED_URL,
    LINK_MODE_LINKED_FILE,
    RELEASES,
    ZoteroLib,
    multipart_to_sql,
    parse_sql_file,
    str_to_multipart,
)

PDF = Path(__file__).resolve().parent / "data" / "real_pdfs" / "submission_363.pdf"
SQL_TIME = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")

FIELDS_SQL = (
    "SELECT f.fieldName, v.value FROM items i "
    "JOIN itemData d ON d.itemID = i.itemID "
    "JOIN fieldsCombined f ON f.fieldID = d.fieldID "
    "JOIN itemDataValues v ON v.valueID = d.valueID "
    "WHERE i.key = ?"
)


def rows(lib: ZoteroLib, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with contextlib.closing(sqlite3.connect(lib.db_path)) as con:
        return con.execute(sql, args).fetchall()


def one(lib: ZoteroLib, sql: str, *args: Any) -> Any:
    found = rows(lib, sql, *args)
    assert len(found) == 1, found
    return found[0][0] if len(found[0]) == 1 else found[0]


def fields_of(lib: ZoteroLib, key: str) -> dict[str, str]:
    return dict(rows(lib, FIELDS_SQL, key))


@pytest.fixture(params=["6", "7"])
def lib(request: pytest.FixtureRequest, tmp_path: Path) -> ZoteroLib:
    return ZoteroLib(tmp_path / "Zotero", request.param, seed=1)


@pytest.mark.parametrize(
    ("version", "userdata", "global_schema", "client"),
    [("6", 121, 28, "6.0.30"), ("7", 123, 32, "7.0.9")],
)
def test_a_new_database_is_what_zotero_initialises(
    tmp_path: Path, version: str, userdata: int, global_schema: int, client: str
) -> None:
    lib = ZoteroLib(tmp_path, version)  # type: ignore[arg-type]
    assert lib.storage.is_dir()
    assert one(lib, "SELECT version FROM version WHERE schema='userdata'") == userdata
    assert dict(rows(lib, "SELECT schema, version FROM version")) == {
        "globalSchema": global_schema,
        "system": 32,
        "userdata": userdata,
        "triggers": 18,
        "compatibility": 7,
    }
    assert rows(lib, "SELECT * FROM libraries") == [(1, "user", 1, 1, 0, 0, 0, 0)]
    settings = {(s, k): v for s, k, v in rows(lib, "SELECT setting, key, value FROM settings")}
    assert settings[("client", "lastVersion")] == client
    assert settings[("client", "lastCompatibleVersion")] == client
    assert re.fullmatch(r"[A-Za-z0-9]{8}", settings[("account", "localUserKey")])
    stored = json.loads(zlib.decompress(settings[("globalSchema", "data")]))
    assert stored["version"] == global_schema
    assert "itemTypes" not in stored and {"meta", "csl", "locales"} <= stored.keys()
    assert one(lib, "PRAGMA auto_vacuum") == 1
    assert one(lib, "PRAGMA page_size") == 4096
    assert one(lib, "PRAGMA integrity_check") == "ok"
    assert rows(lib, "PRAGMA foreign_key_check") == []


def test_schema_text_and_the_6_to_7_difference(tmp_path: Path) -> None:
    six, seven = ZoteroLib(tmp_path / "6", "6"), ZoteroLib(tmp_path / "7", "7")
    # parseSQLFile joins the lines with nothing between them, as in a real zotero.sqlite
    sql = one(seven, "SELECT sql FROM sqlite_master WHERE name='libraries'")
    assert sql.startswith("CREATE TABLE libraries (    libraryID INTEGER PRIMARY KEY,")
    index = "SELECT COUNT(*) FROM sqlite_master WHERE name='itemData_valueID'"
    assert (one(six, index), one(seven, index)) == (0, 1)
    ebook = "SELECT COUNT(*) FROM fileTypes WHERE fileType='ebook'"
    assert (one(six, ebook), one(seven, ebook)) == (0, 1)
    triggers = "SELECT COUNT(*) FROM sqlite_master WHERE type='trigger'"
    assert one(seven, triggers) == one(six, triggers) > 10
    stored = dict(rows(seven, "SELECT name, sql FROM sqlite_master"))
    created = [s for s in parse_sql_file(RELEASES["7"].userdata_sql.read_text()) if "CREATE" in s]
    assert len(created) > 80
    for statement in created:  # every statement ran, none was skipped or rewritten
        name = re.match(r"CREATE (?:TABLE|INDEX) (\w+)", statement)[1]  # type: ignore[index]
        assert stored[name] == statement


def test_global_tables_are_filled_from_schema_json(lib: ZoteroLib) -> None:
    schema = json.loads(gzip.decompress((DATA / lib.release.schema_file).read_bytes()))
    types = [t["itemType"] for t in schema["itemTypes"]]
    # Zotero.ID hands out IDs in schema.json's order
    assert [r[0] for r in rows(lib, "SELECT typeName FROM itemTypes ORDER BY itemTypeID")] == types
    assert rows(lib, "SELECT * FROM itemTypesCombined ORDER BY 1") == [
        (i, n, d, 0) for i, n, d in rows(lib, "SELECT itemTypeID, typeName, display FROM itemTypes")
    ]
    n_fields = sum(len(t["fields"]) for t in schema["itemTypes"])
    assert one(lib, "SELECT COUNT(*) FROM itemTypeFieldsCombined") == n_fields
    assert one(lib, "SELECT COUNT(*) FROM fieldsCombined") == one(
        lib, "SELECT COUNT(*) FROM fields"
    )
    mapped = one(
        lib,
        "SELECT b.fieldName FROM baseFieldMappingsCombined m "
        "JOIN itemTypesCombined t USING (itemTypeID) "
        "JOIN fieldsCombined f ON f.fieldID = m.fieldID "
        "JOIN fieldsCombined b ON b.fieldID = m.baseFieldID "
        "WHERE t.typeName = 'conferencePaper' AND f.fieldName = 'proceedingsTitle'",
    )
    assert mapped == "publicationTitle"
    primary = one(
        lib,
        "SELECT c.creatorType FROM itemTypeCreatorTypes x JOIN creatorTypes c USING "
        "(creatorTypeID) JOIN itemTypes t USING (itemTypeID) "
        "WHERE t.typeName='journalArticle' AND x.primaryField=1",
    )
    assert primary == "author"


def test_an_item_reads_back_through_the_standard_joins(lib: ZoteroLib) -> None:
    shelf = lib.add_collection("Shelf")
    key = lib.add_item(
        fields={
            "title": "Deep\nlearning",
            "publicationTitle": "Nature",
            "date": "2019-03",
            "DOI": "10.1/x",
            "abstractNote": "One.\nTwo.",
        },
        creators=[("author", "Yann", "LeCun"), ("author", "Google Brain"), ("editor", "A", "B")],
        tags=["ml", ("auto", 1)],
        collections=[shelf],
    )
    assert re.fullmatch(f"[{KEY_CHARS}]{{8}}", key)
    assert fields_of(lib, key) == {
        "title": "Deep learning",  # not a multiline field: newlines become a space
        "publicationTitle": "Nature",
        "date": "2019-03-00 2019-03",
        "DOI": "10.1/x",
        "abstractNote": "One.\nTwo.",
    }
    item = one(
        lib,
        "SELECT t.typeName, i.libraryID, i.version, i.synced, i.dateAdded, i.dateModified, "
        "i.clientDateModified FROM items i JOIN itemTypesCombined t USING (itemTypeID) "
        "WHERE i.key=?",
        key,
    )
    assert item[:4] == ("journalArticle", 1, 0, 0)
    assert all(SQL_TIME.match(t) for t in item[4:])
    creators = rows(
        lib,
        "SELECT ct.creatorType, c.firstName, c.lastName, c.fieldMode FROM itemCreators ic "
        "JOIN creators c USING (creatorID) JOIN creatorTypes ct USING (creatorTypeID) "
        "JOIN items i USING (itemID) WHERE i.key=? ORDER BY ic.orderIndex",
        key,
    )
    assert creators == [
        ("author", "Yann", "LeCun", 0),
        ("author", "", "Google Brain", 1),
        ("editor", "A", "B", 0),
    ]
    tags = "SELECT t.name, it.type FROM itemTags it JOIN tags t USING (tagID) ORDER BY t.name"
    assert rows(lib, tags) == [("auto", 1), ("ml", 0)]
    members = "SELECT key, orderIndex FROM collectionItems JOIN collections USING (collectionID)"
    assert rows(lib, members) == [(shelf, 0)]


def test_fields_are_validated_and_base_fields_mapped(lib: ZoteroLib) -> None:
    paper = lib.add_item("conferencePaper", fields={"publicationTitle": "Proc. X"})
    assert fields_of(lib, paper) == {"proceedingsTitle": "Proc. X"}
    other = lib.add_item("conferencePaper", fields={"proceedingsTitle": "Proc. Y"})
    assert fields_of(lib, other) == {"proceedingsTitle": "Proc. Y"}
    with pytest.raises(ValueError, match="not a valid field"):
        lib.add_item("journalArticle", fields={"proceedingsTitle": "nope"})
    with pytest.raises(ValueError, match="not a valid itemData field"):
        lib.add_item(fields={"journal": "nope"})
    with pytest.raises(ValueError, match="no item type"):
        lib.add_item("paper")
    with pytest.raises(ValueError, match="not valid for this item type"):
        lib.add_item(creators=[("composer", "A", "B")])
    with pytest.raises(ValueError, match="add_note"):
        lib.add_item("note")
    assert one(lib, "SELECT COUNT(*) FROM items") == 2  # nothing half-written


def test_values_are_shared_through_item_data_values(lib: ZoteroLib) -> None:
    a = lib.add_item(fields={"publicationTitle": "Nature", "title": "A"})
    b = lib.add_item("magazineArticle", fields={"publicationTitle": "Nature", "title": "B"})
    count = "SELECT COUNT(*) FROM itemDataValues WHERE value='Nature'"
    assert one(lib, count) == 1
    assert fields_of(lib, a)["publicationTitle"] == fields_of(lib, b)["publicationTitle"]


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("2019-03", "2019-03-00 2019-03"),
        ("2019", "2019-00-00 2019"),
        ("2019-03-15", "2019-03-15 2019-03-15"),
        ("March 2019", "2019-03-00 March 2019"),
        ("15 March 2019", "2019-03-15 15 March 2019"),
        ("March 15, 2019", "2019-03-15 March 15, 2019"),
        ("3/15/2019", "2019-03-15 3/15/2019"),
        ("Spring 2020", "2020-00-00 Spring 2020"),
        ("in press", "0000-00-00 in press"),
    ],
)
def test_dates_become_multipart_as_zotero_stores_them(typed: str, stored: str) -> None:
    assert str_to_multipart(typed) == stored
    assert multipart_to_sql(stored) == stored[:10]


def test_a_multipart_date_is_kept_and_accessed_dates_normalised(lib: ZoteroLib) -> None:
    key = lib.add_item(
        "webpage",
        fields={"date": "2019-03-00 2019-03", "accessDate": "2024-05-01T10:20:30Z"},
    )
    assert fields_of(lib, key) == {
        "date": "2019-03-00 2019-03",
        "accessDate": "2024-05-01 10:20:30",
    }
    case = lib.add_item("case", fields={"dateDecided": "2001"})  # a field based on 'date'
    assert fields_of(lib, case) == {"dateDecided": "2001-00-00 2001"}


def test_a_stored_pdf_is_copied_under_storage(lib: ZoteroLib) -> None:
    parent = lib.add_item(fields={"title": "P"})
    key = lib.attach_pdf(parent, PDF, filename="Paper 1.pdf")
    assert (lib.storage / key / "Paper 1.pdf").read_bytes() == PDF.read_bytes()
    row = one(
        lib,
        "SELECT a.linkMode, a.contentType, a.path, a.charsetID, a.syncState, p.key, t.typeName "
        "FROM itemAttachments a JOIN items i USING (itemID) JOIN items p "
        "ON p.itemID = a.parentItemID JOIN itemTypesCombined t ON t.itemTypeID = i.itemTypeID "
        "WHERE i.key=?",
        key,
    )
    assert row == (
        LINK_MODE_IMPORTED_FILE,
        "application/pdf",
        "storage:Paper 1.pdf",
        None,
        0,
        parent,
        "attachment",
    )
    assert fields_of(lib, key) == {"title": "Full Text PDF"}


def test_a_pdf_saved_from_a_url_is_imported_url(lib: ZoteroLib) -> None:
    parent = lib.add_item()
    key = lib.attach_pdf(parent, PDF, url="https://example.org/p.pdf")
    assert one(lib, "SELECT linkMode, path FROM itemAttachments") == (
        LINK_MODE_IMPORTED_URL,
        f"storage:{PDF.name}",
    )
    got = fields_of(lib, key)
    assert got["url"] == "https://example.org/p.pdf" and SQL_TIME.match(got["accessDate"])
    assert (lib.storage / key / PDF.name).is_file()


def test_a_linked_pdf_is_not_copied(lib: ZoteroLib, tmp_path: Path) -> None:
    parent = lib.add_item()
    key = lib.attach_pdf(parent, PDF, linked=True)
    assert one(lib, "SELECT linkMode, path FROM itemAttachments") == (
        LINK_MODE_LINKED_FILE,
        str(PDF.resolve()),
    )
    assert not (lib.storage / key).exists()
    base = tmp_path / "papers"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "x.pdf").write_bytes(PDF.read_bytes())
    lib.attach_pdf(parent, base / "sub" / "x.pdf", linked=True, base_dir=base)
    paths = {p for (p,) in rows(lib, "SELECT path FROM itemAttachments")}
    assert "attachments:sub/x.pdf" in paths


def test_notes_are_note_items_without_item_data(lib: ZoteroLib) -> None:
    parent = lib.add_item()
    child = lib.add_note(parent, "<p>First &amp; line</p><p>second</p>")
    alone = lib.add_note(None, '<div class="zotero-note znv1"><p>kept</p></div>')
    assert one(
        lib, "SELECT note, title FROM itemNotes JOIN items USING (itemID) WHERE key=?", child
    ) == (
        '<div class="zotero-note znv1"><p>First &amp; line</p><p>second</p></div>',
        "First & line",
    )
    note = "SELECT note, parentItemID FROM itemNotes JOIN items USING (itemID) WHERE key=?"
    assert one(lib, note, alone) == ('<div class="zotero-note znv1"><p>kept</p></div>', None)
    assert fields_of(lib, child) == {}
    type_sql = "SELECT typeName FROM items JOIN itemTypesCombined USING (itemTypeID) WHERE key=?"
    assert one(lib, type_sql, child) == "note"


def test_update_item_moves_date_modified_strictly_forward(lib: ZoteroLib) -> None:
    a, b = lib.add_collection("A"), lib.add_collection("B")
    key = lib.add_item(fields={"title": "Old", "volume": "3"}, tags=["x"], collections=[a])
    stamps = "SELECT dateModified, clientDateModified, synced, version FROM items WHERE key=?"
    before = one(lib, stamps, key)
    lib.update_item(
        key,
        fields={"title": "New", "volume": ""},
        tags=["y"],
        collections=[b],
        creators=[("author", "Ada", "Lovelace")],
    )
    after = one(lib, stamps, key)
    assert after[0] > before[0] and after[1] > before[1]
    assert after[2:] == (0, 0)
    assert fields_of(lib, key) == {"title": "New"}
    assert rows(lib, "SELECT name FROM tags JOIN itemTags USING (tagID)") == [("y",)]
    assert rows(lib, "SELECT key FROM collections JOIN collectionItems USING (collectionID)") == [
        (b,)
    ]
    lib.update_item(key, fields={"title": "Newer"})
    assert one(lib, stamps, key)[0] > after[0]
    lib.update_item(key, date_modified="2030-01-01 00:00:00")
    assert one(lib, stamps, key)[0] == "2030-01-01 00:00:00"


def test_move_changes_membership_but_not_date_modified(lib: ZoteroLib) -> None:
    a, b, c = (lib.add_collection(n) for n in "ABC")
    key = lib.add_item(collections=[a, b])
    stamps = "SELECT dateModified, clientDateModified FROM items WHERE key=?"
    before = one(lib, stamps, key)
    lib.move(key, [b, c])
    members = "SELECT c.key FROM collectionItems ci JOIN collections c USING (collectionID)"
    assert {k for (k,) in rows(lib, members)} == {b, c}
    after = one(lib, stamps, key)
    assert after[0] == before[0] and after[1] > before[1]
    lib.move(key, [])
    assert rows(lib, members) == []


def test_trash_marks_the_item_and_restore_unmarks_it(lib: ZoteroLib) -> None:
    key = lib.add_item()
    pdf = lib.attach_pdf(key, PDF)
    modified = one(lib, "SELECT dateModified FROM items WHERE key=?", key)
    lib.trash(key)
    trashed = "SELECT i.key FROM deletedItems d JOIN items i USING (itemID)"
    assert rows(lib, trashed) == [(key,)]  # the child attachment is not itself in the trash
    assert one(lib, "SELECT dateModified FROM items WHERE key=?", key) == modified
    assert SQL_TIME.match(one(lib, "SELECT dateDeleted FROM deletedItems"))
    assert (lib.storage / pdf).is_dir()
    lib.restore(key)
    assert rows(lib, trashed) == []


def test_delete_erases_the_item_its_children_and_their_files(lib: ZoteroLib) -> None:
    shelf = lib.add_collection("Shelf")
    key = lib.add_item(fields={"title": "Gone"}, tags=["t"], collections=[shelf])
    stored = lib.attach_pdf(key, PDF)
    linked = lib.attach_pdf(key, PDF, linked=True)
    note = lib.add_note(key, "<p>n</p>")
    keep = lib.add_item(fields={"title": "Kept"})
    lib.trash(key)
    lib.delete(key)
    assert rows(lib, "SELECT key FROM items") == [(keep,)]
    for table in ("itemAttachments", "itemNotes", "deletedItems", "collectionItems", "itemTags"):
        assert one(lib, f"SELECT COUNT(*) FROM {table}") == 0, table
    assert not (lib.storage / stored).exists()
    assert PDF.is_file()  # a linked file is not Zotero's to delete
    logged = rows(lib, "SELECT syncObjectTypeID, libraryID, key FROM syncDeleteLog")
    assert sorted(logged) == sorted((3, 1, k) for k in (key, stored, linked, note))


def test_lock_blocks_other_connections_but_not_immutable_readers(lib: ZoteroLib) -> None:
    first = lib.add_item(fields={"title": "before"})
    db = lib.db_path
    with lib.lock():
        writer = sqlite3.connect(db, timeout=0)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            writer.execute("SELECT COUNT(*) FROM items").fetchone()
        writer.close()
        second = lib.add_item(fields={"title": "during"})  # Zotero keeps writing
        with contextlib.closing(sqlite3.connect(f"file:{db}?immutable=1", uri=True)) as reader:
            keys = {k for (k,) in reader.execute("SELECT key FROM items")}
        assert keys == {first, second}
        assert db.with_name("zotero.sqlite-journal").exists()
    with contextlib.closing(sqlite3.connect(db, timeout=0)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("ROLLBACK")


def test_better_bibtex_citation_keys(lib: ZoteroLib) -> None:
    a, b = lib.add_item(), lib.add_item()
    path = lib.write_bbt_citekeys({a: "lecun2015", b: "hinton2006"})
    lib.write_bbt_citekeys({a: "lecun2015deep"}, pinned=True)
    assert path == lib.root / "better-bibtex.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as con:
        columns = [r[1] for r in con.execute("PRAGMA table_info(citationkey)")]
        got = con.execute(
            "SELECT itemID, itemKey, libraryID, citationKey, pinned FROM citationkey ORDER BY 1"
        ).fetchall()
    assert columns == ["itemID", "itemKey", "libraryID", "citationKey", "pinned"]
    assert got == [
        (lib.item_id(a), a, 1, "lecun2015deep", 1),
        (lib.item_id(b), b, 1, "hinton2006", 0),
    ]


def test_better_bibtex_legacy_loki_layout(lib: ZoteroLib) -> None:
    a = lib.add_item()
    path = lib.write_bbt_citekeys({a: "old2019"}, layout="loki")
    with contextlib.closing(sqlite3.connect(path)) as con:
        data = con.execute(
            'SELECT data FROM "better-bibtex" WHERE name=?', ("better-bibtex.citekey",)
        ).fetchone()[0]
    (record,) = json.loads(data)["data"]
    assert {k: record[k] for k in ("itemID", "itemKey", "libraryID", "citekey", "pinned")} == {
        "itemID": lib.item_id(a),
        "itemKey": a,
        "libraryID": 1,
        "citekey": "old2019",
        "pinned": False,
    }


def test_collections_nest_and_go_to_the_trash(lib: ZoteroLib) -> None:
    top = lib.add_collection("Top")
    sub = lib.add_collection("Sub", parent=top)
    parent = one(
        lib,
        "SELECT p.key FROM collections c JOIN collections p "
        "ON p.collectionID = c.parentCollectionID WHERE c.key=?",
        sub,
    )
    assert parent == top
    lib.trash_collection(sub)
    trashed = "SELECT c.key FROM deletedCollections JOIN collections c USING (collectionID)"
    assert rows(lib, trashed) == [(sub,)]


def test_group_libraries_and_raw_fields(lib: ZoteroLib) -> None:
    library = lib.add_group_library("Lab", 4242)
    assert rows(lib, "SELECT libraryID, type FROM libraries ORDER BY 1") == [
        (1, "user"),
        (library, "group"),
    ]
    assert one(lib, "SELECT groupID, name FROM groups") == (4242, "Lab")
    shelf = lib.add_collection("Group shelf", library_id=library)
    key = lib.add_item(fields={"title": "G"}, collections=[shelf], library_id=library)
    assert one(lib, "SELECT libraryID FROM items WHERE key=?", key) == library
    with pytest.raises(ValueError, match="user library"):
        lib.attach_pdf(key, PDF, linked=True)
    lib.set_field_raw(key, "proceedingsTitle", "not valid for the type")
    lib.set_field_raw(key, "date", "March 2019")
    assert fields_of(lib, key) == {
        "title": "G",
        "proceedingsTitle": "not valid for the type",
        "date": "March 2019",
    }


def test_an_existing_directory_is_reopened(tmp_path: Path) -> None:
    key = ZoteroLib(tmp_path, "7").add_item(fields={"title": "T"})
    again = ZoteroLib(tmp_path, "7")
    assert fields_of(again, key) == {"title": "T"}
    with pytest.raises(ValueError, match="not a Zotero 6"):
        ZoteroLib(tmp_path, "6")
