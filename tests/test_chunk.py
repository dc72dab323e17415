from __future__ import annotations

import itertools

import pytest

from ingest.chunk import Chunker
from rag.answer.roles import roles, structured
from rag.records import Paper
from rag.sentences import split_sentences
from rag.tokens import get_encoding
from tests.fakes import HashEmbedder

SENTENCE = "We measure the throughput of the serving system under bursty load on {} GPUs."


def _paper(n_sentences: int, *, title: str = "Title") -> Paper:
    text = " ".join(SENTENCE.format(i) for i in range(n_sentences))
    return Paper(id="p1", abstract=text, source="x.jsonl", position=1, title=title)


def _tokens(text: str) -> int:
    return len(get_encoding().encode(text))


def test_short_abstract_is_one_chunk_with_heading() -> None:
    chunks = Chunker().chunk(_paper(3))
    assert len(chunks) == 1
    assert chunks[0].id == "p1#0" and chunks[0].index == 0
    assert chunks[0].embed_text.startswith("Title\n")
    assert chunks[0].n_tokens == _tokens(chunks[0].embed_text)


@pytest.mark.parametrize("n", [10, 25, 60])
def test_long_abstract_chunks_fit_budget_overlap_and_cover_every_sentence(n: int) -> None:
    chunker = Chunker(chunk_tokens=120, overlap=24)
    paper = _paper(n)
    chunks = chunker.chunk(paper)
    assert len(chunks) > 1
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.n_tokens <= 120 for c in chunks)
    # Every sentence is in some chunk, in order; chunks end on sentence boundaries.
    sentences = split_sentences(paper.abstract)
    seen = [s for c in chunks for s in split_sentences(c.text)]
    assert sorted(set(seen), key=sentences.index) == sentences
    # Consecutive chunks share whole sentences (the overlap), never more than `overlap`.
    for a, b in itertools.pairwise(chunks):
        shared = [s for s in split_sentences(b.text) if s in split_sentences(a.text)]
        assert shared, "expected sentence overlap"
        assert _tokens(" ".join(shared)) <= 24
    # Balanced: no tiny trailing chunk.
    sizes = [c.n_tokens for c in chunks]
    assert min(sizes) >= max(sizes) * 0.5


def test_no_overlap_partitions_the_text() -> None:
    chunks = Chunker(chunk_tokens=100, overlap=0).chunk(_paper(20))
    assert " ".join(c.text for c in chunks) == _paper(20).abstract


def test_sentence_longer_than_budget_is_cut_by_tokens() -> None:
    giant = " ".join(f"token{i}" for i in range(1000))  # one "sentence", no punctuation
    paper = Paper(id="g", abstract=giant, source="x", position=1)
    chunks = Chunker(chunk_tokens=100, overlap=10).chunk(paper)
    assert len(chunks) >= 10
    assert all(c.n_tokens <= 100 for c in chunks)


def test_embedder_limit_is_enforced_with_its_own_tokenizer() -> None:
    # An embedder whose tokenizer counts ~3x tiktoken: chunks must shrink until they fit.
    fake = HashEmbedder()

    def heavy(texts: list[str]) -> list[int]:
        return [3 * n for n in fake.count_tokens(texts)]

    chunker = Chunker(chunk_tokens=200, overlap=20, embedder_tokens=heavy, embedder_limit=256)
    chunks = chunker.chunk(_paper(30))
    assert max(heavy([c.embed_text for c in chunks])) <= 256


def test_empty_abstract_gives_no_chunks() -> None:
    assert Chunker().chunk(Paper(id="e", abstract="   ", source="x", position=1)) == []


def test_overlap_must_be_smaller_than_chunk() -> None:
    with pytest.raises(ValueError, match="overlap"):
        Chunker(chunk_tokens=50, overlap=50)


def test_sentence_splitter_keeps_abbreviations_and_numbers() -> None:
    text = (
        "We study A, e.g. transformers, at 3.5 GHz. Smith et al. report gains (Fig. 2). "
        "Is it faster? Yes! The end."
    )
    assert split_sentences(text) == [
        "We study A, e.g. transformers, at 3.5 GHz.",
        "Smith et al. report gains (Fig. 2).",
        "Is it faster?",
        "Yes!",
        "The end.",
    ]
    assert split_sentences("  ") == []


def test_letters_joined_by_periods_do_not_end_a_sentence() -> None:
    """Letters joined by periods ("i.i.d.", "i.e.", "U.S.A.") before a capital are an
    abbreviation, whatever the field (a list of known ones cannot hold them all); a
    sentence ending in a word still ends."""
    text = (
        "We assume i.i.d. Gaussian noise, i.e. White noise. Data came from the U.S.A. Survey. "
        "It ends."
    )
    assert split_sentences(text) == [
        "We assume i.i.d. Gaussian noise, i.e. White noise.",
        "Data came from the U.S.A. Survey.",
        "It ends.",
    ]


def test_sentences_run_together_without_a_space_are_split() -> None:
    """Abstracts rebuilt from an index or from JATS paragraphs lose the space between
    sentences ("...adolescents.This was"); a point inside a name, a number or an
    abbreviation stays ("Node.js", "ASP.NET", "p.Arg123His", "et al.The", "2.5")."""
    text = (
        "DBT-A was tested in adolescents.This was a randomized study (n = 77).Rates fell "
        "by 12%.Nothing else moved? Node.js and ASP.NET ran p.Arg123His as in Smith et "
        "al.The tool, version 2.5, is free."
    )
    assert split_sentences(text) == [
        "DBT-A was tested in adolescents.",
        "This was a randomized study (n = 77).",
        "Rates fell by 12%.",
        "Nothing else moved?",
        "Node.js and ASP.NET ran p.Arg123His as in Smith et al.The tool, version 2.5, is free.",
    ]


def test_a_heading_run_into_its_own_sentence_stands_alone() -> None:
    """A structured abstract's sections joined with no break ("BackgroundThe ...",
    "...adolescents.MethodsA total of 3841 ...", "... here. ConclusionsThis ..."): each
    heading becomes a sentence of its own, so its text reads as written and the heading
    still gives the sentences under it their role; a word that only starts like one
    stays ("Designers", "Results were")."""
    text = (
        "BackgroundThe burden is high.MethodsA total of 3841 adolescents took part. Results "
        "were mixed.ResultsOur study showed 12% had it. Designers agree. ConclusionsThis "
        "matters."
    )
    sentences = split_sentences(text)
    assert sentences == [
        "Background",
        "The burden is high.",
        "Methods",
        "A total of 3841 adolescents took part.",
        "Results were mixed.",
        "Results",
        "Our study showed 12% had it.",
        "Designers agree.",
        "Conclusions",
        "This matters.",
    ]
    assert roles(sentences) == (
        "background",
        "background",
        "method",
        "method",
        "method",
        "result",
        "result",
        "result",
        "conclusion",
        "conclusion",
    )
    assert structured(tuple(sentences))
    # a heading's name standing alone is one only when capitalised
    assert roles(["results", "It rose by 4% in a year."]) == ("background", "result")


def test_a_heading_run_into_the_sentence_before_it_starts_a_sentence() -> None:
    """PubMed text often loses the space before a structured abstract's heading ("...
    inconclusive.AIM: To investigate"); a point inside a token stays ("U.S.", "p<0.05")."""
    text = "The results are inconclusive.AIM: To investigate HPV. The U.S. team saw p<0.05 here."
    assert split_sentences(text) == [
        "The results are inconclusive.",
        "AIM: To investigate HPV.",
        "The U.S. team saw p<0.05 here.",
    ]
