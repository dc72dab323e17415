"""The library tab in headless Chromium (as tests/test_ui.py drives it): Remove is disabled
until a paper is picked and asks before it removes (cancel keeps the paper, confirm removes
it); sorting and paging change the rows, served by the engine; "Ask about this paper" sets
the chat's paper filter and shows the chat; the picture of the library is drawn."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import SAMPLE
from tests.test_api import Server
from tests.test_ui import ARTIFACTS, launch_chromium
from ui.cli.main import main

TOPICS = ["KV cache eviction", "federated averaging", "mobile inference", "graph sampling",
          "speculative decoding", "mixture of experts", "data pipelines",
          "vision transformers"]  # fmt: skip
ZEBRA = "Zebra stripes as a benchmark for caching"


def _papers(n: int, start: int = 0) -> str:
    return "".join(
        json.dumps({
            "id": f"g{i:02d}", "title": f"Generated study {i:02d} of {TOPICS[i % len(TOPICS)]}",
            "authors": [f"Author {i}", "Ann Lee"], "year": 2000 + (i * 7) % 25,
            "abstract": f"We study {TOPICS[i % len(TOPICS)]} on setup {i}, and measure how "
                        f"much it helps: {i + 10} percent fewer misses than the baseline.",
        }) + "\n"
        for i in range(start, start + n)
    )  # fmt: skip


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """72 papers: the sample, 30 generated ones and a zebra, and 9 more in a collection."""
    data = tmp_path_factory.mktemp("library-ui")
    more = data / "more.jsonl"
    zebra = {"id": "zebra", "title": ZEBRA, "year": 2024,
             "abstract": "Zebra stripes make a fine benchmark for caching policies."}  # fmt: skip
    more.write_text(_papers(30) + json.dumps(zebra) + "\n")
    thesis = data / "thesis.jsonl"
    thesis.write_text(_papers(9, start=30))
    assert main(["ingest", str(SAMPLE), str(more), "--data-dir", str(data), "--json"]) == 0
    assert main(["ingest", str(thesis), "--collection", "thesis", "--data-dir", str(data),
                 "--json"]) == 0  # fmt: skip
    with Server(data) as server:
        yield server.url


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()


@pytest.fixture
def shelf(browser, server_url: str):  # type: ignore[no-untyped-def]
    """A fresh page on the Library tab."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server_url, wait_until="domcontentloaded")
    page.wait_for_selector("#pc-question textarea", timeout=30_000)
    page.get_by_role("tab", name="Library").click()
    _note(page, "Showing 1–50 of")
    yield page
    page.close()


def _note(page, text: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "t => document.querySelector('#pc-lib-note').innerText.includes(t)", arg=text,
        timeout=15_000,
    )  # fmt: skip


def _page_label(page, text: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "t => document.querySelector('#pc-lib-page').innerText.includes(t)", arg=text,
        timeout=15_000,
    )  # fmt: skip


def _rows(page) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """The table's rows as shown (each cell's text)."""
    cells = page.evaluate(
        "() => Array.from(document.querySelectorAll('#pc-lib-table .body-cell'))"
        ".map(c => c.innerText.trim())"
    )
    return [cells[i : i + 7] for i in range(0, len(cells), 7)]


def _search(page, text: str) -> None:  # type: ignore[no-untyped-def]
    page.locator("#pc-lib-search textarea, #pc-lib-search input").first.fill(text)


def _pick(page, text: str) -> None:  # type: ignore[no-untyped-def]
    page.locator("#pc-lib-table .body-cell", has_text=text).first.click()
    page.wait_for_function(
        "t => document.querySelector('#pc-lib-paper').innerText.includes(t)", arg=text
    )


@pytest.mark.browser
def test_sorting_and_paging_change_the_rows(shelf) -> None:  # type: ignore[no-untyped-def]
    page = shelf
    _page_label(page, "Page 1 of 2")
    previous, following = page.locator("#pc-lib-prev"), page.locator("#pc-lib-next")
    assert previous.is_disabled() and following.is_enabled()
    rows = _rows(page)
    titles = [r[0].casefold() for r in rows]
    assert titles == sorted(titles) and rows[0][0] == "AquilaMoE", rows[:3]
    # the table's own column menu (it would sort the shown page only) is not offered
    page.locator("#pc-lib-table .header-cell").first.hover()
    page.locator("#pc-lib-table .header-cell").first.click()
    assert page.locator("#pc-lib-table .cell-menu-button").count() > 0
    assert not page.locator("#pc-lib-table .cell-menu-button").first.is_visible()
    following.click()
    _page_label(page, "Page 2 of 2")
    _note(page, "Showing 51–72 of 72 papers")
    assert _rows(page)[0][0].casefold() >= titles[-1]
    assert previous.is_enabled() and following.is_disabled()

    page.locator("#pc-lib-sort input").click()  # by year, newest first: back to page 1
    page.locator("[role=option]", has_text="Year").first.click()
    _page_label(page, "Page 1 of 2")
    page.locator("#pc-lib-direction label", has_text="descending").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#pc-lib-table .body-cell')[2].innerText.trim() === '2024'"
    )
    newest = _rows(page)[:3]  # ties in source order: more.jsonl's 7th paper, then the zebra
    assert [r[0] for r in newest] == ["Generated study 07 of vision transformers", ZEBRA,
                                      "Generated study 32 of KV cache eviction"]  # fmt: skip
    page.locator("#pc-lib-direction label", has_text="ascending").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#pc-lib-table .body-cell')[2].innerText.trim() === '2000'"
    )
    _search(page, "thesis")  # a search narrows the pages to one
    _note(page, "of 72 papers match")
    _page_label(page, "Page 1 of 1")


@pytest.mark.browser
def test_ask_about_this_paper_sets_the_chat_filter_and_shows_the_chat(shelf) -> None:  # type: ignore[no-untyped-def]
    page = shelf
    assert not page.locator("#pc-paper-filter").is_visible()
    _search(page, "Llumnix")
    _note(page, "1 of 72 papers match")
    _pick(page, "Llumnix")
    paper = page.locator("#pc-lib-paper").inner_text()
    assert "live migration" in paper and "Id:" in paper
    page.locator("#pc-ask-paper").click()
    page.locator("#pc-question textarea").wait_for(state="visible")  # the Chat tab
    chosen = page.locator("#pc-paper-filter input")
    chosen.wait_for(state="visible")
    assert "Llumnix" in chosen.input_value()
    box = page.locator("#pc-question textarea")  # and the answer reads that paper only
    box.fill("How is the KV cache memory reduced?")  # KCache's question, asked of Llumnix
    box.press("Enter")
    page.wait_for_selector("#pc-sources .pc-source", timeout=30_000)
    cards = page.locator("#pc-sources .pc-source b").all_inner_texts()
    assert cards and all("Llumnix" in card for card in cards), cards


@pytest.mark.browser
def test_the_picture_of_the_library_is_drawn(shelf) -> None:  # type: ignore[no-untyped-def]
    page = shelf
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-themes-note').innerText.includes('Themes read')",
        timeout=30_000,
    )  # fmt: skip
    for chart in ("#pc-lib-years", "#pc-lib-themes"):
        page.locator(f"{chart} canvas, {chart} svg").first.wait_for(state="visible")
        box = page.locator(chart).bounding_box()
        assert box and box["width"] > 200 and box["height"] > 150
    note = page.locator("#pc-lib-themes-note").inner_text()
    assert "32 of 72 papers have no year" in note
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#pc-lib-picture").screenshot(path=str(ARTIFACTS / "ui-library-picture.png"))
    page.screenshot(path=str(ARTIFACTS / "ui-library-panel.png"), full_page=True)


@pytest.mark.browser
def test_remove_is_disabled_until_a_pick_and_asks_first(shelf) -> None:  # type: ignore[no-untyped-def]
    """Last: it removes a paper from the library the others read."""
    page = shelf
    remove = page.locator("#pc-remove")
    assert remove.is_disabled() and page.locator("#pc-ask-paper").is_disabled()
    _search(page, "zebra")
    _note(page, "1 of 72 papers match")
    _pick(page, ZEBRA)
    page.wait_for_function("() => !document.querySelector('#pc-remove').disabled")
    remove.click()  # a question, not a removal
    confirm = page.locator("#pc-remove-yes")
    confirm.wait_for(state="visible")
    assert ZEBRA in confirm.inner_text() and "Really remove" in confirm.inner_text()
    assert not remove.is_visible()
    page.locator("#pc-remove-no").click()  # cancel: the paper stays
    remove.wait_for(state="visible")
    assert not confirm.is_visible() and remove.is_enabled()
    assert "1 of 72 papers match" in page.locator("#pc-lib-note").inner_text()
    remove.click()
    confirm.click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('Removed zebra')"
    )
    _note(page, "0 of 71 papers match")
    assert "71 papers" in page.locator("#pc-status").inner_text()
    assert remove.is_visible() and remove.is_disabled() and not confirm.is_visible()
    assert "Pick a paper" in page.locator("#pc-lib-paper").inner_text()
