"""The documentation site: reference pages generated from the code, a strict build, and the
built site in headless Chromium (home page, settings reference, search)."""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.settings import Settings
from ui.cli.main import parser
from ui.reference import MissingDocs, cli_page, commands, env_names, http_page, settings_page

ROOT = Path(__file__).resolve().parent.parent
README_LIMIT = 12_000


def test_cli_page_has_every_subcommand_with_its_help() -> None:
    page = cli_page()
    found = list(commands(parser()))
    names = {path for path, _, _ in found}
    # the groups' own subcommands are walked too
    assert {"paperchat ask", "paperchat zotero sync", "paperchat papers show",
            "paperchat conversations show", "paperchat eval retrieval"} <= names  # fmt: skip
    for path, text, sub in found:
        assert f"## {path}\n" in page
        assert text
        for option in (o for a in sub._actions for o in a.option_strings):
            assert option in page, (path, option)


def test_a_subcommand_without_help_fails_the_reference() -> None:
    top = argparse.ArgumentParser(prog="paperchat")
    sub = top.add_subparsers(dest="command")
    sub.add_parser("documented", help="does a thing")
    sub.add_parser("silent")
    with pytest.raises(MissingDocs, match="paperchat silent"):
        cli_page(top)


def test_settings_page_has_every_variable_default_and_description() -> None:
    page = settings_page()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(Settings.model_fields)
    for field, info in Settings.model_fields.items():
        row = next(r for r in rows if r.startswith(f"| `{env_names(field)[0]}`"))
        assert " ".join(str(info.description).split())[:40] in row.replace("\\|", "|")
    assert "| `OPENAI_API_KEY` (or `PAPERCHAT_OPENAI_API_KEY`) | (empty) | secret |" in page
    assert "| `PAPERCHAT_DATA_DIR` | `~/.paperchat` | path |" in page


def test_http_page_has_every_route_of_the_served_schema() -> None:
    schema = {
        "paths": {
            "/api/ask": {"post": {"description": "Answer.", "requestBody": {"content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Ask"}}}}}},
            "/healthz": {"get": {"description": "ok or not ok"}},
        },
        "components": {"schemas": {
            "Ask": {"properties": {"question": {"type": "string"},
                                   "filters": {"$ref": "#/components/schemas/Filters"}},
                    "required": ["question"]},
            "Filters": {"properties": {"year_from": {"type": "integer", "default": None}}},
            "Unused": {"properties": {}},
        }},
    }  # fmt: skip
    page = http_page(schema)
    assert "## POST /api/ask" in page and "## GET /healthz" in page
    assert "### Ask" in page and "### Filters" in page and "### Unused" not in page
    assert "| `question` | string | required |" in page
    assert "| `year_from` | integer | `null` |" in page
    schema["paths"]["/healthz"]["get"]["description"] = ""
    with pytest.raises(MissingDocs, match="GET /healthz"):
        http_page(schema)


def test_readme_is_a_front_page_opening_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text) <= README_LIMIT, f"README.md is {len(text)} characters"
    commands_ = re.findall(r"^make \w+", text.split("```bash", 1)[1].split("```", 1)[0], re.M)
    assert commands_ == ["make run", "make test"]


# --- the built site ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.fail("the docs tests need MkDocs: pip install -e '.[docs]' (make setup-test does)")
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_built_site_documents_every_setting_and_subcommand(site: Path) -> None:
    settings = (site / "reference/settings.html").read_text()
    for field in Settings.model_fields:
        assert env_names(field)[0] in settings, field
    cli = (site / "reference/cli.html").read_text()
    for path, _, _ in commands(parser()):
        assert path in cli, path
    api = (site / "reference/http-api.html").read_text()
    for route in ("/api/ask", "/v1/chat/completions", "/api/papers/{paper_id}", "/healthz"):
        assert route in api, route


@pytest.mark.slow
def test_built_site_loads_nothing_from_the_network(site: Path) -> None:
    remote = re.compile(r"<(?:script|img|iframe)[^>]*\ssrc=\"(?:https?:)?//|"
                        r"<link[^>]*\shref=\"(?:https?:)?//[^\"]*\"[^>]*>")  # fmt: skip
    for page in site.rglob("*.html"):
        text = page.read_text()
        for tag in re.findall(r"<link[^>]*>|<script[^>]*>|<img[^>]*>", text):
            assert not remote.search(tag + ">"), f"{page.relative_to(site)}: {tag}"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.slow
@pytest.mark.browser
def test_site_renders_and_search_finds_zotero(served: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    from tests.test_ui import ARTIFACTS, launch_chromium

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            failed: list[str] = []
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.goto(f"{served}/index.html")
            assert "paperchat" in page.title()
            assert page.locator("article h1").first.inner_text().strip()
            page.screenshot(path=str(ARTIFACTS / "docs-home.png"))

            page.goto(f"{served}/reference/settings.html")
            table = page.locator("article table").first
            assert table.is_visible()
            assert "PAPERCHAT_DATA_DIR" in table.inner_text()
            page.screenshot(path=str(ARTIFACTS / "docs-settings.png"))

            box = page.locator("input.md-search__input")
            hits = page.locator(".md-search-result__item")
            # The search index loads in a web worker: a query typed before it is ready
            # gets no results until the next keystroke, so type it again until it answers.
            for _ in range(20):
                box.click()
                box.fill("")
                box.type("Zotero")
                try:
                    hits.first.wait_for(timeout=1_000)
                    break
                except PlaywrightTimeout:
                    continue
            hits.first.wait_for(timeout=1_000)
            assert "zotero" in hits.first.inner_text().lower()
            page.screenshot(path=str(ARTIFACTS / "docs-search.png"))
            assert not failed, failed
        finally:
            browser.close()


def test_a_settings_marker_becomes_their_table_and_an_unknown_name_fails() -> None:
    from ui.reference import settings_table

    table = settings_table(["PAPERCHAT_CHROMA_PORT", "OPENAI_BASE_URL"])
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == ["PAPERCHAT_CHROMA_PORT", "OPENAI_BASE_URL"]
    with pytest.raises(MissingDocs, match="PAPERCHAT_NO_SUCH"):
        settings_table(["PAPERCHAT_NO_SUCH"])


def test_links_out_of_the_site_become_paths_and_a_missing_file_fails_the_build() -> None:
    import importlib.util
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs/hooks.py")
    assert spec and spec.loader
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="benchmarks.md"))
    config = {"docs_dir": str(ROOT / "docs")}
    md = (
        "See [RULES.md](../bench/data/fields/RULES.md), [the layers](architecture.md) and\n"
        "![plot](../bench/results/scale.png)\n<!-- settings: PAPERCHAT_UI -->\n"
    )
    out = hooks.on_page_markdown(md, page, config, None)
    assert "`bench/data/fields/RULES.md`" in out and "](../bench" not in out
    assert "[the layers](architecture.md)" in out
    assert "![plot](bench-results/scale.png)" in out
    assert "| `PAPERCHAT_UI` |" in out
    with pytest.raises(PluginError, match=r"no_such_file\.py"):
        hooks.on_page_markdown("[x](../bench/no_such_file.py)", page, config, None)
