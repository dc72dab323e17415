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

import pytest

from tests.conftest import ROOT, SAMPLE
from tests.fakes import make_source
from tests.test_api import Server
from ui.cli.main import main
from ui.web.chat import EXAMPLES
from ui.web.render import answer_markdown, md_escape, sources_html

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"

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
        [sys.executable, "-c", "import ui.web.chat, ui.web.gradio_import as g, gradio;"
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
    html = sources_html([Citation(1, src, EVIL["abstract"])])
    assert "<script>" not in html and "&lt;script&gt;" in html and "<img" not in html
    text = answer_markdown("Poisoning [1].", [Citation(1, src, "Cache poisoning")], mode="x")
    assert "**References**" in text and "<script>" not in text


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

    if not Path(CHROMIUM).exists():
        pytest.fail("the UI tests need Debian's chromium: apt-get install -y chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(ui_server, wait_until="domcontentloaded")
        page.wait_for_selector("#pc-question textarea", timeout=30_000)
        yield page
        browser.close()


def _ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    count = "() => document.querySelector('#pc-chat').innerText.split('References').length"
    before = page.evaluate(count)
    box = page.locator("#pc-question textarea")
    box.fill(question)
    box.press("Enter")
    # Done when this answer's reference list is in the chat and the panel lists its sources.
    page.wait_for_function(
        f"n => ({count})() > n && document.querySelector('#pc-sources .pc-source')",
        arg=before,
        timeout=30_000,
    )


@pytest.mark.browser
def test_asking_an_example_shows_cited_answer_and_sources(page) -> None:  # type: ignore[no-untyped-def]
    assert "extractive" in page.locator("#pc-status").inner_text()
    page.get_by_text(EXAMPLES[0]).first.click()  # an example fills the box
    page.wait_for_function(
        "q => document.querySelector('#pc-question textarea').value === q",
        arg=EXAMPLES[0],
        timeout=10_000,
    )
    _ask(page, EXAMPLES[0])
    chat = page.locator("#pc-chat").inner_text()
    assert "[1]" in chat and "Quoted from the abstracts" in chat and "References" in chat
    panel = page.locator("#pc-sources").inner_text()
    assert "[1]" in panel and "KCache" in panel and "000_135f4ddd7a3bf578.txt" in panel
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui.png"), full_page=True)


@pytest.mark.browser
def test_paper_text_is_shown_not_run(page) -> None:  # type: ignore[no-untyped-def]
    _ask(page, "How do cache poisoning attacks inject links into KV cache serving systems?")
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
