"""The offline default answerer: no language model writes anything.

The sources' abstracts are split into sentences; each is scored by :mod:`rag.answer.rank`
(similarity, the question's rare words, the paper it names, the kind of sentence the
question asks for, contribution over background). The answer takes the shape of the
question (:mod:`rag.answer.question`): prose from the best sentences, one per part of a
two-part question, for most questions; one line per paper for a list, a comparison or an
author's papers (:mod:`rag.answer.shapes`); who wrote a paper from its metadata; the
library's themes for an overview. Sentences are copied verbatim, each followed by its
paper's marker, under a short note that says the answer is extractive. When the paper
retrieval ranked first has its full text stored, a prose answer adds the best sentences of
its body passages after the abstract's, each prefixed with the page and section it is
printed on (the citation lists them as body quotes).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from rag.answer import candidates as cand
from rag.answer import params, rank, shapes, two
from rag.answer.body import from_body
from rag.answer.cite import Citation, Source, check_citations, parse_markers
from rag.answer.events import DeltaEvent, Event, FinalEvent, SourcesEvent, refusal
from rag.answer.lead import about
from rag.answer.prompts import EXTRACTIVE_MODE, EXTRACTIVE_NOTE
from rag.answer.quantities import asked_quantity, states_quantity
from rag.answer.question import Question, analyse
from rag.sentences import split_sentences
from rag.terms import terms

if TYPE_CHECKING:
    from rag.index.embed import Embedder

__all__ = [
    "MAX_SENTENCES",
    "MAX_WORDS",
    "extractive_answer",
    "sentence_features",
]

MAX_WORDS = 150  # a prose answer stops adding sentences past this many words
# Sentences of a prose answer at most: five, not four (ten fields' training-only questions,
# held out: key facts 1,211 -> 1,223 of 1,321, median words 99 -> 115; docs/benchmarks.md).
MAX_SENTENCES = 5
MIN_WORDS = 40  # a shorter answer takes its next best sentence, however it scores
MAX_LINES = 8  # papers in a list, comparison or author answer
# A paper whose retrieval score is at least 1 - TIE of the best one's is quoted too: chosen
# leaving one library out (bench/fit_tie.py: 0.1 with the sample or PubMedQA held out, 0.06
# with SciFact; 0.1 on all three), docs/benchmarks.md.
TIE = 0.1
PaperVectors = Callable[[Sequence[str]], dict[str, np.ndarray]]


def question_vector(question: Question, query: str, embedder: Embedder) -> np.ndarray:
    """What sentences are compared with: the user's own words. A follow-up's ``query``
    carries the conversation's subject for retrieval; within the study it found, the
    subject's words are in most sentences (and most in what the last answer quoted), so
    they would pull the answer back to the last one. Held out, with the ranker unchanged:
    key facts 251 -> 252 of 284 (sample), 121 -> 122 of 149 (PubMedQA), 113 of 141 both
    (SciFact); conversations 19 -> 20 of 24, 8 -> 9 of 16, 7 of 14 (docs/benchmarks.md)."""
    return np.asarray(embedder.embed_query(question.own or query), dtype=np.float32)


def sentence_features(
    question: Question, sources: Sequence[Source], embedder: Embedder, query: str
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Every quotable sentence of the sources as (paper id, text), with its row of
    :data:`rag.answer.rank.FEATURES`, as the prose answer scores them (for fitting the
    ranker: bench/fit_answers.py)."""
    sentences = cand.sentences(sources)
    if not sentences:
        return [], np.zeros((0, len(rank.FEATURES)), dtype=np.float32)
    vectors = cand.with_vectors_of(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    qvec = question_vector(question, query, embedder)
    pairs = [(s.source.paper_id, s.text) for s in sentences]
    return pairs, cand.features_of(question, sentences, qvec)


def _prose(
    question: Question,
    scored: list[cand.Sentence],
    embed: Callable[[str], np.ndarray],
    room: int = MAX_SENTENCES,
) -> list[cand.Sentence]:
    """The sentence spelling out what a definition asks, the best sentence for each part of
    the question, the best of the first source when none is from it (and of any source
    retrieval scores within TIE of it), then more while they score above the floor (or the
    answer is under MIN_WORDS) and the answer stays short; from the named papers only when
    the question names any (but the other of two studies it asks about)."""
    only_named = question.named and not question.about_two
    pool = [s for s in scored if not only_named or s.source.paper_id in question.named]
    pool = pool or scored
    yes_no = rank.asks_yes_no(question)
    if rank.asks_code(question) and any(rank.gives_code(s.text) for s in pool):
        pool = [s for s in pool if rank.gives_code(s.text)]  # "where is the code?": the link
    elif rank.asks_result(question):
        # A question of what was found or how much is answered by results: a paper's aim or
        # background sentence is not quoted when the paper states results, unless it gives
        # the figure a "how many" asks for ("we introduce WuDaoMM, containing more than
        # 650M image-text pairs": the kind of figure asked, rag.answer.quantities). (An
        # abstract's parts, that is: a body passage is quoted for what it says.) A yes or no
        # question leaves the methods too: the design repeats what is asked and says nothing
        # of what was found. Where no heading prints an abstract's parts their roles are
        # guessed from cues, and the sentence scored best in it is kept whatever its guessed
        # role ("Herein, we demonstrate that the Bi-modified Pt/C follows a CO-free pathway",
        # read as background): held out, 84.7% -> 86.8% of the ten fields' key facts.
        reporting = {s.source.paper_id for s in pool if s.role in ("result", "conclusion")}
        ranked = sorted(pool, key=lambda s: s.score)  # each guessed abstract's best, below
        guessed = {s.source.paper_id: s for s in ranked if not s.labelled and s.passage < 0}
        numeric = question.kind == "numeric"
        wanted = terms(question.own or question.text) if numeric else set()
        kind = asked_quantity(question.own or question.text) if numeric else ""
        unasked = ("aim", "background", "method") if yes_no else (
            "aim", "background")  # fmt: skip
        pool = [s for s in pool if s.passage >= 0 or s.role not in unasked
                or guessed.get(s.source.paper_id) is s
                or s.source.paper_id not in reporting
                or (wanted and rank.states_figure(s.text, wanted))
                or states_quantity(s.text, kind)] or pool  # fmt: skip
    picked: list[cand.Sentence] = []
    lead = min((s.source.n for s in pool), default=0)
    # The paper the question is about may be ranked second: one holding the question's
    # distinctive words (a name, an object, an instrument) when the first holds none of
    # them leads, and is quoted first.
    lead = about(question, pool) or lead
    if yes_no:
        # "Did treadmill training beat a weekly phone call?": the lead paper's sentence saying
        # whether a difference or effect was found answers it, whatever else scores higher.
        verdicts = [s for s in pool if s.source.n == lead and rank.states_verdict(s.text)]
        verdict = cand.best(verdicts, picked)
        if verdict is not None:
            picked.append(verdict)
    if question.kind == "definition":
        # "What does SHSe mean?": the sentence that spells it out answers it, whatever else
        # scores higher.
        spelled = cand.best([s for s in pool if rank.spells_out(question, s.text)], picked)
        if spelled is not None:
            picked.append(spelled)
    if question.about_two:  # "How do the two meta-analyses differ ...?": both quoted alike
        return _reading_order(two.quoted(question, pool, lead, picked, embed), lead)
    if len(question.parts) > 1:
        for part in question.parts:
            best = cand.best_for_part(question, part, pool, embed, picked)
            if best is not None:
                picked.append(best)
    best = cand.best(pool, picked)
    if best is not None and not picked:
        for g in cand.enumerated(best, scored):  # the best, and the enumeration it opens
            if g is not best and _words([*picked, g]) > MAX_WORDS:
                break
            picked.append(g)
    # What retrieval ranked first (or the paper named first) is always quoted: a sentence of
    # another paper may score higher, but the answer must not drop the best paper found. Nor,
    # within its words, a paper retrieval can hardly tell from the first (its score within
    # TIE of the best): which of two papers on one finding holds the answer is not for it.
    ties = sorted({s.source.n for s in pool if s.source.share >= 1 - TIE} - {lead})
    for n in [lead, *ties]:
        if picked and all(p.source.n != n for p in picked):
            mine = cand.best([s for s in pool if s.source.n == n], picked)
            if mine is not None and (n == lead or _words([*picked, mine]) <= MAX_WORDS):
                picked.append(mine)
    floor, asked = params.current().prose["floor"], terms(question.own or question.text)
    for s in sorted(pool, key=lambda s: -s.score):
        words = _words(picked)
        if len(picked) >= room or (s.score < floor and words >= MIN_WORDS):
            break
        link = rank.gives_code(s.text)  # a link, no word asked but the paper's name: no more
        if link and not asked & (terms(re.sub(r"\S+://\S+", " ", s.text)) - terms(s.source.name)):
            continue  # ("X is available at https://...", asked "What is X?")
        # An enumeration is quoted whole ("The first stage ... The second stage ...").
        group = [g for g in cand.enumerated(s, scored) if cand.is_new(g, picked)]
        if cand.is_new(s, picked) and words + _words(group) <= MAX_WORDS:
            picked += group
    return _reading_order(picked, lead)


def _reading_order(picked: Sequence[cand.Sentence], lead: int) -> list[cand.Sentence]:
    """The picks as the answer reads them: the lead paper's first, then by paper number,
    each paper's in the order its abstract (then its body) has them."""
    first = {lead: 0}
    return sorted(picked, key=lambda s: (first.get(s.source.n, s.source.n), s.passage, s.position))


def _words(picked: Sequence[cand.Sentence]) -> int:
    return sum(len(p.text.split()) for p in picked)


def _per_paper(
    question: Question, scored: list[cand.Sentence], sources: Sequence[Source]
) -> list[cand.Sentence]:
    """The best sentence of each source, in source order (at most MAX_LINES)."""
    out = []
    for src in sources[:MAX_LINES]:
        mine = [s for s in scored if s.source.paper_id == src.paper_id]
        if mine:
            out.append(max(mine, key=lambda s: (s.score, -s.position)))
    return out


def _compose(
    question: Question,
    sources: Sequence[Source],
    embedder: Embedder,
    qvec: np.ndarray,
    stored: PaperVectors | None = None,
    library: int = 0,
) -> tuple[str, list[cand.Sentence]]:
    """The answer's body for the question's shape, and the sentences it quotes."""
    named = ""
    if question.kind == "list" and len(sources) == 1:
        # A list that retrieval narrowed to one paper: that paper's prose answer, its body
        # included ("Which waveform models were compared ...?" asks what is inside a
        # paper), after its name when the question asked for papers ("Which papers ...?").
        named = f"**{sources[0].name}**: " if question.asks_papers else ""
        question = replace(question, kind="how")
    sentences = cand.sentences(sources)
    if question.kind == "overview":  # each paper's first sentence is all a theme needs
        firsts: dict[str, cand.Sentence] = {}
        for s in sentences:
            firsts.setdefault(s.source.paper_id, s)
        sentences = list(firsts.values())
    if not sentences:
        return "", []
    vectors = cand.with_vectors_of(sentences, embedder)
    sentences = [replace(s, vector=v) for s, v in zip(sentences, vectors, strict=True)]
    if question.kind == "overview":
        return _overview(sentences, sources, stored, library or len(sources))
    if question.kind in ("list", "comparison", "author"):
        lines_for = replace(question, kind="definition")
        picks = _per_paper(lines_for, cand.scored(lines_for, sentences, qvec), sources)
        lines = [(p.source, [p.text]) for p in picks]
        if question.kind == "comparison":  # what sets each apart: one more sentence each
            more = _per_paper(
                replace(question, kind="how"),
                [s for s in cand.scored(replace(question, kind="how"), sentences, qvec)
                 if s.text not in {p.text for p in picks}],
                sources,
            )  # fmt: skip
            extra = {m.source.paper_id: m for m in more}
            lines = [(src, [*texts, *([extra[src.paper_id].text] if src.paper_id in extra else [])])
                     for src, texts in lines]  # fmt: skip
            picks += more
        heading = "" if question.kind != "author" else "Papers in the library by this author:"
        return shapes.paper_lines(lines, heading), picks
    body = from_body(question, sources)
    picks = _prose(question, cand.scored(question, sentences, qvec), embedder.embed_query,
                   room=MAX_SENTENCES - len(body))  # fmt: skip
    # After the abstracts': what they do not say.
    picks += [b for b in body if cand.is_new(b, picks)]
    return named + " ".join(_cited(p) for p in picks), picks


def _cited(s: cand.Sentence) -> str:
    """A quoted sentence with its marker; one from the body says where it is printed."""
    if s.passage < 0:
        return shapes.cited(s.text, s.source.n)
    return f"({s.source.passages[s.passage].where}) {shapes.cited(s.text, s.source.n)}"


def _overview(
    sentences: list[cand.Sentence],
    sources: Sequence[Source],
    stored: PaperVectors | None,
    total: int,
) -> tuple[str, list[cand.Sentence]]:
    """The library's themes: papers grouped by their stored vectors (their first sentence's
    when the store gives none), each quoted by its first sentence."""
    first = {s.source.paper_id: s for s in reversed(sentences)}
    picks = [first[src.paper_id] for src in sources if src.paper_id in first]
    papers = [p.source for p in picks]
    known = stored([p.paper_id for p in papers]) if stored else {}
    vectors = np.stack([known.get(p.source.paper_id, p.vector) for p in picks])
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    groups = shapes.overview_themes(papers, vectors)
    return shapes.theme_lines(papers, groups, total), picks


def _quote_chooser(picked: Sequence[cand.Sentence], query: str) -> Callable[[Source, str], str]:
    """quote_for for check_citations: each paper's picked sentences, verbatim. Adjacent picks
    are quoted as one span; otherwise the pick sharing the most words with the question
    (the earliest on a tie: the same picks always give the same quote, whatever else was
    retrieved with them)."""
    wanted = terms(query)
    by_paper: dict[str, list[cand.Sentence]] = {}
    for c in picked:
        by_paper.setdefault(c.source.paper_id, []).append(c)

    def quote_for(source: Source, _claims: str) -> str:
        mine = sorted(by_paper.get(source.paper_id, []), key=lambda c: (c.passage, c.position))
        if not mine:
            return ""
        positions = [c.position for c in mine]
        one_text = len({c.passage for c in mine}) == 1
        if one_text and positions == list(range(positions[0], positions[0] + len(positions))):
            k = mine[0].passage
            text = source.abstract if k < 0 else source.passages[k].text
            start = text.find(mine[0].text)
            end = text.find(mine[-1].text, max(start, 0))
            if 0 <= start <= end:
                return text[start : end + len(mine[-1].text)]
        # The abstract's on a tie: it is what the paper says of itself.
        return max(mine, key=lambda c: (len(wanted & terms(c.text)), -c.passage, -c.position)).text

    return quote_for


def _with_body_quotes(
    citations: Sequence[Citation], picked: Sequence[cand.Sentence]
) -> tuple[Citation, ...]:
    """Each citation with the body sentences the answer quotes from its paper (those its
    main quote does not already hold), each with the passage it is printed in."""
    out = []
    for c in citations:
        body = tuple(
            (s.text, s.source.passages[s.passage])
            for s in picked
            if s.source.paper_id == c.source.paper_id and s.passage >= 0 and s.text not in c.quote
        )
        out.append(replace(c, body_quotes=body) if body else c)
    return tuple(out)


def _pieces(text: str, head: int) -> list[str]:
    """The checked answer cut after its first ``head`` characters (the note) and after each
    citation (a sentence with its marker), so it streams as it would be read; the pieces
    join back to exactly the text."""
    cuts = [0, head]
    for _, end, _ in parse_markers(text):
        end += len(text[end:]) - len(re.sub(r"^[.!?\"')\]*]*\s*", "", text[end:]))
        cuts.append(end)
    cuts.append(len(text))
    return [text[a:b] for a, b in itertools.pairwise(sorted(set(cuts))) if b > a]


def extractive_answer(
    query: str,
    sources: Sequence[Source],
    *,
    embedder: Embedder,
    timings: dict[str, float],
    question: Question | None = None,
    fallback_reason: str = "",
    paper_vectors: PaperVectors | None = None,
    library: int = 0,
    unknown: Sequence[str] = (),
) -> Iterator[Event]:
    """The extractive answer to ``question`` (analysed from ``query`` when not given) from
    ``sources`` (numbered 1..k), as events. Refuses when no sentence can be quoted. Adds
    ``select`` to ``timings`` (``total`` is the caller's). ``paper_vectors`` gives the
    papers' stored vectors, which an overview groups into themes, and ``library`` how many
    papers the library holds (an overview reads at most a sample of them). ``unknown``:
    names in the question no paper of the library mentions, which the answer says before
    quoting the closest passages."""
    clock = time.perf_counter()
    question = question or analyse(query)
    if question.asks_author and question.kind != "author" and sources:
        body, picked = _authorship(sources[0])
    else:
        qvec = question_vector(question, query, embedder)
        body, picked = _compose(question, sources, embedder, qvec, paper_vectors, library)
    timings["select"] = time.perf_counter() - clock
    if not picked:
        yield from refusal(query, timings, answerer=EXTRACTIVE_MODE, reason="nothing to quote")
        return
    if unknown:
        body = f"{shapes.not_mentioned(unknown)}\n\n{body}"
    checked = check_citations(
        f"{EXTRACTIVE_NOTE}\n\n{body}", sources, quote_for=_quote_chooser(picked, query)
    )
    checked = replace(checked, citations=_with_body_quotes(checked.citations, picked))
    yield SourcesEvent(sources=tuple(sources))
    for piece in _pieces(checked.text, len(EXTRACTIVE_NOTE) + 2):
        yield DeltaEvent(text=piece)
    yield FinalEvent(
        answer=checked.text,
        citations=checked.citations,
        dropped=checked.dropped,
        answerer=EXTRACTIVE_MODE,
        timings=timings,
        query=query,
        fallback_reason=fallback_reason,
    )


def _authorship(source: Source) -> tuple[str, list[cand.Sentence]]:
    """Who wrote the paper, when its metadata says; nothing (a refusal) when it does not."""
    if not source.authors:
        return "", []
    sentences = split_sentences(source.abstract)
    first = cand.Sentence(source, 0, len(sentences), sentences[0] if sentences else "")
    return shapes.authorship(source), [first]
