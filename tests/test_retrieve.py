"""Retrieval: fusion and grouping (exact), filters on both sides, index lifecycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.chunk import Chunker
from ingest.pipeline import ingest_paths
from rag.errors import QueryError
from rag.index.connect import open_store
from rag.index.lexical import Bm25Params, LexicalIndex
from rag.index.store import Store
from rag.records import PaperRow
from rag.retrieve import Filters, Retriever, fuse_minmax, group_by_paper, lexical_dir
from rag.settings import load_settings
from tests.fakes import HashEmbedder

PAPERS = [
    # id, year, authors, title, abstract
    ("kv", 2024, ["Qiaozhi He", "Zhihua Wu"], "KCache",
     "We compress the KV cache of large language model serving to save GPU memory."),
    ("diff", 2025, ["Xurui Peng", "Hong Liu"], "ERTACache",
     "Feature caching accelerates diffusion model inference across timesteps."),
    ("fed", 2021, ["Yang Xiang"], "FedLaAvg",
     "Federated learning averages model updates from many clients with privacy."),
    ("sched", 2024, ["Biao Sun", "Zhihua WU"], "Llumnix",
     "Dynamic scheduling and live migration of requests for LLM serving instances."),
    ("nlp", None, [], "Nebula-I",
     "Training NLP models over remote heterogeneous clusters connected by WANs."),
]  # fmt: skip


def _write(path: Path, rows: list[tuple]) -> Path:  # type: ignore[type-arg]
    with path.open("w") as fh:
        for pid, year, authors, title, abstract in rows:
            rec = {"id": pid, "title": title, "authors": authors, "abstract": abstract}
            if year:
                rec["year"] = year
            fh.write(json.dumps(rec) + "\n")
    return path


def _ingest(paths: list[Path], store: Store) -> None:
    ingest_paths(paths, store=store, embedder=HashEmbedder(), chunker=Chunker(64, 8))


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Store, Retriever]:
    settings = load_settings()
    store = open_store(settings)
    _ingest([_write(tmp_path / "papers.jsonl", PAPERS)], store)
    retriever = Retriever(
        store, HashEmbedder(), index_dir=lexical_dir(settings, store), refresh_seconds=0
    )
    return store, retriever


def test_group_by_paper_keeps_each_papers_best_chunk() -> None:
    ids = ["a#1", "b#0", "a#0", "c#2", "b#1"]
    sims = [0.9, 0.8, 0.95, 0.1, 0.85]
    assert group_by_paper(ids, sims) == {"a": 0.95, "b": 0.85, "c": 0.1}


def test_fuse_minmax_exact_order() -> None:
    dense = {"a": 1.0, "b": 0.75, "c": 0.5}  # normalised: a 1, b .5, c 0 (exact in binary)
    lexical = {"c": 10.0, "d": 6.0, "a": 2.0}  # normalised: c 1, d .5, a 0
    fused = fuse_minmax(dense, lexical, alpha=0.5)
    assert fused == [("a", 0.5), ("c", 0.5), ("b", 0.25), ("d", 0.25)]  # ties by id
    assert [p for p, _ in fuse_minmax(dense, lexical, alpha=0.8)] == ["a", "b", "c", "d"]
    assert [p for p, _ in fuse_minmax(dense, lexical, alpha=0.2)] == ["c", "d", "a", "b"]
    assert fuse_minmax({"x": 0.3}, {}, alpha=0.5) == [("x", 0.5)]  # one-item side -> 1.0
    assert fuse_minmax({}, {}, alpha=0.5) == []


def test_lexical_index_exact_ranking(tmp_path: Path) -> None:
    rows = [
        PaperRow(id=pid, label="", title=t, authors=(), year=None, source="s", position=i,
                 n_chunks=1, abstract=a)
        for i, (pid, _y, _au, t, a) in enumerate(PAPERS)
    ]  # fmt: skip
    index = LexicalIndex.build(rows, params=Bm25Params(), generation="g",
                               directory=tmp_path / "lex")  # fmt: skip
    hits = index.search("serving LLM requests scheduling", k=5)
    assert [pid for pid, _ in hits] == ["sched", "kv"]
    assert hits[0][1] > hits[1][1] > 0
    assert index.search("caching", k=5) == index.search("cache", k=5)  # stemmed
    assert index.search("the of and", k=5) == []  # stopwords only
    assert [p for p, _ in index.search("serving", k=5, allowed=index.mask({"kv"}))] == ["kv"]


def test_hybrid_finds_each_paper_once_with_passages(setup: tuple[Store, Retriever]) -> None:
    _, retriever = setup
    hits = retriever.search("KV cache memory for LLM serving", k=5)
    ids = [h.paper.id for h in hits]
    assert ids[0] == "kv" and len(ids) == len(set(ids))
    top = hits[0]
    assert top.dense is not None and top.lexical is not None
    assert top.passages and "KV cache" in top.passages[0].text
    assert top.paper.title == "KCache" and top.paper.authors == ("Qiaozhi He", "Zhihua Wu")
    assert retriever.search("KV cache memory", k=2, mode="lexical")[0].paper.id == "kv"


def test_passages_read_only_the_chunks_they_can_come_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings()
    store = open_store(settings)
    long = " ".join(
        f"Sentence {i} is about {topic} for large language model serving systems."
        for i, topic in enumerate(["KV cache memory", "request scheduling", "GPU kernels"] * 6)
    )
    _ingest([_write(tmp_path / "p.jsonl", [*PAPERS, ("long", 2024, [], "Long", long)])], store)
    retriever = Retriever(
        store, HashEmbedder(), index_dir=lexical_dir(settings, store), refresh_seconds=0
    )
    assert retriever.index.catalogue["long"].n_chunks >= 4
    query = "KV cache memory scheduling for LLM serving"
    every = {h.paper.id: h.passages for h in retriever.search(query, k=6, passages=99)}
    reads: list[int] = []
    documents = store.documents
    monkeypatch.setattr(store, "documents", lambda ids: reads.append(len(ids)) or documents(ids))
    for n in (1, 2):
        hits = retriever.search(query, k=6, passages=n)
        assert {h.paper.id: h.passages for h in hits} == {
            pid: ps[:n] for pid, ps in every.items()
        }  # the same best passages as reading every chunk
    assert reads[0] < sum(retriever.index.catalogue[pid].n_chunks for pid in every)
    reads.clear()
    assert all(h.passages == () for h in retriever.search(query, k=6, passages=0))
    assert reads == []


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(year_from=2024), {"kv", "sched", "diff"}),
        (Filters(year_to=2021), {"fed"}),
        (Filters(year_from=2024, year_to=2024), {"kv", "sched"}),
        (Filters(author="zhihua wu"), {"kv", "sched"}),  # case-insensitive
        (Filters(author="Peng"), {"diff"}),  # substring
        (Filters(author="nobody"), set()),
        (Filters(source="papers.jsonl", year_from=2025), {"diff"}),
        (Filters(source="other.csv"), set()),
    ],
)
def test_filters_give_the_same_papers_on_both_sides(
    setup: tuple[Store, Retriever], filters: Filters, expected: set[str]
) -> None:
    _, retriever = setup
    # A query every paper matches lexically, so each side returns every allowed paper.
    query = " ".join(title for *_, title, _a in PAPERS) + " model serving learning training"
    seen = {}
    for mode in ("dense", "lexical", "hybrid"):
        seen[mode] = {h.paper.id for h in retriever.search(query, k=10, mode=mode, filters=filters)}
    assert seen["dense"] == seen["lexical"] == seen["hybrid"] == expected


def test_bad_queries_are_clear_errors(setup: tuple[Store, Retriever]) -> None:
    _, retriever = setup
    for query in ("", "   \n\t "):
        with pytest.raises(QueryError, match="empty"):
            retriever.search(query)
    with pytest.raises(QueryError, match="mode"):
        retriever.search("cache", mode="fuzzy")  # type: ignore[arg-type]
    # A huge query is cut by tokens and still works.
    assert retriever.search("cache " * 50_000, k=1)


def test_index_survives_restart_without_rebuilding(
    setup: tuple[Store, Retriever], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = setup
    before = [h.paper.id for h in retriever.search("federated privacy", k=3)]

    def no_rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("index rebuilt although nothing changed")

    monkeypatch.setattr(LexicalIndex, "build", no_rebuild)
    fresh = Retriever(store, HashEmbedder(), index_dir=retriever.index_dir, refresh_seconds=0)
    assert [h.paper.id for h in fresh.search("federated privacy", k=3)] == before
    assert len(fresh.index) == len(PAPERS)


def test_ingest_after_startup_is_visible_to_search(
    setup: tuple[Store, Retriever], tmp_path: Path
) -> None:
    _, retriever = setup
    assert retriever.search("quantum annealing photonics", k=1, mode="lexical") == []
    new = [("q", 2026, ["Ada Lovelace"], "Q-Anneal", "Quantum annealing on photonics chips.")]
    # Another writer (a second Store on the same data) ingests while we are running.
    _ingest([_write(tmp_path / "new.jsonl", new)], open_store(load_settings()))
    hits = retriever.search("quantum annealing photonics", k=1, mode="lexical")
    assert [h.paper.id for h in hits] == ["q"]
    assert retriever.search("quantum annealing", k=1, filters=Filters(author="lovelace"))


def test_lexical_index_is_rebuilt_when_damaged(setup: tuple[Store, Retriever]) -> None:
    store, retriever = setup
    retriever.search("cache", k=1)
    (retriever.index_dir / "catalogue.json").write_text("{not json")
    fresh = Retriever(store, HashEmbedder(), index_dir=retriever.index_dir, refresh_seconds=0)
    assert len(fresh.index) == len(PAPERS)


@pytest.mark.integration
def test_workers_sharing_a_chroma_server_see_each_others_papers(
    on_chroma_server: tuple[str, int], tmp_path: Path
) -> None:
    # Two "workers": separate data dirs (their own lexical copies), one shared collection.
    settings_a = load_settings(data_dir=tmp_path / "worker-a")
    settings_b = load_settings(data_dir=tmp_path / "worker-b")
    store_a, store_b = open_store(settings_a), open_store(settings_b)
    try:
        reader = Retriever(store_b, HashEmbedder(), index_dir=lexical_dir(settings_b, store_b),
                           refresh_seconds=0)  # fmt: skip
        assert reader.search("federated privacy", k=3) == []
        _ingest([_write(tmp_path / "papers.jsonl", PAPERS)], store_a)
        hits = reader.search("federated privacy", k=3, mode="lexical")
        assert hits[0].paper.id == "fed"
        assert reader.search("federated privacy", k=1, mode="dense")
    finally:
        store_a.reset()


def test_analyzer_gives_bm25s_words_stemmed_and_stays_right_past_its_memory() -> None:
    import re

    import Stemmer
    from bm25s.stopwords import STOPWORDS_EN

    from rag.index.lexical import Analyzer, Bm25Params
    from rag.spelling import american, plain_text

    texts = [
        "Caching the KV-cache: GPUs' memory_bandwidth in 2024 (x86_64), naïve émigré café.",
        "The running runners ran; a b cd ΔH 漢字 über-fast I/O, e.g. 3.5x speed-ups.",
        "",
        "   \n\t ",
    ]
    stop, stem = frozenset(STOPWORDS_EN), Stemmer.Stemmer("english").stemWords

    def reference(text: str) -> list[str]:
        """bm25s's pattern and PyStemmer over one spelling (rag.spelling), then the
        hyphenated compounds joined."""
        text = plain_text(text).lower()
        words = re.findall(r"(?u)\b\w\w+\b", text)
        words += ["".join(pair) for pair in re.findall(r"\b(\w+)-(\w+)\b", text)]
        return stem([american(w) for w in words if w not in stop])

    analyze = Analyzer(Bm25Params())
    assert [analyze(t) for t in texts] == [reference(t) for t in texts]
    assert analyze(texts[0])[:3] == ["cach", "kv", "cach"]
    assert analyze(texts[0])[-1] == "kvcach"  # "KV-cache" as one word too
    small = Analyzer(Bm25Params())
    small._terms._limit = 3  # forgets every few words: answers must not change
    assert [small(t) for t in texts * 2] == [reference(t) for t in texts * 2]
    assert len(small._terms) <= 3
    plain = Analyzer(Bm25Params(stem=False, stopwords=""))
    assert plain("The running runners") == ["the", "running", "runners"]
