"""Input parsers: seed text, JSON Lines (BEIR, generic, arXiv), CSV/TSV, BibTeX, CSL-JSON, RIS.

Each file becomes a stream of :class:`rag.records.Paper`, :class:`~rag.records.Skipped`
(a record or file that could not be used, and what to do) and :class:`~rag.records.Notice`:
:func:`ingest.parse.dispatch.parse_file`; which files and formats, :mod:`ingest.parse.detect`.
"""
