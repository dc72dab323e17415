"""Vector helpers shared by the embedders, and the compact text form the store keeps
sentence vectors in (Chroma metadata holds strings, not matrices)."""

from __future__ import annotations

import base64

import numpy as np

from rag.errors import StoreError

__all__ = ["normalise", "pack_rows", "unpack_rows"]

_PACKED = "i8v1:"  # int8 rows, one float32 scale each, base64; bump when the form changes


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32 (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    unit: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return unit


def pack_rows(rows: np.ndarray) -> str:
    """A (n, dim) float matrix as text: each row int8 with its own scale (cosine to the
    original >= 0.9999 for unit rows). A row of NaNs (no vector) is kept as missing."""
    rows = np.asarray(rows, dtype=np.float32)
    if rows.ndim != 2:
        raise ValueError(f"pack_rows needs a matrix, got shape {rows.shape}")
    missing = np.isnan(rows).any(axis=1)
    clean = np.where(missing[:, None], 0.0, rows)
    scales = np.abs(clean).max(axis=1) / 127.0
    scales[missing] = -1.0  # the mark of a missing row
    safe = np.where(scales > 0, scales, 1.0)[:, None]
    quantised = np.clip(np.rint(clean / safe), -127, 127).astype(np.int8)
    head = np.array(rows.shape, dtype="<u4").tobytes() + scales.astype("<f4").tobytes()
    return _PACKED + base64.b64encode(head + quantised.tobytes()).decode("ascii")


def unpack_rows(text: str) -> np.ndarray:
    """The matrix :func:`pack_rows` made (float32; missing rows are NaN). Raises StoreError
    on text that is not such a matrix."""
    if not text.startswith(_PACKED):
        raise StoreError("stored sentence vectors are in an unknown form; re-ingest the paper")
    try:
        data = base64.b64decode(text[len(_PACKED) :], validate=True)
        n, dim = (int(x) for x in np.frombuffer(data[:8], dtype="<u4"))
        scales = np.frombuffer(data[8 : 8 + 4 * n], dtype="<f4")
        body = np.frombuffer(data[8 + 4 * n :], dtype=np.int8)
        rows: np.ndarray = body.reshape(n, dim).astype(np.float32) * scales[:, None]
    except (ValueError, TypeError) as exc:
        why = f"stored sentence vectors are damaged ({exc}); re-ingest the paper"
        raise StoreError(why) from exc
    rows[scales < 0] = np.nan
    return rows
