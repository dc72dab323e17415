"""The library tab's layout and wiring (its handlers are :mod:`ui.web.library`): a table of
papers paged, searched, filtered and sorted by the engine; a paper's view with "Ask about
this paper" and a Remove that asks first; adding files, ids and a Zotero library; and a
picture of the library (papers per year, themes)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ui.web.gradio_import import gr
from ui.web.library import ABSTRACTS, ANY, DIRECTIONS, LIBRARY_HEADERS, PICK, SORTS, Library

__all__ = ["LIBRARY_CSS", "library_tab", "paper_filter", "wire_library"]

# On a phone the paper's view is below the table: a pick scrolls to it.
_SHOW_PAPER = """() => { if (window.innerWidth < 720)
  document.getElementById("pc-lib-paper").scrollIntoView({behavior: "smooth"}); }"""

LIBRARY_CSS = """
.pc-paper h3 { margin: 0 0 0.3em 0; }
.pc-paper .pc-abstract { margin: 0.6em 0; }
.pc-paper ul.pc-sections { margin: 0.3em 0 0.6em 1.2em; padding: 0; }
#pc-lib-page { text-align: center; align-self: center; }
/* The table's own column menu would sort and filter the shown page only: "Sort by" and
   "Filters" ask the engine for the whole library's. */
#pc-lib-table .cell-menu-button { display: none; }
"""


def paper_filter() -> Any:
    """The chat's paper filter, which "Ask about this paper" sets (hidden until then): its
    value is the paper's id, "" for all papers. Made in the Chat tab, above the chat."""
    return gr.Dropdown([("All papers", "")], value="", label="Questions go to",
                       elem_id="pc-paper-filter", visible=False, interactive=True)  # fmt: skip


def library_tab(library: Library) -> dict[str, Any]:
    """The tab's components, by name."""
    c: dict[str, Any] = {"picked": gr.State(""), "page": gr.State(1)}
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=340):
            with gr.Row():
                c["search"] = gr.Textbox(
                    placeholder="Search titles, authors, years, files, ids…", show_label=False,
                    elem_id="pc-lib-search", scale=3, min_width=200,
                )  # fmt: skip
                c["sort"] = gr.Dropdown(SORTS, value="title", label="Sort by", scale=1,
                                        elem_id="pc-lib-sort", min_width=130)  # fmt: skip
                c["direction"] = gr.Radio(DIRECTIONS, value="ascending", label="Order",
                                          elem_id="pc-lib-direction", scale=1,
                                          min_width=130)  # fmt: skip
            with gr.Accordion("Filters", open=False, elem_id="pc-lib-filters"), gr.Row():
                c["collection_filter"] = gr.Dropdown([ANY], value=ANY, label="Collection",
                                                     elem_id="pc-lib-collection")  # fmt: skip
                c["year_from"] = gr.Dropdown([ANY], value=ANY, label="Year from",
                                             elem_id="pc-lib-year-from")  # fmt: skip
                c["year_to"] = gr.Dropdown([ANY], value=ANY, label="Year to",
                                           elem_id="pc-lib-year-to")  # fmt: skip
                c["abstract"] = gr.Dropdown(ABSTRACTS, value="any", label="Abstract",
                                            elem_id="pc-lib-has-abstract")  # fmt: skip
            c["note"] = gr.Markdown("", elem_id="pc-lib-note")
            c["table"] = gr.Dataframe(
                headers=LIBRARY_HEADERS, interactive=False, wrap=True, elem_id="pc-lib-table",
                max_height=560, column_widths=["28%", "20%", "7%", "11%", "8%", "13%", "13%"],
            )  # fmt: skip
            with gr.Row():
                c["previous"] = gr.Button("← Previous", size="sm", interactive=False,
                                          elem_id="pc-lib-prev", min_width=80)  # fmt: skip
                c["page_label"] = gr.Markdown("Page 1 of 1", elem_id="pc-lib-page")
                c["next"] = gr.Button("Next →", size="sm", interactive=False,
                                      elem_id="pc-lib-next", min_width=80)  # fmt: skip
            with gr.Accordion("The library at a glance", open=True, elem_id="pc-lib-picture"):
                with gr.Row():
                    c["years_plot"] = gr.BarPlot(
                        _empty("year"), x="year", y="papers", title="Papers by year",
                        elem_id="pc-lib-years", height=260, x_label_angle=-45, min_width=240,
                        y_lim=[0, None],
                    )  # fmt: skip
                    c["themes_plot"] = gr.BarPlot(
                        _empty("theme"), x="theme", y="papers", sort="-y", height=260,
                        title="Themes, named by their words", elem_id="pc-lib-themes",
                        x_label_angle=-30, min_width=240, y_lim=[0, None],
                    )  # fmt: skip
                c["themes_note"] = gr.Markdown("", elem_id="pc-lib-themes-note")
        with gr.Column(scale=2, min_width=340):
            c["view"] = gr.HTML(PICK, elem_id="pc-lib-paper")
            with gr.Row():
                c["ask"] = gr.Button("Ask about this paper", size="sm", variant="primary",
                                     interactive=False, elem_id="pc-ask-paper")  # fmt: skip
                c["to_table"] = gr.Button("Add to the table", size="sm",
                                          elem_id="pc-to-table")  # fmt: skip
                c["remove"] = gr.Button("Remove this paper…", size="sm", variant="stop",
                                        interactive=False, elem_id="pc-remove")  # fmt: skip
            with gr.Row(visible=False, elem_id="pc-remove-confirm") as confirm:
                c["really"] = gr.Button("Really remove?", size="sm", variant="stop",
                                        elem_id="pc-remove-yes")  # fmt: skip
                c["cancel"] = gr.Button("Cancel", size="sm", elem_id="pc-remove-no")
            c["confirm"] = confirm
            c["report"] = gr.Markdown("", elem_id="pc-lib-report")
            _adding(library, c)
    return c


def _empty(x: str) -> pd.DataFrame:
    """No bars yet, with the columns' types the charts keep (text along x)."""
    return pd.DataFrame({x: pd.Series([], dtype=str), "papers": pd.Series([], dtype=int)})


def _adding(library: Library, c: dict[str, Any]) -> None:
    gr.Markdown("#### Add papers")
    kinds = ".pdf, .bib, .ris, CSL .json, .jsonl, .csv, .tsv, .txt"
    c["files"] = gr.File(file_count="multiple", elem_id="pc-upload", label=f"Files ({kinds})")
    c["collection"] = gr.Textbox(label="Into collection (optional)", elem_id="pc-collection")
    c["add"] = gr.Button("Add to the library", variant="primary", size="sm", elem_id="pc-add")
    c["ids"] = gr.Textbox(label="Or by arXiv id or DOI", elem_id="pc-ids",
                          placeholder="2406.03243 10.1145/3600006.3613145")  # fmt: skip
    c["add_ids"] = gr.Button("Fetch and add", size="sm", elem_id="pc-add-ids")
    gr.Markdown("#### Zotero")
    c["zotero_dir"] = gr.Textbox(label="Zotero data directory", value=library.zotero_dir(),
                                 elem_id="pc-zotero-dir")  # fmt: skip
    c["zotero"] = gr.Button("Sync Zotero", size="sm", elem_id="pc-zotero-sync")


def wire_library(
    library: Library, c: dict[str, Any], status: Any, *, tab: Any, tabs: Any, ask_into: Any
) -> None:
    """The tab's events. ``tab`` is the Library tab (selecting it shows the library as it
    now is), ``tabs`` the page's tabs and ``ask_into`` the chat's paper filter
    (:func:`paper_filter`), which "Ask about this paper" sets before showing the chat."""
    query = [c["search"], c["sort"], c["direction"], c["collection_filter"], c["year_from"],
             c["year_to"], c["abstract"]]  # fmt: skip
    listing = [c["table"], c["note"], c["page_label"], c["previous"], c["next"], c["page"]]
    choices = [c["collection_filter"], c["year_from"], c["year_to"]]
    picture = [c["years_plot"], c["themes_plot"], c["themes_note"]]

    shown = [*query, c["page"]]  # what the table shows: the query and the page

    def then_listed(handler: Any) -> Any:
        """``handler`` (a change of the library), then the table as it now is, in one
        update (so its report and its rows come together)."""

        def run(*args: Any) -> tuple[Any, ...]:
            own, at = args[: -len(shown)], args[-len(shown) :]
            return (*handler(*own), *library.listing(*at))

        return run

    def current(event: Any) -> Any:
        """After a change of the library: the filters' choices and the picture."""
        return event.then(library.choices, choices, choices).then(library.picture, None, picture)

    # One listing at a time, in the order asked: a quick second change (a sort, then its
    # direction) must not be overtaken by the first one's page.
    one_by_one = {"concurrency_id": "pc-library-listing", "concurrency_limit": 1}
    c["search"].change(library.first, query, listing, **one_by_one)
    for part in query[1:]:
        part.input(library.first, query, listing, **one_by_one)
    c["previous"].click(library.previous, shown, listing, **one_by_one)
    c["next"].click(library.next, shown, listing, **one_by_one)
    tab.select(library.listing, shown, listing, **one_by_one).then(
        library.choices, choices, choices
    )
    tab.select(library.picture, None, picture)

    one = [c["view"], c["picked"], c["remove"], c["ask"], c["confirm"]]
    c["table"].select(library.open, None, one).then(None, js=_SHOW_PAPER)
    c["remove"].click(library.confirm, c["picked"], [c["remove"], c["confirm"], c["really"]])
    c["cancel"].click(library.cancel, c["picked"], [c["remove"], c["confirm"]])
    current(c["really"].click(
        then_listed(library.remove), [c["picked"], *shown], [c["report"], *one, status, *listing]
    ))  # fmt: skip
    c["ask"].click(library.ask_about, c["picked"], [ask_into, tabs])

    current(c["add"].click(
        then_listed(library.add), [c["files"], c["collection"], *shown],
        [c["report"], status, c["files"], *listing],
    ))  # fmt: skip
    current(c["add_ids"].click(
        then_listed(library.add_ids), [c["ids"], c["collection"], *shown],
        [c["report"], status, *listing],
    ))  # fmt: skip

    def sync(
        folder: str, search: str, sort: str, direction: str, collection: str, year_from: str,
        year_to: str, abstract: str, page: int, progress: Any = gr.Progress(),  # noqa: B008
    ) -> tuple[Any, ...]:  # fmt: skip
        at = (search, sort, direction, collection, year_from, year_to, abstract, page)
        return (*library.sync_zotero(folder, progress), *library.listing(*at))

    current(c["zotero"].click(
        sync, [c["zotero_dir"], *shown], [c["report"], status, *listing]
    ))  # fmt: skip
