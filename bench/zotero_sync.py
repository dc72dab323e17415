"""Zotero sync at 1,000 items with PDFs: the first sync, a re-sync with no change, and a
change of 10 items, side by side in one run.

    python bench/zotero_sync.py --corpus ../shared/bench/scifact/corpus.jsonl [--items 1000]

A real ``zotero.sqlite`` (Zotero 7's schema, tests/zotero_lib.py) is filled with the first
``--items`` titled abstracts of a BEIR-style corpus (``_id``, ``title``, ``text``) as journal
articles, each in one of 12 nested collections and with a stored PDF made from it
(tests/pdfgen.py: title, authors, abstract, and a body page holding the next record's
abstract). Then, in this process (the offline MiniLM embedder, embedded Chroma):

* **first**: ``Ingester.sync_zotero`` on the empty index: seconds, items/s, chunks;
* **again**: the same, nothing changed in Zotero: seconds and what was embedded (nothing);
  and ``paperchat zotero sync`` as a command (process start and index load included);
* **ten**: 10 items edited in Zotero (5 abstracts, 3 moved to another collection, 2 in the
  trash): what was read again, re-embedded, moved and removed;
* peak resident memory.

Printed and saved as JSON in bench/results/zotero_sync.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.settings import load_settings  # noqa: E402
from tests.pdfgen import make_paper  # noqa: E402
from tests.zotero_lib import ZoteroLib  # noqa: E402
from ui.app import App  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def _records(corpus: Path, n: int) -> list[dict[str, str]]:
    out = []
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("title") and len(row.get("text", "")) > 200:
                out.append(row)
            if len(out) > n:
                break
    return out


def _pdf_text(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def build(root: Path, records: list[dict[str, str]], n: int) -> tuple[ZoteroLib, list[str], float]:
    t0 = time.perf_counter()
    z = ZoteroLib(root / "Zotero", "7", seed=1)
    tops = [z.add_collection(f"Topic {i}") for i in range(4)]
    subs = [z.add_collection(f"Part {j}", parent=tops[j % 4]) for j in range(8)]
    folders = tops + subs
    pdfs = root / "pdfs"
    pdfs.mkdir()
    keys = []
    for i, row in enumerate(records[:n]):
        key = z.add_item(
            "journalArticle",
            fields={
                "title": row["title"][:250],
                "abstractNote": row["text"],
                "date": str(1990 + i % 35),
            },
            creators=[("author", "Ada", f"Author{i}"), ("author", "Alan", "Turing")],
            tags=[f"tag{i % 7}"],
            collections=[folders[i % len(folders)]],
        )
        pdf = make_paper(
            pdfs / f"{i}.pdf", layout="one-column", title=_pdf_text(row["title"][:200]),
            authors=(f"Ada Author{i}", "Alan Turing"), abstract=_pdf_text(row["text"]),
            body=_pdf_text(records[i + 1]["text"]), year=1990 + i % 35,
        ).path  # fmt: skip
        z.attach_pdf(key, pdf)
        keys.append(key)
    return z, keys, time.perf_counter() - t0


def _sync(app: App, z: ZoteroLib) -> dict[str, Any]:
    t0 = time.perf_counter()
    report = app.ingester.sync_zotero(z.root)
    seconds = time.perf_counter() - t0
    data = report.to_json()
    return {
        "seconds": round(seconds, 2),
        "items": data["items"],
        "read_again": data["added"] + data["updated"] + report.ingest.unchanged,
        "added": data["added"],
        "updated": data["updated"],
        "unchanged": data["unchanged"],
        "removed": len(data["removed"]),
        "moved": data["moved"],
        "chunks_written": data["chunks_written"],
        "skipped": data["skipped_count"],
        "skipped_reasons": [s["reason"] for s in data["skipped"][:5]],
        "unread": data["attachments_unread"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True, help="BEIR corpus.jsonl with titles")
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=RESULTS / "zotero_sync.json")
    args = ap.parse_args()
    records = _records(args.corpus, args.items)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["PAPERCHAT_DATA_DIR"] = str(root / "data")
        z, keys, built = build(root, records, args.items)
        print(f"built a Zotero library of {len(keys)} items with PDFs in {built:.0f} s")
        app = App.from_settings(load_settings())
        first = _sync(app, z)
        print("first sync:", first)
        again = _sync(app, z)
        print("re-sync, no change:", again)
        env = os.environ | {"PAPERCHAT_DATA_DIR": str(root / "data")}
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "ui.cli.main", "zotero", "sync", str(z.root), "--json"],
            cwd=ROOT, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        command = {"seconds": round(time.perf_counter() - t0, 2), "exit": done.returncode}
        command |= {k: json.loads(done.stdout)[k] for k in ("unchanged", "chunks_written")}
        print("re-sync as a command:", command)
        for key in keys[:5]:
            z.update_item(key, fields={"abstractNote": records[keys.index(key)]["text"]
                                       + " A sentence added in Zotero."})  # fmt: skip
        for key in keys[5:8]:
            z.move(key, [])
        for key in keys[8:10]:
            z.trash(key)
        ten = _sync(app, z)
        print("10 items changed:", ten)
    result = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "items": len(keys),
        "build_seconds": round(built, 1),
        "first": first,
        "again": again,
        "again_command": command,
        "ten_changed": ten,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
