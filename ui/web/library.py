"""The library tab: what the library holds, finding a paper, reading it, asking about it,
adding files, removing papers, and a picture of the whole. Handlers only (the layout is
:mod:`ui.web.page`); pages of papers are searched, filtered and sorted by the engine, papers
come in through the ingester and go through the engine, as from every face."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import PaperchatError
from rag.records import PaperRow
from rag.retrieve import Filters
from ui.web.gradio_import import SelectData, gr
from ui.web.paper_view import (
    LIBRARY_HEADERS,
    library_rows,
    paper_html,
    themes_frame,
    themes_markdown,
    years_frame,
)
from ui.web.render import md_escape

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["ABSTRACTS", "DIRECTIONS", "LIBRARY_HEADERS", "PAGE", "SORTS", "Library"]

PAGE = 50  # papers a page
# What the sort menu offers: (label, the engine's sort).
SORTS = [("Title", "title"), ("Authors", "authors"), ("Year", "year"),
         ("Collections", "collections"), ("Abstract", "has_abstract"), ("Source", "source"),
         ("Id", "id"), ("File order", "")]  # fmt: skip
DIRECTIONS = ["ascending", "descending"]
ABSTRACTS = [("any", "any"), ("with an abstract", "yes"), ("without", "no")]
ANY = "any"
PICK = '<p class="pc-empty">Pick a paper in the table to read it.</p>'


def _year(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


class Library:
    """The library tab's handlers over one App."""

    def __init__(self, app: App) -> None:
        self.app = app

    def status(self) -> str:
        """The header line: who answers and how many papers there are, always current."""
        engine = self.app.engine
        total, _ = engine.papers(0, 0)
        line = f"Answers: **{md_escape(engine.answerer)}** · {total} papers in the library"
        if not total:
            line += (
                " — the library is empty: add files in the Library tab or run `paperchat ingest`"
            )
        return line

    # -- the table --------------------------------------------------------------------------

    def listing(self, *query_and_page: Any) -> tuple[Any, ...]:
        """The page asked for (the query, then the page number, 1-based; a page past the
        end shows the last one): (table, note, page label, previous, next, page)."""
        *query, page = query_and_page
        search, sort, direction, collection, year_from, year_to, abstract = (
            "" if v is None else str(v) for v in query
        )
        filters = Filters(year_from=_year(year_from), year_to=_year(year_to),
                          collection="" if collection == ANY else collection)  # fmt: skip
        has = {"yes": True, "no": False}.get(abstract)
        engine = self.app.engine
        rows: list[PaperRow] = []
        total, pages = 0, 1
        page = max(1, int(page or 1))
        for _ in range(2):  # the last page, when the one asked for is past the end
            total, rows = engine.library_page(
                search, sort=sort, descending=direction == "descending", filters=filters,
                has_abstract=has, offset=(page - 1) * PAGE, limit=PAGE,
            )  # fmt: skip
            pages = max(1, -(-total // PAGE))
            if page <= pages:
                break
            page = pages
        narrowed = bool(search.strip()) or bool(filters) or has is not None
        shown = f"{(page - 1) * PAGE + 1}–{(page - 1) * PAGE + len(rows)}"
        if narrowed:
            note = f"{total} of {engine.papers(0, 0)[0]} papers match"
            note += f" “{md_escape(search.strip())}”" if search.strip() else " the filters"
            note += f" · showing {shown}" if total > PAGE else ""
        else:
            note = f"Showing {shown} of {total} papers" if total else "0 papers in the library."
        return (
            gr.update(value=library_rows(rows)),
            note,
            f"Page {page} of {pages}",
            gr.update(interactive=page > 1),
            gr.update(interactive=page < pages),
            page,
        )

    def first(self, *query: Any) -> tuple[Any, ...]:
        """Page 1 of a new search, sort or filter."""
        return self.listing(*query, 1)

    def previous(self, *query_and_page: Any) -> tuple[Any, ...]:
        *query, page = query_and_page
        return self.listing(*query, max(1, int(page or 1) - 1))

    def next(self, *query_and_page: Any) -> tuple[Any, ...]:
        *query, page = query_and_page
        return self.listing(*query, int(page or 1) + 1)

    def choices(self, *chosen: Any) -> tuple[Any, Any, Any]:
        """The filters' choices as the library now is: collections, years from and to (a
        choice the library no longer has goes back to "any")."""
        picture = self.app.engine.library_picture(themes=False)
        names = [ANY, *(name for name, _ in picture.collections)]
        years = [ANY, *(str(y) for y, _ in picture.years)]
        values = (*chosen, ANY, ANY, ANY)[:3]
        return tuple(
            gr.update(choices=options, value=value if value in options else ANY)
            for options, value in zip((names, years, years), values, strict=True)
        )

    # -- one paper: read it, ask about it, remove it ----------------------------------------

    def open(self, evt: SelectData) -> tuple[Any, ...]:
        """The paper whose row was picked: (its view, its id, Remove, Ask, confirmation)."""
        row = evt.row_value if isinstance(evt.row_value, list | tuple) else None
        pid = str(row[-1]) if row else ""
        if not pid:  # not a paper's row (a header)
            return self._picked(PICK, "")
        details = self.app.engine.paper_details(pid)
        if details is None:
            return self._picked(paper_html(None), "")
        return self._picked(paper_html(details), pid)

    def _picked(self, view: str, pid: str) -> tuple[Any, ...]:
        ready = gr.update(interactive=bool(pid))
        return (
            view,
            pid,
            gr.update(visible=True, interactive=bool(pid)),
            ready,
            gr.update(visible=False),
        )

    def confirm(self, pid: str) -> tuple[Any, Any, Any]:
        """The question before a removal: (Remove hidden, the confirmation shown, its
        button naming the paper)."""
        if not pid:
            return gr.update(interactive=False), gr.update(visible=False), gr.update()
        paper = self.app.engine.paper(pid)
        name = paper.name if paper is not None else pid
        short = name if len(name) <= 80 else name[:79] + "…"
        return (
            gr.update(visible=False),
            gr.update(visible=True),
            gr.update(value=f"Really remove «{short}»?"),
        )

    def cancel(self, pid: str) -> tuple[Any, Any]:
        """No removal after all: (Remove back, the confirmation hidden)."""
        return gr.update(visible=True, interactive=bool(pid)), gr.update(visible=False)

    def remove(self, pid: str) -> tuple[Any, ...]:
        """Remove the picked paper (its chunks, lexical entries and catalogue row):
        (report, view, picked, Remove, Ask, confirmation, status)."""
        hidden = gr.update(visible=False)
        if not pid:
            return ("Pick a paper in the table first.", gr.update(), "",
                    gr.update(visible=True, interactive=False), gr.update(interactive=False),
                    hidden, self.status())  # fmt: skip
        try:
            removed = self.app.engine.remove([pid])
        except PaperchatError as exc:
            return (f"Error: {md_escape(str(exc))}", gr.update(), pid,
                    gr.update(visible=True, interactive=True), gr.update(), hidden,
                    self.status())  # fmt: skip
        said = (
            f"Removed {md_escape(pid)}." if removed else f"{md_escape(pid)} was not in the library."
        )
        return (said, PICK, "", gr.update(visible=True, interactive=False),
                gr.update(interactive=False), hidden, self.status())  # fmt: skip

    def ask_about(self, pid: str) -> tuple[Any, Any]:
        """The chat's paper filter set to the picked paper, and the Chat tab shown."""
        paper = self.app.engine.paper(pid) if pid else None
        if paper is None:
            return gr.update(), gr.update()
        choices = [("All papers", ""), (paper.name, pid)]
        return gr.update(choices=choices, value=pid, visible=True), gr.Tabs(selected="chat")

    # -- the picture ----------------------------------------------------------------------------

    def picture(self) -> tuple[Any, Any, str]:
        """Papers per year and per theme (charts), and what the charts cannot say."""
        picture = self.app.engine.library_picture()
        years, themes = years_frame(picture), themes_frame(picture)
        return (
            gr.update(value=years, visible=not years.empty),
            gr.update(value=themes, visible=not themes.empty),
            themes_markdown(picture),
        )

    # -- adding -----------------------------------------------------------------------------

    def add(self, files: list[Any] | None, collection: str = "") -> tuple[str, str, None]:
        """Ingest uploaded files, as `paperchat ingest` does; bad records are listed:
        (report, status, the files cleared)."""
        paths = [Path(f if isinstance(f, str) else f.name) for f in files or []]
        if not paths:
            return "Choose files to add first.", self.status(), None
        try:
            report = self.app.ingester.ingest(paths, collection=(collection or "").strip())
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", self.status(), None
        return self._reported(report, paths), self.status(), None

    def add_ids(self, text: str, collection: str = "") -> tuple[str, str]:
        """Add papers by arXiv id or DOI (one per line or separated by spaces or commas)."""
        ids = [x for x in (text or "").replace(",", " ").split() if x]
        if not ids:
            return "Type arXiv ids or DOIs first.", self.status()
        try:
            report = self.app.ingester.add(ids, collection=(collection or "").strip())
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", self.status()
        return self._reported(report, []), self.status()

    def zotero_dir(self) -> str:
        """The Zotero data directory the sync reads by default (PAPERCHAT_ZOTERO_DIR)."""
        return str(self.app.engine.settings.zotero_dir)

    def sync_zotero(self, folder: str, progress: Any = None) -> tuple[str, str]:
        """Sync the Zotero library in ``folder`` (as `paperchat zotero sync` does), showing
        progress item by item; what was added, updated, removed and not read is listed."""
        from ingest.zotero.sync import SyncProgress

        bar = progress if progress is not None else (lambda *a, **k: None)

        def on_progress(p: SyncProgress) -> None:
            bar((p.done, p.total), desc=f"Reading {p.item[:60]}", unit="items")

        path = Path(folder.strip()).expanduser() if folder and folder.strip() else None
        try:
            report = self.app.ingester.sync_zotero(path, on_progress=on_progress)
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", self.status()
        data = report.to_json()
        lines = [
            f"Zotero: {report.items} items, {report.collections} collections. "
            f"Added {data['added']}, updated {data['updated']}, unchanged {data['unchanged']}, "
            f"removed {len(report.removed)}, moved between collections {report.moved} "
            f"({report.seconds:.1f} s)."
        ]
        problems = [str(n) for n in report.ingest.notices] + [
            f"skipped {s}" for s in report.ingest.skipped
        ]
        lines += [f"- {md_escape(p)}" for p in problems[:20]]
        if len(problems) > 20:
            lines.append(f"- … and {len(problems) - 20} more")
        return "\n".join(lines), self.status()

    def _reported(self, report: Any, paths: list[Path]) -> str:
        lines = [
            f"Added {report.added}, updated {report.updated}, unchanged {report.unchanged} "
            f"({report.papers} papers from {report.files} file(s))."
        ]
        names = {str(p): p.name for p in paths}
        for skipped in report.skipped[:20]:
            where = names.get(skipped.source, Path(skipped.source).name)
            at = f":{skipped.position}" if skipped.position is not None else ""
            lines.append(f"- skipped {md_escape(where + at)}: {md_escape(skipped.reason)}")
        if len(report.skipped) > 20:
            lines.append(f"- … and {len(report.skipped) - 20} more skipped")
        return "\n".join(lines)

    # -- for the chat tab's filters -----------------------------------------------------------

    def years(self) -> list[str]:
        """The years the library's papers have, oldest first, for the filters."""
        return [str(y) for y, _ in self.app.engine.library_picture(themes=False).years]

    def excluded(self, year_from: str | None, year_to: str | None) -> str:
        """What a year filter leaves out that a reader would not guess: undated papers."""
        if (year_from in (None, "", "any")) and (year_to in (None, "", "any")):
            return ""
        undated = self.app.engine.library_picture(themes=False).undated
        if not undated:
            return ""
        if undated == 1:
            return "1 paper has no year and is excluded by a year filter."
        return f"{undated} papers have no year and are excluded by a year filter."
