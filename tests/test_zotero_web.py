"""ingest/zotero/web.py against a fake Zotero web API on loopback (tests/zotero_webfake.py):
the first read, a group, incremental reads (only ``since=`` asked, PDFs downloaded only
when their md5 changed), paging, a library changing between pages, refused keys, unknown
libraries, an unreachable server, a corrupt cache, failed downloads, retries and the
``collection=`` filter."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.zotero.records import Creator, Library
from ingest.zotero.web import CACHE_FILE, LINKED, read_web
from rag.errors import ConfigError, SourceError
from tests.conftest import free_port
from tests.zotero_webfake import Failure, FakeLibrary, FakeZotero, Request, fake_zotero

pytestmark = pytest.mark.integration

KEY = "zotero-test-key"
PDFS = Path(__file__).parent / "data" / "real_pdfs"
PDF = (PDFS / "submission_363.pdf").read_bytes()
PDF2 = (PDFS / "footnotes-test.pdf").read_bytes()


@pytest.fixture
def fake() -> Iterator[FakeZotero]:
    with fake_zotero(KEY) as running:
        yield running


def _read(fake: FakeZotero, cache: Path, library: str = "users/1", **options: Any) -> Library:
    options.setdefault("backoff", 0.01)
    return read_web(library, api_key=KEY, cache_dir=cache, endpoint=fake.url, **options)


def _populate(lib: FakeLibrary) -> dict[str, str]:
    """Three regular items of three types in nested collections, a PDF, a linked PDF, a
    note, a trashed item and a standalone PDF."""
    keys: dict[str, str] = {}
    keys["ml"] = lib.add_collection("Machine Learning")
    keys["nlp"] = lib.add_collection("NLP", parent=keys["ml"])
    keys["physics"] = lib.add_collection("Physics")
    keys["article"] = lib.add_item(
        "journalArticle",
        title="Attention Is All You Need",
        creators=[
            {"creatorType": "author", "firstName": "Ashish", "lastName": "Vaswani"},
            {"creatorType": "author", "firstName": "Noam", "lastName": "Shazeer"},
            {"creatorType": "editor", "name": "Transformer Society"},
        ],
        tags=["transformers", "attention"],
        collections=[keys["nlp"]],
        publicationTitle="Journal of Attention",
        DOI="10.1000/attention",
        date="2017",
        extra="arXiv: 1706.03762\nCitation Key: vaswani2017attention",
    )
    keys["paper"] = lib.add_item(
        "conferencePaper",
        title="Resonance Fluorescence",
        creators=[{"creatorType": "author", "firstName": "Clemens", "lastName": "Matthiesen"}],
        collections=[keys["ml"], keys["physics"]],
        proceedingsTitle="Proceedings of OECS 12",
        conferenceName="OECS",
        citationKey="matthiesen2012",
    )
    keys["book"] = lib.add_item(
        "book",
        title="Statistical Mechanics",
        creators=[{"creatorType": "author", "name": "Landau Institute"}],
        collections=[keys["physics"]],
        publisher="Pergamon",
    )
    keys["pdf"] = lib.add_attachment(keys["article"], pdf=PDF, filename="Vaswani 2017.pdf")
    keys["linked"] = lib.add_attachment(keys["paper"], link_mode="linked_file")
    keys["note"] = lib.add_note(keys["article"], "<p>Read section 3 again</p>")
    keys["draft"] = lib.add_item("report", title="An old draft")
    lib.trash(keys["draft"])
    keys["loose"] = lib.add_attachment("", pdf=PDF2, filename="loose.pdf")
    return keys


def _by_key(library: Library) -> dict[str, Any]:
    return {item.key: item for item in library.items}


def _queries(requests: list[Request]) -> list[dict[str, str]]:
    """The queries of the API requests (not of file downloads and their storage)."""
    return [
        r.query
        for r in requests
        if not r.path.endswith("/file") and not r.path.startswith("/storage/")
    ]


# -- a first read --------------------------------------------------------------------------


def test_first_read_maps_items_collections_creators_tags_and_downloads_the_pdf(
    fake: FakeZotero, tmp_path: Path
) -> None:
    lib = fake.library("users", 1)
    keys = _populate(lib)
    library = _read(fake, tmp_path / "cache")

    assert library.source == "zotero.org/users/1" and library.library == "users/1"
    assert library.version == str(lib.version)
    assert library.collections == ["Machine Learning", "Machine Learning/NLP", "Physics"]
    items = _by_key(library)
    assert set(items) == {keys["article"], keys["paper"], keys["book"]}  # no note, no PDF
    assert library.trashed == {keys["draft"]}

    article = items[keys["article"]]
    assert article.item_type == "journalArticle"
    assert article.fields["title"] == "Attention Is All You Need"
    assert article.fields["DOI"] == "10.1000/attention"
    assert article.fields["venue"] == "Journal of Attention"
    assert "abstractNote" not in article.fields  # empty in the API's JSON
    assert not {"key", "version", "dateAdded", "dateModified"} & article.fields.keys()
    assert article.creators == (
        Creator("author", last="Vaswani", first="Ashish"),
        Creator("author", last="Shazeer", first="Noam"),
        Creator("editor", name="Transformer Society"),
    )
    assert article.tags == ("transformers", "attention")
    assert article.collections == ("Machine Learning/NLP",)
    assert article.citation_key == "vaswani2017attention"
    data = lib.items[keys["article"]]
    assert article.version == f"{data['version']} {data['dateModified']}"

    (pdf,) = article.attachments
    assert pdf.key == keys["pdf"] and pdf.title == "Full Text PDF" and not pdf.problem
    assert pdf.path is not None and pdf.path.read_bytes() == PDF
    assert pdf.path == (tmp_path / "cache" / "files" / keys["pdf"] / "Vaswani 2017.pdf")
    assert pdf.signature == hashlib.md5(PDF).hexdigest() and not pdf.linked

    paper = items[keys["paper"]]
    assert paper.fields["venue"] == "Proceedings of OECS 12"
    assert paper.citation_key == "matthiesen2012"
    assert set(paper.collections) == {"Machine Learning", "Physics"}
    (linked,) = paper.attachments
    assert linked.path is None and linked.linked and linked.problem == LINKED

    book = items[keys["book"]]
    assert book.creators == (Creator("author", name="Landau Institute"),)
    assert "venue" not in book.fields and book.fields["publisher"] == "Pergamon"

    # everything asked for once, no since=; only the attached PDF downloaded
    queries = _queries(fake.requests)
    assert not any("since" in q for q in queries)
    assert [r.path for r in fake.requests] == [
        "/users/1/collections",
        "/users/1/items",
        f"/users/1/items/{keys['pdf']}/file",
        f"/storage/users-1/{keys['pdf']}/{hashlib.md5(PDF).hexdigest()}",  # the redirect
    ]
    assert fake.served("/users/1/items")[0].query["includeTrashed"] == "1"
    assert [r.path for r in fake.downloads()] == [f"/users/1/items/{keys['pdf']}/file"]
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    cache = json.loads((tmp_path / "cache" / CACHE_FILE).read_text())
    assert cache["version"] == lib.version and keys["note"] in cache["items"]


def test_a_group_library(fake: FakeZotero, tmp_path: Path) -> None:
    group = fake.library("groups", 456, "Lab")
    article = group.add_item(title="A Group Paper", publicationTitle="Lab Notes")
    attachment = group.add_attachment(article, pdf=PDF)
    library = _read(fake, tmp_path / "cache", "groups/456")
    assert library.source == "zotero.org/groups/456" and library.library == "groups/456"
    (item,) = library.items
    assert item.fields["venue"] == "Lab Notes"
    assert item.attachments[0].key == attachment and item.attachments[0].path is not None
    assert all(r.path.startswith(("/groups/456/", "/storage/")) for r in fake.requests)


# -- incremental reads ---------------------------------------------------------------------


def test_an_unchanged_library_costs_one_conditional_request_and_no_download(
    fake: FakeZotero, tmp_path: Path
) -> None:
    lib = fake.library()
    _populate(lib)
    first = _read(fake, tmp_path / "cache")
    fake.clear()
    again = _read(fake, tmp_path / "cache")
    assert again.items == first.items and again.trashed == first.trashed
    assert again.version == first.version
    (only,) = fake.requests
    assert only.path == "/users/1/collections"
    assert only.query["since"] == str(lib.version)
    assert only.headers["if-modified-since-version"] == str(lib.version)
    assert not fake.downloads()


def test_changes_are_read_with_since_and_only_changed_pdfs_downloaded(
    fake: FakeZotero, tmp_path: Path
) -> None:
    lib = fake.library()
    keys = _populate(lib)
    cache = tmp_path / "cache"
    _read(fake, cache)
    seen = lib.version
    fake.clear()

    new = lib.add_item("preprint", title="A New Preprint", repository="arXiv")
    new_pdf = lib.add_attachment(new, pdf=PDF2, filename="new.pdf")
    lib.modify(keys["article"], title="Attention Is Still All You Need", tags=["classic"])
    lib.trash(keys["book"])
    lib.delete(keys["paper"])
    lib.add_collection("Reading", parent=keys["physics"])
    lib.trash(keys["nlp"])  # a collection in the trash (Zotero 7)
    library = _read(fake, cache)

    assert all(q.get("since") == str(seen) for q in _queries(fake.requests))
    assert "limit" not in fake.served("/users/1/deleted")[0].query  # all deletions at once
    assert [r.path for r in fake.served("/users/1/") if not r.path.endswith("/file")] == [
        "/users/1/collections",
        "/users/1/items",
        "/users/1/deleted",
    ]
    items = _by_key(library)
    assert set(items) == {keys["article"], new}
    assert items[keys["article"]].fields["title"] == "Attention Is Still All You Need"
    assert items[keys["article"]].tags == ("classic",)
    assert library.trashed == {keys["draft"], keys["book"]}
    assert library.collections == ["Machine Learning", "Physics", "Physics/Reading"]
    assert items[keys["article"]].collections == ()  # its only collection is in the trash
    assert library.version == str(lib.version)
    # the article's PDF is unchanged: only the new one was downloaded
    assert [r.path for r in fake.downloads()] == [f"/users/1/items/{new_pdf}/file"]
    (article_pdf,) = items[keys["article"]].attachments
    assert article_pdf.path is not None and article_pdf.path.read_bytes() == PDF

    # a new file for the article's attachment: downloaded again, the old one replaced
    fake.clear()
    lib.replace_file(keys["pdf"], PDF2, filename="vaswani-v2.pdf")
    (pdf,) = _by_key(_read(fake, cache))[keys["article"]].attachments
    assert [r.path for r in fake.downloads()] == [f"/users/1/items/{keys['pdf']}/file"]
    assert pdf.path is not None and pdf.path.name == "vaswani-v2.pdf"
    assert pdf.path.read_bytes() == PDF2 and pdf.signature == hashlib.md5(PDF2).hexdigest()
    assert [p.name for p in pdf.path.parent.iterdir()] == ["vaswani-v2.pdf"]

    # an item deleted for good takes its downloaded PDF with it
    lib.delete(new)
    library = _read(fake, cache)
    assert new not in _by_key(library)
    assert not (cache / "files" / new_pdf).exists()
    assert (cache / "files" / keys["pdf"]).exists()


def test_more_than_a_page_of_items(fake: FakeZotero, tmp_path: Path) -> None:
    lib = fake.library()
    made = {lib.add_item(title=f"Paper {i}") for i in range(150)}
    library = _read(fake, tmp_path / "cache")
    assert {item.key for item in library.items} == made
    pages = fake.served("/users/1/items")
    assert [(r.query.get("start", "0"), r.query["limit"]) for r in pages] == [
        ("0", "100"),
        ("100", "100"),
    ]

    fake.clear()  # changes spread over pages, read incrementally
    for key in sorted(made)[:120]:
        lib.modify(key, title=f"Revised {key}")
    items = _by_key(_read(fake, tmp_path / "cache"))
    assert sum(item.fields["title"].startswith("Revised") for item in items.values()) == 120
    assert len(fake.served("/users/1/items")) == 2


def test_a_library_changing_between_pages_is_read_again(fake: FakeZotero, tmp_path: Path) -> None:
    """An item deleted while the pages are read shifts the next page: the pass sees the
    library's version move and is run again, so no item is missed."""
    lib = fake.library()
    for i in range(150):
        lib.add_item(title=f"Paper {i}")
    victim = next(iter(lib.items))
    done = threading.Event()

    def delete_once(request: Request) -> None:
        if request.query.get("start") == "100" and not done.is_set():
            done.set()
            lib.delete(victim)

    fake.before = delete_once
    library = _read(fake, tmp_path / "cache")
    assert {item.key for item in library.items} == set(lib.items)
    assert library.version == str(lib.version) and not library.problems
    assert len(fake.served("/users/1/collections")) == 2  # a second pass
    fake.before = None
    fake.clear()
    _read(fake, tmp_path / "cache")
    assert len(fake.requests) == 1  # and the version stored is right: 304


# -- errors --------------------------------------------------------------------------------


def test_a_bad_key_is_a_source_error_saying_what_to_check(fake: FakeZotero, tmp_path: Path) -> None:
    fake.library().add_item(title="Private")
    with pytest.raises(SourceError) as caught:
        read_web(
            "users/1",
            api_key="wrong-key-123",
            cache_dir=tmp_path / "cache",
            endpoint=fake.url,
        )
    message = str(caught.value)
    assert "HTTP 403" in message and "ZOTERO_API_KEY" in message
    assert "https://www.zotero.org/settings/keys" in message
    assert "wrong-key-123" not in message and "\n" not in message


def test_an_unknown_library_is_a_source_error(fake: FakeZotero, tmp_path: Path) -> None:
    fake.library("users", 1)
    with pytest.raises(SourceError, match="HTTP 404") as caught:
        _read(fake, tmp_path / "cache", "users/999")
    assert "Find your user ID at https://www.zotero.org/settings/keys" in str(caught.value)
    with pytest.raises(SourceError, match="group ID"):
        _read(fake, tmp_path / "cache", "groups/5")
    with pytest.raises(ConfigError, match="users/<id>"):
        _read(fake, tmp_path / "cache", "ada")


def test_a_server_that_cannot_be_reached(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(SourceError, match="could not reach") as caught:
        read_web("users/1", api_key=KEY, cache_dir=tmp_path / "cache", endpoint=endpoint)
    assert endpoint in str(caught.value)


def test_busy_server_is_tried_again(fake: FakeZotero, tmp_path: Path) -> None:
    fake.library().add_item(title="Patience")
    fake.fail("/items", Failure(429, b"Rate limit exceeded", (("Retry-After", "0"),)))
    fake.fail("/collections", Failure(503, b"Service Unavailable"))
    (item,) = _read(fake, tmp_path / "cache").items
    assert item.fields["title"] == "Patience"
    fake.fail("/collections", *[Failure(500)] * 3)
    with pytest.raises(SourceError, match=r"HTTP 500 after 3 attempt\(s\); try again later"):
        _read(fake, tmp_path / "other", retries=2)


def test_a_server_too_slow_to_answer(fake: FakeZotero, tmp_path: Path) -> None:
    fake.library()
    fake.fail("/collections", Failure(200, b"[]", delay=1.0), Failure(200, b"[]", delay=1.0))
    with pytest.raises(SourceError, match=r"no answer within 0.2 s after 2 attempt\(s\)"):
        _read(fake, tmp_path / "cache", timeout=0.2, retries=1)


def test_a_library_that_went_back_is_read_in_full(fake: FakeZotero, tmp_path: Path) -> None:
    lib = fake.library()
    keys = _populate(lib)
    cache = tmp_path / "cache"
    _read(fake, cache)
    data = json.loads((cache / CACHE_FILE).read_text())
    data["version"] += 100  # as if the server's library were restored from a backup
    data["items"]["ZZZZZZZZ"] = {"key": "ZZZZZZZZ", "itemType": "book", "version": 1}
    (cache / CACHE_FILE).write_text(json.dumps(data))
    fake.clear()
    library = _read(fake, cache)
    assert set(_by_key(library)) == {keys["article"], keys["paper"], keys["book"]}
    assert library.version == str(lib.version)
    assert [r.query.get("since") for r in fake.served("/users/1/collections")] == [
        str(data["version"]),
        None,
    ]


def test_a_corrupt_cache_is_set_aside_and_the_library_read_in_full(
    fake: FakeZotero, tmp_path: Path
) -> None:
    lib = fake.library()
    keys = _populate(lib)
    cache = tmp_path / "cache"
    first = _read(fake, cache)
    (cache / CACHE_FILE).write_text('{"format": 1, "version": ')
    fake.clear()
    again = _read(fake, cache)
    assert again.items == first.items and again.trashed == first.trashed
    assert (cache / (CACHE_FILE + ".corrupt")).read_text() == '{"format": 1, "version": '
    assert not any("since" in q for q in _queries(fake.requests))
    assert not fake.downloads()  # the PDF on disk has the right md5: kept
    assert any("set aside" in what for _, what in again.problems)
    assert _by_key(again)[keys["article"]].attachments[0].path is not None
    fake.clear()
    assert not _read(fake, cache).problems and len(fake.requests) == 1


# -- downloads -----------------------------------------------------------------------------


def test_a_missing_file_sets_the_problem_and_keeps_the_item(
    fake: FakeZotero, tmp_path: Path
) -> None:
    lib = fake.library()
    article = lib.add_item(title="Has a PDF on WebDAV")
    gone = lib.add_attachment(article, pdf=PDF, filename="gone.pdf")
    lib.serve_file(gone, None)  # its metadata has an md5, the storage has no file
    never = lib.add_attachment(article, pdf=None, filename="never.pdf")
    (item,) = _read(fake, tmp_path / "cache").items
    found = {a.key: a for a in item.attachments}
    assert found[gone].path is None and "HTTP 404" in found[gone].problem
    assert found[never].path is None and "WebDAV" in found[never].problem
    assert [r.path for r in fake.downloads()] == [f"/users/1/items/{gone}/file"]
    fake.clear()
    (item,) = _read(fake, tmp_path / "cache").items  # not asked again for the same md5
    assert not fake.downloads()
    assert "HTTP 404" in {a.key: a for a in item.attachments}[gone].problem


def test_a_failing_or_wrong_download_sets_the_problem(fake: FakeZotero, tmp_path: Path) -> None:
    lib = fake.library()
    article = lib.add_item(title="Flaky storage")
    flaky = lib.add_attachment(article, pdf=PDF)
    html = lib.add_attachment(article, pdf=PDF2, filename="login.pdf")
    lib.serve_file(html, b"<html><body>Please log in</body></html>", "text/html")
    fake.fail(f"/items/{flaky}/file", *[Failure(503)] * 2)
    (item,) = _read(fake, tmp_path / "cache", retries=1).items
    found = {a.key: a for a in item.attachments}
    assert found[flaky].path is None
    assert "HTTP 503 after 2 attempt(s)" in found[flaky].problem
    assert found[flaky].signature == ""  # not read: a later download is a change
    assert found[html].path is None and "not a PDF (text/html" in found[html].problem
    (item,) = _read(fake, tmp_path / "cache", retries=1).items  # 503s are tried again
    found = {a.key: a for a in item.attachments}
    assert found[flaky].path is not None and found[flaky].path.read_bytes() == PDF


# -- collection= ---------------------------------------------------------------------------


def test_collection_keeps_the_items_in_it_and_under_it(fake: FakeZotero, tmp_path: Path) -> None:
    lib = fake.library()
    keys = _populate(lib)
    cache = tmp_path / "cache"
    parent = _read(fake, cache, collection="Machine Learning")
    assert set(_by_key(parent)) == {keys["article"], keys["paper"]}
    child = _read(fake, cache, collection="Machine Learning/NLP")
    assert set(_by_key(child)) == {keys["article"]}
    assert set(_by_key(_read(fake, cache, collection=keys["physics"]))) == {
        keys["paper"],
        keys["book"],
    }
    assert child.trashed == {keys["draft"]}
    with pytest.raises(SourceError, match=r"no collection 'Biology'.*Machine Learning/NLP"):
        _read(fake, cache, collection="Biology")
