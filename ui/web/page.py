"""The web page: a chat tab (answers with clickable citations, one sources panel, settings),
a library tab (find, read, ask about, add, remove papers; a picture of the library) and a
table tab (papers as rows, questions as columns),
built over one App. Gradio's own theme (light or dark as the system says) with a few small
touches of CSS; on a phone-sized window the sources panel moves below the chat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ui.web import chat
from ui.web.conversations import SavedChats
from ui.web.gradio_import import gr
from ui.web.library import Library
from ui.web.library_tab import LIBRARY_CSS, library_tab, paper_filter, wire_library
from ui.web.render import sources_html
from ui.web.table_tab import TABLE_CSS, TableView, table_tab, wire_table

if TYPE_CHECKING:
    import gradio

    from ui.app import App

__all__ = ["CSS", "EXAMPLES", "HEAD", "build_ui"]

# Questions the sample corpus (data/sample) answers; a click asks them.
EXAMPLES = [
    "How do systems reduce KV cache memory in LLM inference?",
    "How can deep learning models be trained over clusters connected by slow networks?",
    "Which inference engine is tailored to deploying deep learning models on mobile devices?",
    "What does Llumnix do, and how much does it speed up high-priority requests?",
]

CSS = """
.pc-sources details.pc-group > summary { font-weight: 600; margin: 0.4em 0; cursor: pointer; }
.pc-source { margin: 0 0 0.9em 0; padding: 0.4em 0.6em; border-radius: 6px; }
.pc-source.pc-flash { outline: 2px solid var(--color-accent); }
.pc-meta { opacity: 0.75; font-size: 0.9em; }
.pc-where { opacity: 0.75; font-size: 0.85em; margin-top: 0.3em; }
.pc-links a { margin-right: 0.6em; font-size: 0.9em; }
.pc-source blockquote { margin: 0.3em 0; font-style: italic; }
.pc-source mark { padding: 0 0.1em; }
.pc-unsupported { opacity: 0.7; text-decoration: underline dotted; cursor: help; }
.pc-unsupported::after { content: " \\2020"; }
#pc-convs .wrap { flex-direction: column; flex-wrap: nowrap; gap: 4px; max-height: 460px;
                 overflow-y: auto; }
#pc-convs .wrap label { width: 100%; }
@media (max-width: 720px) {
  #pc-convs-panel { order: 3; }
  #pc-convs .wrap { max-height: 220px; }
}
"""
CSS += LIBRARY_CSS + TABLE_CSS

# A click on a [n] marker shows its source card: opens its group, scrolls, flashes it.
HEAD = """<script>
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest('a[href^="#pc-src-"]');
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const card = document.getElementById(link.getAttribute("href").slice(1));
  if (!card) return;
  const group = card.closest("details");
  if (group) group.open = true;
  card.scrollIntoView({behavior: "smooth", block: "center"});
  card.classList.add("pc-flash");
  setTimeout(() => card.classList.remove("pc-flash"), 2000);
}, true);
</script>"""


def _answerers(app: App) -> tuple[list[str], str, str]:
    """The choices of who writes answers (extractive, and every model the configured or
    local server lists), the default one, and a note when no model server answers."""
    server = app.engine.models()
    default = app.engine.answerer
    choices = ["extractive", *server.models]
    if default not in choices:
        choices.append(default)
    return choices, default, "" if server.models else server.note


def build_ui(app: App) -> gradio.Blocks:
    """The page over ``app``'s engine and ingester."""
    library = Library(app)
    with gr.Blocks(title="paperchat") as demo:
        gr.Markdown(
            "## paperchat\nAsk what the papers say. Every **[n]** points at a paper that was "
            "really retrieved: click it to see the sentence it rests on."
        )
        status = gr.Markdown(library.status(), elem_id="pc-status")
        with gr.Tabs(elem_id="pc-tabs") as tabs:
            with gr.Tab("Chat", id="chat"):
                paper = paper_filter()  # set by the library's "Ask about this paper"
                parts = _chat_tab(app, library)
            with gr.Tab("Library", id="library") as shelf:
                lib = library_tab(library)
            with gr.Tab("Table", id="table"):
                tables = TableView(app)
                table_parts = table_tab(tables)
        parts["paper"] = paper
        _wire_chat(app, parts, status)
        wire_library(library, lib, status, tab=shelf, tabs=tabs, ask_into=paper)
        wire_table(tables, table_parts)
        lib["to_table"].click(tables.add_paper, [table_parts["ids"], lib["picked"]],
                              [table_parts["ids"], table_parts["kind"]])  # fmt: skip
        demo.load(library.status, None, status)
        demo.load(**parts["on_load"])  # the conversation shown last, and the list
    blocks: gradio.Blocks = demo
    return blocks


def _chat_tab(app: App, library: Library) -> dict[str, Any]:
    years = [chat.ANY_YEAR, *library.years()]
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=240, elem_id="pc-convs-panel"):
            conv_search = gr.Textbox(placeholder="Search conversations…", show_label=False,
                                     elem_id="pc-conv-search", max_lines=1)  # fmt: skip
            convs = gr.Radio([], label="Conversations", elem_id="pc-convs")
            conv_note = gr.Markdown("", elem_id="pc-conv-note")
            conv_title = gr.Textbox(label="Title of this conversation", max_lines=1,
                                    elem_id="pc-conv-title")  # fmt: skip
            with gr.Row():
                rename = gr.Button("Rename", size="sm", elem_id="pc-conv-rename",
                                   interactive=False, min_width=60)  # fmt: skip
                delete = gr.Button("Delete…", size="sm", elem_id="pc-conv-delete",
                                   interactive=False, min_width=60)  # fmt: skip
            with gr.Column(visible=False, elem_id="pc-conv-confirm") as confirm:
                confirm_text = gr.Markdown("", elem_id="pc-conv-confirm-text")
                with gr.Row():
                    delete_yes = gr.Button("Delete", size="sm", variant="stop",
                                           elem_id="pc-conv-delete-yes", min_width=60)  # fmt: skip
                    delete_no = gr.Button("Cancel", size="sm", elem_id="pc-conv-delete-no",
                                          min_width=60)  # fmt: skip
        with gr.Column(scale=3, min_width=340):
            chatbot = gr.Chatbot(label="Chat", height=520, buttons=["copy"],
                                 feedback_options=None, elem_id="pc-chat",
                                 autoscroll=False)  # fmt: skip
            box = gr.Textbox(placeholder="Ask a question about the papers…", show_label=False,
                             submit_btn="Ask", elem_id="pc-question")  # fmt: skip
            with gr.Row():
                stop = gr.Button("Stop", size="sm", variant="stop", elem_id="pc-stop", min_width=60)
                again = gr.Button("Regenerate", size="sm", elem_id="pc-regenerate", min_width=60)
                edit = gr.Button("Edit last", size="sm", elem_id="pc-edit", min_width=60)
                new = gr.Button("New chat", size="sm", elem_id="pc-new", min_width=60)
            with gr.Accordion("Example questions", open=True):
                examples = [gr.Button(q, size="sm", elem_classes="pc-example") for q in EXAMPLES]
            with gr.Accordion("Settings", open=False, elem_id="pc-settings"):
                choices, default, note = _answerers(app)
                answerer = gr.Radio(choices, value=default, label="Who writes answers",
                                    info=note or None)  # fmt: skip
                k = gr.Slider(1, 20, value=app.settings.answer_k, step=1, label="Papers per answer")
                with gr.Row():
                    year_from = gr.Dropdown(years, value=chat.ANY_YEAR, label="Year from")
                    year_to = gr.Dropdown(years, value=chat.ANY_YEAR, label="Year to")
                with gr.Row():
                    author = gr.Textbox(label="Author contains")
                    collection = gr.Textbox(label="Collection")
                excluded = gr.Markdown("", elem_id="pc-excluded")
            with gr.Row():
                export_md = gr.Button("Export conversation (Markdown)", size="sm")
                export_bib = gr.Button("Export cited papers (BibTeX)", size="sm")
            download = gr.File(label="Download", visible=False, interactive=False)
        with gr.Column(scale=2, min_width=340):
            gr.Markdown("### Sources")
            sources = gr.HTML(sources_html([]), elem_id="pc-sources")
    return {
        "chatbot": chatbot, "box": box, "stop": stop, "again": again, "edit": edit,
        "new": new, "examples": examples, "answerer": answerer, "k": k,
        "year_from": year_from, "year_to": year_to, "author": author, "collection": collection,
        "excluded": excluded,
        "export_md": export_md, "export_bib": export_bib, "download": download,
        "sources": sources, "turns": gr.State([]), "answers": gr.State([]),
        "question": gr.State(""), "saved": gr.BrowserState({}, storage_key="paperchat-chat"),
        "conversation": gr.State(""), "conv_search": conv_search, "convs": convs,
        "conv_note": conv_note, "conv_title": conv_title, "rename": rename, "delete": delete,
        "confirm": confirm, "confirm_text": confirm_text, "delete_yes": delete_yes,
        "delete_no": delete_no, "library": library,
    }  # fmt: skip


def _wire_chat(app: App, p: dict[str, Any], status: Any) -> None:
    respond = chat.responder(app.engine)
    saved = SavedChats(app.engine)
    settings = [p["answerer"], p["k"], p["year_from"], p["year_to"], p["author"], p["collection"]]
    settings += [p["paper"]] if "paper" in p else []  # "Ask about this paper" (library tab)
    state = [p["chatbot"], p["turns"], p["answers"]]
    asked = [*state, p["conversation"], *settings]
    outputs = [p["box"], *state, p["sources"], p["conversation"]]
    # What opening a conversation (or a new chat) sets, and the list beside the chat.
    opened = [*state, p["sources"], p["conversation"], p["conv_title"], p["saved"], p["confirm"]]
    listing = [p["convs"], p["conv_note"], p["conv_title"], p["rename"], p["delete"]]
    listed = [p["conv_search"], p["conversation"]]
    library: Library = p["library"]

    def kept(conversation: str) -> dict[str, Any]:
        return {"conversation": conversation} if conversation else {}

    def after(event: Any) -> Any:  # a title being edited is left alone
        return (event.then(kept, p["conversation"], p["saved"])
                .then(saved.listing, [*listed, p["conv_title"]], listing)
                .then(library.status, None, status))  # fmt: skip

    runs = [after(p["box"].submit(respond, [p["box"], *asked], outputs))]
    for button in p["examples"]:
        runs.append(after(button.click(lambda q: q, button, p["question"]).then(
            respond, [p["question"], *asked], outputs)))  # fmt: skip
    popped = [*state, p["sources"], p["conversation"]]
    runs.append(after(p["again"].click(saved.pop_last, [*state, p["conversation"]],
                                       [p["question"], *popped])
                      .then(respond, [p["question"], *asked], outputs)))  # fmt: skip
    p["stop"].click(lambda: gr.update(interactive=True, placeholder="Stopped. Ask again…"),
                    None, p["box"], cancels=runs)  # fmt: skip
    p["edit"].click(saved.pop_last, [*state, p["conversation"]], [p["box"], *popped]).then(
        kept, p["conversation"], p["saved"]).then(saved.listing, listed, listing)  # fmt: skip
    p["new"].click(saved.new, None, opened).then(saved.listing, listed, listing)
    # The chat's own bin starts a new chat too (the saved conversation stays listed).
    p["chatbot"].clear(saved.new, None, opened).then(saved.listing, listed, listing)
    p["convs"].input(saved.open, p["convs"], opened).then(saved.listing, listed, listing)
    p["conv_search"].change(saved.listing, listed, listing)
    renamed = [p["conversation"], p["conv_title"], p["conv_search"]]
    p["rename"].click(saved.rename, renamed, listing)
    p["conv_title"].submit(saved.rename, renamed, listing)
    p["delete"].click(saved.ask_delete, p["conversation"], [p["confirm"], p["confirm_text"]])
    p["delete_no"].click(lambda: gr.update(visible=False), None, p["confirm"])
    p["delete_yes"].click(saved.delete, p["conversation"], opened).then(
        saved.listing, listed, listing)  # fmt: skip

    def loaded(kept_in_browser: dict[str, Any] | None) -> tuple[Any, ...]:
        shown = saved.load(kept_in_browser)
        return (*shown, *saved.listing("", shown[4]))

    p["on_load"] = {"fn": loaded, "inputs": p["saved"], "outputs": [*opened, *listing]}

    def shown(path: str | None) -> Any:
        return gr.update(value=path, visible=bool(path))

    p["export_md"].click(lambda t, a, title: shown(chat.export_markdown(t, a, title)),
                         [p["turns"], p["answers"], p["conv_title"]], p["download"])  # fmt: skip
    p["export_bib"].click(lambda a: shown(chat.export_bibtex(a)), p["answers"], p["download"])
    for year in (p["year_from"], p["year_to"]):
        year.change(library.excluded, [p["year_from"], p["year_to"]], p["excluded"])
