"""The lexical index grows and shrinks in place (issue #17): adds and removals touch only
their papers, another writer's changes are applied from the store's change log, a kill at
any point of a change leaves an index that is used and catches up, and an index of the
previous format is rebuilt once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ingest.chunk import Chunker
from ingest.pipeline import ingest_paths
from rag.index import journal, lexical
from rag.index import store as store_module
from rag.index import sync as sync_module
from rag.index.catalogue import Catalogue
from rag.index.changes import OwnEntries, chain, changed_since, noted
from rag.index.connect import open_store
from rag.index.lexical import Bm25Params, LexicalIndex
from rag.index.store import Store
from rag.index.sync import sync_lexical
from rag.records import PaperRow
from rag.retrieve import Retriever, lexical_dir
from rag.settings import load_settings
from tests.fakes import HashEmbedder

ROOT = Path(__file__).resolve().parents[1]
PAPERS = [
    ("kv", 2024, "KCache", "We compress the KV cache of large language model serving."),
    ("diff", 2025, "ERTACache", "Feature caching accelerates diffusion model inference."),
    ("fed", 2021, "FedLaAvg", "Federated learning averages model updates with privacy."),
    (
        "sched",
        2024,
        "Llumnix",
        "Dynamic scheduling and live migration of requests for LLM serving.",
    ),
]
NEW = ("q", 2026, "Q-Anneal", "Quantum annealing on photonics chips.")


def _write(path: Path, rows: list[tuple[str, int, str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": p, "year": y, "title": t, "abstract": a}) + "\n"
                            for p, y, t, a in rows))  # fmt: skip
    return path


def _ingest(path: Path, store: Store) -> None:
    ingest_paths([path], store=store, embedder=HashEmbedder(), chunker=Chunker(64, 8))


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Store, Retriever]:
    settings = load_settings()
    store = open_store(settings)
    _ingest(_write(tmp_path / "papers.jsonl", PAPERS), store)
    retriever = Retriever(store, HashEmbedder(), index_dir=lexical_dir(settings, store),
                          refresh_seconds=0)  # fmt: skip
    assert len(retriever.index) == len(PAPERS)  # built once, here
    return store, retriever


@pytest.fixture
def no_rebuild(setup: tuple[Store, Retriever], monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the lexical index was rebuilt")

    monkeypatch.setattr(LexicalIndex, "build", refuse)


@pytest.fixture
def builds(setup: tuple[Store, Retriever], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per lexical index build from here on (the setup's own build is done)."""
    built: list[int] = []
    build = LexicalIndex.build.__func__  # type: ignore[attr-defined]

    def counted(cls: type[LexicalIndex], *args: object, **kwargs: object) -> LexicalIndex:
        built.append(1)
        return build(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(LexicalIndex, "build", classmethod(counted))
    return built


def _lexical(retriever: Retriever, query: str) -> list[str]:
    return [h.paper.id for h in retriever.search(query, k=5, mode="lexical")]


@pytest.mark.usefixtures("no_rebuild")
def test_an_added_paper_is_found_without_a_rebuild(
    setup: tuple[Store, Retriever], tmp_path: Path
) -> None:
    store, retriever = setup
    assert _lexical(retriever, "quantum annealing photonics") == []
    _ingest(_write(tmp_path / "new.jsonl", [NEW]), store)
    assert _lexical(retriever, "quantum annealing photonics") == ["q"]
    index = retriever.index
    assert index.generation == store.generation() and index.consistent
    assert index.document_frequency(["quantum", "anneal"]) == {"quantum": 1, "anneal": 1}
    assert index.catalogue["q"].year == 2026 and len(index) == len(PAPERS) + 1
    assert list(index.catalogue) == sorted(
        index.catalogue, key=lambda p: index.catalogue[p].position
    )


@pytest.mark.usefixtures("no_rebuild")
def test_a_removed_paper_is_unfindable_and_leaves_document_frequencies(
    setup: tuple[Store, Retriever],
) -> None:
    store, retriever = setup
    assert retriever.index.document_frequency(["feder"]) == {"feder": 1}
    assert _lexical(retriever, "federated privacy") == ["fed"]
    assert store.remove(["fed"]) == ["fed"]
    index = retriever.index
    assert _lexical(retriever, "federated privacy") == []
    assert index.document_frequency(["feder", "serv"]) == {"feder": 0, "serv": 2}
    assert "fed" not in index.catalogue and len(index) == len(PAPERS) - 1 and index.consistent
    # Saved: a fresh process loads the same, without rebuilding.
    fresh = Retriever(store, HashEmbedder(), index_dir=retriever.index_dir, refresh_seconds=0)
    assert _lexical(fresh, "federated privacy") == [] and len(fresh.index) == len(PAPERS) - 1


@pytest.mark.usefixtures("no_rebuild")
def test_another_writers_changes_are_applied_in_place(
    setup: tuple[Store, Retriever], tmp_path: Path
) -> None:
    store, retriever = setup
    before = retriever.index.generation
    other = open_store(load_settings())  # another writer on the same collection
    _ingest(_write(tmp_path / "new.jsonl", [NEW]), other)
    other.remove(["kv"])
    _ingest(
        _write(
            tmp_path / "edit.jsonl",
            [("diff", 2025, "ERTACache", "Photonics for optical neural networks.")],
        ),
        other,
    )
    assert store.changes(since=before)[1] == {"q", "kv", "diff"}
    assert set(_lexical(retriever, "photonics")) == {"diff", "q"}
    assert _lexical(retriever, "KV cache compress") == []
    assert _lexical(retriever, "feature caching diffusion") == []  # its old abstract is gone


def _ingest_stale(
    store: Store, stale: dict[str, object], path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingest ``path`` into ``store`` with its first metadata read returning ``stale``: as if
    it had read before another writer's bump and wrote after it (Chroma has no
    compare-and-swap on metadata), so the other writer's change-log entry is lost."""
    real = store._metadata
    reads = iter([dict(stale)])
    monkeypatch.setattr(store, "_metadata", lambda: next(reads, None) or real())
    _ingest(path, store)


@pytest.mark.usefixtures("no_rebuild")
def test_an_entry_another_writer_replaced_is_noted_again_at_the_next_bump(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    before = retriever.index.generation
    other = open_store(load_settings())
    stale = other._metadata()
    _ingest(_write(tmp_path / "a.jsonl", [NEW]), store)  # store's entry: q
    # Written over store's entry:
    _ingest_stale(other, stale, _write(tmp_path / "b.jsonl", [MANY[0]]), monkeypatch)
    assert store.changes(since=before)[1] == {"m0"}  # q's entry is lost
    _ingest(_write(tmp_path / "c.jsonl", [MANY[1]]), store)  # store's next bump notes q again
    assert store.changes(since=before)[1] == {"q", "m0", "m1"}
    assert _lexical(retriever, "quantum annealing photonics") == ["q"]
    assert {"m0", "m1"} <= set(retriever.index.catalogue)


@pytest.mark.usefixtures("no_rebuild")
def test_an_entry_replaced_before_its_writer_reads_back_is_noted_again_at_once(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    before = retriever.index.generation
    other = open_store(load_settings())
    stale = other._metadata()
    real_modify = store._modify
    interleaved = []

    def modify_then_other_writes(metadata: dict[str, object]) -> None:
        real_modify(metadata)
        if not interleaved:  # the other writer read before this write and writes now
            interleaved.append(True)
            _ingest_stale(other, stale, _write(tmp_path / "b.jsonl", [MANY[0]]), monkeypatch)

    monkeypatch.setattr(store, "_modify", modify_then_other_writes)
    _ingest(_write(tmp_path / "a.jsonl", [NEW]), store)
    assert interleaved
    assert store.changes(since=before)[1] == {"q", "m0"}  # no later bump needed
    assert _lexical(retriever, "quantum annealing photonics") == ["q"]


@pytest.mark.usefixtures("no_rebuild")
def test_a_writers_last_entry_is_confirmed_waiting_only_when_others_write(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    before = retriever.index.generation
    slept: list[float] = []
    monkeypatch.setattr(store_module.time, "sleep", slept.append)
    store.confirm_changes()  # alone: one read, no wait
    assert slept == [0.0]
    other = open_store(load_settings())
    stale = other._metadata()
    _ingest(_write(tmp_path / "a.jsonl", [NEW]), store)  # its last write: nothing follows
    _ingest_stale(other, stale, _write(tmp_path / "b.jsonl", [MANY[0]]), monkeypatch)
    assert store.changes(since=before)[1] == {"m0"}
    slept.clear()
    store.confirm_changes()  # as Engine.refresh does after every write
    assert store.changes(since=before)[1] == {"q", "m0"}
    assert slept == [0.0, 0.25, 0.5, 1.25]  # another writer was seen: read back over ~2 s
    assert _lexical(retriever, "quantum annealing photonics") == ["q"]


def test_own_entries_are_noted_again_only_when_lost() -> None:
    own = OwnEntries()
    m0 = {"generation": "g0"}
    m1 = noted(m0, "gA", ["a"])
    own.made("gA", "g0", ["a"])
    assert own.lost(m1) == (set(), {})  # on the chain, at its head: checked again later
    m2 = noted(m0, "gB", ["b"])  # made from metadata read before gA was written
    assert chain(m2) == ["gB", "g0"] and changed_since(m2, "g0") == {"b"}
    assert changed_since(m2, "gA") is None  # a reader at the lost generation cannot tell
    assert own.lost(m2) == ({"a"}, {"gA": "g0"})
    m3 = noted(m2, "gC", {"c", "a"}, {"gA": "g0"})
    own.made("gC", "gB", {"c", "a"})
    assert changed_since(m3, "g0") == {"a", "b", "c"}
    assert changed_since(m3, "gA") == {"a", "b", "c"}  # now it walks back from g0
    assert changed_since(m3, "gB") == {"a", "c"}
    m4 = noted(m3, "gD", ["d"])  # another writer's, on top of gC: gC is kept from now on
    assert own.lost(m4) == (set(), {}) and own.lost(noted(m2, "gE", ["e"])) == (set(), {})
    own.made("gF", "gD", None)  # a reset: its loss means "unknown", and readers rebuild
    assert own.lost(m4) == (None, {"gF": "gD"})
    # Entries of 3 items, as every writer before this wrote them, still read.
    assert json.loads(noted(m0, "gA", ["a"])["changes"]) == [["gA", "g0", ["a"]]]


@pytest.mark.usefixtures("no_rebuild")
def test_a_reader_at_a_replaced_generation_catches_up_without_a_rebuild(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    other = open_store(load_settings())
    stale = other._metadata()
    _ingest(_write(tmp_path / "a.jsonl", [NEW]), store)
    at_lost = retriever.index.generation  # the reader syncs to the entry about to be lost
    assert at_lost == store.generation() and "q" in retriever.index.catalogue
    _ingest_stale(other, stale, _write(tmp_path / "b.jsonl", [MANY[0]]), monkeypatch)
    _ingest(_write(tmp_path / "c.jsonl", [MANY[1]]), store)  # re-notes q, linking at_lost
    assert store.changes(since=at_lost)[1] == {"q", "m0", "m1"}
    assert {"q", "m0", "m1"} <= set(retriever.index.catalogue)  # no_rebuild: in place


def test_a_periodic_sync_waits_for_a_lost_entry_to_be_noted_again(
    setup: tuple[Store, Retriever],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    builds: list[int],
) -> None:
    store, retriever = setup
    other = open_store(load_settings())
    stale = other._metadata()
    _ingest(_write(tmp_path / "a.jsonl", [NEW]), store)
    held = retriever.index  # at the generation about to be lost
    _ingest_stale(other, stale, _write(tmp_path / "b.jsonl", [MANY[0]]), monkeypatch)
    assert not store.linked(held.generation)
    assert retriever.refresh(patient=True) is held and not builds  # waits for the writer
    assert "m0" not in retriever.index.catalogue
    _ingest(_write(tmp_path / "c.jsonl", [MANY[1]]), store)  # notes q again, with the link
    index = retriever.refresh(patient=True)
    assert {"q", "m0", "m1"} <= set(index.catalogue) and not builds  # applied in place
    # A writer that never notes it again: the wait ends in a rebuild; so does a sync after
    # this process's own write, at once.
    for at, (patient, patience) in ((2, (True, 0.0)), (4, (False, 1e9))):
        stale = other._metadata()
        _ingest(_write(tmp_path / f"d{at}.jsonl", [MANY[at]]), store)
        retriever.refresh()
        store._own = OwnEntries()  # it forgets, as a writer that has exited would
        _ingest_stale(other, stale, _write(tmp_path / f"e{at}.jsonl", [MANY[at + 1]]), monkeypatch)
        monkeypatch.setattr(sync_module, "UNLINKED_PATIENCE", patience)
        builds.clear()
        index = retriever.refresh(patient=patient)
        assert builds == [1] and {MANY[at][0], MANY[at + 1][0]} <= set(index.catalogue)


MANY = [(f"m{i}", 2020 + i % 5, f"Paper {i}", f"Topic{i} studies graphs and caches {i}.")
        for i in range(7)]  # fmt: skip


@pytest.mark.usefixtures("no_rebuild")
def test_many_changes_are_applied_a_slice_at_a_time(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.index import sync

    store, retriever = setup
    before = retriever.index.generation
    monkeypatch.setattr(sync, "APPLY_SLICE", 3)
    read: list[int] = []
    papers = store.papers
    monkeypatch.setattr(store, "papers", lambda ids: read.append(len(ids)) or papers(ids))
    labels: list[str] = []
    apply = LexicalIndex.apply

    def noting(self: LexicalIndex, rows: object, removed: object, *, generation: str) -> object:
        labels.append(generation)
        return apply(self, rows, removed, generation=generation)  # type: ignore[arg-type]

    monkeypatch.setattr(LexicalIndex, "apply", noting)
    _ingest(_write(tmp_path / "many.jsonl", MANY), store)
    store.remove(["kv"])
    index = retriever.refresh()  # 8 papers touched: read and applied 3, 3 and 2 at a time
    assert read == [3, 3, 2]
    assert labels == [f"{before}+3", f"{before}+6", store.generation()]
    assert index.generation == store.generation() and index.consistent
    assert len(index) == len(PAPERS) - 1 + len(MANY) and "kv" not in index.catalogue
    assert _lexical(retriever, "topic5") == ["m5"]


def test_a_sync_stopped_between_slices_is_rebuilt_next_time(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.index import sync

    store, retriever = setup
    monkeypatch.setattr(sync, "APPLY_SLICE", 3)
    _ingest(_write(tmp_path / "many.jsonl", MANY), store)
    papers = store.papers
    calls: list[int] = []

    def dies_on_the_second(ids: list[str]) -> list[PaperRow]:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process stopped after one slice was saved
        return papers(ids)

    monkeypatch.setattr(store, "papers", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        retriever.refresh()
    monkeypatch.setattr(store, "papers", papers)
    fresh = Retriever(store, HashEmbedder(), index_dir=retriever.index_dir, refresh_seconds=0)
    saved = LexicalIndex.load(retriever.index_dir, params=Bm25Params())
    assert saved is not None and "+" in saved.generation  # not claiming to be current
    assert len(fresh.index) == len(PAPERS) + len(MANY)  # rebuilt: all there
    assert fresh.index.generation == store.generation()
    assert _lexical(fresh, "topic6") == ["m6"]


def test_when_the_log_cannot_tell_the_index_is_rebuilt(
    setup: tuple[Store, Retriever],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    builds: list[int],
) -> None:
    store, retriever = setup
    _ingest(_write(tmp_path / "new.jsonl", [NEW]), store)
    metadata = store._metadata()
    store._modify({k: v for k, v in metadata.items() if k != "changes"})  # an older writer
    monkeypatch.setattr(sync_module, "UNLINKED_PATIENCE", 0.0)  # a periodic check waits first
    assert _lexical(retriever, "quantum annealing") == ["q"]
    assert builds == [1]


def test_an_index_of_the_previous_format_is_rebuilt_once(
    setup: tuple[Store, Retriever], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    directory = retriever.index_dir
    # What format 5 left: bm25s postings and a catalogue of bare columns.
    for child in directory.iterdir():
        if child.is_dir():
            import shutil

            shutil.rmtree(child)
        else:
            child.unlink()
    (directory / "bm25").mkdir()
    (directory / "bm25" / "params.index.json").write_text("{}")
    Catalogue.from_rows([]).save(directory / "catalogue.json")
    meta = {"format": 5, "params": Bm25Params().to_json(), "generation": store.generation()}
    (directory / "meta.json").write_text(json.dumps(meta))
    index = sync_lexical(store, directory, Bm25Params())
    assert len(index) == len(PAPERS) and _lexical(retriever, "federated") == ["fed"]
    assert json.loads((directory / "meta.json").read_text())["format"] == lexical._FORMAT

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("rebuilt twice")

    monkeypatch.setattr(LexicalIndex, "build", refuse)
    assert len(sync_lexical(store, directory, Bm25Params())) == len(PAPERS)


# -- a kill at any point of a change -----------------------------------------------------------

KILL_POINTS = {
    # the postings' writer holds the new paper, nothing committed
    "before-commit": """
        original = Postings.write
        def write(self, docs, delete):
            def dying():
                yield from docs
                os.kill(os.getpid(), signal.SIGKILL)
            original(self, dying(), delete)
        Postings.write = write
    """,
    # the postings committed, the journal not written
    "before-journal": """
        journal.append = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
    """,
    # half a journal line on disk
    "torn-journal": """
        def torn(directory, *a, **k):
            with (directory / journal.JOURNAL).open("ab") as fh:
                fh.write(b'{"generation": "half')
            os.kill(os.getpid(), signal.SIGKILL)
        journal.append = torn
    """,
    # compaction: the new snapshot renamed in, the journal not yet emptied
    "mid-compaction": """
        journal.COMPACT_BYTES, journal.COMPACT_SHARE = 0, 0.0
        replace, calls = os.replace, []
        def dying_replace(a, b):
            calls.append(1)
            if len(calls) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            replace(a, b)
        journal.os.replace = dying_replace
    """,
}


@pytest.mark.slow
@pytest.mark.parametrize("point", sorted(KILL_POINTS))
def test_a_kill_mid_change_leaves_a_usable_index_that_catches_up(
    setup: tuple[Store, Retriever], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    store, retriever = setup
    old = retriever.index
    _ingest(_write(tmp_path / "new.jsonl", [NEW]), store)
    store.remove(["fed"])
    generation, touched = store.changes(since=old.generation)
    rows = [
        r.to_json() | {"keywords": list(r.keywords)} for r in store.papers(sorted(touched or ()))
    ]
    script = (
        textwrap.dedent("""
        import json, os, signal, sys
        from pathlib import Path
        from rag.index import journal
        from rag.index.lexical import Bm25Params, LexicalIndex
        from rag.index.postings import Postings
        from rag.records import PaperRow
    """)
        + textwrap.dedent(KILL_POINTS[point])
        + textwrap.dedent("""
        directory, rows, removed, generation = json.loads(sys.stdin.read())
        index = LexicalIndex.load(Path(directory), params=Bm25Params())
        index.apply([PaperRow.from_mapping(r) for r in rows], removed, generation=generation)
        print("finished")
    """)
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([str(retriever.index_dir), rows, sorted(touched or ()), generation]),
        capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=120,
    )  # fmt: skip
    assert done.returncode == -9 and "finished" not in done.stdout, done.stderr
    # What a reader finds on disk right now is whole: the old state or the new one.
    saved = LexicalIndex.load(retriever.index_dir, params=Bm25Params())
    assert saved is not None and saved.generation in (old.generation, generation)
    # ...and a process catches up with the store, without a rebuild.
    monkeypatch.setattr(LexicalIndex, "build", lambda *a, **k: pytest.fail("rebuilt"))
    fresh = Retriever(store, HashEmbedder(), index_dir=retriever.index_dir, refresh_seconds=0)
    index = fresh.index
    assert index.generation == generation and index.consistent
    assert sorted(index.catalogue) == sorted(["kv", "diff", "sched", "q"])
    assert _lexical(fresh, "quantum annealing") == ["q"] and _lexical(fresh, "federated") == []


# -- the parts ---------------------------------------------------------------------------------


def test_the_change_log_tells_what_changed_or_says_it_cannot() -> None:
    meta: dict[str, object] = {}
    meta = noted(meta, "g1", ["a"])
    meta = noted(meta, "g2", ["b", "c"])
    meta = noted(meta, "g3", ["a"])
    assert changed_since(meta, "g3") == set()
    assert changed_since(meta, "g2") == {"a"}
    assert changed_since(meta, "0") == {"a", "b", "c"}
    assert changed_since(meta, "elsewhere") is None  # not in the chain
    assert changed_since(noted(meta, "g4", None), "g3") is None  # unknown (a reset)
    lost = noted({"generation": "g1"}, "g9", ["z"])  # g1's own entry was never noted
    assert changed_since(lost, "g1") == {"z"} and changed_since(lost, "0") is None


def test_catalogue_changes_keep_source_order_and_replace_rows() -> None:
    def row(pid: str, source: str, position: int, title: str = "") -> PaperRow:
        return PaperRow(id=pid, label="", title=title or pid, authors=(), year=None,
                        source=source, position=position, n_chunks=1)  # fmt: skip

    base = Catalogue.from_rows([row("a", "x", 1), row("b", "x", 3), row("c", "y", 0)])
    changed = base.changed([row("d", "x", 2), row("c", "y", 0, "C2"), row("e", "z", 0)], ["a"])
    assert list(changed) == ["d", "b", "c", "e"] and changed["c"].title == "C2"
    assert list(base) == ["a", "b", "c"]  # a snapshot: unchanged
    assert changed.position("e") == 3 and changed.n_chunks == 4


def test_journal_replays_over_the_snapshot_and_ignores_a_torn_line(tmp_path: Path) -> None:
    rows = [PaperRow(id=p, label="", title=t, authors=(), year=y, source="s", position=i,
                     n_chunks=1, abstract=a) for i, (p, y, t, a) in enumerate(PAPERS)]  # fmt: skip
    index = LexicalIndex.build(rows, params=Bm25Params(), generation="g1", directory=tmp_path)
    new = PaperRow(id="q", label="", title="Q", authors=(), year=2026, source="s", position=9,
                   n_chunks=1, abstract="Quantum annealing.")  # fmt: skip
    changed = index.apply([new], ["fed"], generation="g2")
    assert changed is not None
    with (tmp_path / journal.JOURNAL).open("ab") as fh:
        fh.write(b'{"generation": "g3", "remo')  # a kill mid-append
    catalogue, generation, _ = journal.read(tmp_path)
    assert generation == "g2" and list(catalogue) == ["kv", "diff", "sched", "q"]
    again = LexicalIndex.load(tmp_path, params=Bm25Params())
    assert again is not None
    third = again.apply([], ["kv"], generation="g3")  # cuts the torn tail, then appends
    assert third is not None and journal.read(tmp_path)[1] == "g3"
    assert list(journal.read(tmp_path)[0]) == ["diff", "sched", "q"]


def test_ranking_in_place_equals_a_fresh_build_after_adds(tmp_path: Path) -> None:
    rows = [PaperRow(id=p, label="", title=t, authors=(), year=y, source="s", position=i,
                     n_chunks=1, abstract=a) for i, (p, y, t, a) in enumerate(PAPERS)]  # fmt: skip
    grown = LexicalIndex.build(rows[:2], params=Bm25Params(), generation="g1",
                               directory=tmp_path / "a")  # fmt: skip
    grown = grown.apply(rows[2:], [], generation="g2")  # type: ignore[assignment]
    fresh = LexicalIndex.build(rows, params=Bm25Params(), generation="g2",
                               directory=tmp_path / "b")  # fmt: skip
    for query in ("LLM serving", "model", "caching diffusion", "federated privacy"):
        # Equal scores may come in either order (by segment): compare by (score, id).
        a, b = (sorted(ix.search(query, k=5), key=lambda h: (-round(h[1], 5), h[0]))
                for ix in (grown, fresh))  # fmt: skip
        assert [p for p, _ in a] == [p for p, _ in b]
        assert [s for _, s in a] == pytest.approx([s for _, s in b])
    serving = fresh.search("LLM serving", k=5)  # sched holds both words, kv one
    assert [p for p, _ in serving] == ["sched", "kv"] and serving[0][1] > serving[1][1] > 0
    assert [p for p, _ in fresh.search("federated privacy", k=5)] == ["fed"]
    assert fresh.search("the of and", k=5) == []  # stopwords only


@pytest.mark.integration
@pytest.mark.slow
def test_on_a_chroma_server_another_process_writes_are_applied_in_place(
    on_chroma_server: tuple[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    settings = load_settings()
    store = open_store(settings)
    try:
        _ingest(_write(tmp_path / "papers.jsonl", PAPERS), store)
        retriever = Retriever(store, HashEmbedder(), index_dir=lexical_dir(settings, store),
                              refresh_seconds=0)  # fmt: skip
        assert len(retriever.index) == len(PAPERS)
        writer = textwrap.dedent("""
            import sys
            from pathlib import Path
            from ingest.chunk import Chunker
            from ingest.pipeline import ingest_paths
            from rag.index.connect import open_store
            from rag.settings import load_settings
            from tests.fakes import HashEmbedder
            store = open_store(load_settings())
            ingest_paths([Path(sys.argv[1])], store=store, embedder=HashEmbedder(),
                         chunker=Chunker(64, 8))
            store.remove(["fed"])
        """)
        new = _write(tmp_path / "new.jsonl", [NEW])
        subprocess.run([sys.executable, "-c", writer, str(new)], cwd=ROOT, check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)  # fmt: skip
        monkeypatch.setattr(LexicalIndex, "build", lambda *a, **k: pytest.fail("rebuilt"))
        assert _lexical(retriever, "quantum annealing") == ["q"]
        assert _lexical(retriever, "federated privacy") == []
        assert retriever.index.generation == store.generation() and retriever.index.consistent
    finally:
        store.reset()


def test_a_process_reads_only_the_journal_lines_another_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [PaperRow(id=p, label="", title=t, authors=(), year=y, source="s", position=i,
                     n_chunks=1, abstract=a) for i, (p, y, t, a) in enumerate(PAPERS)]  # fmt: skip
    first = LexicalIndex.build(rows, params=Bm25Params(), generation="g1", directory=tmp_path)
    second = LexicalIndex.load(tmp_path, params=Bm25Params())  # another worker, same machine
    assert second is not None
    new = PaperRow(id="q", label="", title="Q", authors=(), year=2026, source="s", position=9,
                   n_chunks=1, abstract="Quantum annealing.")  # fmt: skip
    assert first.apply([new], ["fed"], generation="g2") is not None
    with monkeypatch.context() as m:
        m.setattr(journal, "read", lambda *a: pytest.fail("read whole"))
        caught_up = second.reloaded()
    assert caught_up is not None and caught_up.generation == "g2"
    assert [p for p, _ in caught_up.search("quantum annealing", k=3)] == ["q"]
    assert "fed" not in caught_up.catalogue and second.search("federated", k=3)  # a snapshot
    # A fold replaces the snapshot: the next reload reads it whole, and agrees.
    monkeypatch.setattr(journal, "COMPACT_BYTES", 0)
    monkeypatch.setattr(journal, "COMPACT_SHARE", 0.0)
    assert caught_up.apply([], ["kv"], generation="g3") is not None
    again = caught_up.reloaded()
    assert again is not None and again.generation == "g3"
    assert list(again.catalogue) == ["diff", "sched", "q"]
