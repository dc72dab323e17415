"""/docs in headless Chromium with every request beyond loopback refused: Swagger UI must
draw the API from the assets we serve ourselves."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.test_api import Server
from tests.test_ui import launch_chromium

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def test_docs_render_without_a_network(tmp_path: Path) -> None:
    from playwright.sync_api import Route, sync_playwright

    refused: list[str] = []

    def offline(route: Route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    with Server(tmp_path / "empty", ui=False) as server, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page()
            page.route("**/*", offline)
            page.goto(f"{server.url}/docs", wait_until="domcontentloaded")
            page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
            assert "paperchat" in page.locator(".swagger-ui .info .title").inner_text()
            page.get_by_text("/v1/chat/completions").first.wait_for(timeout=10_000)
        finally:
            browser.close()
    assert refused == []
