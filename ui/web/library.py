"""The library tab: what the library holds, finding a paper, reading its abstract, adding
files, removing papers. Handlers only (the layout is :mod:`ui.web.page`); papers come in
through the ingester and go through the engine, as from every face."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import PaperchatError
from rag.records import PaperRow, format_authors
from ui.web.gradio_import import SelectData, gr
from ui.web.render import library_rows, md_escape

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["LIBRARY_HEADERS", "Library"]

LIBRARY_HEADERS = ["Paper", "Authors", "Year", "File", "Id"]
SHOWN = 200  # rows in the table at once; the search narrows the rest


def _matches(row: PaperRow, needle: str) -> bool:
    hay = " ".join((row.name, " ".join(row.authors), str(row.year or ""), row.source, row.id))
    return needle in hay.casefold()


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

    def table(self, search: str) -> tuple[Any, str]:
        """The papers matching ``search`` (title, label, authors, year, file or id)."""
        total, rows = self.app.engine.papers()
        needle = (search or "").strip().casefold()
        found = [r for r in rows if not needle or _matches(r, needle)]
        note = f"{len(found)} of {total} papers" + (
            f" match “{md_escape(search.strip())}”" if needle else ""
        )
        if len(found) > SHOWN:
            note += f" (the first {SHOWN} shown: search to narrow)"
        return gr.update(value=library_rows(found[:SHOWN])), note

    def open(self, table: Any, evt: SelectData) -> tuple[str, str]:
        """The abstract of the paper whose row was picked, and its id (to remove it)."""
        row = evt.index[0] if isinstance(evt.index, list | tuple) else evt.index
        try:
            pid = str(table.iloc[row, 4]) if hasattr(table, "iloc") else str(table[row][4])
        except (IndexError, KeyError, TypeError):
            return "", ""
        paper = self.app.engine.paper(pid)
        if paper is None:
            return "This paper is no longer in the library.", ""
        meta = " · ".join(x for x in (format_authors(paper.authors), str(paper.year or "")) if x)
        text = paper.abstract or "(no abstract)"
        return f"### {md_escape(paper.name)}\n{md_escape(meta)}\n\n{md_escape(text)}", pid

    def remove(self, pid: str, search: str) -> tuple[str, str, Any, str, str]:
        """Remove the picked paper: its chunks, lexical entries and catalogue row."""
        if not pid:
            return "Pick a paper in the table first.", pid, gr.update(), gr.update(), self.status()
        try:
            removed = self.app.engine.remove([pid])
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", pid, gr.update(), gr.update(), self.status()
        table, note = self.table(search)
        said = (
            f"Removed {md_escape(pid)}." if removed else f"{md_escape(pid)} was not in the library."
        )
        return said, "", table, note, self.status()

    def add(
        self, files: list[Any] | None, search: str, collection: str = ""
    ) -> tuple[str, Any, str, str, None]:
        """Ingest uploaded files, as `paperchat ingest` does; bad records are listed."""
        paths = [Path(f if isinstance(f, str) else f.name) for f in files or []]
        if not paths:
            return "Choose files to add first.", gr.update(), gr.update(), self.status(), None
        try:
            report = self.app.ingester.ingest(paths, collection=(collection or "").strip())
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", gr.update(), gr.update(), self.status(), None
        return (*self._reported(report, paths, search), None)

    def add_ids(self, text: str, search: str, collection: str = "") -> tuple[str, Any, str, str]:
        """Add papers by arXiv id or DOI (one per line or separated by spaces or commas)."""
        ids = [x for x in text.replace(",", " ").split() if x]
        if not ids:
            return "Type arXiv ids or DOIs first.", gr.update(), gr.update(), self.status()
        try:
            report = self.app.ingester.add(ids, collection=(collection or "").strip())
        except PaperchatError as exc:
            return f"Error: {md_escape(str(exc))}", gr.update(), gr.update(), self.status()
        return self._reported(report, [], search)

    def zotero_dir(self) -> str:
        """The Zotero data directory the sync reads by default (PAPERCHAT_ZOTERO_DIR)."""
        return str(self.app.engine.settings.zotero_dir)

    def sync_zotero(
        self, folder: str, search: str, progress: Any = None
    ) -> tuple[str, Any, str, str]:
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
            return f"Error: {md_escape(str(exc))}", gr.update(), gr.update(), self.status()
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
        table, note = self.table(search)
        return "\n".join(lines), table, note, self.status()

    def _reported(self, report: Any, paths: list[Path], search: str) -> tuple[str, Any, str, str]:
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
        table, note = self.table(search)
        return "\n".join(lines), table, note, self.status()

    def years(self) -> list[str]:
        """The years the library's papers have, oldest first, for the filters."""
        _, rows = self.app.engine.papers()
        return sorted({str(r.year) for r in rows if r.year})

    def excluded(self, year_from: str | None, year_to: str | None) -> str:
        """What a year filter leaves out that a reader would not guess: undated papers."""
        if (year_from in (None, "", "any")) and (year_to in (None, "", "any")):
            return ""
        _, rows = self.app.engine.papers()
        undated = sum(1 for r in rows if not r.year)
        if not undated:
            return ""
        if undated == 1:
            return "1 paper has no year and is excluded by a year filter."
        return f"{undated} papers have no year and are excluded by a year filter."
