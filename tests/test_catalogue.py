"""The catalogue by column: rows round-trip exactly, filters select as rows would, damage is
refused (so the lexical index rebuilds), and the saved postings are memory-mapped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.index.catalogue import FIELDS, Catalogue, columns_of, compact
from rag.index.lexical import CATALOGUE, Bm25Params, LexicalIndex
from rag.records import PaperRow
from rag.retrieve import Filters

ROWS = [
    PaperRow(id="kv", label="KCache", title="KCache: memory", authors=("Qiaozhi He", "Zhihua Wu"),
             year=2024, source="a.jsonl", position=0, n_chunks=2, abstract="KV cache offload.",
             url="https://x.org/kv", doi="10.1/kv"),
    PaperRow(id="ünï", label="", title="Ünïcode “quotes” 漢字", authors=(), year=None,
             source="b.bib", position=3, n_chunks=1, abstract="Text with émigré words."),
    PaperRow(id="fed", label="", title="FedLaAvg", authors=("Yang Xiang",), year=2021,
             source="a.jsonl", position=1, n_chunks=3, abstract="Federated averaging."),
]  # fmt: skip


def _bare(row: PaperRow) -> PaperRow:
    return PaperRow.from_mapping(row.to_json())  # no abstract


def test_rows_round_trip_through_a_file_in_order(tmp_path: Path) -> None:
    catalogue = Catalogue.from_rows(ROWS)
    catalogue.save(tmp_path / "c.json")
    loaded = Catalogue.load(tmp_path / "c.json")
    assert list(loaded) == ["kv", "ünï", "fed"] and len(loaded) == 3
    assert [loaded[r.id] for r in ROWS] == [_bare(r) for r in ROWS]  # abstracts stay out
    assert loaded["kv"].abstract == "" and loaded["kv"].authors == ("Qiaozhi He", "Zhihua Wu")
    assert loaded.n_chunks == 6
    assert "fed" in loaded and "nope" not in loaded and loaded.get("nope") is None
    assert loaded.position("fed") == 2 and loaded.position("nope") is None


def test_compact_columns_share_repeated_values_and_keep_every_row(tmp_path: Path) -> None:
    rows = [*ROWS, PaperRow(id="kv2", label="", title="KCache 2", authors=("Qiaozhi He",),
                            year=2024, source="a.jsonl", position=2, n_chunks=1)]  # fmt: skip
    (tmp_path / "c.json").write_text(json.dumps(columns_of(rows)))
    loaded = json.loads((tmp_path / "c.json").read_text())  # one object per value, as JSON has
    compacted = Catalogue(compact(loaded))
    assert [compacted[r.id] for r in rows] == [_bare(r) for r in rows]
    cols = compacted.columns
    assert cols["source"][0] is cols["source"][2] is cols["source"][3]  # "a.jsonl", once
    assert cols["year"][0] is cols["year"][3]
    assert cols["authors"][0][0] is cols["authors"][3][0]  # a name shared by two papers
    assert cols["authors"][1] == () and cols["collections"][0] is cols["collections"][1]
    assert all(type(v) is tuple for f in ("authors", "collections") for v in cols[f])


def test_pages_are_bounded() -> None:
    catalogue = Catalogue.from_rows(ROWS)
    assert [r.id for r in catalogue.page(1, 5)] == ["ünï", "fed"]
    assert catalogue.page(3, 5) == [] and catalogue.page(99, 1) == []
    assert [r.id for r in catalogue.page(0, 1)] == ["kv"]


@pytest.mark.parametrize(
    "filters",
    [
        Filters(year_from=2022),
        Filters(year_to=2021),
        Filters(author="ZHIHUA"),
        Filters(source="bib"),
        Filters(year_from=2020, author="xiang"),
        Filters(author="nobody"),
    ],
)
def test_select_agrees_with_filtering_rows(filters: Filters) -> None:
    catalogue = Catalogue.from_rows(ROWS)
    assert catalogue.select(filters.keeps) == {r.id for r in ROWS if filters.matches(r)}


def _columns(ids: list[str]) -> dict[str, list[object]]:
    return {f: list(ids) for f in FIELDS} | {"n_chunks": [1] * len(ids)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "not a catalogue"),
        ('{"id": ["a"]}', "columns missing"),
        (json.dumps(_columns(["a", "b"]) | {"n_chunks": [1]}), "differ in length"),
        (json.dumps(_columns(["a", "a"])), "id twice"),
    ],
)
def test_a_damaged_catalogue_is_refused(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "c.json").write_text(text)
    with pytest.raises(ValueError, match=message):
        Catalogue.load(tmp_path / "c.json")


@pytest.mark.parametrize("content", [b"", b'{"id": ["a", "b"', b"\x00\xff\xfe binary"])
def test_truncated_or_binary_catalogue_is_an_error_not_a_crash(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "c.json").write_bytes(content)
    with pytest.raises(ValueError):  # json and unicode errors are ValueErrors
        Catalogue.load(tmp_path / "c.json")


def test_saved_index_loads_the_same_and_damage_is_refused(tmp_path: Path) -> None:
    params = Bm25Params()
    index = LexicalIndex.build(ROWS, params=params, generation="g1", directory=tmp_path / "lex")
    loaded = LexicalIndex.load(tmp_path / "lex", params=params)
    assert loaded is not None and loaded.generation == "g1" and loaded.consistent
    assert loaded.search("federated averaging", k=3) == index.search("federated averaging", k=3)
    assert loaded.search("federated averaging", k=3)[0][0] == "fed"
    in_source_order = sorted(ROWS, key=lambda r: (r.source, r.position, r.id))
    assert [loaded.catalogue[p] for p in loaded.catalogue] == [_bare(r) for r in in_source_order]
    # A damaged snapshot: not used (the caller rebuilds).
    (tmp_path / "lex" / CATALOGUE).write_text('{"generation": "g1", "columns": {"id": ["a"]}}')
    assert LexicalIndex.load(tmp_path / "lex", params=params) is None
    # Other BM25 parameters: not used either.
    LexicalIndex.build(ROWS, params=params, generation="g1", directory=tmp_path / "lex")
    assert LexicalIndex.load(tmp_path / "lex", params=Bm25Params(stem=False)) is None
    # Postings gone: not taken for an empty index.
    shutil.rmtree(tmp_path / "lex" / "postings")
    assert LexicalIndex.load(tmp_path / "lex", params=params) is None


def test_an_index_saved_by_the_previous_format_is_rebuilt_not_misread(tmp_path: Path) -> None:
    params = Bm25Params()
    LexicalIndex.build(ROWS, params=params, generation="g1", directory=tmp_path / "lex")
    meta = json.loads((tmp_path / "lex" / "meta.json").read_text())
    (tmp_path / "lex" / "meta.json").write_text(json.dumps(meta | {"format": 2}))
    (tmp_path / "lex" / CATALOGUE).unlink()  # format 2 kept papers.jsonl instead
    (tmp_path / "lex" / "papers.jsonl").write_text(json.dumps(ROWS[0].to_json()) + "\n")
    assert LexicalIndex.load(tmp_path / "lex", params=params) is None
