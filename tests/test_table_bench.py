"""bench/table.py's choice between the second stage and the table reader alone, on made-up
cells: each training field judged with the second stage fitted on the others, cells right
counted as the criterion says, a tie keeping the second stage."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.table import COLUMNS, choose

FIELDS = ("f1", "f2", "f3", "f4", "f5", "f6")


def _cell(field: str, column: str, feats: list[list[float]], gold: list[int]) -> dict[str, Any]:
    y = np.zeros(len(feats))
    y[gold] = 1.0
    return {"field": field, "train": True, "paper": f"{field}-p", "column": column,
            "x": np.array(feats, dtype=float), "y": y, "labelled": bool(gold)}  # fmt: skip


def _records(reader: bool) -> list[dict[str, Any]]:
    """Every field: each column one labelled cell (its second sentence) and one empty one.
    With ``reader`` the reader's log-odds tell them (-0.5 on the answer, -4 elsewhere: read
    alone, log-odds >= -1 quote); without, the reader says -4 everywhere and only the cue
    feature marks the answer."""
    out = []
    for field in FIELDS:
        for column in COLUMNS:
            hit = [-0.5 if reader else -4.0, 0.0, 0.0, 0.0 if reader else 1.0, 0.0]
            miss = [-4.0, 0.0, 0.0, 0.0, 0.0]
            out.append(_cell(field, column, [miss, hit, miss], [1]))
            out.append(_cell(field, column, [miss, miss, miss], []))
    return out


def test_a_reader_that_reads_nothing_loses_to_the_second_stage_and_the_cells_are_counted() -> None:
    got = choose(_records(reader=False))
    alone, second = got["reader_alone"]["all"], got["second_stage"]["all"]
    cells = len(FIELDS) * len(COLUMNS) * 2
    # the reader alone quotes nothing: right only on the empty cells
    assert alone["cells"] == cells and alone["right"] == cells // 2
    assert alone["worst_field_right"] == 0.5
    # the second stage learns the cue on five fields and applies it to the sixth
    assert second["right"] == cells and second["worst_field_right"] == 1.0
    assert got["chosen"] == "second_stage"
    assert set(got["fields"]) == set(FIELDS)


def test_a_tie_keeps_the_second_stage() -> None:
    got = choose(_records(reader=True))
    assert got["reader_alone"]["all"]["right"] == got["second_stage"]["all"]["right"]
    assert got["chosen"] == "second_stage"


def test_the_reader_alone_wins_where_the_second_stage_leans_on_a_cue_that_fails_held_out() -> None:
    """The reader alone is right everywhere (-0.9 on the answer, -1.1 elsewhere); a cue word
    marks the answer too, a wider signal the second stage leans on, but in the field held
    out it marks a wrong sentence instead: read alone, every cell is still right."""
    out = []
    for field in FIELDS:
        for column in COLUMNS:
            hit, miss = [-0.9, 0.0, 0.0, 1.0, 0.0], [-1.1, 0.0, 0.0, 0.0, 0.0]
            out.append(_cell(field, column, [miss, hit, miss], [1]))
            out.append(_cell(field, column, [miss, miss, miss], []))
    for r in out[: len(COLUMNS) * 2 : 2]:  # the first field's labelled cells, cue moved
        r["x"][:, 3] = [1.0, 0.0, 0.0]
    got = choose(out)
    assert got["reader_alone"]["all"]["right"] == len(out)
    assert got["second_stage"]["all"]["right"] < len(out)
    assert got["second_stage"]["all"]["worst_field_right"] < 1.0
    assert got["chosen"] == "reader_alone"


def test_every_labels_file_passes_the_writers_check_and_the_training_rounds_never_overlap() -> None:
    """Each labels file against the papers it labels (bench/table_set.py --check): every
    best among its sentences, every value verbatim; no paper drawn twice."""
    from pathlib import Path

    from bench.table_set import _jsonl, check

    data = Path(__file__).resolve().parent.parent / "bench/data/table"
    papers = {p["id"]: p for f in data.glob("papers*.jsonl") for p in _jsonl(f)}
    drawn = [p["id"] for f in data.glob("papers*.jsonl") for p in _jsonl(f)]
    assert len(drawn) == len(set(drawn)) == 48 + 8 * 72
    for path in sorted(data.glob("labels_*.jsonl")):
        labels = _jsonl(path)
        assert check([papers[r["id"]] for r in labels], labels) == [], path.name
    labelled = {r["id"] for f in data.glob("labels_*.jsonl") for r in _jsonl(f)}
    assert labelled == set(papers)


def test_the_check_names_what_is_wrong() -> None:
    from bench.table_set import check

    paper = {"id": "p1", "field": "f", "sentences": ["We ran a trial.", "It worked."]}
    cell = {"sentences": [], "best": None, "value": None}
    row = {"id": "p1", "field": "f", "columns": {c: dict(cell) for c in COLUMNS}}
    assert check([paper], [row]) == []
    row["columns"]["Method"] = {"sentences": [0], "best": 0, "value": "a survey"}
    row["columns"]["Main result"] = {"sentences": [1], "best": 0, "value": "worked"}
    row["columns"]["Sample size"] = {"sentences": [5], "best": 5, "value": "5"}
    assert check([paper], [row]) == [
        "p1 Method: value not verbatim in sentence 0",
        "p1 Main result: best 0 is not among [1]",
        "p1 Sample size: sentences must be indices 0..1",
    ]
    assert check([paper, paper | {"id": "p2"}], [row])[-1] == "p2: no label line"


# bench/table_cut.py: where the reader alone says "stated", and one sentence per column.


def _row(field: str, paper: str, cells: list[tuple[str, list[float], list[int]]]
         ) -> list[dict[str, Any]]:  # fmt: skip
    """One paper's records: per column, the reader's log-odds of the same three sentences
    and which are labelled."""
    out = []
    for column, logodds, gold in cells:
        r = _cell(field, column, [[v, 0, 0, 0, 0] for v in logodds], gold)
        out.append(r | {"paper": paper, "texts": ["s0", "s1", "s2"]})
    return out


def test_a_sentence_fills_one_column_when_exclusive_the_best_scored_pair_first() -> None:
    from bench.table_cut import quoted

    # s1 is best for both columns; Method wants it more (2.0 against 1.5)
    row = _row("f1", "p", [("Method", [-3, 2.0, -3], [1]), ("Main result", [-3, 1.5, 0.5], [2])])
    assert quoted(row, {}, exclusive=False) == [1, 1]
    assert quoted(row, {}, exclusive=True) == [1, 2]
    # nothing else over the cut: the second column says "not stated"
    row[1]["x"][2, 0] = -2.0
    assert quoted(row, {}, exclusive=True) == [1, None]
    # a cut of its own moves where a column is stated
    assert quoted(row, {"Main result": 2.0}, exclusive=False) == [1, None]


def test_a_fitted_cut_gets_most_cells_right_and_stays_nearest_the_shipped_one_of_equals() -> None:
    from bench.table_cut import CUT, fit_cuts

    records = []
    for k in range(6):  # labelled cells read at 0.5, empty ones at -0.5: any cut in between
        records += _row("f1", f"a{k}", [("Method", [0.5, -4, -4], [0])])
        records += _row("f1", f"b{k}", [("Method", [-0.5, -4, -4], [])])
    # every cut in (-0.5, 0.5] gets all twelve right; the one nearest -1 is the midpoint
    assert fit_cuts(records) == {"Method": 0.0}
    # no empty cells: every cut under 0.5 gets all right, so the shipped -1 stands
    assert fit_cuts([r for r in records if r["labelled"]]) == {"Method": CUT}


def test_the_cut_choice_counts_cells_per_way_and_a_tie_goes_to_the_way_shipped() -> None:
    from bench.table_cut import WAYS, choose

    def library(result_cut: float) -> list[dict[str, Any]]:
        out = []
        for field in FIELDS:
            for k in range(3):  # Main result: labelled cells at 0, empty ones at `result_cut`
                out += _row(field, f"a{k}", [("Method", [1, -4, -4], [0]),
                                             ("Main result", [-4, 0.0, -4], [1])])  # fmt: skip
                empty = [-4, result_cut, -4]
                out += _row(field, f"b{k}", [("Method", [1, -4, -4], [0]),
                                             ("Main result", empty, [])])  # fmt: skip
        return out

    # empty Main result cells read at -2, under the shipped cut: every way right everywhere
    got = choose(library(-2.0))
    assert {got["pooled"][w]["all"]["right"] for w in WAYS} == {len(FIELDS) * 12}
    assert got["chosen"] == "shared"
    # read at -0.5 they are quoted by the shipped cut; a fitted cut says "not stated"
    got = choose(library(-0.5))
    assert got["pooled"]["shared"]["all"]["right"] == len(FIELDS) * 9
    assert got["pooled"]["cuts"]["all"]["right"] == len(FIELDS) * 12
    assert got["chosen"] == "cuts" and -0.5 < got["cuts"]["Main result"] <= 0.0
    assert set(got["fields"]) == set(FIELDS)


# -- reading a cell until one sentence is sure (bench/table_stop.py) ---------------------------


def _ordered(field: str, odds: list[float], gold: list[int], order: list[int]) -> dict[str, Any]:
    r = _cell(field, "Method", [[o, 0.0, 0.0, 0.0, 0.0] for o in odds], gold)
    return r | {"order": np.array(order)}


def test_a_cell_read_until_sure_stops_at_the_first_sure_sentence_after_k() -> None:
    from bench.table_stop import read

    r = _ordered("f1", [-3.0, 2.5, 6.0, -0.5], [2], order=[1, 2, 0, 3])
    assert read(r, None) == (2, 4)  # all four read: the best, 6.0
    assert read(r, (1, 2.0)) == (1, 1)  # the first, 2.5, is sure: quoted, nothing more read
    assert read(r, (1, 3.0)) == (2, 2)  # not sure until the second
    assert read(r, (3, 2.0)) == (2, 3)  # three read at least
    assert read(_ordered("f1", [-3.0, -2.0], [], order=[1, 0]), (1, 2.0)) == (None, 2)
    assert read(_ordered("f1", [], [], order=[]), (1, 2.0)) == (None, 0)


def test_the_stop_choice_reads_fewest_pairs_within_the_floor_and_else_reads_all() -> None:
    from bench.table_stop import choose

    # Each field: a cell whose first sentence is sure and right (a stop loses nothing), and
    # 200 cells whose first read is sure (2.5) and wrong while the third is surer (4.5) and
    # right: stopping at s = 2 loses them, s = 3 reads two, three.
    records = []
    for field in FIELDS:
        records.append(_ordered(field, [6.0, -4.0, -4.0], [0], order=[0, 1, 2]))
        records += [_ordered(field, [2.5, -4.0, 4.5], [2], order=[0, 1, 2]) for _ in range(200)]
    got = choose(records)
    full = got["candidates"]["all"]["pooled"]
    assert full["right"] == full["cells"] == 6 * 201 and full["pairs"] == 3 * full["cells"]
    assert got["candidates"]["k=1 s=2"]["pooled"]["right"] == 6  # stopped on the wrong one
    assert got["floor"] == full["right"] - int(0.0025 * full["cells"])
    # s >= 3 reads all three of the 200 (none sure before the third) but one of the first
    assert got["chosen"] == "k=1 s=3" and (got["read_first"], got["sure"]) == (1, 3.0)
    assert got["candidates"]["k=1 s=3"]["pooled"]["pairs"] == 6 * (1 + 600)
    # where a stop that saves pairs loses cells (s = 2) and the others save none, all is read
    worse = [_ordered(f, [2.5, -4.0, 6.0], [2], order=[0, 1, 2]) for f in FIELDS for _ in range(50)]
    got = choose(worse)
    assert got["candidates"]["k=1 s=2"]["pooled"]["right"] == 0
    assert got["chosen"] == "all" and got["sure"] is None
