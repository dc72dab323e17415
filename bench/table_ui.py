"""How soon the Table tab shows its first row: a real `paperchat serve` on a library, Debian's
Chromium driving the page, the time from the click on "Make table" to the first row on the
screen and to the whole table, for a few searches (issue #45 asks for the first row within
1 s).

    python bench/table_ui.py --data-dir DIR [--queries "q1" "q2" ...] [-k 20]

DIR holds an index (e.g. `paperchat ingest data/sample --data-dir DIR`). Saves
bench/results/table_ui.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["KV cache memory", "distributed training on slow networks", "mobile inference engine"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--queries", nargs="+", default=QUERIES)
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/table_ui.json")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = _port()
    paperchat = Path(sys.executable).with_name("paperchat")
    server = subprocess.Popen(
        [str(paperchat), "serve", "--port", str(port), "--data-dir", str(args.data_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    runs = []
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu"],
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for query in args.queries:  # a fresh page each time: no rows of the last table
                page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded")
                page.wait_for_selector("#pc-question textarea", timeout=60_000)
                page.get_by_role("tab", name="Table").click()
                page.locator("#pc-table-k input[type=number]").first.fill(str(args.k))
                page.locator("#pc-table-query textarea, #pc-table-query input").first.fill(query)
                rows = page.locator("#pc-table-view tbody tr")
                progress = page.locator("#pc-table-progress")
                clock = time.perf_counter()
                page.locator("#pc-table-make").click()
                rows.first.wait_for(timeout=60_000)
                first = time.perf_counter() - clock
                progress.get_by_text("columns.").wait_for(timeout=120_000)
                whole = time.perf_counter() - clock
                runs.append({"query": query, "rows": rows.count(), "first_row_s": round(first, 3),
                             "table_s": round(whole, 3)})  # fmt: skip
                print(json.dumps(runs[-1]))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    result = {"data_dir": str(args.data_dir), "k": args.k, "runs": runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
