"""Citation checking: marker parsing, dropping, renumbering, quotes (exact and property-based)."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from rag.answer.cite import (
    MARKER,
    CheckedAnswer,
    Citation,
    Source,
    check_citations,
    parse_markers,
    verify_quote,
)
from rag.records import PaperRow
from tests.fakes import make_source


def src(n: int, abstract: str = "") -> Source:
    return make_source(
        n=n,
        paper_id=f"p{n}",
        label=f"Author{n} 2020",
        title=f"Title {n}",
        authors=(f"Author{n}",),
        year=2020,
        source="papers.jsonl",
        abstract=abstract or f"Paper {n} studies topic {n}. It reports result {n}.",
    )


FOUR = [src(n) for n in range(1, 5)]


def cited(answer: CheckedAnswer) -> list[int]:
    """The prompt numbers of the cited sources, in citation order."""
    return [c.source.n for c in answer.citations]


# -- parse_markers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1]", [(0, 3, [1])]),
        ("[1, 3]", [(0, 6, [1, 3])]),
        ("[1-3]", [(0, 5, [1, 2, 3])]),
        ("[1–3]", [(0, 5, [1, 2, 3])]),
        ("[1 – 3]", [(0, 7, [1, 2, 3])]),
        ("[1][2]", [(0, 3, [1]), (3, 6, [2])]),
        ("[1,2,5-6]", [(0, 9, [1, 2, 5, 6])]),
        ("[1; 2]", [(0, 6, [1, 2])]),
        ("[ 4 ]", [(0, 5, [4])]),
        ("[3, 1, 3]", [(0, 9, [3, 1, 3])]),
        ("[0]", [(0, 3, [0])]),
        ("[-1]", [(0, 4, [-1])]),
        ("[999]", [(0, 5, [999])]),
        ("[1-20]", [(0, 6, list(range(1, 21)))]),
        ("A claim [2].", [(8, 11, [2])]),
        ("A claim.[2]", [(8, 11, [2])]),
        ("A claim. [2] Next.", [(9, 12, [2])]),
    ],
)
def test_parse_markers(text: str, expected: list[tuple[int, int, list[int]]]) -> None:
    assert parse_markers(text) == expected
    for start, end, _ in expected:
        assert MARKER.fullmatch(text[start:end])


@pytest.mark.parametrize(
    "text",
    ["[a]", "[1.5]", "[10^3]", "[2024]", "[1000]", "[x1]", "[1a]", "[1-100]", "[1-21]",
     "[3-1]", "[]", "[1,]", "[,1]", "[1 2]", "(1)", "1", "[[]]", "[1, 2024]"],
)  # fmt: skip
def test_parse_not_markers(text: str) -> None:
    assert parse_markers(text) == []


def test_parse_mixed_text() -> None:
    text = "In [2024] we saw [a] and [1.5], then [2] and [3-4][1]."
    assert parse_markers(text) == [(37, 40, [2]), (45, 50, [3, 4]), (50, 53, [1])]


# -- check_citations: numbers -------------------------------------------------------------


def test_renumber_by_first_use() -> None:
    out = check_citations("See [3] and [1], again [3].", FOUR)
    assert out.text == "See [1] and [2], again [1]."
    assert cited(out) == [3, 1]
    assert [c.n for c in out.citations] == [1, 2]
    assert out.citations[0].source is FOUR[2]
    assert out.dropped == ()


def test_zero_based_drift_is_dropped() -> None:
    out = check_citations("Zero is no source [0]. One is [1].", FOUR)
    assert out.text == "Zero is no source. One is [1]."
    assert cited(out) == [1]
    assert out.dropped == ("[0]",)


def test_number_past_the_sources_is_dropped() -> None:
    out = check_citations("Four sources [4], not five [5].", FOUR)
    assert out.text == "Four sources [1], not five."
    assert cited(out) == [4]
    assert out.dropped == ("[5]",)


def test_negative_number_is_dropped() -> None:
    out = check_citations("Minus [-1] one [2].", FOUR)
    assert out.text == "Minus one [1]."
    assert out.dropped == ("[-1]",)


def test_partly_invalid_marker_keeps_the_valid_numbers() -> None:
    out = check_citations("A claim [2, 9].", FOUR)
    assert out.text == "A claim [1]."
    assert cited(out) == [2]
    assert out.dropped == ("[9]",)


def test_all_markers_invalid() -> None:
    out = check_citations("First [0]. Second [5, 7] here. [9]", FOUR)
    assert out.text == "First. Second here."
    assert out.citations == ()
    assert out.dropped == ("[0]", "[5]", "[7]", "[9]")


def test_no_sources_drops_everything() -> None:
    out = check_citations("A claim [1].", [])
    assert (out.text, out.citations, out.dropped) == ("A claim.", (), ("[1]",))


def test_text_without_markers_is_unchanged() -> None:
    text = "No markers here. Brackets [a] and years [2024] stay, as does [1-100].\n\nBye."
    out = check_citations(text, FOUR)
    assert out == CheckedAnswer(text=text, citations=(), dropped=())


def test_empty_text() -> None:
    assert check_citations("", FOUR) == CheckedAnswer(text="", citations=(), dropped=())


def test_duplicates_within_a_marker() -> None:
    out = check_citations("A claim [2, 2, 1, 2].", FOUR)
    assert out.text == "A claim [1, 2]."
    assert cited(out) == [2, 1]


def test_ranges_are_expanded_and_lists_sorted() -> None:
    out = check_citations("First [4]. Then [1-3]. And [3, 1].", FOUR)
    assert out.text == "First [1]. Then [2, 3, 4]. And [2, 4]."
    assert cited(out) == [4, 1, 2, 3]


def test_range_partly_out_of_bounds() -> None:
    out = check_citations("Claim [3-6].", FOUR)
    assert out.text == "Claim [1, 2]."
    assert cited(out) == [3, 4]
    assert out.dropped == ("[5]", "[6]")


def test_adjacent_markers_stay_two_markers() -> None:
    out = check_citations("Claim [2][4]. Other [4][5].", FOUR)
    assert out.text == "Claim [1][2]. Other [2]."
    assert cited(out) == [2, 4]
    assert out.dropped == ("[5]",)


def test_source_only_in_a_dropped_marker_is_not_cited() -> None:
    # Source 3 appears only next to invalid numbers in markers that keep nothing valid.
    out = check_citations("A [0]. B [7]. C [1].", FOUR)
    assert cited(out) == [1]
    out = check_citations("A [3, 9] and B [9].", FOUR[:2])
    assert out.citations == ()
    assert out.text == "A and B."
    assert out.dropped == ("[3]", "[9]", "[9]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Claim [5].", "Claim."),
        ("Claim [5] .", "Claim."),
        ("Claim.[5] Next.", "Claim. Next."),
        ("Claim. [5] Next.", "Claim. Next."),
        ("Claim [5], next.", "Claim, next."),
        ("Claim [5] and more.", "Claim and more."),
        ("[5] Claim.", "Claim."),
        ("Claim ([5]).", "Claim."),
        ("Claim ([1], [5]).", "Claim ([1])."),
        ("Claim [1], [5].", "Claim [1]."),
        ("Claim [5], [1].", "Claim [1]."),
        ("Claim [5], [6], [1].", "Claim [1]."),
        ("Claim [1] and [5].", "Claim [1]."),
        ("Claim [5][1].", "Claim [1]."),
        ("Claim [1][5].", "Claim [1]."),
        ("Claim [5] [1].", "Claim [1]."),
        ("Claim [5]\nNext [6]\n\n- item [7]", "Claim\nNext\n\n- item"),
        ("Claim  [1]  stays.", "Claim  [1]  stays."),
    ],
)
def test_whitespace_tidy(text: str, expected: str) -> None:
    assert check_citations(text, [src(1)]).text == expected


def test_markers_joined_by_a_removal_are_dropped_too() -> None:
    # Removing [5] would leave "[1]" built from the author's own brackets: not a citation.
    out = check_citations("Odd [[5]1] text [1].", [src(1)])
    assert parse_markers(out.text) == [(len(out.text) - 4, len(out.text) - 1, [1])]
    assert out.dropped == ("[5]", "[1]")
    assert cited(out) == [1]


def test_unicode_text() -> None:
    text = "Über Zellmembranen [2] — naïve Modelle [1]. 細胞の研究 [3–4]。Ende [5]."
    out = check_citations(text, FOUR)
    assert out.text == "Über Zellmembranen [1] — naïve Modelle [2]. 細胞の研究 [3, 4]。Ende."
    assert cited(out) == [2, 1, 3, 4]
    assert out.dropped == ("[5]",)


def test_sources_must_be_numbered_from_one() -> None:
    with pytest.raises(ValueError, match=r"numbered 1\.\.2"):
        check_citations("A [1].", [src(0), src(1)])
    with pytest.raises(ValueError, match="n=3"):
        check_citations("A [1].", [src(1), src(3)])


# -- quotes -------------------------------------------------------------------------------

ABSTRACT = (
    "We study large language models.  Prior work ignores memory. "
    "Our cache compression reduces GPU memory by 40 percent.\n"
    "Code is released."
)


def test_quote_picks_the_sentence_sharing_the_claims_words() -> None:
    out = check_citations("Compressing the cache cut GPU memory use [1].", [src(1, ABSTRACT)])
    assert out.citations[0].quote == "Our cache compression reduces GPU memory by 40 percent."


def test_quote_matches_word_forms() -> None:
    abstract = "We train networks. Scaling models increases accuracy. Studies vary."
    out = check_citations("Accuracy increased with model scale [1].", [src(1, abstract)])
    assert out.citations[0].quote == "Scaling models increases accuracy."


def test_quote_falls_back_to_the_first_sentence() -> None:
    out = check_citations("Penguins waddle [1].", [src(1, ABSTRACT)])
    assert out.citations[0].quote == "We study large language models."


def test_quote_takes_two_adjacent_sentences_that_tie() -> None:
    abstract = "Intro text here. Alpha beta rise. Gamma delta fall. Outro text."
    out = check_citations("Alpha beta rise while gamma delta fall [1].", [src(1, abstract)])
    assert out.citations[0].quote == "Alpha beta rise. Gamma delta fall."


def test_quote_keeps_the_abstracts_whitespace() -> None:
    abstract = "Intro.  Memory   compression\nworks well. End."
    out = check_citations("Memory compression works [1].", [src(1, abstract)])
    assert out.citations[0].quote == "Memory   compression\nworks well."
    assert out.citations[0].quote in abstract


def test_quote_uses_every_claim_citing_the_source() -> None:
    abstract = "Topic intro. Speed doubles on GPUs. Accuracy stays unchanged. Outro."
    seen: list[str] = []

    def chooser(source: Source, claims: str) -> str:
        seen.append(claims)
        return "Speed doubles on GPUs."

    text = "It is fast [1]. Accuracy holds. [1] Other [2]."
    out = check_citations(text, [src(1, abstract), src(2)], quote_for=chooser)
    # The marker after "Accuracy holds." belongs to that sentence, not to "Other".
    assert seen[0] == "It is fast. Accuracy holds."
    assert seen[1] == "Other."
    assert out.citations[0].quote == "Speed doubles on GPUs."


def test_quote_for_whitespace_is_mapped_to_the_exact_span() -> None:
    out = check_citations(
        "Claim [1].",
        [src(1, ABSTRACT)],
        quote_for=lambda s, c: "We study large language models. Prior work ignores memory.",
    )
    assert out.citations[0].quote == "We study large language models.  Prior work ignores memory."


def test_quote_for_that_invents_text_is_not_trusted() -> None:
    out = check_citations(
        "GPU memory cache [1].", [src(1, ABSTRACT)], quote_for=lambda s, c: "Invented."
    )
    assert out.citations[0].quote == "Our cache compression reduces GPU memory by 40 percent."


def test_empty_abstract_gives_empty_quote() -> None:
    blank = make_source(1, "p1", "L", "T", (), None, "f", "")
    out = check_citations("Claim [1].", [blank])
    assert out.citations[0].quote == ""
    assert verify_quote("", blank.abstract)


@pytest.mark.parametrize(
    ("quote", "abstract", "ok"),
    [
        ("Memory works.", "Intro. Memory works. End.", True),
        ("Memory works.", "Intro. Memory\n  works. End.", True),
        ("Memory  works.", "Memory works.", True),
        ("  Memory works.  ", "Memory works.", True),
        ("Memorywork.", "Memory works.", False),
        ("Memory works", "Memory-works", False),
        ("memory works.", "Memory works.", False),
        ("(a+b)*", "We use (a+b)* here.", True),
        ("", "Some abstract.", False),
        ("", "  ", True),
    ],
)
def test_verify_quote(quote: str, abstract: str, ok: bool) -> None:
    assert verify_quote(quote, abstract) is ok


# -- serialisation and construction -------------------------------------------------------


def test_citation_to_json() -> None:
    citation = Citation(n=1, source=src(3), quote="It reports result 3.")
    assert citation.to_json() == {
        "n": 1,
        "paper_id": "p3",
        "label": "Author3 2020",
        "title": "Title 3",
        "authors": ["Author3"],
        "year": 2020,
        "source": "papers.jsonl",
        "position": 3,
        "n_chunks": 1,
        "url": "",
        "doi": "",
        "has_abstract": True,
        "collections": [],
        "zotero_uri": "",
        "quote": "It reports result 3.",
        "page": None,
        "section": None,
        "body_quotes": [],
    }


def test_a_quote_from_the_body_names_its_page_and_section() -> None:
    from rag.retrieve import Passage

    text = "We train for 3 epochs. The rest is noise."
    passage = Passage("p3#4", 4, text, 0.5, "4.2 Training", 7)
    source = replace(src(1, "It reports result 3. It has a method."), passages=(passage,))
    checked = check_citations("Training takes 3 epochs [1].", [source])
    [citation] = checked.citations
    assert citation.quote == "We train for 3 epochs." and citation.passage == passage
    assert citation.where == "p. 7, 4.2 Training"
    assert citation.to_json()["page"] == 7 and citation.to_json()["section"] == "4.2 Training"
    # A claim the abstract backs better is quoted from the abstract.
    [citation] = check_citations("It reports result 3 [1].", [source]).citations
    assert citation.passage is None and citation.where == ""


def test_source_from_paper() -> None:
    row = PaperRow(
        id="kv",
        label="He 2024",
        title="KCache",
        authors=("Qiaozhi He",),
        year=2024,
        source="a.jsonl",
        position=0,
        n_chunks=1,
        abstract="We compress the KV cache.",
    )
    source = Source.from_paper(2, row)
    assert (source.n, source.paper) == (2, row)
    assert (source.paper_id, source.label, source.name) == ("kv", "He 2024", "KCache")
    assert source.abstract == "We compress the KV cache."


# -- properties over generated answers ----------------------------------------------------

WORDS = [
    "cache", "memory", "model", "graph", "protein", "cell", "layer", "speed", "accuracy", "noise",
    "signal", "data", "training", "inference", "latency", "gene", "neuron", "energy", "sample",
    "error",
]  # fmt: skip


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 7))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice([".", ".", "!", "?"])


def _abstract(rng: random.Random) -> str:
    seps = [" ", " ", "  ", "\n"]
    parts = [_sentence(rng) for _ in range(rng.randint(0, 6))]
    return "".join(p + rng.choice(seps) for p in parts).rstrip() if parts else ""


def _marker(rng: random.Random, k: int) -> str:
    def number() -> int:
        return rng.choice([rng.randint(1, max(k, 1)), rng.randint(-1, k + 3)])

    items = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.2:
            lo = rng.randint(0, k + 1)
            items.append(f"{lo}{rng.choice('-–')}{lo + rng.randint(0, 3)}")
        else:
            items.append(str(number()))
    return "[" + rng.choice([",", ", ", "; "]).join(items) + "]"


def _answer(rng: random.Random, k: int) -> str:
    out = []
    for _ in range(rng.randint(0, 5)):
        sentence = _sentence(rng)
        body, end = sentence[:-1], sentence[-1]
        where = rng.random()
        markers = "".join(_marker(rng, k) for _ in range(rng.randint(1, 2)))
        if where < 0.5:
            sentence = f"{body} {markers}{end}"
        elif where < 0.7:
            sentence = f"{body}{end} {markers}"
        elif where < 0.8:
            sentence = f"{markers} {body}{end}"
        out.append(sentence)
    return rng.choice([" ", "\n"]).join(out)


def _valid(numbers: list[int], k: int) -> set[int]:
    return {n for n in numbers if 1 <= n <= k}


@pytest.mark.parametrize("seed", range(400))
def test_properties(seed: int) -> None:
    rng = random.Random(seed)
    k = rng.randint(0, 6)
    sources = [src(n, _abstract(rng)) for n in range(1, k + 1)]
    text = _answer(rng, k)
    out = check_citations(text, sources)
    m = len(out.citations)

    # Citations: 1..m, distinct, each one of the given sources (never invented).
    assert [c.n for c in out.citations] == list(range(1, m + 1))
    assert len({c.source.n for c in out.citations}) == m
    assert all(c.source is sources[c.source.n - 1] for c in out.citations)

    # Output markers: within 1..m, each citation used, new numbers appear in first-use order.
    found = parse_markers(out.text)
    used = [n for _, _, numbers in found for n in numbers]
    assert set(used) == set(range(1, m + 1))
    firsts = list(dict.fromkeys(used))
    assert firsts == sorted(firsts)
    for start, end, numbers in found:
        assert out.text[start:end] == "[" + ", ".join(map(str, sorted(set(numbers)))) + "]"

    # Each kept marker points at the same papers as before, in the same order.
    before = [_valid(ns, k) for _, _, ns in parse_markers(text) if _valid(ns, k)]
    after = [{out.citations[n - 1].source.n for n in ns} for _, _, ns in found]
    assert after == before

    # Every invalid number is reported; a source is cited iff some marker kept it.
    invalid = [n for _, _, ns in parse_markers(text) for n in ns if not 1 <= n <= k]
    assert out.dropped == tuple(f"[{n}]" for n in invalid)
    assert {c.source.n for c in out.citations} == set().union(*before)

    # Quotes are verbatim spans of the abstract, whole sentences, non-empty if it is.
    for c in out.citations:
        assert c.quote in c.source.abstract
        assert verify_quote(c.quote, c.source.abstract)
        assert bool(c.quote) == bool(c.source.abstract.strip())

    # Tidy: nothing dangles where markers were removed.
    assert "  " not in out.text
    assert not re.search(r" [.,!?]|^ | $|\n ", out.text)

    # Checking the checked answer against its own citations changes nothing.
    again = check_citations(out.text, [Source(c.n, c.source.paper) for c in out.citations])
    assert again.text == out.text
    assert again.dropped == ()
    assert [c.quote for c in again.citations] == [c.quote for c in out.citations]


def _fields(s: Source) -> tuple:  # type: ignore[type-arg]
    return (s.paper_id, s.label, s.title, s.authors, s.year, s.source, s.abstract)
