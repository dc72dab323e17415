"""The Table tab in headless Chromium, over a real server and index: a table over a
collection fills row by row, a cell opens to its quote in context, sorting by a column's
figure, export. Its screenshot is docs/ui-table.png."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SAMPLE
from tests.test_api import Server
from tests.test_table import PAPERS
from tests.test_ui import ARTIFACTS, launch_chromium
from ui.cli.main import main

pytestmark = [pytest.mark.browser, pytest.mark.integration]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("ui-table-index")
    files = tmp_path_factory.mktemp("ui-table-files")
    (files / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    assert main(["ingest", str(files), "--collection", "review", "--data-dir", str(data)]) == 0
    assert main(["ingest", str(SAMPLE), "--collection", "ML systems", "--data-dir",
                 str(data)]) == 0  # fmt: skip
    with Server(data) as server:
        yield server.url


def _make(page, collection: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("tab", name="Table").click()
    page.locator("#pc-table-kind").get_by_text("Collection", exact=True).click()
    box = page.locator("#pc-table-collection textarea, #pc-table-collection input").first
    box.fill(collection)
    page.locator("#pc-table-make").click()


def test_the_table_tab(ui_server: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(ui_server, wait_until="domcontentloaded")
            page.wait_for_selector("#pc-question textarea", timeout=30_000)

            _make(page, "review")
            progress = page.locator("#pc-table-progress")
            expect(progress).to_contain_text("2 papers, 5 columns.", timeout=60_000)
            rows = page.locator("#pc-table-view tbody tr")
            expect(rows).to_have_count(2)
            expect(page.locator("#pc-table-view thead th")).to_have_count(6)

            # a cell opens to its sentence in context
            cell = page.locator("#pc-table-view tbody tr").first.locator("details").first
            cell.locator("summary").click()
            expect(cell.locator(".pc-context mark")).to_be_visible()

            # sorted by paper, largest first; a bound on a column's figure no cell reaches
            expect(rows.first).to_contain_text("Nurse-led titration")  # the table's order
            page.locator("#pc-table-desc input").check()  # by paper, Z to A
            expect(rows.first).to_contain_text("Nurse-led titration")
            page.locator("#pc-table-desc input").uncheck()  # A to Z
            expect(rows.first).to_contain_text("Household water")
            page.locator("#pc-table-sort input").click()
            page.locator("[role=option]", has_text="Main result").first.click()
            page.locator("#pc-table-at-least input").fill("1000000")
            page.locator("#pc-table-at-least input").press("Enter")
            expect(rows).to_have_count(0)

            page.locator("#pc-table-csv").click()
            expect(page.locator("#pc-table-view ~ * a, .file-preview a").first).to_be_visible(
                timeout=20_000
            )

            # a paper picked in the Library tab, added to the table's rows
            page.get_by_role("tab", name="Library").click()
            page.locator("#pc-lib-search textarea, #pc-lib-search input").first.fill("Household")
            page.locator("#pc-lib-table .body-cell", has_text="Household water").first.click()
            page.wait_for_function(
                "() => document.querySelector('#pc-lib-paper').innerText.includes('Peru')"
            )
            page.locator("#pc-to-table").click()
            page.get_by_role("tab", name="Table").click()
            ids = page.locator("#pc-table-ids textarea, #pc-table-ids input").first
            expect(ids).to_have_value("survey")
            expect(page.locator("#pc-table-kind input[value='Paper ids']")).to_be_checked()

            # the collection the note's screenshot shows
            page.locator("#pc-table-at-least input").fill("")
            page.locator("#pc-table-at-least input").press("Enter")
            _make(page, "ML systems")
            expect(progress).to_contain_text("32 papers, 5 columns.", timeout=120_000)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(ARTIFACTS / "ui-table.png"))
        finally:
            browser.close()
    shutil.copy(ARTIFACTS / "ui-table.png", ROOT / "docs" / "ui-table.png")
