"""Every error paperchat raises on purpose. Edges translate them (CLI: exit 1 and one line)."""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbedderError",
    "IngestError",
    "LLMError",
    "NotFoundError",
    "PaperchatError",
    "ParseError",
    "QueryError",
    "SourceError",
    "StoreError",
]


class PaperchatError(Exception):
    """Base class: the message says what went wrong and what to do."""


class ConfigError(PaperchatError):
    """A setting is missing or invalid."""


class ParseError(PaperchatError):
    """An input file (or one record of it) cannot be read."""

    def __init__(self, message: str, *, source: str = "", position: int | None = None) -> None:
        self.source = source
        self.position = position
        where = source + (f":{position}" if position is not None else "")
        super().__init__(f"{where}: {message}" if where else message)
        self.reason = message


class IngestError(PaperchatError):
    """Ingest could not proceed (nothing readable, unknown format, bad path)."""


class EmbedderError(PaperchatError):
    """The embedder cannot be loaded or did not return vectors."""


class StoreError(PaperchatError):
    """The vector store cannot be opened, read or written."""


class QueryError(PaperchatError):
    """A question or search request cannot be run as given (empty, bad option)."""


class NotFoundError(QueryError):
    """Something asked for by its id is not there (a saved conversation)."""


class LLMError(PaperchatError):
    """The language model (an OpenAI-compatible API) failed, after any retries.

    ``kind`` is one of: unreachable, timeout, auth, rate_limit, server, bad_request, stream.
    The message names the endpoint and what to do; it never contains the API key.
    """

    def __init__(self, message: str, *, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class SourceError(PaperchatError):
    """An outside source of papers (arXiv, OpenAlex, Crossref) could not be reached or sent
    something unreadable, after any retries. Nothing was stored."""
