"""Uploaded files, kept under the data directory so an upload can be ingested again."""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

from fastapi import UploadFile

__all__ = ["safe_name", "save_upload"]


def save_upload(upload: UploadFile, folder: Path, i: int) -> Path:
    """Write an upload to ``folder/<content hash>/<safe name>`` (streamed, not in memory),
    so the same file uploaded again lands in the same place."""
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=folder, delete=False, prefix=".upload-") as tmp:
        while chunk := upload.file.read(1 << 20):
            digest.update(chunk)
            tmp.write(chunk)
    final = folder / digest.hexdigest()[:16] / safe_name(upload.filename or "", i)
    final.parent.mkdir(exist_ok=True)
    Path(tmp.name).replace(final)
    return final


def safe_name(name: str, i: int) -> str:
    """An uploaded file's base name, safe to create (no folders, no odd characters)."""
    base = re.split(r"[\\/]", name)[-1].strip().lstrip(".")
    base = re.sub(r"[^\w.+-]+", "_", base)[:120]
    return base or f"upload-{i}.txt"
