"""How well the library's themes read: the picture's themes (rag.library) on libraries of
different fields, each an existing paperchat data directory (bench/answers.py keeps its
libraries under --index-dir: sample, pubmedqa, scifact).

    python bench/themes.py DATA_DIR [DATA_DIR ...] [--held-out 1000]

For each library: the themes as the picture finds them (clusters of an even sample of
stored vectors, named by their words); then papers *not* in that sample (an even sample of
up to --held-out) are placed at the nearest theme by their vectors, and the names are put
to the test on them (a library small enough to be sampled whole is tested on its sample):

- **named**: the share of those papers whose text holds a word of their own theme's name;
- **told apart**: the share whose theme is the one whose name words their text holds most
  (a tie or no name word is a miss); chance is about the largest theme's share (guessing
  it for every paper), so **over chance** is told apart minus the largest theme's share;
- **largest theme**: the share of the papers in the largest theme (one theme holding most
  of a library says little about it).

Each is given for the product's weighing of a name's words (rag.answer.themes.contrast) and
for the others it was chosen over; then, leaving each library out in turn, the weighing
best on the others (mean over chance) and its figure on the one left out.

Prints and saves JSON (bench/results/themes.json).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu_model, save_result  # noqa: E402
from rag import library  # noqa: E402
from rag.answer.themes import contrast, theme_names  # noqa: E402
from rag.settings import load_settings  # noqa: E402
from rag.terms import stem  # noqa: E402
from ui.app import App  # noqa: E402

OUT = ROOT / "bench" / "results" / "themes.json"


def stems(text: str) -> list[str]:
    """The words of ``text``, stemmed as the product stems them ("cells" is "cell")."""
    return [stem(w) for w in re.findall(r"[a-z0-9][a-z0-9-]*", text.casefold())]


def holds(words: list[str], name: str) -> bool:
    """Whether the stemmed ``words`` hold the name (a word or a phrase) as a run of words."""
    wanted = stems(name)
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words)))


# How a word used by a share of a theme's papers and a share elsewhere is weighed: the
# product's (contrast), and the others it was chosen over, by leave one library out.
WEIGHINGS: dict[str, Callable[[float, float], float]] = {
    "contrast": contrast,  # share * log(share / elsewhere)
    "symmetric": lambda share, elsewhere: (share - elsewhere) * math.log(share / elsewhere),
    "difference": lambda share, elsewhere: share - elsewhere,  # the names before
    "ratio": lambda share, elsewhere: math.log(share / elsewhere),
}


def measure(data_dir: Path, held_out: int) -> dict[str, Any]:
    app = App.from_settings(load_settings(data_dir=data_dir))
    engine = app.engine
    catalogue, store = engine.retriever.index.catalogue, engine.store
    start = time.perf_counter()
    found = library.sampled_themes(catalogue, store)
    made_s = time.perf_counter() - start
    if found is None:
        return {"papers": len(catalogue), "themes": []}
    sample, unit = found.ids, found.unit
    groups = [g for g in found.groups if len(g) > 1]
    centres = library._unit(np.stack([unit[g].mean(axis=0) for g in groups]))
    taken = set(sample)
    rest = [pid for pid in catalogue.ids if pid not in taken] or list(sample)  # all sampled:
    # the names are tested on the papers they were made from (said in the result)
    step = max(1, -(-len(rest) // held_out))
    others = rest[::step]
    rows = {r.id: r for r in store.papers(others)}
    vectors = store.paper_vectors(others)
    others = [pid for pid in others if pid in rows and pid in vectors]
    out: dict[str, Any] = {
        "papers": len(catalogue), "sampled": len(sample),
        "tested_on": "the sampled papers" if others[0] in taken else "papers not sampled",
        "held_out": len(others),
        "themes_s": round(made_s, 2),
    }  # fmt: skip
    placed = np.argmax(library._unit(np.stack([vectors[p] for p in others])) @ centres.T, axis=1)
    sizes = np.bincount(placed, minlength=len(groups)) / len(others)
    out["largest_theme"] = round(float(sizes.max()), 3)
    words = [stems(f"{rows[p].name}. {rows[p].abstract}") for p in others]
    out["weighings"] = {}
    for how, weigh in WEIGHINGS.items():
        names = theme_names(found.texts, groups, weigh=weigh)
        hits = np.array([[sum(holds(w, n) for n in name) for name in names] for w in words])
        own = hits[np.arange(len(others)), placed]
        best = hits.max(axis=1)
        alone = (hits == best[:, None]).sum(axis=1) == 1
        told = float(((own == best) & (best > 0) & alone).mean())
        out["weighings"][how] = {
            "named": round(float((own > 0).mean()), 3),
            "told_apart": round(told, 3),
            "told_apart_over_chance": round(told - float(sizes.max()), 3),
            "themes": [{"name": ", ".join(n), "share": round(float(s), 3),
                        "examples": [rows[others[i]].name[:70]
                                     for i in np.flatnonzero(placed == t)[:2]]}
                       for t, (n, s) in enumerate(zip(names, sizes, strict=True))],
        }  # fmt: skip
    return out


def leave_one_out(libraries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """For each library: the weighing best on the others (mean over chance), and how it
    does on this one."""
    out = {}
    for held in libraries:
        fit = [lib for name, lib in libraries.items() if name != held and "weighings" in lib]
        if not fit or "weighings" not in libraries[held]:
            continue
        best = max(WEIGHINGS, key=lambda how: np.mean(
            [lib["weighings"][how]["told_apart_over_chance"] for lib in fit]))  # fmt: skip
        out[held] = {"chosen_on_the_others": best,
                     "told_apart_over_chance": libraries[held]["weighings"][best][
                         "told_apart_over_chance"]}  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dirs", nargs="+", type=Path)
    parser.add_argument("--held-out", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    result: dict[str, Any] = {"machine": cpu_model(), "libraries": {}}
    for data_dir in args.data_dirs:
        r = result["libraries"][data_dir.name] = measure(data_dir, args.held_out)
        print(f"== {data_dir.name}: {r['papers']} papers, themes from {r.get('sampled')} "
              f"in {r.get('themes_s')} s, tested on {r.get('held_out')} "
              f"({r.get('tested_on')}); largest theme {r.get('largest_theme')}")  # fmt: skip
        for how, w in r.get("weighings", {}).items():
            print(f"  {how:10s} named {w['named']:.3f}  told apart {w['told_apart']:.3f} "
                  f"({w['told_apart_over_chance']:+.3f} over chance)")  # fmt: skip
        for t in r.get("weighings", {}).get("contrast", {}).get("themes", []):
            print(f"   {t['share']:5.1%}  {t['name']:45s} | {' / '.join(t['examples'])}")
    result["leave_one_library_out"] = held = leave_one_out(result["libraries"])
    save_result(args.out, result, held)


if __name__ == "__main__":
    main()
