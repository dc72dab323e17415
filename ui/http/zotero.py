"""``paperchat serve --zotero-sync-every MINUTES``: the Zotero library kept in step while
the server runs, by a background thread of the one server process."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from rag.errors import PaperchatError

if TYPE_CHECKING:
    from ingest.ingester import Ingester

__all__ = ["PeriodicSync"]

log = logging.getLogger("paperchat.zotero")


class PeriodicSync:
    """Syncs the Zotero library (``zotero_dir`` setting) at once, then every ``minutes``;
    ``last`` is the latest outcome (a report's JSON, or the error), for logs and tests."""

    def __init__(self, ingester: Ingester, minutes: float) -> None:
        self.ingester, self.seconds = ingester, minutes * 60
        self.last: dict[str, Any] = {}
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="paperchat-zotero", daemon=True)

    def start(self) -> PeriodicSync:
        self._thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                report = self.ingester.sync_zotero()
            except PaperchatError as exc:  # a library Zotero is busy with: try next time
                self.last = {"ok": False, "error": str(exc)}
                log.warning("Zotero sync failed: %s", exc)
            except Exception as exc:  # the thread must outlive one bad sync
                self.last = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                log.exception("Zotero sync crashed")
            else:
                self.last = report.to_json()
                log.info(
                    "Zotero sync: %d added, %d updated, %d removed, %d moved in %.1f s",
                    self.last["added"], self.last["updated"], len(report.removed),
                    report.moved, report.seconds,
                )  # fmt: skip
            self.runs += 1
            self._stop.wait(max(0.0, self.seconds - (time.monotonic() - started)))
