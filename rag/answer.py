"""One answer engine for every face: a question -> a stream of small typed events.

``answer_stream`` yields, in this order:

- one :class:`SourcesEvent`: the numbered sources offered (``[1]..[k]``, retrieval order);
- :class:`DeltaEvent` pieces of text, whose markers refer to those numbers;
- one :class:`FinalEvent`: the answer as checked by :func:`rag.cite.check_citations`
  (markers renumbered 1..m by first use, each pointing at ``citations[n - 1]``, whose
  ``source.n`` is the number it had in the SourcesEvent). Show this text, not the deltas.

The offline default is *extractive*: no language model writes anything. The top papers'
abstracts are split into sentences, each sentence is embedded with the same embedder as the
question, and up to ``max_sentences`` of the most similar ones are picked with diversity
across papers (MMR), then copied verbatim, each followed by its paper's marker.

Refusal: when the best retrieved paper's dense score (cosine of its best chunk to the
query) is below ``min_relevance`` the answer is :data:`rag.prompts.NO_ANSWER`, with no
citations and an *empty* SourcesEvent: a refused answer offers nothing to cite, so no face
can show a source for it. On the sample questions (tests/data/sample_questions.jsonl) the
dense score separated answerable from unanswerable questions with a wider margin (0.24 vs
0.37) than the best single sentence's cosine did (0.49 vs 0.51): one sentence can share a
word or two with an off-topic question ("transformer architecture"), a whole chunk rarely
does. Hits found only by the lexical side carry no dense score; if no hit has one, the best
sentence's cosine stands in.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from rag.cite import MARKER, Citation, Source, check_citations
from rag.errors import QueryError
from rag.prompts import EXTRACTIVE_MODE, EXTRACTIVE_NOTE, NO_ANSWER
from rag.sentences import split_sentences

if TYPE_CHECKING:
    from rag.embed import Embedder
    from rag.retrieve import Filters, Hit, Retriever

__all__ = [
    "DeltaEvent",
    "Event",
    "FinalEvent",
    "SourcesEvent",
    "Turn",
    "answer_stream",
    "format_references",
    "is_followup",
    "rewrite_followup",
]

# -- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourcesEvent:
    """The numbered sources offered to the answer (empty when the answer is refused)."""

    type: ClassVar[str] = "sources"
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "sources": [s.to_json() for s in self.sources]}


@dataclass(frozen=True, slots=True)
class DeltaEvent:
    """A piece of the answer as it is produced; markers use the SourcesEvent numbers."""

    type: ClassVar[str] = "delta"
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class FinalEvent:
    """The checked answer: every marker in ``answer`` is within 1..len(citations)."""

    type: ClassVar[str] = "final"
    answer: str
    citations: tuple[Citation, ...]
    refused: bool
    dropped: tuple[str, ...]  # markers removed by the check, e.g. "[7]"
    mode: str
    timings: dict[str, float]
    query: str = ""  # what was searched (the question, or its follow-up rewrite)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "refused": self.refused,
            "dropped_citations": list(self.dropped),
            "mode": self.mode,
            "query": self.query,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


Event = SourcesEvent | DeltaEvent | FinalEvent


# -- conversation history and follow-ups --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation. An assistant turn may carry the labels (or ids) of
    the papers its answer cited, so a follow-up can search for them again."""

    role: Literal["user", "assistant"]
    text: str
    cited: tuple[str, ...] = ()


HistoryItem = Turn | tuple[str, str] | tuple[str, str, Sequence[str]]

_WORD = re.compile(r"[\w][\w.+-]*\w|\w")
# Pronouns and deictics that point back into the conversation.
_ANAPHORA = frozenset(
    """
    it its it's itself they them their theirs these those this that such same he she his her
    former latter there one ones
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
_OPENERS = ("and ", "and,", "but ", "also ", "so ", "then ", "what about", "how about")
_FUNCTION = frozenset(
    """
    a about above after again all also am an and any are as at be been being both but by can
    could did do does doing during each either for from had has have having how if in into is
    it its it's itself just me more most my no nor not of on or other our out over own same
    she so some such than that the their them then there these they this those through to too
    under up very was we were what when where which while who whom whose why will with would
    you your he his her him i
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# Words of a question that say what is asked, not what it is about.
_ASKING = frozenset(
    """
    tell explain describe show give list compare summarise summarize mean means meant paper
    papers work works study studies approach approaches method methods propose proposed
    please well much many fast slow good better best really exactly else instead versus vs
    """.split()  # noqa: SIM905
)
FOLLOWUP_MAX_WORDS = 15  # a longer question stands on its own, pronouns or not
CARRY_LABELS = 3  # at most this many cited papers are carried into a follow-up query


def _turns(history: Sequence[HistoryItem]) -> list[Turn]:
    out = []
    for item in history:
        if isinstance(item, Turn):
            out.append(item)
        else:
            role, text, *rest = item
            cited = tuple(rest[0]) if rest else ()
            out.append(Turn(role, text, cited))  # type: ignore[arg-type]
    return out


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _content(text: str) -> list[str]:
    """Content words of text, in order, once each (case kept: labels like "KCache")."""
    seen: set[str] = set()
    out = []
    for word in _WORD.findall(text):
        key = word.casefold()
        if key in _FUNCTION or key in _ASKING or key in seen:
            continue
        if len(key) < 2 and not key.isdigit():
            continue
        seen.add(key)
        out.append(word)
    return out


def is_followup(question: str) -> bool:
    """True if the question leans on the conversation: it opens like a continuation ("and
    what about ...", "how about ..."), or is short and uses a pronoun ("how fast is it?"),
    or has almost nothing of its own to search for ("why?", "how fast?")."""
    words = _words(question)
    if not words:
        return False
    lowered = " ".join(words)
    if len(words) <= FOLLOWUP_MAX_WORDS and (
        lowered.startswith(_OPENERS) or any(w in _ANAPHORA for w in words)
    ):
        return True
    return len(_content(question)) <= 1


def rewrite_followup(question: str, history: Sequence[HistoryItem]) -> str:
    """A standalone retrieval query for ``question`` in the light of ``history``.

    A question that is not a follow-up (see :func:`is_followup`), or that has no earlier
    user turn, is returned unchanged. Otherwise it is extended with the content words of the
    earlier user questions back to the last standalone one, and the labels of the papers
    cited by the last assistant turn: "and how fast is it?" after "How does KCache save
    memory?" -> "and how fast is it? KCache save memory".
    """
    question = " ".join(question.split())
    turns = _turns(history)
    if not question or not any(t.role == "user" for t in turns) or not is_followup(question):
        return question
    carried: list[str] = []
    for turn in reversed(turns):
        if turn.role == "user":
            carried = _content(turn.text) + carried
            if not is_followup(turn.text):
                break
    labels: list[str] = []
    for turn in reversed(turns):
        if turn.role == "assistant":
            labels = [c for c in turn.cited if c][:CARRY_LABELS]
            break
    have = {w.casefold() for w in _words(question)}
    extra: list[str] = []
    for piece in [*labels, *carried]:
        key = piece.casefold()
        if key not in have:
            have.add(key)
            extra.append(piece)
    return " ".join([question, *extra])


# -- the extractive answerer --------------------------------------------------------------

# Sentence selection (MMR): each pick maximises
#   relevance - REDUNDANCY * (max cosine to a picked sentence) - SAME_PAPER * (picks from its paper)
REDUNDANCY = 0.3
SAME_PAPER = 0.08
MAX_PER_PAPER = 2
NEAR_DUPLICATE = 0.9  # a sentence this close to a picked one is never picked
# A sentence must score at least this share of the best one to be picked at all: diversity
# should not pull in a weak sentence just because it comes from another paper.
RELATIVE_FLOOR = 0.75
MIN_SENTENCE_WORDS = 4  # shorter "sentences" are headings or split artefacts


@dataclass(frozen=True, slots=True)
class _Candidate:
    source: Source
    position: int  # index of the sentence in its abstract
    text: str
    score: float = 0.0
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0), compare=False)


def _sources(hits: Sequence[Hit], retriever: Retriever) -> tuple[Source, ...]:
    ids = [h.paper.id for h in hits]
    abstracts = retriever.store.abstracts(ids)
    return tuple(
        Source.from_paper(n, replace(h.paper, abstract=abstracts.get(h.paper.id, h.paper.abstract)))
        for n, h in enumerate(hits, 1)
    )


def _candidates(sources: Sequence[Source]) -> list[_Candidate]:
    out = []
    for src in sources:
        for position, sentence in enumerate(split_sentences(src.abstract)):
            if len(sentence.split()) >= MIN_SENTENCE_WORDS:
                out.append(_Candidate(src, position, sentence))
    return out


def _select(candidates: Sequence[_Candidate], max_sentences: int, floor: float) -> list[_Candidate]:
    """Up to ``max_sentences`` relevant, non-redundant sentences, spread across papers."""
    pool = [c for c in candidates if c.score >= floor]
    picked: list[_Candidate] = []
    per_paper: dict[str, int] = {}
    while pool and len(picked) < max_sentences:

        def gain(c: _Candidate) -> float:
            redundancy = max((float(c.vector @ p.vector) for p in picked), default=0.0)
            return (
                c.score - REDUNDANCY * redundancy - SAME_PAPER * per_paper.get(c.source.paper_id, 0)
            )

        best = max(pool, key=lambda c: (gain(c), -c.source.n, -c.position))
        picked.append(best)
        per_paper[best.source.paper_id] = per_paper.get(best.source.paper_id, 0) + 1
        pool = [
            c
            for c in pool
            if c is not best
            and per_paper.get(c.source.paper_id, 0) < MAX_PER_PAPER
            and float(c.vector @ best.vector) < NEAR_DUPLICATE
        ]
    # Read in retrieval order, then abstract order: a paper's sentences stay together.
    return sorted(picked, key=lambda c: (c.source.n, c.position))


def _defuse(sentence: str) -> str:
    """The sentence with anything that reads as a citation marker ("[9]", "[1-3]") turned into
    parentheses, so copied text can neither add a citation nor shift ours."""
    while MARKER.search(sentence):
        sentence = MARKER.sub(lambda m: "(" + m.group()[1:-1] + ")", sentence)
    return sentence


def _cite(sentence: str, n: int) -> str:
    """ "A holds." -> "A holds [n]." (the marker sits before the closing punctuation)."""
    text = _defuse(" ".join(sentence.split()))
    match = re.search(r"[.!?]+[\"')\]]*$", text)
    if match:
        return f"{text[: match.start()]} [{n}]{text[match.start() :]}"
    return f"{text} [{n}]"


def _quote_chooser(picked: Sequence[_Candidate]) -> Callable[[Source, str], str]:
    """quote_for for check_citations: each paper's picked sentences, verbatim. Adjacent picks
    are quoted as one span; otherwise the paper's most relevant pick."""
    by_paper: dict[str, list[_Candidate]] = {}
    for c in picked:
        by_paper.setdefault(c.source.paper_id, []).append(c)

    def quote_for(source: Source, _claims: str) -> str:
        mine = sorted(by_paper.get(source.paper_id, []), key=lambda c: c.position)
        if not mine:
            return ""
        positions = [c.position for c in mine]
        if positions == list(range(positions[0], positions[0] + len(positions))):
            start = source.abstract.find(mine[0].text)
            end = source.abstract.find(mine[-1].text, max(start, 0))
            if 0 <= start <= end:
                return source.abstract[start : end + len(mine[-1].text)]
        return max(mine, key=lambda c: c.score).text

    return quote_for


def answer_stream(
    question: str,
    *,
    retriever: Retriever,
    embedder: Embedder,
    history: Sequence[HistoryItem] = (),
    filters: Filters | None = None,
    k: int = 5,
    min_relevance: float = 0.30,
    max_sentences: int = 4,
) -> Iterator[Event]:
    """Answer ``question`` from the ``k`` best papers, as a stream of events (see module doc).

    Raises :class:`rag.errors.QueryError` for an empty question or bad options, before any
    event is yielded. ``min_relevance`` is normally ``settings.min_relevance``.
    """
    question = " ".join(question.split())
    if not question:
        raise QueryError("the question is empty: type a question about the papers")
    if k < 1:
        raise QueryError("k must be at least 1")
    if max_sentences < 1:
        raise QueryError("max_sentences must be at least 1")
    return _extractive(
        question,
        retriever=retriever,
        embedder=embedder,
        history=history,
        filters=filters,
        k=k,
        min_relevance=min_relevance,
        max_sentences=max_sentences,
    )


def _extractive(
    question: str,
    *,
    retriever: Retriever,
    embedder: Embedder,
    history: Sequence[HistoryItem],
    filters: Filters | None,
    k: int,
    min_relevance: float,
    max_sentences: int,
) -> Iterator[Event]:
    timings: dict[str, float] = {}
    start = clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = now - clock
        clock = now

    query = rewrite_followup(question, history)
    hits = retriever.search(query, k=k, filters=filters)
    lap("retrieve")

    def refuse() -> Iterator[Event]:
        yield SourcesEvent(())
        yield DeltaEvent(NO_ANSWER)
        timings["total"] = time.perf_counter() - start
        yield FinalEvent(NO_ANSWER, (), True, (), EXTRACTIVE_MODE, timings, query)

    dense = [h.dense for h in hits if h.dense is not None]
    if not hits or (dense and max(dense) < min_relevance):
        yield from refuse()  # decided before any sentence is embedded
        return
    sources = _sources(hits, retriever)
    candidates = _candidates(sources)
    lap("abstracts")
    best = -1.0
    if candidates:
        qvec = np.asarray(embedder.embed_query(query), dtype=np.float32)
        vectors = np.asarray(embedder.embed_documents([c.text for c in candidates]))
        scores = vectors @ qvec
        candidates = [
            replace(c, score=float(s), vector=v)
            for c, s, v in zip(candidates, scores, vectors, strict=True)
        ]
        best = max(c.score for c in candidates)
    lap("embed")
    # Without a dense score (lexical-only hits) the best sentence is the evidence; either
    # way, an answer needs at least one sentence above the threshold.
    if best < min_relevance:
        yield from refuse()
        return

    picked = _select(candidates, max_sentences, max(min_relevance, RELATIVE_FLOOR * best))
    lap("select")
    yield SourcesEvent(sources)
    pieces = [EXTRACTIVE_NOTE + "\n\n"]
    yield DeltaEvent(pieces[0])
    for i, c in enumerate(picked):
        piece = ("" if i == 0 else " ") + _cite(c.text, c.source.n)
        pieces.append(piece)
        yield DeltaEvent(piece)
    checked = check_citations("".join(pieces), sources, quote_for=_quote_chooser(picked))
    lap("cite")
    timings["total"] = time.perf_counter() - start
    yield FinalEvent(
        checked.text,
        checked.citations,
        False,
        checked.dropped,
        EXTRACTIVE_MODE,
        timings,
        query,
    )


# -- references ---------------------------------------------------------------------------


def _bib_escape(text: str) -> str:
    """A BibTeX field value that always parses: braces and backslashes become LaTeX commands
    (BibTeX counts a backslash-escaped brace too, so ``\\{`` alone could unbalance it)."""
    swap = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
    return re.sub(r"[\\{}]", lambda m: swap[m.group()], " ".join(text.split()))


def _bib_key(source: Source, taken: set[str]) -> str:
    surname = source.authors[0].split()[-1] if source.authors else ""
    label = re.sub(r"[^a-z0-9]+", "", (source.label or source.title).casefold())[:24]
    base = "".join(
        re.sub(r"[^a-z0-9]+", "", part.casefold()) for part in (surname, str(source.year or ""))
    )
    base = (base + label) or re.sub(r"[^a-z0-9]+", "", source.paper_id.casefold()) or "paper"
    key, i = base, 1
    while key in taken:
        i += 1
        key = f"{base}{chr(ord('a') + i - 2)}" if i <= 27 else f"{base}{i}"
    taken.add(key)
    return key


def format_references(citations: Sequence[Citation], style: Literal["markdown", "bibtex"]) -> str:
    """The cited papers as a numbered Markdown list (with quotes) or BibTeX ``@misc`` entries
    (keys from first author's surname, year and label: ``he2024kcache``)."""
    if style == "markdown":
        lines = []
        for c in citations:
            s = c.source
            authors = ", ".join(s.authors) or "unknown authors"
            year = f" ({s.year})" if s.year else ""
            lines.append(
                f"{c.n}. **{s.title or s.label}**. {authors}{year}. `{s.source}`.\n"
                f"   > {' '.join(c.quote.split())}"
            )
        return "\n".join(lines)
    if style != "bibtex":
        raise QueryError(f"unknown reference style {style!r}: choose markdown or bibtex")
    taken: set[str] = set()
    entries = []
    for c in citations:
        s = c.source
        fields = [("title", s.title or s.label)]
        if s.authors:
            fields.append(("author", " and ".join(s.authors)))
        if s.year:
            fields.append(("year", str(s.year)))
        fields.append(("note", f"paperchat {s.paper_id}; source {s.source}"))
        body = ",\n".join(f"  {name} = {{{_bib_escape(value)}}}" for name, value in fields)
        entries.append(f"@misc{{{_bib_key(s, taken)},\n{body}\n}}")
    return "\n\n".join(entries)
