"""Zotero libraries as paperchat libraries: read where they live (``zotero.sqlite``, or
Zotero's web API) and kept in sync (:mod:`ingest.zotero.sync`)."""
