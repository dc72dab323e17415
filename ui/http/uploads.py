"""Uploaded files, kept under the data directory so an upload can be ingested again."""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi import UploadFile

from ui.http.errors import scrub_paths

__all__ = ["discard_failed", "public_report", "safe_name", "save_upload", "tidy_data_dir"]

STALE_SECONDS = 3600
"""A temporary file or folder older than this was left by a process that died."""


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


def public_report(report: dict[str, Any], names: dict[str, str], folder: Path) -> dict[str, Any]:
    """An ingest report fit to send: each source as the file name the client uploaded, no
    server path in any message, and where each upload is kept relative to ``folder``'s
    parent (the data directory)."""
    for entry in (*report["skipped"], *report["notices"]):
        source = entry["source"]
        entry["source"] = names.get(source, source)
        for key in ("reason", "message"):
            if key in entry:
                text = str(entry[key]).replace(source, entry["source"])
                entry[key] = scrub_paths(text)
    kept = {name: str(Path(path).relative_to(folder.parent)) for path, name in names.items()
            if Path(path).exists()}  # fmt: skip
    return report | {"stored_as": kept}


def discard_failed(report: dict[str, Any], names: dict[str, str]) -> None:
    """Delete the kept copy of every upload that could not be read as a whole (a Skipped
    without a position names the whole file): nothing of it was stored."""
    failed = {s["source"] for s in report["skipped"] if s["position"] is None}
    for path in names:
        if path in failed:
            Path(path).unlink(missing_ok=True)
            _rmdir_if_empty(Path(path).parent)


def _rmdir_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


def tidy_data_dir(data_dir: Path, *, older_than: float = STALE_SECONDS) -> int:
    """Remove what a process that died left behind: half-written uploads (``.upload-*``)
    and half-built lexical indexes (``.lexical-*``) older than ``older_than`` seconds (a
    younger one may be another worker's, still being written). How many were removed."""
    cutoff = time.time() - older_than
    removed = 0
    patterns = (("uploads", ".upload-*"), ("lexical", "*/.lexical-*"))
    for where, pattern in patterns:
        for path in (data_dir / where).glob(pattern):
            try:
                if path.lstat().st_mtime > cutoff:
                    continue
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
            except OSError:
                continue
            removed += 1
    return removed
