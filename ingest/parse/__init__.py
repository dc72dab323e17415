"""Input parsers: seed text, JSON Lines (BEIR, generic, arXiv), CSV/TSV and BibTeX.

Each file becomes a stream of :class:`rag.records.Paper`, :class:`~rag.records.Skipped`
(a record or file that could not be used, and what to do) and :class:`~rag.records.Notice`.
"""

from .detect import FORMATS, detect_format, iter_input_files
from .dispatch import parse_file

__all__ = ["FORMATS", "detect_format", "iter_input_files", "parse_file"]
