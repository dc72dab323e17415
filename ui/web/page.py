"""The web page: a chat tab (answers with clickable citations, one sources panel, settings)
and a library tab (find, read, add, remove papers), built over one App. Gradio's own theme
(light or dark as the system says) with a few small touches of CSS; on a phone-sized
window the sources panel moves below the chat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ui.web import chat
from ui.web.gradio_import import gr
from ui.web.library import LIBRARY_HEADERS, Library
from ui.web.render import sources_html

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
"""

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
        with gr.Tab("Chat", id="chat"):
            parts = _chat_tab(app, library)
        with gr.Tab("Library", id="library") as library_tab:
            lib = _library_tab(library)
        _wire_chat(app, parts, status)
        _wire_library(library, lib, status)
        library_tab.select(library.table, lib["search"], [lib["table"], lib["note"]])
        demo.load(library.status, None, status)
        demo.load(chat.restore, parts["saved"], [parts["chatbot"], parts["turns"]])
    blocks: gradio.Blocks = demo
    return blocks


def _chat_tab(app: App, library: Library) -> dict[str, Any]:
    years = [chat.ANY_YEAR, *library.years()]
    with gr.Row(equal_height=False):
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
        "library": library,
    }  # fmt: skip


def _wire_chat(app: App, p: dict[str, Any], status: Any) -> None:
    respond = chat.responder(app.engine)
    settings = [p["answerer"], p["k"], p["year_from"], p["year_to"], p["author"], p["collection"]]
    state = [p["chatbot"], p["turns"], p["answers"]]
    outputs = [p["box"], *state, p["sources"]]
    library: Library = p["library"]

    def saved(chatbot: Any, turns: Any) -> dict[str, Any]:
        return chat.snapshot(chatbot, turns)

    def after(event: Any) -> Any:
        return event.then(saved, [p["chatbot"], p["turns"]], p["saved"]).then(
            library.status, None, status
        )

    runs = [after(p["box"].submit(respond, [p["box"], *state, *settings], outputs))]
    for button in p["examples"]:
        runs.append(after(button.click(lambda q: q, button, p["question"]).then(
            respond, [p["question"], *state, *settings], outputs)))  # fmt: skip
    runs.append(after(p["again"].click(chat.pop_last, state, [p["question"], *state, p["sources"]])
                      .then(respond, [p["question"], *state, *settings], outputs)))  # fmt: skip
    p["stop"].click(lambda: gr.update(interactive=True, placeholder="Stopped. Ask again…"),
                    None, p["box"], cancels=runs)  # fmt: skip
    p["edit"].click(chat.pop_last, state, [p["box"], *state, p["sources"]])
    p["new"].click(lambda: ([], [], [], sources_html([]), {}), None,
                   [*state, p["sources"], p["saved"]])  # fmt: skip

    def shown(path: str | None) -> Any:
        return gr.update(value=path, visible=bool(path))

    p["export_md"].click(lambda t, a: shown(chat.export_markdown(t, a)),
                         [p["turns"], p["answers"]], p["download"])  # fmt: skip
    p["export_bib"].click(lambda a: shown(chat.export_bibtex(a)), p["answers"], p["download"])
    for year in (p["year_from"], p["year_to"]):
        year.change(library.excluded, [p["year_from"], p["year_to"]], p["excluded"])


def _library_tab(library: Library) -> dict[str, Any]:
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=340):
            search = gr.Textbox(placeholder="Search titles, authors, years, files…",
                                show_label=False, elem_id="pc-lib-search")  # fmt: skip
            note = gr.Markdown("", elem_id="pc-lib-note")
            table = gr.Dataframe(headers=LIBRARY_HEADERS, interactive=False, wrap=True,
                                 elem_id="pc-lib-table", max_height=480)  # fmt: skip
        with gr.Column(scale=2, min_width=340):
            abstract = gr.Markdown("Pick a paper to read its abstract.",
                                   elem_id="pc-lib-abstract")  # fmt: skip
            picked = gr.State("")
            remove = gr.Button("Remove this paper", variant="stop", size="sm", elem_id="pc-remove")
            gr.Markdown("#### Add papers")
            kinds = ".pdf, .bib, .ris, CSL .json, .jsonl, .csv, .tsv, .txt"
            files = gr.File(file_count="multiple", elem_id="pc-upload", label=f"Files ({kinds})")
            collection = gr.Textbox(label="Into collection (optional)", elem_id="pc-collection")
            add = gr.Button("Add to the library", variant="primary", size="sm", elem_id="pc-add")
            ids = gr.Textbox(label="Or by arXiv id or DOI", elem_id="pc-ids",
                             placeholder="2406.03243 10.1145/3600006.3613145")  # fmt: skip
            add_ids = gr.Button("Fetch and add", size="sm", elem_id="pc-add-ids")
            gr.Markdown("#### Zotero")
            zotero_dir = gr.Textbox(label="Zotero data directory", value=library.zotero_dir(),
                                    elem_id="pc-zotero-dir")  # fmt: skip
            zotero = gr.Button("Sync Zotero", size="sm", elem_id="pc-zotero-sync")
            report = gr.Markdown("", elem_id="pc-lib-report")
    return {
        "search": search, "note": note, "table": table, "abstract": abstract, "picked": picked,
        "remove": remove, "files": files, "add": add, "report": report,
        "collection": collection, "ids": ids, "add_ids": add_ids,
        "zotero_dir": zotero_dir, "zotero": zotero,
    }  # fmt: skip


def _wire_library(library: Library, lib: dict[str, Any], status: Any) -> None:
    listing = [lib["table"], lib["note"]]
    lib["search"].change(library.table, lib["search"], listing)
    lib["table"].select(library.open, lib["table"], [lib["abstract"], lib["picked"]])
    lib["remove"].click(
        library.remove, [lib["picked"], lib["search"]],
        [lib["report"], lib["picked"], *listing, status],
    )  # fmt: skip
    lib["add"].click(
        library.add, [lib["files"], lib["search"], lib["collection"]],
        [lib["report"], *listing, status, lib["files"]],
    )  # fmt: skip
    lib["add_ids"].click(
        library.add_ids, [lib["ids"], lib["search"], lib["collection"]],
        [lib["report"], *listing, status],
    )  # fmt: skip

    def sync(folder: str, search: str, progress: Any = gr.Progress()) -> Any:  # noqa: B008
        return library.sync_zotero(folder, search, progress)

    lib["zotero"].click(
        sync, [lib["zotero_dir"], lib["search"]], [lib["report"], *listing, status],
    )  # fmt: skip
