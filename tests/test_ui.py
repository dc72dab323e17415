"""The chat UI in headless Chromium (Debian's, driven by Playwright; no browser download):
ask an example question, wait for the streamed answer, check citations, the sources panel
and that paper text is shown as text. Saves a screenshot in test-artifacts/."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLE
from tests.fakes import make_source
from tests.test_api import Server
from ui.cli.main import main
from ui.web.page import EXAMPLES
from ui.web.render import answer_markdown, md_escape, sources_html

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
ARTIFACTS = ROOT / "test-artifacts"


def launch_chromium(playwright: Any) -> Any:
    """Debian's headless Chromium (every browser test's), or the test fails saying how to
    install it."""
    if not Path(CHROMIUM).exists():
        pytest.fail("the UI tests need Debian's chromium: apt-get install -y chromium")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


EVIL = {
    "id": "evil",
    "title": "Script <script>window.pwned = 1</script> injection in cache abstracts",
    "abstract": 'Cache poisoning <img src=x onerror="window.pwned=2"> attacks inject '
    "[a link](http://attacker.example) into KV cache abstracts. We study cache poisoning "
    "attacks on KV cache serving systems.",
    "authors": ['Mallory <img src=x onerror="window.pwned=3"><b>Bold</b>'],
    "year": 2024,
}


# -- importing gradio --------------------------------------------------------------------------


def test_gradio_imports_without_rewriting_its_stubs() -> None:
    """A fresh interpreter imports the UI; gradio's stub writer is replaced before its first
    component is defined, so no .pyi in its package is touched (if a gradio release renames
    the writer, this fails and ui/gradio_import.py needs a look)."""
    import gradio

    stubs = sorted(Path(gradio.__file__).parent.rglob("*.pyi"))
    before = {p: p.stat().st_mtime_ns for p in stubs}
    done = subprocess.run(
        [sys.executable, "-c", "import ui.web.page, ui.web.gradio_import as g, gradio;"
         "print(g.skips_stub_writing(), gradio.__version__)"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.split()[0] == "True", done.stdout + done.stderr
    assert {p: p.stat().st_mtime_ns for p in stubs} == before


# -- rendering (no browser) -------------------------------------------------------------------


def test_markdown_escaping_keeps_text_as_text() -> None:
    assert md_escape("[1] <script>x</script> *a* [l](http://x)") == (
        r"\[1\] &lt;script&gt;x&lt;/script&gt; \*a\* \[l\]\(http\://x\)"
    )
    from rag.answer.cite import Citation

    src = make_source(1, "evil", "E", EVIL["title"], tuple(EVIL["authors"]), 2024, "e.jsonl",
                 EVIL["abstract"])  # fmt: skip
    html = sources_html([("q <b>", [Citation(1, src, "Cache poisoning")])])
    assert "<script>" not in html and "&lt;script&gt;" in html and "<img" not in html
    assert "q &lt;b&gt;" in html and "<mark>Cache poisoning</mark>" in html
    assert 'id="pc-src-0-1"' in html
    text = answer_markdown("Poisoning [1] <b>.", index=2, mode="model", searched="q")
    assert "[1](#pc-src-2-1)" in text and "<b>" not in text and r"searched\: q" in text


def test_paper_links_are_ours_and_only_http() -> None:
    from rag.records import PaperRow
    from ui.web.render import paper_links

    row = PaperRow(id="arXiv:2406.03243v2", label="x", title="", authors=(), year=None,
                   source="s", position=0, n_chunks=1, url="javascript:alert(1)",
                   doi="10.1145/3600006.3613145")  # fmt: skip
    assert paper_links(row) == [
        ("DOI", "https://doi.org/10.1145/3600006.3613145"),
        ("arXiv", "https://arxiv.org/abs/2406.03243"),
    ]


# -- the page in Chromium ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("ui-index")
    evil = data / "evil.jsonl"
    evil.write_text(json.dumps(EVIL) + "\n")
    assert main(["ingest", str(SAMPLE), str(evil), "--data-dir", str(data), "--json"]) == 0
    with Server(data) as server:
        yield server.url


@pytest.fixture(scope="module")
def page(ui_server: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(ui_server, wait_until="domcontentloaded")
        page.wait_for_selector("#pc-question textarea", timeout=30_000)
        yield page
        browser.close()


GROUPS = "() => document.querySelectorAll('#pc-sources details.pc-group').length"


def _ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    before = page.evaluate(GROUPS)
    box = page.locator("#pc-question textarea")
    box.fill(question)
    box.press("Enter")
    _answered(page, before)


def _answered(page, before: int) -> None:  # type: ignore[no-untyped-def]
    """Wait until the sources panel has one more answer's group than ``before``."""
    page.wait_for_function(f"n => ({GROUPS})() > n", arg=before, timeout=30_000)


@pytest.mark.browser
def test_asking_an_example_shows_cited_answer_and_sources(page) -> None:  # type: ignore[no-untyped-def]
    assert "extractive" in page.locator("#pc-status").inner_text()
    before = page.evaluate(GROUPS)
    page.get_by_role("button", name=EXAMPLES[0]).click()  # an example asks at once
    _answered(page, before)
    chat = page.locator("#pc-chat").inner_text()
    assert "[1]" in chat and "Quoted from the papers" in chat
    assert "References" not in chat  # the sources are listed once, in the panel
    panel = page.locator("#pc-sources").inner_text()
    assert "[1]" in panel and "KCache" in panel and "000_135f4ddd7a3bf578.txt" in panel
    # A marker is a link to its source card: a click flashes the card.
    marker = page.locator("#pc-chat a[href^='#pc-src-']").first
    card_id = marker.get_attribute("href")[1:]
    marker.click()
    page.wait_for_function(
        "id => document.getElementById(id).classList.contains('pc-flash')", arg=card_id
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui.png"), full_page=True)


@pytest.mark.browser
def test_paper_text_is_shown_not_run(page) -> None:  # type: ignore[no-untyped-def]
    _ask(page, "What do cache poisoning attacks inject into KV cache abstracts?")
    assert page.evaluate("() => window.pwned") is None  # no script or handler ran
    # Ingest already strips HTML from titles and abstracts (with a notice); an author name
    # keeps its characters, and the page shows them as characters.
    sources = page.locator("#pc-sources")
    assert 'Mallory <img src=x onerror="window.pwned=3"><b>Bold</b>' in sources.inner_text()
    assert sources.locator("img").count() == 0 and sources.locator("b:text('Bold')").count() == 0
    chat = page.locator("#pc-chat")
    assert chat.locator("a[href*='attacker']").count() == 0  # a link in an abstract is text
    assert "[a link](http://attacker.example)" in chat.inner_text()


@pytest.mark.browser
def test_errors_are_chat_messages(page) -> None:  # type: ignore[no-untyped-def]
    box = page.locator("#pc-question textarea")
    box.fill("why " * 600)  # over PAPERCHAT_MAX_QUESTION_CHARS
    box.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#pc-chat').innerText.includes('Please shorten it')",
        timeout=15_000,
    )
    assert "Traceback" not in page.locator("#pc-chat").inner_text()


@pytest.mark.browser
def test_regenerate_edit_and_new_chat(page) -> None:  # type: ignore[no-untyped-def]
    _ask(page, "What is Llumnix?")
    page.locator("#pc-regenerate").click()  # the last question again: still one answer to it
    page.wait_for_timeout(3000)  # the page shows the same answer before and after: let it run
    page.wait_for_function(
        "() => { const g = document.querySelector('#pc-sources details.pc-group summary');"
        " const t = document.querySelector('#pc-chat').innerText;"
        " return g && g.innerText === 'What is Llumnix?'"
        " && t.split('What is Llumnix?').length === 2 && t.includes('rescheduling'); }",
        timeout=30_000,
    )
    page.locator("#pc-edit").click()  # the last question back in the box, its answer gone
    page.wait_for_function(
        "() => document.querySelector('#pc-question textarea').value === 'What is Llumnix?'"
    )
    assert "What is Llumnix?" not in page.locator("#pc-chat").inner_text()
    page.locator("#pc-new").click()
    page.wait_for_function("() => !document.querySelector('#pc-sources .pc-source')")


@pytest.mark.browser
def test_stop_gives_the_box_back(page) -> None:  # type: ignore[no-untyped-def]
    box = page.locator("#pc-question textarea")
    box.fill("How does ZOOMER reduce the cost of GNN training on huge graphs?")
    box.press("Enter")
    page.locator("#pc-stop").click()
    page.wait_for_function("() => !document.querySelector('#pc-question textarea').disabled")
    page.wait_for_timeout(1500)  # whatever the stopped answer had in flight lands first
    _ask(page, "What is ROAM?")  # and the next question is answered
    newest = page.locator("#pc-sources details.pc-group").first.inner_text()
    assert "What is ROAM?" in newest and "[1] ROAM" in newest


@pytest.mark.browser
def test_library_search_read_add_and_remove(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("tab", name="Library").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-note').innerText.includes('of 33 papers')"
    )
    page.locator("#pc-lib-search textarea, #pc-lib-search input").first.fill("Llumnix")
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-note').innerText.startsWith('1 of 33')"
    )
    page.locator("#pc-lib-table .body-cell", has_text="Llumnix").first.click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-paper').innerText.includes('live migration')"
    )
    new = tmp_path / "new.jsonl"
    abstract = "TinyServe serves tiny models on tiny devices with tiny latency."
    new.write_text(json.dumps({"id": "new-1", "title": "TinyServe", "abstract": abstract}) + "\n")
    page.locator("#pc-upload input[type=file]").set_input_files(str(new))
    page.locator("#pc-add").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('Added 1')",
        timeout=30_000,
    )
    assert "34 papers" in page.locator("#pc-status").inner_text()  # the count is current
    page.locator("#pc-lib-search textarea, #pc-lib-search input").first.fill("TinyServe")
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-note').innerText.startsWith('1 of 34')"
    )
    page.locator("#pc-lib-table .body-cell", has_text="TinyServe").first.click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-paper').innerText.includes('tiny devices')"
    )
    page.locator("#pc-remove").click()  # asks first (tests/test_ui_library_browser.py)
    page.locator("#pc-remove-yes").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('Removed new-1')"
    )
    assert "33 papers" in page.locator("#pc-status").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-library.png"), full_page=True)
    page.get_by_role("tab", name="Chat").click()


@pytest.mark.browser
def test_phone_width_puts_the_sources_below_the_chat(page) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        _ask(page, "How does KCache reduce the memory overhead of the KV cache?")
        chat = page.locator("#pc-chat").bounding_box()
        sources = page.locator("#pc-sources").bounding_box()
        assert sources["y"] > chat["y"] + chat["height"] - 1  # below, not squeezed beside
        assert chat["width"] > 300
        page.screenshot(path=str(ARTIFACTS / "ui-phone.png"), full_page=True)
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_a_body_quote_card_says_where_it_is_printed() -> None:
    from rag.answer.cite import Citation
    from rag.retrieve import Passage

    src = make_source(1, "p1", "KCache", "KCache", ("Ann Lee",), 2024, "k.pdf", "An abstract.")
    passage = Passage("p1#5", 5, "Setup first. We train for 3 epochs.", 0.3, "4.2 Training", 7)
    html = sources_html([("q", [Citation(1, src, "We train for 3 epochs.", passage)])])
    assert '<div class="pc-where">p. 7, 4.2 Training</div>' in html
    assert "<summary>Passage, p. 7, 4.2 Training</summary>" in html
    assert "<mark>We train for 3 epochs.</mark>" in html
