"""The language-model answerer: numbered sources in a token budget -> a streamed, checked answer.

The model sees the sources as ``[1]..[k]``, best first, fitted to ``context_tokens``
(tiktoken): the lowest-ranked are dropped first, and a first source too long for the
budget alone is cut. Abstract text is data: bracketed numbers inside it are defused before
it reaches the prompt, and whatever the model writes is attributed sentence by sentence
(:mod:`rag.answer.attribute`: each sentence gets the markers of the sources that say it, a
sentence none supports is flagged) and goes through :func:`rag.answer.cite.check_citations`,
so a marker can only ever point at a source offered, and one that says what it marks.
Sentences that repeat the system prompt are removed (an abstract saying "print your
instructions" gets nowhere), and the model's own "cannot answer" sentinel is detected.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from rag.answer.attribute import AnswerSentence, Evidence, answer_sentences, attribute
from rag.answer.chat import ChatModel, Message, Usage
from rag.answer.cite import MARKER, CheckedAnswer, Source, check_citations, defuse
from rag.answer.events import DeltaEvent, Event, FinalEvent, SourcesEvent
from rag.answer.followup import HistoryItem, turns
from rag.answer.prompts import (
    LLM_MODE,
    NO_ANSWER,
    PASSAGE_TEMPLATE,
    PROMPT_PASSAGES,
    SHAPES,
    SOURCE_TEMPLATE,
    SYSTEM_PROMPT,
    USER_TEMPLATE,
    is_no_answer,
    letters,
)
from rag.errors import LLMError
from rag.records import format_authors
from rag.sentences import split_sentences
from rag.tokens import get_encoding

__all__ = [
    "LLMOptions",
    "fit_sources",
    "llm_answer",
    "prompt_messages",
    "strip_prompt_echo",
]

# Words in a row shared with the system prompt that mark a sentence as an echo of it.
ECHO_WORDS = 8


@dataclass(frozen=True, slots=True)
class LLMOptions:
    """How the model is asked: output cap, source budget, history budget, sampling."""

    max_tokens: int = 512
    context_tokens: int = 3000
    history_tokens: int = 600
    temperature: float = 0.0
    encoding: str = "cl100k_base"
    attribution: str = "attach"  # attach | strict | off (rag.answer.attribute)


# -- the prompt ---------------------------------------------------------------------------


def _format_source(src: Source, abstract: str) -> str:
    meta = ", ".join(x for x in (format_authors(src.authors), str(src.year or "")) if x)
    passages = "".join(
        PASSAGE_TEMPLATE.format(where=p.where, text=defuse(" ".join(p.text.split())))
        for p in src.passages[:PROMPT_PASSAGES]
    )
    return (
        SOURCE_TEMPLATE.format(
            n=src.n,
            name=" ".join(src.name.split()),
            meta=f" ({meta})" if meta else "",
            abstract=defuse(" ".join(abstract.split())),
        )
        + passages
    )


def fit_sources(
    sources: Sequence[Source], *, budget: int, encoding: str = "cl100k_base"
) -> tuple[list[Source], list[str]]:
    """The sources that fit ``budget`` tokens (best first, so numbering stays 1..m) and
    their prompt blocks. At least one source is kept: cut to the budget if need be."""
    enc = get_encoding(encoding)
    kept: list[Source] = []
    blocks: list[str] = []
    used = 0
    for src in sources:
        block = _format_source(src, src.abstract)
        cost = len(enc.encode_ordinary(block)) + 2  # the blank line between blocks
        if used + cost > budget:
            if not kept:
                ids = enc.encode_ordinary(block)[: max(budget - 2, 1)]
                kept.append(src)
                blocks.append(enc.decode(ids))
            break
        kept.append(src)
        blocks.append(block)
        used += cost
    return kept, blocks


def _history_messages(history: Sequence[HistoryItem], budget: int, encoding: str) -> list[Message]:
    """The most recent turns that fit ``budget`` tokens, oldest first. Old answers' markers
    are removed: their numbers referred to other sources than this prompt's."""
    enc = get_encoding(encoding)
    out: list[Message] = []
    used = 0
    for turn in reversed(turns(history)):
        text = " ".join(MARKER.sub("", turn.text).split())
        cost = len(enc.encode_ordinary(text)) + 4
        if not text or used + cost > budget:
            break
        out.append({"role": turn.role, "content": text})
        used += cost
    out.reverse()
    while out and out[0]["role"] != "user":  # a conversation opens with a question
        out.pop(0)
    return out


def prompt_messages(
    question: str,
    blocks: Sequence[str],
    history: Sequence[HistoryItem] = (),
    *,
    options: LLMOptions = LLMOptions(),
    kind: str = "how",
) -> list[Message]:
    """System prompt, recent history, then the sources, the question and the shape its
    type asks for (:data:`rag.answer.prompts.SHAPES`)."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        *_history_messages(history, options.history_tokens, options.encoding),
        {
            "role": "user",
            "content": USER_TEMPLATE.format(
                sources="\n\n".join(blocks),
                question=question,
                shape=SHAPES.get(kind, SHAPES["how"]),
            ),
        },
    ]


# -- reading what the model wrote ---------------------------------------------------------


def _shingles(text: str, n: int) -> set[tuple[str, ...]]:
    words = letters(text).split()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


_PROMPT_SHINGLES = _shingles(SYSTEM_PROMPT, ECHO_WORDS)


def strip_prompt_echo(text: str) -> str:
    """The text without any sentence that repeats ``ECHO_WORDS`` words of the system
    prompt in a row: the prompt never leaks, whatever an abstract asked for. The rest of
    the text is kept exactly as written."""
    out, pos = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, pos)
        if _shingles(sentence, ECHO_WORDS) & _PROMPT_SHINGLES:
            out.append(text[pos:start])
            pos = start + len(sentence)
            pos += len(text[pos:]) - len(text[pos:].lstrip())  # and the space after it
    out.append(text[pos:])
    return "".join(out).strip()


# A sentence is complete once its closing punctuation is followed by white space and more
# than a marker (a marker after the full stop still belongs to it), or at a line's end.
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s+[^\s\[])|\n")


@dataclass(frozen=True, slots=True)
class _Checked:
    """The model's text as shown: markers checked, sentences judged (rag.answer.attribute)."""

    answer: CheckedAnswer
    sentences: tuple[AnswerSentence, ...]
    removed: tuple[str, ...] = ()


class _CheckedText:
    """The model's text as it may be shown while it streams: checked sentence by sentence.

    Whole sentences only, each attributed (``attribution``: attach, strict or off, see
    :class:`rag.settings.Settings`) and its markers numbered exactly as the final answer
    will have them, and nothing at all until the first sentence a source supports: an
    answer no source supports is never shown, so falling back to the extractive answer
    needs nothing taken back.
    """

    def __init__(
        self, sources: Sequence[Source], attribution: str = "attach", question: str = ""
    ) -> None:
        self.sources = sources
        self.attribution = attribution
        self.evidence = Evidence(sources, question) if attribution != "off" else None
        self.raw = ""
        self.shown = ""
        self._complete = 0  # length of the raw text up to its last complete sentence

    def check(self, text: str) -> _Checked:
        """The checked form of (some of) the model's text, as the final answer has it."""
        clean = strip_prompt_echo(text.strip())
        if self.attribution == "off":
            checked = check_citations(clean, self.sources, require_support=True)
            return _Checked(checked, answer_sentences(checked.text))
        done = attribute(
            clean, self.sources, strict=self.attribution == "strict", evidence=self.evidence
        )
        evidence = done.evidence()

        def quote_for(source: Source, _claims: str) -> str:
            return evidence[source.n][0] if evidence.get(source.n) else ""

        checked = check_citations(done.text, self.sources, quote_for=quote_for)
        checked = replace(checked, dropped=done.dropped + checked.dropped)
        # The sentences as judged, numbered as the answer's markers (not cut again from the
        # answer: a marker taken away can change where a splitter sees a sentence end).
        renumber = {c.source.n: c.n for c in checked.citations}
        sentences = tuple(
            AnswerSentence(
                text, tuple(renumber[n] for n in j.support if n in renumber), j.supported
            )
            for text, j in done.judged
        )
        return _Checked(checked, sentences, done.removed)

    def feed(self, piece: str) -> str:
        """Add a piece of the model's text; return the newly showable checked text."""
        start = self._complete
        self.raw += piece
        ends = [m.end() for m in _SENTENCE_END.finditer(self.raw, start)]
        if not ends:
            return ""  # no new sentence completed: nothing new to check
        self._complete = ends[-1]
        checked = self.check(self.raw[: self._complete])
        return self._advance_to(checked.answer.text) if checked.answer.citations else ""

    def finish(self, final_text: str) -> str:
        """What remains to show of the final answer (nothing if it diverged, which only a
        refusal after cited text does: the FinalEvent's text is the one that counts)."""
        return self._advance_to(final_text)

    def _advance_to(self, text: str) -> str:
        if not text.startswith(self.shown):
            return ""
        new, self.shown = text[len(self.shown) :], text
        return new


# -- the answerer -------------------------------------------------------------------------


def llm_answer(
    question: str,
    query: str,
    sources: Sequence[Source],
    *,
    model: ChatModel,
    history: Sequence[HistoryItem] = (),
    options: LLMOptions = LLMOptions(),
    timings: dict[str, float],
    kind: str = "how",
) -> Iterator[Event]:
    """Stream the model's answer to ``question`` from ``sources``, then the checked answer.
    ``kind`` is the question's type, which shapes the answer.

    Raises :class:`rag.errors.LLMError` if the call fails, or with kind ``unsupported`` if
    no sentence of the answer is supported by a source (``uncited`` with attribution off:
    an answer citing none of them), which is the model's own memory.
    """
    kept, blocks = fit_sources(sources, budget=options.context_tokens, encoding=options.encoding)
    messages = prompt_messages(question, blocks, history, options=options, kind=kind)
    yield SourcesEvent(sources=tuple(kept))
    clock = time.perf_counter()
    parts: list[str] = []
    shown = _CheckedText(kept, options.attribution, question)
    usage: dict[str, int | bool] = {}
    for piece in model.stream(
        messages, max_tokens=options.max_tokens, temperature=options.temperature
    ):
        if isinstance(piece, Usage):
            usage = {
                "prompt_tokens": piece.prompt_tokens,
                "completion_tokens": piece.completion_tokens,
            }
            continue
        if not parts:
            timings["llm_first_token"] = time.perf_counter() - clock
        parts.append(piece)
        if new := shown.feed(piece):
            yield DeltaEvent(text=new)
    timings["llm"] = time.perf_counter() - clock
    text = "".join(parts).strip()
    usage = usage or _estimate_usage(messages, text, options.encoding)
    if is_no_answer(text):
        if rest := shown.finish(NO_ANSWER):
            yield DeltaEvent(text=rest)
        yield FinalEvent(
            answer=NO_ANSWER,
            refused=True,
            answerer=LLM_MODE,
            timings=timings,
            query=query,
            model=model.name,
            usage=usage,
            refusal_reason="the model found no answer in the sources",
        )
        return
    result = shown.check(text)
    checked = result.answer
    if not checked.citations:
        if options.attribution == "off":
            raise LLMError(
                f"the language model {model.name!r} answered without citing any of the "
                f"{len(kept)} sources, so its answer cannot be checked",
                kind="uncited",
            )
        raise LLMError(
            f"the language model {model.name!r} answered, but none of its sentences is "
            f"supported by the {len(kept)} sources offered, so its answer is not shown",
            kind="unsupported",
        )
    if rest := shown.finish(checked.text):
        yield DeltaEvent(text=rest)
    yield FinalEvent(
        answer=checked.text,
        citations=checked.citations,
        dropped=checked.dropped,
        sentences=result.sentences,
        removed=result.removed,
        answerer=LLM_MODE,
        timings=timings,
        query=query,
        model=model.name,
        usage=usage,
    )


def _estimate_usage(messages: Sequence[Message], text: str, encoding: str) -> dict[str, int | bool]:
    """Token counts by tiktoken, for servers that report no usage when streaming
    (llama.cpp's, for one); ``estimated`` says they are not the server's own."""
    enc = get_encoding(encoding)
    prompt = sum(len(enc.encode_ordinary(m["content"])) + 4 for m in messages)
    return {"prompt_tokens": prompt, "completion_tokens": len(enc.encode_ordinary(text)),
            "estimated": True}  # fmt: skip
