"""Zotero sync through each face users reach it by, real parts really started: POST
/api/zotero/sync over a socket, `paperchat serve --zotero-sync-every` as a process, and the
Library tab's "Sync Zotero" button in headless Chromium. The library is a real zotero.sqlite
(tests/zotero_lib.py); what the sync itself stores is tested in test_zotero.py."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port, server_process
from tests.test_api import Server
from tests.test_zotero import ABSTRACT, _library
from ui.cli.main import main

KEY = "pc-test-key-zotero-41c9"
TITLES = (
    "Drift of soil moisture sensors in irrigated maize",
    "A paper whose abstract only its PDF has",
    "Irrigation Handbook",
)


def _sync(url: str, body: Mapping[str, object], **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/api/zotero/sync", json=body, headers=headers, timeout=60)


def _papers(url: str) -> dict[str, object]:
    response = httpx.get(f"{url}/api/papers", params={"limit": 50}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


# -- the JSON API ------------------------------------------------------------------------------


@pytest.mark.integration
def test_api_syncs_a_zotero_library_and_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    with Server(tmp_path / "data", ui=False) as server:
        first = _sync(server.url, {"zotero_dir": str(z.root)})
        assert first.status_code == 200, first.text
        data = first.json()
        assert (data["items"], data["added"], data["trashed"]) == (3, 3, 1), data
        assert data["ok"] and data["chunks_written"] > 3  # the PDFs' text too
        listed = _papers(server.url)
        assert listed["total"] == 3
        assert {p["title"] for p in listed["papers"]} == set(TITLES)  # type: ignore[attr-defined]

        again = _sync(server.url, {"zotero_dir": str(z.root)}).json()
        assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 3), again
        assert again["chunks_written"] == 0 and again["removed"] == []

        elsewhere = tmp_path / "not-a-zotero-dir"
        elsewhere.mkdir()
        refused = _sync(server.url, {"zotero_dir": str(elsewhere)})
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        # The server's paths are cut to their last part (ui/http/errors.py scrub_paths).
        assert "not-a-zotero-dir is not a Zotero data directory" in error["message"]
        assert str(tmp_path) not in error["message"] and error["code"] == "bad_ingest"

        both = _sync(server.url, {"zotero_dir": str(z.root), "library": "users/7"})
        assert both.status_code == 422 and "not both" in both.json()["error"]["message"]
        bad = _sync(server.url, {"library": "me"})
        assert bad.status_code == 422 and "library" in bad.json()["error"]["message"]
        assert _papers(server.url)["total"] == 3  # nothing refused changed anything


@pytest.mark.integration
def test_api_sync_needs_the_key_when_one_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z, _ = _library(tmp_path / "Zotero")
    monkeypatch.setenv("PAPERCHAT_API_KEY", KEY)
    with Server(tmp_path / "data", ui=False) as server:
        body = {"zotero_dir": str(z.root)}
        assert _sync(server.url, body).status_code == 401
        assert _sync(server.url, body, authorization="Bearer wrong-key").status_code == 401
        headers = {"authorization": f"Bearer {KEY}"}
        assert httpx.get(f"{server.url}/api/papers", headers=headers).json()["total"] == 0
        done = _sync(server.url, body, **headers)
        assert done.status_code == 200 and done.json()["added"] == 3, done.text


# -- paperchat serve --zotero-sync-every ---------------------------------------------------------


def _wait_for_papers(url: str, count: int, log: Path, timeout: float = 30) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        listed = _papers(url)
        titles = [str(p["title"]) for p in listed["papers"]]  # type: ignore[attr-defined]
        if listed["total"] == count:
            return titles
        if time.monotonic() > deadline:
            raise AssertionError(f"{titles} after {timeout} s, not {count}: {log.read_text()}")
        time.sleep(0.3)


@pytest.mark.integration
def test_serve_keeps_the_zotero_library_in_step(tmp_path: Path) -> None:
    z, _ = _library(tmp_path / "Zotero")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PAPERCHAT_ZOTERO_DIR": str(z.root),
           "PAPERCHAT_DATA_DIR": str(tmp_path / "served")}  # fmt: skip
    # Every 0.02 minutes: a sync at start, then every 1.2 s.
    cmd = [sys.executable, "-m", "ui.cli.main", "serve", "--no-ui", "--port", str(port),
           "--zotero-sync-every", "0.02"]  # fmt: skip
    with server_process(cmd, port, tmp_path, env=env):
        log = tmp_path / "server.log"
        assert sorted(_wait_for_papers(url, 3, log)) == sorted(TITLES)
        z.add_item(
            "journalArticle",
            fields={"title": "Tensiometers against capacitance probes in sandy loam",
                    "abstractNote": ABSTRACT + " Compared with tensiometers.", "date": "2022"},
            creators=[("author", "Barbara", "McClintock")],
        )  # fmt: skip
        titles = _wait_for_papers(url, 4, log, timeout=20)
        assert "Tensiometers against capacitance probes in sandy loam" in titles
        assert "Traceback" not in log.read_text()


def test_periodic_sync_refuses_several_workers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # With or without a Chroma server (never reached: serving stops before it starts), the
    # sync is what is refused, before the workers' need of a server.
    for host in ("", "127.0.0.1"):
        monkeypatch.setenv("PAPERCHAT_CHROMA_HOST", host)
        assert main(["serve", "--workers", "2", "--zotero-sync-every", "5"]) == 1
        err = capsys.readouterr().err
        assert "--zotero-sync-every syncs from one process" in err and "--workers 1" in err
    monkeypatch.setenv("PAPERCHAT_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERCHAT_CHROMA_PORT", "9")
    assert main(["serve", "--workers", "2", "--zotero-sync-every", "5"]) == 1
    err = capsys.readouterr().err
    assert "--zotero-sync-every" in err and "--workers 1" in err, err
    for bad in ("-1", "inf", "nan", "0.001"):
        assert main(["serve", "--zotero-sync-every", bad]) == 1
        assert "between 0.01 and 525600 minutes" in capsys.readouterr().err


# -- the Library tab in Chromium -----------------------------------------------------------------


@pytest.fixture
def ui_page(tmp_path: Path) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    from tests.test_ui import launch_chromium

    with Server(tmp_path / "data") as server, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(server.url, wait_until="domcontentloaded")
            page.wait_for_selector("#pc-question textarea", timeout=30_000)
            yield page
        finally:
            browser.close()


@pytest.mark.browser
def test_sync_zotero_button_fills_the_library(ui_page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = ui_page
    z, _ = _library(tmp_path / "Zotero")
    page.get_by_role("tab", name="Library").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-note').innerText.includes('0 papers')"
    )
    box = page.locator("#pc-zotero-dir textarea, #pc-zotero-dir input").first
    box.fill(str(tmp_path))  # not a Zotero data directory: said, nothing stored
    page.locator("#pc-zotero-sync").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('Error:')",
        timeout=30_000,
    )
    assert "is not a Zotero data directory" in page.locator("#pc-lib-report").inner_text()
    box.fill(str(z.root))
    page.locator("#pc-zotero-sync").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('Added 3')",
        timeout=30_000,
    )
    report = page.locator("#pc-lib-report").inner_text()
    assert "Zotero: 3 items, 3 collections" in report and "unchanged 0" in report, report
    table = page.locator("#pc-lib-table").inner_text()
    assert all(title in table for title in TITLES), table
    assert "3 papers" in page.locator("#pc-status").inner_text()
    page.locator("#pc-zotero-sync").click()  # again: nothing new
    page.wait_for_function(
        "() => document.querySelector('#pc-lib-report').innerText.includes('unchanged 3')",
        timeout=30_000,
    )
    assert "Added 0" in page.locator("#pc-lib-report").inner_text()
