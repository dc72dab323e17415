"""A screenshot of the chat UI answering an example question (for the README), or of the
Library tab after "Sync Zotero".

Starts `paperchat serve` on an index of the given corpus, asks the first example question
in headless Chromium (Debian's, as in the UI tests) and saves the page as a PNG. With
``--zotero DIR`` it syncs that Zotero data directory from the Library tab instead.

    python bench/ui_screenshot.py --corpus data/sample --out docs/ui.png
    python bench/ui_screenshot.py --corpus data/sample --zotero ~/Zotero --out docs/ui-zotero.png
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ui.web.page import EXAMPLES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, nargs="+", default=[ROOT / "data" / "sample"])
    ap.add_argument("--question", default=EXAMPLES[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "ui.png")
    ap.add_argument("--zotero", type=Path, help="sync this Zotero data directory in the UI")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    env["PAPERCHAT_DATA_DIR"] = tempfile.mkdtemp(prefix="paperchat-shot-")
    cli = [sys.executable, "-m", "ui.cli.main"]
    subprocess.run([*cli, "ingest", *map(str, args.corpus)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    with served(cli, env) as url, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url, wait_until="domcontentloaded")
        if args.zotero:
            _sync_zotero(page, args.zotero, args.out)
            browser.close()
            return
        box = page.locator("#pc-question textarea")
        box.wait_for(timeout=30_000)
        box.fill(args.question)
        box.press("Enter")
        page.wait_for_selector("#pc-sources .pc-source", timeout=30_000)
        page.wait_for_function("() => document.querySelector('#pc-chat').innerText.includes('[1]')")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out), full_page=True)
        browser.close()
    print(f"saved {args.out}")


@contextlib.contextmanager
def served(cli: list[str], env: dict[str, str]) -> Iterator[str]:
    """`paperchat serve` on a free port, ready (its /healthz answers): its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([*cli, "serve", "--port", str(port)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/healthz", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def launch(playwright: Any) -> Any:
    """Debian's headless Chromium, as the UI tests run it."""
    return playwright.chromium.launch(
        executable_path=shutil.which("chromium") or "/usr/bin/chromium",
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run"],
    )  # fmt: skip


def _sync_zotero(page: object, folder: Path, out: Path) -> None:
    """The Library tab after syncing ``folder``, the first Zotero paper picked."""
    page.get_by_role("tab", name="Library").click()  # type: ignore[attr-defined]
    box = page.locator("#pc-zotero-dir textarea")  # type: ignore[attr-defined]
    box.fill(str(folder))
    page.locator("#pc-zotero-sync").click()  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#pc-lib-report').innerText.includes('Zotero:')",
        timeout=120_000,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), full_page=True)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
