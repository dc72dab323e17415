"""Sentence vectors pooled at ingest ("late chunking"): packed into the first chunk's
metadata, read back with the sources, and used by the extractive answerer instead of
embedding every sentence at question time (a cold server's first answers cost 0.1-0.9 s
of embedding before; see docs/benchmarks.md, robustness)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ingest.chunk import Chunker, sentence_spans
from rag.answer.candidates import NEAR_DUPLICATE, Sentence, is_new, with_vectors_of
from rag.answer.cite import Source
from rag.errors import StoreError
from rag.index.embed import SpanEmbedder
from rag.index.layout import sentence_vectors
from rag.index.minilm import OnnxMiniLM
from rag.index.vectors import pack_rows, unpack_rows
from rag.records import Paper, PaperRow
from rag.sentences import split_sentences
from rag.settings import load_settings
from tests.fakes import HashEmbedder, make_source
from ui.app import App

ABSTRACT = (
    "PagedAttention stores the key-value cache in fixed-size blocks. "
    "Photosynthesis converts light energy into chemical energy in chloroplasts. "
    "The vaccine reduced hospital admissions among elderly patients."
)


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> OnnxMiniLM:
    return OnnxMiniLM(batch_size=4, cache_dir=tmp_path_factory.mktemp("embed-cache"))


def _unit(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# ---------------------------------------------------------------------------- packing


def test_packed_rows_keep_direction_and_missing_rows() -> None:
    rows = _unit(7)
    rows[3] = np.nan
    back = unpack_rows(pack_rows(rows))
    assert back.shape == (7, 384) and back.dtype == np.float32
    assert np.isnan(back[3]).all()
    kept = [i for i in range(7) if i != 3]
    cosines = (back[kept] * rows[kept]).sum(axis=1) / np.linalg.norm(back[kept], axis=1)
    assert cosines.min() >= 0.9999
    # A packed row is ~1/4 of float32's bytes (int8 + one scale), in base64.
    assert len(pack_rows(_unit(10))) < 10 * 384 * 4 / 2


def test_empty_and_zero_rows_pack() -> None:
    assert unpack_rows(pack_rows(np.zeros((0, 384), dtype=np.float32))).shape == (0, 384)
    zero = unpack_rows(pack_rows(np.zeros((2, 8), dtype=np.float32)))
    assert not np.isnan(zero).any() and not zero.any()


@pytest.mark.parametrize("text", ["", "nonsense", "i8v1:!!!not base64!!!", "i8v1:AAAA"])
def test_damaged_packed_rows_are_a_store_error(text: str) -> None:
    with pytest.raises(StoreError, match="re-ingest"):
        unpack_rows(text)


def test_damaged_rows_in_metadata_read_as_none() -> None:
    """Answers still work on a damaged value: the sentences are embedded then."""
    assert sentence_vectors({"paper_id": "p", "sentence_vectors": "i8v1:AAAA"}) is None
    assert sentence_vectors({"paper_id": "p"}) is None
    assert sentence_vectors({"sentence_vectors": pack_rows(_unit(2))}).shape == (2, 384)


# ------------------------------------------------------------------------ span pooling


def test_embed_spans_gives_the_same_text_vectors_as_embed_documents(minilm: OnnxMiniLM) -> None:
    texts = [ABSTRACT, "A short one.", ABSTRACT[:90]]
    vectors, pooled = minilm.embed_spans(texts, [[(0, 10)], [], [(0, 5)]])
    assert np.allclose(vectors, minilm.embed_documents(texts), atol=1e-5)
    assert [p.shape for p in pooled] == [(1, 384), (0, 384), (1, 384)]


def test_a_sentence_pooled_in_context_is_nearest_its_own_text(minilm: OnnxMiniLM) -> None:
    sentences = split_sentences(ABSTRACT)
    spans = []
    for s in sentences:
        start = ABSTRACT.index(s)
        spans.append((start, start + len(s)))
    _, (pooled,) = minilm.embed_spans([ABSTRACT], [spans])
    alone = minilm.embed_documents(sentences)
    similarity = pooled @ alone.T
    assert np.allclose(np.linalg.norm(pooled, axis=1), 1.0, atol=1e-5)
    assert (similarity.argmax(axis=1) == np.arange(len(sentences))).all()
    assert np.diag(similarity).min() > 0.6


KCACHE = (
    "We discovered that KV Cache is not necessary and proposed a novel KCache technique to "
    "alleviate the memory bottleneck issue during the LLMs inference process. KCache can be "
    "used directly for inference without any training process, Our evaluations show that "
    "KCache improves the throughput of popular LLMs by 40% with the baseline, while keeping "
    "accuracy."
)


def test_neighbouring_sentences_pooled_in_context_are_not_repeats(minilm: OnnxMiniLM) -> None:
    """Pooled in the context of one abstract, two neighbouring sentences come out closer
    than NEAR_DUPLICATE although they say different things; within one paper only the
    text makes a repeat, so the one holding "without any training" and "40%" can be quoted
    after the other. The same vector in another paper is a repeat (a preprint and its
    published version)."""
    first, second = split_sentences(KCACHE)
    spans = [(KCACHE.index(t), KCACHE.index(t) + len(t)) for t in (first, second)]
    _, (pooled,) = minilm.embed_spans([KCACHE], [spans])
    alone = minilm.embed_documents([first, second])
    assert float(pooled[0] @ pooled[1]) >= NEAR_DUPLICATE > float(alone[0] @ alone[1])
    paper = make_source(1, "p1", abstract=KCACHE)
    picked = Sentence(paper, 0, 2, first, vector=pooled[0])
    assert is_new(Sentence(paper, 1, 2, second, vector=pooled[1]), [picked])
    assert not is_new(Sentence(paper, 0, 2, first, vector=pooled[0]), [picked])
    other = make_source(2, "p2", abstract=KCACHE)
    assert not is_new(Sentence(other, 1, 2, second, vector=pooled[1]), [picked])


def test_spans_without_tokens_are_nan(minilm: OnnxMiniLM) -> None:
    long = "word " * 400 + "The final sentence is past the window."
    tail = long.index("The final")
    _, (pooled,) = minilm.embed_spans([long], [[(0, 4), (5, 5), (tail, len(long))]])
    assert not np.isnan(pooled[0]).any()
    assert np.isnan(pooled[1]).all()  # an empty span
    assert np.isnan(pooled[2]).all()  # truncated away (MiniLM reads 256 word pieces)


def test_only_the_offline_embedder_pools_spans() -> None:
    assert isinstance(OnnxMiniLM(), SpanEmbedder)
    assert not isinstance(HashEmbedder(), SpanEmbedder)


# --------------------------------------------------------------- locating the sentences


def _paper(abstract: str) -> Paper:
    return Paper(id="p", label="P", title="A title", authors=(), year=None, abstract=abstract,
                 source="x.jsonl", position=1)  # fmt: skip


@pytest.mark.parametrize("budget,overlap", [(400, 0), (40, 0), (40, 16)])
def test_every_sentence_is_found_in_a_chunk_once(budget: int, overlap: int) -> None:
    abstract = " ".join(f"Sentence number {i} says something about topic {i}." for i in range(12))
    paper = _paper(abstract)
    chunks = Chunker(chunk_tokens=budget, overlap=overlap).chunk(paper)
    spans, where = sentence_spans(paper, chunks)
    sentences = split_sentences(abstract)
    assert len(where) == len(sentences) and all(w is not None for w in where)
    for sentence, (k, j) in zip(sentences, where, strict=True):  # type: ignore[misc]
        a, b = spans[k][j]
        assert chunks[k].embed_text[a:b] == sentence
        assert a > len(chunks[k].heading)  # never the heading's text
    assert sum(len(s) for s in spans) == len(sentences)  # an overlapped sentence once


def test_a_sentence_cut_for_length_has_no_place() -> None:
    long = "Token " + "token " * 120 + "end."
    paper = _paper(f"A short opening sentence here. {long} A closing sentence here.")
    chunks = Chunker(chunk_tokens=48, overlap=0).chunk(paper)
    _, where = sentence_spans(paper, chunks)
    assert where[0] is not None and where[2] is not None
    assert where[1] is None


# ------------------------------------------------------------------- stored and used


def test_ingest_stores_a_vector_per_sentence(sample_index: Path) -> None:
    app = App.from_settings(load_settings(data_dir=sample_index))
    store = app.engine.store
    firsts = store.first_chunks([row.id for row in store.iter_papers()])
    assert len(firsts) == 32
    for meta in firsts.values():
        rows = sentence_vectors(meta)
        assert rows is not None
        assert len(rows) == len(split_sentences(str(meta["abstract"])))
        assert not np.isnan(rows).any()


def test_a_cold_answer_embeds_only_the_question(
    sample_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = App.from_settings(load_settings(data_dir=sample_index))
    # The library's noise floor is measured once per version of it and kept beside the index
    # (the probes are embedded then, by whichever test comes first), not for each answer.
    app.engine.noise_floor()
    inner = app.engine.answer_embedder.inner
    embedded: list[list[str]] = []
    real = inner.embed_documents

    def counting(texts: Sequence[str]) -> np.ndarray:
        embedded.append(list(texts))
        return real(texts)

    monkeypatch.setattr(inner, "embed_documents", counting)
    question = "How can deep learning models be trained over low-bandwidth wide area networks?"
    answer = app.engine.ask(question)
    assert answer.final.citations and not answer.final.refused
    assert embedded == [[question]]  # retrieval's query; every sentence vector was stored


def _source(abstract: str, rows: np.ndarray | None) -> Source:
    paper = PaperRow(id="p", label="P", title="T", authors=(), year=None, source="x",
                     position=1, n_chunks=1, abstract=abstract)  # fmt: skip
    return Source(1, paper, rows)


def test_sentences_without_stored_vectors_are_embedded_at_question_time() -> None:
    sentences = split_sentences(ABSTRACT)
    embedder = HashEmbedder()
    stored = np.full((3, 64), np.nan, dtype=np.float32)
    stored[0] = stored[2] = 1 / 8
    cases = {
        "all stored but one": (stored, 1),
        "none stored (an old layout, or an embedding API)": (None, 3),
        "rows that do not match the abstract": (stored[:2], 3),
    }
    for case, (rows, embedded) in cases.items():
        embedder.calls.clear()
        src = _source(ABSTRACT, rows)
        items = [Sentence(src, i, len(sentences), s) for i, s in enumerate(sentences)]
        vectors = with_vectors_of(items, embedder)
        assert sum(embedder.calls) == embedded, case
        assert np.allclose(vectors[1], embedder.embed_documents([sentences[1]])[0]), case
        if rows is stored:
            assert np.allclose(vectors[0], stored[0]), case
