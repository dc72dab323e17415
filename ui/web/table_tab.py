"""The Table tab: a review table over chosen papers (a search, a collection, paper ids or a
saved conversation's cited papers) and chosen columns (presets and any short question).
Rows appear as they are filled and the table can be stopped; a click on a cell opens its
quote in context; sorting and a lower bound use the figure a cell states; the table exports
as Markdown, CSV and its papers' BibTeX, and is stored only when saved (as a conversation)."""

from __future__ import annotations

import html
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.answer import tablefmt
from rag.answer.cite import Source
from rag.answer.events import Answer
from rag.answer.table import MAX_COLUMNS, MAX_PAPERS, PRESETS, Row
from rag.errors import PaperchatError
from rag.tablechat import table_final
from ui.web.gradio_import import gr

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["TABLE_CSS", "TableView", "table_tab", "wire_table"]

SEARCH, COLLECTION, IDS, CONVERSATION = "Search", "Collection", "Paper ids", "Conversation"
DEFAULT_COLUMNS = ["Method", "Data set", "Main result", "Sample size", "Limitations"]
PAPER = "Paper"

TABLE_CSS = """
#pc-table-view { overflow-x: auto; }
#pc-table-view table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
#pc-table-view th, #pc-table-view td { border: 1px solid var(--border-color-primary);
  padding: 0.35em 0.5em; vertical-align: top; text-align: left; }
#pc-table-view td { min-width: 11em; max-width: 30em; }
#pc-table-view td.pc-paper { min-width: 8em; font-weight: 600; }
#pc-table-view td details summary { cursor: pointer; }
#pc-table-view td details:not([open]) summary { display: -webkit-box; overflow: hidden;
  -webkit-line-clamp: 4; -webkit-box-orient: vertical; }
#pc-table-view .pc-none { opacity: 0.55; font-style: italic; }
#pc-table-view .pc-context { margin-top: 0.4em; font-size: 0.95em; opacity: 0.9; }
#pc-table-view .pc-context mark { padding: 0 0.1em; }
#pc-table-view .pc-where { opacity: 0.75; font-size: 0.85em; }
"""


class TableView:
    """What the tab does, over one App (kept apart from the layout, for tests)."""

    def __init__(self, app: App) -> None:
        self.app = app

    def fill(self, kind: str, query: str, k: float, collection: str, ids: str,
             conversation: str, presets: list[str], extra: str, phrase: bool = False
             ) -> Iterator[tuple[Any, ...]]:  # fmt: skip
        """Rows as they are filled: (progress, table HTML, state, sort choices)."""
        columns = [*presets, *(c for c in extra.split(",") if c.strip())]
        choice: dict[str, Any] = {}
        if kind == SEARCH:
            choice = {"query": query.strip(), "k": int(k)}
        elif kind == COLLECTION:
            choice = {"collection": (collection or "").strip()}
        elif kind == IDS:
            choice = {"paper_ids": tuple(i for i in ids.replace(",", " ").split() if i)}
        elif kind == CONVERSATION:
            choice = {"conversation_id": (conversation or "").strip()}
        try:
            plan = self.app.engine.table(columns, llm="openai" if phrase else "extractive",
                                         **choice)  # fmt: skip
        except PaperchatError as exc:
            yield f"**Cannot make this table:** {html.escape(str(exc))}", "", {}, gr.update()
            return
        names = [c.name for c in plan.columns]
        state: dict[str, Any] = {"columns": names, "rows": [], "papers": []}
        sort = gr.update(choices=[PAPER, *names], value=PAPER)
        total = len(plan.papers)
        yield f"Reading {total} papers…", render(names, []), state, sort
        for n, row in enumerate(plan.rows(), 1):
            state = {**state, "rows": [*state["rows"], row]}
            if n <= 10 or n % 10 == 0 or n == total:  # the first rows at once, then in tens
                yield f"{n} of {total} papers", render(names, state["rows"]), state, sort
        state["papers"] = list(plan.papers)
        yield f"{total} papers, {len(names)} columns.", render(names, state["rows"]), state, sort

    def sorted(self, state: dict[str, Any], by: str, descending: bool,
               at_least: float | None) -> str:  # fmt: skip
        """The table sorted by a column's figure (rows without one last), or by paper, and
        only the rows whose figure is at least ``at_least`` when given."""
        if not state:
            return ""
        names, rows = state["columns"], list(state["rows"])
        if by in names:
            i: int = names.index(by)

            def figure(r: Row) -> float | None:
                return r.cells[i].number

            if at_least is not None:
                rows = [r for r in rows if (f := figure(r)) is not None and f >= at_least]
            have = [r for r in rows if figure(r) is not None]
            have.sort(key=lambda r: figure(r) or 0.0, reverse=descending)
            rows = have + [r for r in rows if figure(r) is None]
        else:
            rows.sort(key=lambda r: (r.label or r.title).casefold(), reverse=descending)
        return render(names, rows)

    @staticmethod
    def add_paper(ids: str, picked: str) -> tuple[Any, Any]:
        """The Library tab's picked paper added to the table's paper ids ("Add to the
        table"), which then picks its rows by id."""
        have = [i for i in ids.replace(",", " ").split() if i]
        if not picked:
            return gr.update(), gr.update()
        if picked not in have:
            have.append(picked)
        return " ".join(have), IDS

    def export(self, state: dict[str, Any], kind: str) -> Any:
        if not state or not state.get("rows"):
            return gr.update(value=None, visible=False)
        names, rows = state["columns"], state["rows"]
        if kind == "markdown":
            text, name = tablefmt.markdown(names, rows), "table.md"
        elif kind == "csv":
            text, name = tablefmt.csv_text(names, rows), "table.csv"
        else:
            text, name = tablefmt.bibtex(state.get("papers") or []) + "\n", "papers.bib"
        path = Path(tempfile.mkdtemp(prefix="paperchat-table-")) / name
        path.write_text(text, encoding="utf-8")
        return gr.update(value=str(path), visible=True)

    def save(self, state: dict[str, Any]) -> str:
        """Keep the table with the saved conversations (listed with them in the Chat tab)."""
        if not state or not state.get("papers"):
            return "Make a table first (and let it finish): there is nothing to save."
        papers, rows, names = state["papers"], state["rows"], state["columns"]
        sources = [Source.from_paper(n, p) for n, p in enumerate(papers, 1)]
        question = f"Table: {', '.join(names)} ({len(rows)} papers)"
        final = table_final(names, list(zip(sources, rows, strict=True)), question)
        conversations = self.app.engine.conversations
        cid = conversations.new_id()
        conversations.add_turn(cid, question, Answer(final=final, sources=tuple(sources)))
        return f"Saved with the conversations as “{html.escape(question)}”."


def render(names: list[str], rows: list[Row]) -> str:
    """The table as HTML: each cell's sentence, opened (a click) to its context."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in [PAPER, *names])
    body = []
    for row in rows:
        year = f" ({row.year})" if row.year else ""
        tds = [f'<td class="pc-paper" title="{html.escape(row.title)}">'
               f"{html.escape(row.label or row.title)}{year}</td>"]  # fmt: skip
        for cell in row.cells:
            if not cell.stated:
                tds.append('<td><span class="pc-none">not stated</span></td>')
                continue
            page = f"p. {cell.page}" if cell.page else ""
            where = ", ".join(x for x in (page, cell.section) if x)
            quote = f"<mark>{html.escape(cell.quote)}</mark>"
            context = " ".join(x for x in (html.escape(cell.before), quote,
                                            html.escape(cell.after)) if x)  # fmt: skip
            where_html = f'<div class="pc-where">{html.escape(where)}</div>' if where else ""
            tds.append(f"<td><details><summary>{html.escape(cell.shown)}</summary>"
                       f'<div class="pc-context">{context}</div>{where_html}'
                       "</details></td>")  # fmt: skip
        body.append("<tr>" + "".join(tds) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def table_tab(view: TableView) -> dict[str, Any]:
    c: dict[str, Any] = {"state": gr.State({})}
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=260):
            c["kind"] = gr.Radio([SEARCH, COLLECTION, IDS, CONVERSATION], value=SEARCH,
                                 label="Papers", elem_id="pc-table-kind")  # fmt: skip
            c["query"] = gr.Textbox(label="Search query", elem_id="pc-table-query",
                                    placeholder="e.g. KV cache memory")  # fmt: skip
            c["k"] = gr.Slider(
                1, MAX_PAPERS, value=10, step=1, label="How many papers", elem_id="pc-table-k"
            )
            c["collection"] = gr.Textbox(label="Collection", elem_id="pc-table-collection")
            c["ids"] = gr.Textbox(label="Paper ids (spaces or commas)", elem_id="pc-table-ids")
            c["conversation"] = gr.Textbox(label="Saved conversation id",
                                           elem_id="pc-table-conversation")  # fmt: skip
            c["presets"] = gr.CheckboxGroup([p.name for p in PRESETS.values()],
                                            value=DEFAULT_COLUMNS, label="Columns",
                                            elem_id="pc-table-presets")  # fmt: skip
            c["extra"] = gr.Textbox(label="More columns (short questions, comma-separated)",
                                    placeholder="e.g. Which species?, Country",
                                    elem_id="pc-table-extra",
                                    info=f"at most {MAX_COLUMNS} columns and {MAX_PAPERS} "
                                    "papers")  # fmt: skip
            models = view.app.engine.models()
            c["phrase"] = gr.Checkbox(
                label="A language model phrases each cell (checked against the paper)",
                info=models.note or "one model call per cell: slower", elem_id="pc-table-phrase",
                visible=bool(models.models), value=False,
            )  # fmt: skip
            with gr.Row():
                c["make"] = gr.Button("Make table", variant="primary", elem_id="pc-table-make")
                c["stop"] = gr.Button("Stop", variant="stop", elem_id="pc-table-stop")
        with gr.Column(scale=4, min_width=340):
            c["progress"] = gr.Markdown("", elem_id="pc-table-progress")
            with gr.Row():
                c["sort"] = gr.Dropdown([PAPER], value=PAPER, label="Sort by",
                                        elem_id="pc-table-sort")  # fmt: skip
                c["descending"] = gr.Checkbox(label="Largest first", elem_id="pc-table-desc")
                c["at_least"] = gr.Number(label="Only rows whose figure is at least",
                                          elem_id="pc-table-at-least")  # fmt: skip
            c["view"] = gr.HTML("", elem_id="pc-table-view")
            with gr.Row():
                c["md"] = gr.Button("Export Markdown", size="sm", elem_id="pc-table-md")
                c["csv"] = gr.Button("Export CSV", size="sm", elem_id="pc-table-csv")
                c["bib"] = gr.Button("Papers as BibTeX", size="sm", elem_id="pc-table-bib")
                c["save"] = gr.Button("Save table", size="sm", elem_id="pc-table-save")
            c["note"] = gr.Markdown("", elem_id="pc-table-note")
            c["download"] = gr.File(label="Download", visible=False, interactive=False)
    return c


def wire_table(view: TableView, c: dict[str, Any]) -> None:
    inputs = [c["kind"], c["query"], c["k"], c["collection"], c["ids"], c["conversation"],
              c["presets"], c["extra"], c["phrase"]]  # fmt: skip
    outputs = [c["progress"], c["view"], c["state"], c["sort"]]
    run = c["make"].click(view.fill, inputs, outputs)
    c["stop"].click(lambda: "Stopped.", None, c["progress"], cancels=[run])
    ordering = [c["state"], c["sort"], c["descending"], c["at_least"]]
    for control in (c["sort"], c["descending"], c["at_least"]):
        control.change(view.sorted, ordering, c["view"])
    for button, kind in ((c["md"], "markdown"), (c["csv"], "csv"), (c["bib"], "bibtex")):
        button.click(lambda s, kind=kind: view.export(s, kind), c["state"], c["download"])
    c["save"].click(view.save, c["state"], c["note"])
