"""The saved conversations beside the chat, in headless Chromium: ask, reload the page (the
conversation is listed and shown again, sources included), a new chat, open the saved one,
go on with it, search, rename, and delete after a confirmation (cancelled once)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rag.errors import NotFoundError
from tests.conftest import ingested_sample
from tests.test_api import Server
from tests.test_ui import ARTIFACTS, GROUPS, _answered, launch_chromium

QUESTION = "How does KCache reduce the memory overhead of the KV cache?"
TITLE = "How does KCache reduce the memory overhead of…"
LIST = "#pc-convs"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "ui-conversations")


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[str]:
    with Server(data) as running:
        yield running.url


@pytest.fixture
def page(server: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server, wait_until="domcontentloaded")
        page.wait_for_selector("#pc-question textarea", timeout=30_000)
        _loaded(page)
        yield page
        browser.close()


def _loaded(page) -> None:  # type: ignore[no-untyped-def]
    """Wait for the page's load event: the list beside the chat is filled in."""
    page.wait_for_function(
        "() => (document.querySelector('#pc-conv-note')?.innerText || '').trim() !== ''",
        timeout=30_000,
    )


def _checked(page, n: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        f"n => document.querySelectorAll('{LIST} input:checked').length === n", arg=n
    )


def _listed(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.strip() for t in page.locator(f"{LIST} label").all_inner_texts()]


def _wait_text(page, selector: str, text: str, *, present: bool = True) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "([s, t, p]) => { const e = document.querySelector(s);"
        " return !!e && e.innerText.includes(t) === p; }",
        arg=[selector, text, present],
        timeout=30_000,
    )


@pytest.mark.browser
def test_conversations_are_kept_opened_renamed_and_deleted(page, server: str) -> None:  # type: ignore[no-untyped-def]
    box = page.locator("#pc-question textarea")
    box.fill(QUESTION)
    box.press("Enter")
    _answered(page, 0)
    _wait_text(page, LIST, TITLE)  # listed as soon as it is answered
    # Reload: the conversation is in the list, and shown again with its sources.
    page.reload(wait_until="domcontentloaded")
    _wait_text(page, LIST, TITLE)
    _wait_text(page, "#pc-sources", "KCache")
    _wait_text(page, "#pc-chat", QUESTION)
    _checked(page, 1)
    # A new chat empties everything; the saved one stays listed.
    page.locator("#pc-new").click()
    page.wait_for_function("() => !document.querySelector('#pc-sources .pc-source')")
    _wait_text(page, "#pc-chat", QUESTION, present=False)
    _checked(page, 0)
    assert _listed(page) == [TITLE]
    # Open it: its turns and its sources come back, and the next question goes on from it.
    page.get_by_role("radio", name=TITLE).check()
    _wait_text(page, "#pc-chat", QUESTION)
    _wait_text(page, "#pc-sources", "KCache")
    page.wait_for_function(
        "t => document.querySelector('#pc-conv-title input').value === t", arg=TITLE
    )
    before = page.evaluate(GROUPS)
    box.fill("and how much faster is it?")
    box.press("Enter")
    _answered(page, before)
    _wait_text(page, "#pc-chat", "searched: and how much faster is it? KCache")
    cid = httpx.get(f"{server}/api/conversations").json()["conversations"][0]["id"]
    assert httpx.get(f"{server}/api/conversations/{cid}").json()["n_turns"] == 2
    assert _listed(page) == [TITLE]  # the same conversation, not a new one
    # Rename, then find it by its new title.
    title = page.locator("#pc-conv-title input")
    title.fill("KCache notes")
    page.locator("#pc-conv-rename").click()
    _wait_text(page, LIST, "KCache notes")
    search = page.locator("#pc-conv-search input")
    search.fill("zzz")
    _wait_text(page, "#pc-conv-note", "No conversation's title holds that.")
    search.fill("NOTES")
    _wait_text(page, LIST, "KCache notes")
    search.fill("")
    _wait_text(page, "#pc-conv-note", "1 conversation")
    page.wait_for_timeout(500)  # the list settles (no pending event dims it)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-conversations.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})  # the list goes below the chat
    try:
        chat, panel = (page.locator(s).bounding_box() for s in ("#pc-chat", "#pc-convs-panel"))
        assert panel["y"] > chat["y"] + chat["height"]  # type: ignore[index]
        page.screenshot(path=str(ARTIFACTS / "ui-conversations-phone.png"), full_page=True)
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
    # Delete asks first; Cancel keeps it.
    page.locator("#pc-conv-delete").click()
    _wait_text(page, "#pc-conv-confirm", "Delete KCache notes and its 2 questions?")
    page.locator("#pc-conv-delete-no").click()
    page.wait_for_selector("#pc-conv-confirm", state="hidden")
    assert _listed(page) == ["KCache notes"]
    page.locator("#pc-conv-delete").click()
    page.locator("#pc-conv-delete-yes").click()
    _wait_text(page, "#pc-conv-note", "Your conversations are kept here.")
    assert _listed(page) == []
    _wait_text(page, "#pc-chat", QUESTION, present=False)
    assert httpx.get(f"{server}/api/conversations/{cid}").status_code == 404
    page.reload(wait_until="domcontentloaded")  # nothing comes back
    page.wait_for_selector("#pc-question textarea")
    _wait_text(page, "#pc-conv-note", "Your conversations are kept here.")
    assert "KCache" not in page.locator("#pc-chat").inner_text()


def test_regenerate_and_edit_change_the_saved_turns(data: Path) -> None:
    """The chat's handlers without a browser: a regenerated answer replaces the saved
    turn, an edited one is taken out, and a conversation emptied so is gone."""
    from rag.settings import load_settings
    from ui.app import App
    from ui.web import chat
    from ui.web.conversations import SavedChats

    engine = App.from_settings(load_settings(data_dir=data)).engine
    store = engine.conversations
    respond, saved = chat.responder(engine), SavedChats(engine)
    options = ("extractive", 5, chat.ANY_YEAR, chat.ANY_YEAR, "", "")
    *_, (_, shown, turns, answers, _, cid) = respond(QUESTION, [], [], [], "", *options)
    follow = "and how much faster is it?"
    *_, (_, shown, turns, answers, _, again) = respond(follow, shown, turns, answers, cid, *options)
    assert again == cid and store.get(cid)[0].turns == 2 and len(shown) == 4
    question, shown, turns, answers, _, left = saved.pop_last(shown, turns, answers, cid)
    assert question == follow and left == cid and store.get(cid)[0].turns == 1
    *_, (_, shown, turns, answers, _, again) = respond(follow, shown, turns, answers, cid, *options)
    assert again == cid and [t.question for t in store.get(cid)[1]] == [QUESTION, follow]
    exported = Path(chat.export_markdown(turns, answers, "My title") or "").read_text()
    assert exported.startswith("# My title") and exported.count("References") == 2
    saved.pop_last(shown, turns, answers, cid)
    _, shown, turns, answers, _, left = saved.pop_last(shown[:2], turns[:2], answers[:1], cid)
    assert left == "" and turns == []
    with pytest.raises(NotFoundError):
        store.get(cid)
    # Opening a conversation deleted elsewhere gives an empty chat, not an error.
    assert saved.open(cid)[:5] == saved.new()[:5]
