"""How fast the library panel's pages come: searched, filtered and sorted by the catalogue's
columns (rag.library.library_page, what Engine.library_page runs), at 500k papers; and the
library's picture (papers per year, themes) at 10k papers in a real store.

    python bench/library_paging.py [--papers 500000] [--repeat 20] [--picture 10000]

1. **Paging** on a synthetic catalogue (columns made directly, compacted as a loaded one
   is): titles of words from the sample abstracts (some with accents), 1-12 authors from a
   pool of names, years 1970-2025 (4% undated), 400 files and 15% Zotero items, 0-2 of 8
   collections, 8% without an abstract. Each case is timed on a fresh catalogue object
   first ("cold": nothing kept yet: the search text is made then, and a page near the top
   of a sort is picked by a heap while the full order is made in the background), then
   ``--repeat`` times on the same object once that is done (p50, p95), then on a catalogue
   warmed as Engine.warm_up and a first Engine.library_page warm one (the title order and
   the search text kept: "warmed"). For comparison, the list as the panel made it before:
   every row made, then searched in Python.
2. **The picture** at ``--picture`` papers: the sample corpus ingested for real, then
   synthetic papers anchored on it (bench/scale/synth.py: text and vectors, no embedding)
   written with the product's Store.write; Engine.library_picture cold (vectors read,
   themes clustered and named) and kept.

Prints and saves JSON (bench/results/library_paging.json).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "scale"))

from bench.machine import cpu_model, save_result  # noqa: E402
from rag.index import browse  # noqa: E402
from rag.index.catalogue import Catalogue, compact  # noqa: E402
from rag.library import library_page  # noqa: E402
from rag.retrieve import Filters  # noqa: E402

SAMPLE = ROOT / "data" / "sample"
OUT = ROOT / "bench" / "results" / "library_paging.json"
FAMILIES = ["Zhang", "Li", "Müller", "García", "Smith", "Nguyen", "Kowalski", "Öztürk", "Wang",
            "Chen", "Kim", "Rossi", "Dubois", "Ivanov", "Sato", "Okafor", "Silva", "Jensen",
            "Haddad", "Novák"]  # fmt: skip
GIVEN = ["Ana", "Wei", "Jörg", "Lucía", "John", "Minh", "Ewa", "Ayşe", "Yu", "Jun", "Ji-ho",
         "Marco", "Élodie", "Olga", "Haruto", "Chidi", "João", "Freja", "Omar", "Petr"]  # fmt: skip
COLLECTIONS = ["reading", "thesis", "llm", "systems", "to-cite", "review", "2024", "lab"]


def synthetic_columns(n: int, seed: int = 0) -> dict[str, list[Any]]:
    """``n`` papers' catalogue columns, deterministic for ``seed``."""
    rng = random.Random(seed)
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(SAMPLE.glob("*.txt")))
    words = sorted({w for w in re.findall(r"[A-Za-z][a-z-]{2,}", text)})
    accented = ["Über", "naïve", "Émile", "façade", "Ångström", "señal"]
    files = [f"/home/me/papers/batch-{i:03d}.bib" for i in range(400)]
    cols: dict[str, list[Any]] = {f: [] for f in (
        "id", "label", "title", "authors", "year", "source", "position", "n_chunks", "url", "doi",
        "has_abstract", "entry_type", "cite_key", "collections", "zotero_uri", "coined",
        "acronyms")}  # fmt: skip
    for i in range(n):
        title = rng.choices(words, k=rng.randint(5, 12))
        if rng.random() < 0.03:
            title[0] = rng.choice(accented)
        zotero = rng.random() < 0.15
        cols["id"].append(f"syn:{i:07d}")
        cols["label"].append("")
        cols["title"].append(" ".join(title).capitalize())
        cols["authors"].append([f"{rng.choice(GIVEN)} {rng.choice(FAMILIES)}"
                                for _ in range(rng.randint(1, 12))])  # fmt: skip
        cols["year"].append(None if rng.random() < 0.04 else rng.randint(1970, 2025))
        cols["source"].append("/home/me/Zotero/zotero.sqlite" if zotero else rng.choice(files))
        cols["position"].append(i + 1)
        cols["n_chunks"].append(1)
        cols["url"].append("")
        cols["doi"].append(f"10.1000/{i}")
        cols["has_abstract"].append(rng.random() > 0.08)
        cols["entry_type"].append("article")
        cols["cite_key"].append("")
        cols["collections"].append(rng.sample(COLLECTIONS, k=rng.choice((0, 1, 1, 2))))
        cols["zotero_uri"].append(f"zotero://select/library/items/I{i}" if zotero else "")
        cols["coined"].append("")
        cols["acronyms"].append([])
    return compact(cols)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def timed(make: Callable[[], Catalogue], run: Callable[[Catalogue], Any], repeat: int) -> dict:
    """``run`` on a fresh catalogue (cold: nothing kept yet), then ``repeat`` times on that
    one once what the cold run started in the background is made (the search text, the
    sort order asked for, kept), then
    ``repeat`` times on a catalogue warmed as the engine warms one in the background after
    its first page (rag.index.browse.warm: the search text and the title order kept)."""
    catalogue = make()
    start = time.perf_counter()
    total, rows = run(catalogue)
    cold = time.perf_counter() - start
    _settle()
    again, warmed = _runs(catalogue, run, repeat), make()
    browse.matching(warmed, "-")
    browse.order(warmed, "title")
    kept = _runs(warmed, run, repeat)
    return {
        "matching": total,
        "rows": len(rows),
        "first": rows[0].name[:60] if rows else "",
        "cold_ms": _ms(cold),
        "p50_ms": _ms(statistics.median(again)),
        "p95_ms": _ms(_p95(again)),
        "warmed_p50_ms": _ms(statistics.median(kept)),
        "warmed_p95_ms": _ms(_p95(kept)),
    }


def _settle() -> None:
    """Wait for what a page started in the background (rag.index.browse: a sort order)."""
    time.sleep(0.5)
    for thread in threading.enumerate():
        if thread.name == "paperchat-browse":
            thread.join()


def _runs(catalogue: Catalogue, run: Callable[[Catalogue], Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run(catalogue)
        times.append(time.perf_counter() - start)
    return sorted(times)


def _p95(times: list[float]) -> float:
    return times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


CASES: dict[str, dict[str, Any]] = {
    "first page, source order": {"sort": ""},
    "first page, by title": {"sort": "title"},
    "first page, by title, descending": {"sort": "title", "descending": True},
    "first page, by year, newest first": {"sort": "year", "descending": True},
    "first page, by authors": {"sort": "authors"},
    "first page, by source": {"sort": "source"},
    "first page, by collections": {"sort": "collections"},
    "second page, by title": {"sort": "title", "offset": 50},
    "page 2001, by title (offset 100,000)": {"sort": "title", "offset": 100_000},
    "search 'cache', by title": {"search": "cache"},
    "search 'a' (nearly every paper), by title": {"search": "a"},
    "search 'müller', by year": {"search": "müller", "sort": "year"},
    "search an id": {"search": "syn:0012345"},
    "filter: collection 'thesis', by title": {"filters": Filters(collection="thesis")},
    "filter: 2015-2020 with an abstract, by year": {
        "filters": Filters(year_from=2015, year_to=2020), "has_abstract": True, "sort": "year"},
    "search 'cache' + collection 'llm' + author 'garcía'": {
        "search": "cache", "filters": Filters(collection="llm", author="garcía")},
}  # fmt: skip


def paging(n: int, repeat: int) -> dict[str, Any]:
    start = time.perf_counter()
    columns = synthetic_columns(n)
    made_s = time.perf_counter() - start
    out: dict[str, Any] = {"papers": n, "synthetic_columns_s": round(made_s, 1), "cases": {}}
    for name, options in CASES.items():
        out["cases"][name] = r = timed(
            lambda: Catalogue(columns), lambda c, o=options: library_page(c, **o), repeat
        )
        print(f"{name:55s} cold {r['cold_ms']:7.1f} ms  p50 {r['p50_ms']:7.1f}  "
              f"p95 {r['p95_ms']:7.1f}  warmed p50 {r['warmed_p50_ms']:7.1f}  "
              f"({r['matching']} match)", flush=True)  # fmt: skip

    def before(catalogue: Catalogue) -> tuple[int, list[Any]]:
        rows = catalogue.page(0, len(catalogue))  # what engine.papers() gave the panel
        fields = ((r, (r.name, *r.authors, str(r.year or ""), r.source, r.id)) for r in rows)
        found = [r for r, f in fields if "cache" in " ".join(f).casefold()]
        return len(found), found[:200]

    catalogue = Catalogue(columns)
    start = time.perf_counter()
    before(catalogue)
    out["before: every row made, then searched ('cache'), ms"] = r = _ms(
        time.perf_counter() - start
    )
    print(f"before: every row made and searched: {r:.0f} ms", flush=True)
    return out


def picture(n: int) -> dict[str, Any]:
    """Engine.library_picture over a real store of ``n`` papers (sample + synthetic)."""
    from run import read_base  # bench/scale/run.py
    from synth import Synthesizer

    from rag.engine import Engine
    from rag.settings import load_settings
    from ui.cli.main import main

    with tempfile.TemporaryDirectory(prefix="paperchat-picture-") as tmp:
        data = Path(tmp)
        assert main(["ingest", str(SAMPLE), "--data-dir", str(data), "--json"]) == 0
        _items, _vectors, anchors = read_base(data)
        synth = Synthesizer(anchors, seed=0)
        engine = Engine.from_settings(load_settings(data_dir=data))
        start = time.perf_counter()
        batch, vectors = [], []
        for i in range(n - len(anchors)):
            paper, chunks, vecs = synth.paper(i)
            batch.append((paper, chunks))
            vectors.append(vecs)
            if len(batch) == 1000:
                engine.store.write(batch, np.concatenate(vectors))
                batch, vectors = [], []
        if batch:
            engine.store.write(batch, np.concatenate(vectors))
        engine.refresh()
        built_s = time.perf_counter() - start
        papers = len(engine.retriever.index)
        start = time.perf_counter()
        years = engine.library_picture(themes=False)
        years_s = time.perf_counter() - start
        start = time.perf_counter()
        shown = engine.library_picture()
        cold_s = time.perf_counter() - start
        start = time.perf_counter()
        engine.library_picture()
        kept_s = time.perf_counter() - start
        start = time.perf_counter()
        total, rows = engine.library_page(sort="title")
        page_s = time.perf_counter() - start
        return {
            "papers": papers,
            "store_built_s": round(built_s, 1),
            "years_ms": _ms(years_s),
            "years": len(years.years),
            "picture_cold_ms": _ms(cold_s),
            "picture_kept_ms": _ms(kept_s),
            "themes": [{"name": t.name, "papers": t.papers} for t in shown.themes],
            "themes_read_from": shown.sampled,
            "estimated": shown.estimated,
            "first_page_by_title_ms": _ms(page_s),
            "first_page_rows": len(rows),
            "matching": total,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--picture", type=int, default=10_000, help="0: skip the picture")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    result: dict[str, Any] = {"machine": cpu_model(), "cores": os.cpu_count(),
                              "load_average_before": os.getloadavg(),
                              "repeat": args.repeat}  # fmt: skip
    result["paging"] = paging(args.papers, args.repeat)
    if args.picture:
        result["picture"] = picture(args.picture)
    summary = {
        "paging_ms (cold / p50 / p95 / warmed p50)": {
            name: f"{r['cold_ms']} / {r['p50_ms']} / {r['p95_ms']} / {r['warmed_p50_ms']}"
            for name, r in result["paging"]["cases"].items()
        },
        "picture": result.get("picture"),
    }
    save_result(args.out, result, summary)


if __name__ == "__main__":
    main()
