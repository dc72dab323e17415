"""Screenshots of the Library tab (for the README): the table sorted newest first, a paper
with its full text picked, and the picture of the library; at desktop and phone width.

Serves an index (``--data-dir``, or one made here from ``--corpus``: the sample and the
real test PDFs into a collection) with `paperchat serve` and drives it in headless
Chromium (Debian's, as in the UI tests).

    python bench/library_screenshot.py --out docs/ui-library.png --phone docs/ui-library-phone.png
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ui_screenshot import launch, served  # noqa: E402

PDFS = ROOT / "tests" / "data" / "real_pdfs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data-dir", type=Path, help="an index to show (else one is made)")
    ap.add_argument("--pick", default="", help="a title to open (the first row's if none)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "ui-library.png")
    ap.add_argument("--phone", type=Path, help="also a screenshot at phone width (390 px)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    cli = [sys.executable, "-m", "ui.cli.main"]
    if args.data_dir:
        env["PAPERCHAT_DATA_DIR"] = str(args.data_dir)
    else:
        env["PAPERCHAT_DATA_DIR"] = tempfile.mkdtemp(prefix="paperchat-shot-")
        pdfs = sorted(map(str, PDFS.glob("*.pdf")))  # not the folder: its truth.jsonl is no library
        for more in ([str(ROOT / "data" / "sample")], [*pdfs, "--collection", "PDFs"]):
            subprocess.run([*cli, "ingest", *more], env=env, check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    with served(cli, env) as url, sync_playwright() as p:
        browser = launch(p)
        for out, width, height in ((args.out, 1280, 900), (args.phone, 390, 844)):
            if out is None:
                continue
            page = browser.new_page(viewport={"width": width, "height": height})
            _library(page, url, args.pick)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out), full_page=True)
            page.close()
            print(f"saved {out}")
        browser.close()


def _library(page: object, url: str, pick: str) -> None:
    """The Library tab, newest first, ``pick`` opened, the picture drawn."""
    page.goto(url, wait_until="domcontentloaded")  # type: ignore[attr-defined]
    page.wait_for_selector("#pc-question textarea", timeout=30_000)  # type: ignore[attr-defined]
    page.get_by_role("tab", name="Library").click()  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#pc-lib-note').innerText.includes('papers')"
    )
    page.locator("#pc-lib-sort input").click()  # type: ignore[attr-defined]
    page.locator("[role=option]", has_text="Year").first.click()  # type: ignore[attr-defined]
    page.locator("#pc-lib-direction label", has_text="descending").click()  # type: ignore[attr-defined]
    page.wait_for_timeout(1500)  # type: ignore[attr-defined]
    cells = page.locator("#pc-lib-table .body-cell")  # type: ignore[attr-defined]
    (cells.filter(has_text=pick) if pick else cells).first.click()
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#pc-lib-paper h3')"
    )
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#pc-lib-themes-note').innerText.includes('Themes')",
        timeout=30_000,
    )
    page.wait_for_timeout(1000)  # type: ignore[attr-defined]  # the charts draw


if __name__ == "__main__":
    main()
