"""Choose TIE (rag.answer.extractive): how close to the best retrieval score a paper must be
for the answer to quote it too, leaving one library out.

For each value of ``--grid`` the held-out answer bench (bench/answers.py with ``--held-out``
and ``--tie``) is run on the three libraries; each library's gold citations are scored as
the F1 of their recall and precision (per answerable question with a gold paper, as the
bench reports them): quoting a near-tied paper finds the gold one more often and cites
more papers that are not. For each library, the value with the best summed F1 on the
other two is its held-out choice, and that library's figures at that value are its held-out
figures; the value best on all three is the one to ship.

    python bench/fit_tie.py --pubmedqa ../shared/bench/pubmedqa --scifact ../shared/bench/scifact

Saves bench/results/tie_fit.json (each run's answers are kept under ``--runs``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GRID = (0.0, 0.01, 0.03, 0.06, 0.1, 0.2)


def f1(summary: dict[str, Any]) -> float:
    """The F1 of a library's gold citations (0.0 when it has none)."""
    recall, precision = summary["gold_cited"]["recall"], summary["gold_cited"]["precision"]
    return 2 * recall * precision / (recall + precision) if recall and precision else 0.0


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "gold_f1": round(f1(summary), 4),
        "gold_recall": summary["gold_cited"]["recall"],
        "gold_precision": summary["gold_cited"]["precision"],
        "gold_cited": f"{summary['gold_cited']['count']}/{summary['gold_cited']['n']}",
        "key_facts": f"{summary['key_facts']['stated']}/{summary['key_facts']['asked']}",
        "conversations": f"{summary['conversations_right']['count']}/"
        f"{summary['conversations_right']['n']}",
        "median_words": summary["median_words"],
    }


def choose(runs: dict[float, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """The held-out choice for each library and the choice on all (``runs``: tie -> library
    -> the bench's summary over all its questions); the smaller value on a tie."""
    libraries = sorted(next(iter(runs.values())))

    def best(over: list[str]) -> float:
        return max(runs, key=lambda t: (round(sum(f1(runs[t][n]) for n in over), 6), -t))

    held = {}
    for name in libraries:
        pick = best([n for n in libraries if n != name])
        held[name] = {"tie": pick, **figures(runs[pick][name])}
    return {
        "grid": {str(t): {n: figures(s) for n, s in runs[t].items()} for t in sorted(runs)},
        "held_out": held,
        "fitted_on_all": best(libraries),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pubmedqa", type=Path, required=True)
    ap.add_argument("--scifact", type=Path, required=True)
    ap.add_argument("--grid", type=float, nargs="+", default=list(GRID))
    ap.add_argument("--params", type=Path, default=ROOT / "bench/results/answer_params.json",
                    help="bench/fit_answers.py's held-out parameters")  # fmt: skip
    ap.add_argument("--runs", type=Path, default=Path(tempfile.gettempdir()) / "paperchat-tie")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/tie_fit.json")
    args = ap.parse_args()
    args.runs.mkdir(parents=True, exist_ok=True)
    runs: dict[float, dict[str, dict[str, Any]]] = {}
    for tie in args.grid:
        out = args.runs / f"answers_tie_{tie}.json"
        subprocess.run(
            [sys.executable, str(ROOT / "bench/answers.py"), "--pubmedqa", str(args.pubmedqa),
             "--scifact", str(args.scifact), "--held-out", str(args.params), "--tie", str(tie),
             "--out", str(out)],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        result = json.loads(out.read_text())
        runs[tie] = {n: d["extractive"]["all"] for n, d in result["domains"].items()}
        print(f"tie {tie}: " + "  ".join(
            f"{n} F1 {f1(s):.4f} conv {s['conversations_right']['count']}"
            for n, s in runs[tie].items()), flush=True)  # fmt: skip
    chosen = choose(runs)
    for name, fig in chosen["held_out"].items():
        print(f"held out {name}: tie {fig['tie']}  {fig}")
    print(f"fitted on all: tie {chosen['fitted_on_all']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(chosen, indent=1) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
