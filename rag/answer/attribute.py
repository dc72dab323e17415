"""Attribution after generation: each sentence of a generated answer -> the sources that say it.

A language model's markers are claims about its sources, and small models make them badly:
the right sentence with another paper's number, no number at all, a figure the paper does
not give, a sentence of their own. Every sentence of the answer is matched here against
the sentences of the sources offered (their abstracts and the body passages in the prompt):

- a sentence's content words, each weighted by how rare it is among the offered sources'
  sentences (words about papers themselves, "the authors found", do not count), are looked
  for in each source's best sentence, the paper's name and title counting as said by each
  of its sentences; the source whose sentence covers ``COVER`` of that weight supports it;
  a sentence joining two papers is supported by two sentences that cover it together,
  each adding ``ADDS`` of the weight;
- every figure of the sentence (a number standing as a quantity: 40%, 2.3x, 1,024, 2019)
  must be in the supporting sentence, or be the paper's year; a number inside a name
  (GPT-4, CO2) must be in the paper's text. Otherwise the sentence is unsupported;
- a sentence that says nothing of the papers' content ("Here is what the papers say.") is
  no claim: it gets no marker and is not flagged.

The model's markers are kept when their source supports the sentence (the model's choice
among sources that do is respected), moved when another source supports it instead, and
removed when none does: the sentence is then **unsupported**. ``COVER`` and ``ADDS`` were
chosen on the attribution bench (bench/attribution.py), leaving each library out. The
answer's sentences and figures are read by :mod:`rag.answer.claims`. Pure logic over text:
no model, no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.cite import Source
from rag.answer.claims import (
    ABOUT,
    DISCOURSE,
    NAME_NUMBER,
    PROPER,
    AnswerSentence,
    Figure,
    Segment,
    answer_sentences,
    figures,
    flat,
    held,
    plain,
    segments,
    strip_markers,
)
from rag.answer.quotes import sentence_spans
from rag.terms import share, terms

__all__ = ["ADDS", "COVER", "PAPER", "AnswerSentence", "Attributed", "Evidence", "Judged",
           "answer_sentences", "attribute", "segments"]  # fmt: skip

COVER = 0.5  # share of a sentence's weighted words one source's sentence(s) must hold
ADDS = 0.15  # share a second source's sentence must add to support a joined sentence
FRAMING = 5  # most content words of a sentence that only frames the answer
TOUCHES = 0.25  # share of its words a framing sentence may have in one source sentence
PAPER = 0.5  # what a word counts for when its paper says it, but not in the sentence matched
JOIN = 0.3  # share each of two sources' sentences must hold of a sentence joining them
WINDOW = 2  # adjacent sentences of a source read together as one piece of evidence
_NUMBER = re.compile(r"[\d.,]+")  # a word that is only a number (a figure's digits)

# -- evidence -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Unit:
    source: int  # the source's number
    text: str  # one sentence of its abstract or of a body passage, verbatim
    terms: frozenset[str]
    figures: frozenset[Figure]


def _windows(text: str) -> list[str]:
    """Each sentence of ``text`` and each run of up to ``WINDOW`` adjacent ones, verbatim: a
    claim often joins what a paper says over two sentences."""
    spans = sentence_spans(text)
    return [text[spans[i][0] : spans[j][1]] for i in range(len(spans))
            for j in range(i, min(i + WINDOW, len(spans)))]  # fmt: skip


def _unit(n: int, span: str) -> _Unit:
    written = flat(span)
    return _Unit(n, span, frozenset(terms(written)), frozenset(figures(written, spelled=True)))


class Evidence:
    """The offered sources' sentences, the weight of each word among them, and the
    judgements made against them: built once per answer, as its text streams in."""

    def __init__(self, sources: Sequence[Source], question: str = "") -> None:
        # (sentence, its cited numbers) -> its judgement and the markers it keeps
        self.judged: dict[tuple[str, tuple[int, ...]], tuple[Judged, list[int]]] = {}
        self.question = terms(flat(question)) - DISCOURSE
        self.question_figures = figures(flat(question))
        self.units: dict[int, list[_Unit]] = {}
        self.names: dict[int, set[str]] = {}
        self.vocabulary: dict[int, set[str]] = {}  # every word of a source's texts
        self.known: dict[int, str] = {}  # all of a source's text, for numbers inside names
        self.years: dict[int, float] = {}
        for src in sources:
            texts = [src.abstract, *(p.text for p in src.passages)]
            self.units[src.n] = [_unit(src.n, span) for t in texts for span in _windows(t)]
            self.names[src.n] = terms(flat(f"{src.name} {src.title} {src.label}"))
            self.vocabulary[src.n] = set().union(*(u.terms for u in self.units[src.n]))
            self.known[src.n] = flat(" ".join([src.name, src.title, *texts])).casefold()
            if src.year:
                self.years[src.n] = float(src.year)
        df = Counter(t for us in self.units.values() for u in us for t in u.terms)
        self.total = max(sum(len(us) for us in self.units.values()), 1)
        self.idf = {t: math.log(1 + self.total / c) for t, c in df.items()}

    def weight(self, term: str) -> float:
        return self.idf.get(term, math.log(1 + self.total))


@dataclass(frozen=True, slots=True)
class Judged:
    """What attribution found for one sentence: the sources supporting it (prompt numbers),
    each with its supporting sentence, and whether it makes a claim at all."""

    support: tuple[int, ...]
    evidence: dict[int, str]
    claim: bool = True

    @property
    def supported(self) -> bool:
        return bool(self.support) or not self.claim


def _wanted(written: str, ev: Evidence) -> dict[str, float]:
    """The content words of a sentence (as :func:`flat` writes it), each with its weight."""
    return {t: ev.weight(t) for t in terms(written) - DISCOURSE}


def _covered(
    wanted: dict[str, float], have: set[str] | frozenset[str], paper: set[str] | None = None
) -> float:
    """The weighted share of ``wanted`` that ``have`` holds, a word only ``paper`` holds
    counting ``PAPER`` of its weight."""
    if not paper:
        return share(wanted, have)
    return share(wanted, have) + PAPER * share(wanted, set(paper) - set(have))


def _names_ok(written: str, n: int, ev: Evidence) -> bool:
    return all(m.group().casefold() in ev.known[n] for m in NAME_NUMBER.finditer(written))


def _makes_claim(
    sentence: str, wanted: dict[str, float], cited: Sequence[int], asked: set[Figure], ev: Evidence
) -> bool:
    """False for a sentence that only frames the answer ("Here is what the papers say."):
    it speaks of the papers or the answer, has no marker, no figure, no name (a capitalised
    word inside it), at most FRAMING content words, and hardly any in the sources' sentences."""
    if cited or asked or len(wanted) > FRAMING or PROPER.search(sentence):
        return True
    if not terms(sentence) & ABOUT:
        return True
    vocabulary = max((_covered(wanted, u.terms) for us in ev.units.values() for u in us),
                     default=0.0)  # fmt: skip
    return vocabulary >= TOUCHES


def _restates(sentence: str, wanted: dict[str, float], asked: set[Figure], ev: Evidence) -> bool:
    """A question, or a sentence saying nothing the question did not ("The question asks
    how much ..."): no claim, whatever words of the sources it repeats."""
    if strip_markers(sentence).rstrip().endswith("?"):
        return True
    return (
        bool(ev.question)
        and set(wanted) <= ev.question
        and all(held(f, ev.question_figures) for f in asked)
    )


def judge(sentence: str, cited: Sequence[int], ev: Evidence) -> Judged:
    """The sources supporting ``sentence`` (module doc), preferring those it ``cited``."""
    written = flat(strip_markers(sentence))
    wanted = _wanted(written, ev)
    asked = figures(written)
    if (
        not wanted
        or not _makes_claim(sentence, wanted, cited, asked, ev)
        or _restates(sentence, wanted, asked, ev)
    ):
        return Judged((), {}, claim=False)
    best: dict[int, tuple[float, _Unit]] = {}
    for n, units in ev.units.items():
        if not units or not _names_ok(written, n, ev):
            continue
        names = ev.names[n]
        # The paper's year, written as a year ("in 2019"), not a decade ("the 2010s").
        y = int(ev.years.get(n, 0))
        year: set[Figure] = {float(y)} if y and re.search(rf"\b{y}\b(?!s)", sentence) else set()
        covering = [(_covered(wanted, u.terms | names, ev.vocabulary[n]), u) for u in units]
        scored = [(c, u) for c, u in covering if all(held(f, set(u.figures) | year) for f in asked)]
        if scored:
            best[n] = max(scored, key=lambda x: (x[0], -len(x[1].text)))
    alone = sorted(
        (n for n, (c, _) in best.items() if c >= COVER),
        key=lambda n: (n not in cited, -best[n][0], n),
    )
    # The paper cited says the sentence's words (its figures aside) at least as well as a
    # paper printing its figure, alone or joined with it: the figure was changed, and a
    # paper printing that number about something else does not make it good.
    words = {t: w for t, w in wanted.items() if not _NUMBER.fullmatch(t)}
    worded = 0.0
    if asked:  # only a sentence with figures can have one changed
        worded = max((_worded(words, n, ev) for n in cited if n in ev.units), default=0.0)
    if alone:
        first = alone[0]
        if asked and first not in cited and worded >= max(COVER, _worded(words, first, ev)):
            return Judged((), {})
        return Judged((first,), {first: best[first][1].text})
    joined = _joined(wanted, asked, cited, ev)
    if joined and asked and worded >= COVER and not set(joined.support) <= set(cited):
        return Judged((), {})
    return joined or Judged((), {})


def _worded(words: dict[str, float], n: int, ev: Evidence) -> float:
    return max((_covered(words, u.terms | ev.names[n], ev.vocabulary[n]) for u in ev.units[n]),
               default=0.0)  # fmt: skip


def _joined(
    wanted: dict[str, float], asked: set[Figure], cited: Sequence[int], ev: Evidence
) -> Judged | None:
    """Two sources whose sentences together cover the sentence, each adding ``ADDS``, and
    together hold its figures; the cited pair first, then the best."""
    options = []
    units = [u for us in ev.units.values() for u in us]
    shares = {id(u): _covered(wanted, u.terms | ev.names[u.source]) for u in units}
    top = sorted(units, key=lambda u: -shares[id(u)])[:12]
    for i, a in enumerate(top):
        for b in top[i + 1 :]:
            if a.source == b.source:
                continue
            both = a.terms | b.terms | ev.names[a.source] | ev.names[b.source]
            union = _covered(wanted, both)
            adds_a = union - shares[id(b)]
            adds_b = union - shares[id(a)]
            have = set(a.figures | b.figures)
            own = min(shares[id(a)], shares[id(b)])
            if (
                union >= COVER
                and min(adds_a, adds_b) >= ADDS
                and own >= JOIN
                and all(held(f, have) for f in asked)
            ):
                cited_both = a.source in cited and b.source in cited
                options.append((cited_both, union, a, b))
    if not options:
        return None
    _, _, a, b = max(options, key=lambda o: (o[0], o[1]))
    pair = tuple(sorted((a.source, b.source)))
    return Judged(pair, {a.source: a.text, b.source: b.text})


# -- the answer ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attributed:
    """A generated answer with its markers settled (prompt numbers), each sentence judged,
    and the sentences ``strict`` removed."""

    text: str
    judged: tuple[tuple[str, Judged], ...]  # (sentence without markers, its judgement)
    removed: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()  # each number written but not kept, as "[k]", in order

    def evidence(self) -> dict[int, list[str]]:
        """Each supporting source's sentences, in answer order (the quotes to show)."""
        out: dict[int, list[str]] = {}
        for _, j in self.judged:
            for n, s in j.evidence.items():
                if s not in out.setdefault(n, []):
                    out[n].append(s)
        return out


def _marker(numbers: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, sorted(set(numbers)))) + "]"


def _rewrite(piece: str, support: Sequence[int]) -> str:
    """The sentence with its markers replaced by ``support``'s, before its closing
    punctuation (none: the sentence alone)."""
    bare = re.sub(r"^[,;]\s*", "", plain(piece))
    if not support:
        return bare
    m = re.search(r"([.!?:;][\"')\]]*)$", bare)
    if m is None:
        return f"{bare} {_marker(support)}"
    return f"{bare[: m.start()]} {_marker(support)}{bare[m.start() :]}"


def attribute(
    text: str,
    sources: Sequence[Source],
    *,
    strict: bool = False,
    question: str = "",
    evidence: Evidence | None = None,
) -> Attributed:
    """``text`` with every sentence's markers settled against ``sources`` (module doc). A
    sentence whose markers already name exactly its supporting sources is left as written;
    with ``strict`` an unsupported sentence is removed. A sentence restating ``question``
    (the question asked) makes no claim. ``evidence``: the sources' :class:`Evidence`, when
    the same answer is checked again (it streams); made from ``sources`` otherwise."""
    ev = evidence or Evidence(sources, question)
    out, pos = [], 0
    judged: list[tuple[str, Judged]] = []
    removed: list[str] = []
    dropped: list[str] = []
    for seg in segments(text):
        valid = [k for k in seg.numbers if k in ev.units]
        j, kept = _by_clause(seg, ev) or _whole(seg.text, valid, ev)
        dropped += [f"[{k}]" for k in seg.numbers if k not in kept]
        out.append(text[pos : seg.start])
        piece = text[seg.start : seg.end]
        pos = seg.end
        if strict and not j.supported:
            removed.append(seg.text)
            out.append("")
            continue
        if set(kept) == set(seg.numbers):
            out.append(piece)
        else:
            out.append(_rewrite(piece, kept))
        judged.append((seg.text, Judged(tuple(kept), {n: j.evidence[n] for n in kept
                                                      if n in j.evidence}, j.claim)))  # fmt: skip
    out.append(text[pos:])
    body = re.sub(r"[ \t]+\n", "\n", "".join(out))
    # Spaces a removed marker left; a line's indentation (a nested list) stays.
    body = re.sub(r"\n{3,}", "\n\n", re.sub(r"(?<=\S)[ \t]{2,}", " ", body)).strip()
    return Attributed(body, tuple(judged), tuple(removed), tuple(dropped))


def _whole(sentence: str, cited: Sequence[int], ev: Evidence) -> tuple[Judged, list[int]]:
    key = (sentence, tuple(cited))
    if key not in ev.judged:  # a streamed answer is checked again as each sentence ends
        j = judge(sentence, cited, ev)
        ev.judged[key] = (j, _keep(j, cited, sentence, ev))
    j, kept = ev.judged[key]
    return j, list(kept)


def _by_clause(seg: Segment, ev: Evidence) -> tuple[Judged, list[int]] | None:
    """A sentence the model cited clause by clause, judged so: each clause that makes a
    claim must be supported, and the sentence is supported by all their sources. None when
    it has one clause or a clause is unsupported (it is then judged whole)."""
    if len(seg.clauses) < 2:
        return None
    support: list[int] = []
    evidence: dict[int, str] = {}
    for clause, cited in seg.clauses:
        valid = [k for k in cited if k in ev.units]
        j, kept = _whole(clause, valid, ev)
        if not j.claim:
            continue
        if not kept:
            return None
        support += [n for n in kept if n not in support]
        evidence |= {n: j.evidence[n] for n in kept if n in j.evidence and n not in evidence}
    return (Judged(tuple(support), evidence), support) if support else None


def _keep(j: Judged, cited: Sequence[int], sentence: str, ev: Evidence) -> list[int]:
    """The markers the sentence ends with: its supporting sources. A cited source beside
    them is kept when its own best sentence adds ``ADDS`` of the words (a joined claim the
    model cited right)."""
    if not j.claim or not j.support:
        return []
    kept = list(j.support)
    wanted = _wanted(flat(strip_markers(sentence)), ev)
    base = set().union(*(terms(j.evidence[n]) | ev.names[n] for n in kept))
    for n in cited:
        if n in kept:
            continue
        gain = max(
            (_covered(wanted, base | u.terms | ev.names[n]) - _covered(wanted, base)
             for u in ev.units[n]), default=0.0,
        )  # fmt: skip
        if gain >= ADDS:
            kept.append(n)
    return kept
