"""The composition root: the one place that builds paperchat's two doors from the settings.

Every face (``ui.cli``, ``ui.http``, ``ui.web``) gets an :class:`App` and goes through its
``engine`` (ask, search, papers, stats, remove) and its ``ingester`` (papers in); no face
builds a store, an embedder or a lexical index of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ingest.ingester import Ingester
from rag.engine import Engine

if TYPE_CHECKING:
    from rag.settings import Settings

__all__ = ["App"]


@dataclass(frozen=True, slots=True)
class App:
    """The engine and the ingester over one index, and the settings they were built from."""

    settings: Settings
    engine: Engine
    ingester: Ingester

    @classmethod
    def from_settings(cls, settings: Settings) -> App:
        return cls.around(Engine.from_settings(settings))

    @classmethod
    def around(cls, engine: Engine) -> App:
        """An App over an engine built elsewhere (tests give one with fake parts)."""
        return cls(settings=engine.settings, engine=engine, ingester=Ingester(engine))
