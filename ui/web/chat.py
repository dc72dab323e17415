"""The Gradio chat: the only module that builds gradio components (gradio itself is imported
through :mod:`ui.web.gradio_import`). It reads the same answer events as the CLI and the
API, so a citation means the same thing here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rag.answer.events import DeltaEvent, ErrorEvent, FinalEvent
from rag.answer.followup import Turn
from rag.errors import PaperchatError
from rag.retrieve import Filters
from ui.web.gradio_import import gr
from ui.web.render import answer_markdown, md_escape, sources_html

if TYPE_CHECKING:
    import gradio

    from rag.engine import Engine
    from ui.app import App

__all__ = ["CSS", "EXAMPLES", "build_ui"]

# Questions the sample corpus (data/sample) answers.
EXAMPLES = [
    "How do systems reduce KV cache memory in LLM inference?",
    "How can deep learning models be trained over clusters connected by slow networks?",
    "Which inference engine is tailored to deploying deep learning models on mobile devices?",
    "How does feature caching accelerate diffusion model inference?",
]

CSS = """
.pc-sources { padding-left: 1.2em; }
.pc-source { margin-bottom: 0.8em; }
.pc-meta { opacity: 0.75; font-size: 0.9em; }
.pc-source blockquote { margin: 0.3em 0 0 0; font-style: italic; }
"""

Chat = list[dict[str, Any]]


def _filters(
    year_from: float | None, year_to: float | None, author: str, collection: str = ""
) -> Filters:
    return Filters(
        year_from=int(year_from) if year_from else None,
        year_to=int(year_to) if year_to else None,
        author=(author or "").strip(),
        collection=" ".join((collection or "").split()),
    )


def _too_long(question: str, chat: Chat, limit: int) -> Chat:
    message = (
        f"Your question has {len(question)} characters; the limit is {limit}. Please shorten it."
    )
    return [*chat, {"role": "user", "content": md_escape(question[:200]) + " …"},
            {"role": "assistant", "content": md_escape(message)}]  # fmt: skip


def _responder(engine: Engine) -> Callable[..., Iterator[tuple[Any, ...]]]:
    """The submit handler: streams (box, chat, turns, sources) updates for one question."""
    limit = engine.settings.max_question_chars

    def respond(
        question: str,
        chat: Chat,
        turns: list[Turn],
        year_from: float | None,
        year_to: float | None,
        author: str,
        collection: str = "",
    ) -> Iterator[tuple[Any, ...]]:
        question = (question or "").strip()
        if not question:
            yield "", chat, turns, gr.update()
            return
        if len(question) > limit:
            yield "", _too_long(question, chat, limit), turns, gr.update()
            return
        chat = [*chat, {"role": "user", "content": md_escape(question)},
                {"role": "assistant", "content": "…"}]  # fmt: skip
        yield "", chat, turns, sources_html([])
        try:
            filters = _filters(year_from, year_to, author, collection)
            events = engine.answer(question, history=tuple(turns), filters=filters)
            yield from _stream(events, question, chat, turns)
        except PaperchatError as exc:
            chat[-1] = {"role": "assistant", "content": md_escape(f"Error: {exc}")}
            yield gr.update(), chat, turns, gr.update()

    return respond


def _stream(
    events: Iterator[Any], question: str, chat: Chat, turns: list[Turn]
) -> Iterator[tuple[Any, ...]]:
    """The events of one answer as updates of the last chat message and the sources."""
    text = ""
    for event in events:
        if isinstance(event, DeltaEvent):
            text += event.text
            chat[-1] = {"role": "assistant", "content": md_escape(text)}
            yield gr.update(), chat, turns, gr.update()
        elif isinstance(event, ErrorEvent):
            note = f"The language model failed: {event.message}."
            if event.fallback:
                note += " An extractive answer follows."
            text = ""
            chat[-1] = {"role": "assistant", "content": md_escape(note)}
            yield gr.update(), chat, turns, gr.update()
        elif isinstance(event, FinalEvent):
            shown = "extractive" if event.answerer == "extractive" else event.model
            if event.fallback_reason:
                shown += " (the language model failed)"
            chat[-1] = {
                "role": "assistant",
                "content": answer_markdown(event.answer, event.citations, mode=shown),
            }
            cited = tuple(c.source.label for c in event.citations)
            turns = [*turns, Turn("user", question), Turn("assistant", event.answer, cited)]
            yield gr.update(), chat, turns, sources_html(event.citations)


def build_ui(app: App) -> gradio.Blocks:
    """The chat page over ``app``'s engine."""
    engine = app.engine
    papers, _ = engine.papers(0, 0)
    with gr.Blocks(title="paperchat") as demo:
        gr.Markdown(
            "## paperchat\nAsk what the papers say. Every **[n]** points at a paper that was "
            "really retrieved, with the sentence it rests on."
        )
        status = f"Answers: **{md_escape(engine.answerer)}** · {papers} papers in the index"
        if not papers:
            status += " — the index is empty: run `paperchat ingest data/sample`"
        gr.Markdown(status, elem_id="pc-status")
        with gr.Row():
            with gr.Column(scale=3):
                chatbot = gr.Chatbot(
                    label="Chat",
                    height=520,
                    buttons=["copy", "copy_all"],
                    feedback_options=None,
                    elem_id="pc-chat",
                )
                box = gr.Textbox(
                    placeholder="Ask a question about the papers…",
                    show_label=False,
                    submit_btn="Ask",
                    elem_id="pc-question",
                )
                gr.Examples(EXAMPLES, inputs=box, label="Examples")
                with gr.Accordion("Filters", open=False):
                    with gr.Row():
                        year_from = gr.Number(label="Year from", precision=0)
                        year_to = gr.Number(label="Year to", precision=0)
                    author = gr.Textbox(label="Author contains")
                    collection = gr.Textbox(label="Collection (as given to --collection)")
                clear = gr.Button("New conversation", size="sm")
            with gr.Column(scale=2):
                gr.Markdown("### Sources")
                sources = gr.HTML(sources_html([]), elem_id="pc-sources")
        turns = gr.State([])
        box.submit(
            _responder(engine),
            [box, chatbot, turns, year_from, year_to, author, collection],
            [box, chatbot, turns, sources],
        )
        clear.click(lambda: ([], [], sources_html([])), None, [chatbot, turns, sources])
    blocks: gradio.Blocks = demo
    return blocks
