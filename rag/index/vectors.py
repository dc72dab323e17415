"""Vector helpers shared by the embedders."""

from __future__ import annotations

import numpy as np

__all__ = ["normalise"]


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32 (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    unit: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return unit
