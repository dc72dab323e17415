"""What :mod:`ingest.zotero.web` keeps in its cache folder: the JSON cache of the library
(:data:`CACHE_FILE`) and the PDFs downloaded, ``files/<attachment key>/<filename>``.

The cache holds ``{"format": 1, "library": "users/1", "endpoint": ..., "version": <the
library version read>, "collections": {key: data}, "items": {key: data}, "files":
{attachment key: {"md5", "path"} or {"md5", "problem"}}}``, ``data`` as the API gives it
less its empty strings. It is written whole to a temporary file put in place; an
unreadable one is set aside as ``*.corrupt``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ingest.zotero.records import Attachment
from ingest.zotero.webapi import Api, Failed, Unreachable
from rag.errors import IngestError

__all__ = [
    "CACHE_FILE",
    "FILES",
    "KEYS_URL",
    "LINKED",
    "forget_files",
    "load_cache",
    "pdf_attachment",
    "save_cache",
]

CACHE_FILE = "zotero-web.json"
CACHE_FORMAT = 1
FILES = "files"
KEYS_URL = "https://www.zotero.org/settings/keys"
LINKED = "linked file on another computer: not available through the web API"
NO_FILE = (
    "no file on the web API for this attachment (not uploaded, or Zotero syncs its files "
    "by WebDAV): read the local Zotero library instead"
)
_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]')


# -- the JSON cache ------------------------------------------------------------------------


def fresh_cache(name: str, endpoint: str) -> dict[str, Any]:
    return {
        "format": CACHE_FORMAT,
        "library": name,
        "endpoint": endpoint,
        "version": 0,
        "collections": {},
        "items": {},
        "files": {},
    }


def load_cache(
    path: Path, name: str, endpoint: str, problems: list[tuple[str, str]]
) -> dict[str, Any]:
    """The cache of library ``name`` at ``endpoint``, or an empty one (none yet, another
    library's or layout's, or unreadable: then set aside, and said in ``problems``)."""
    if not path.exists():
        return fresh_cache(name, endpoint)
    try:
        cache = json.loads(path.read_text(encoding="utf-8"))
        readable = _well_formed(cache)
    except (OSError, ValueError):
        readable = False
    if not readable:
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
        except OSError as exc:
            raise IngestError(f"cannot set aside the unreadable cache {path}: {exc}") from None
        problems.append(
            (str(path), f"unreadable cache set aside as {aside.name}; the library is read in full")
        )
        return fresh_cache(name, endpoint)
    if (cache["format"], cache["library"], cache.get("endpoint")) != (CACHE_FORMAT, name, endpoint):
        return fresh_cache(name, endpoint)
    return dict(cache)


def _well_formed(cache: object) -> bool:
    if not isinstance(cache, dict) or not isinstance(cache.get("format"), int):
        return False
    if cache["format"] != CACHE_FORMAT:
        return isinstance(cache.get("library"), str)  # another layout: read in full
    if not isinstance(cache.get("library"), str) or not isinstance(cache.get("endpoint"), str):
        return False
    version = cache.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        return False
    for part in ("collections", "items", "files"):
        objects = cache.get(part)
        if not isinstance(objects, dict) or not all(isinstance(v, dict) for v in objects.values()):
            return False
    return all(
        isinstance(d.get("key"), str)
        for part in ("collections", "items")
        for d in cache[part].values()
    )


def save_cache(path: Path, cache: Mapping[str, Any]) -> None:
    """Written whole to a temporary file, then put in place: never half a cache."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(cache, out, ensure_ascii=False, separators=(",", ":"))
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise IngestError(f"cannot write the Zotero cache {path}: {exc}") from None


# -- PDFs ----------------------------------------------------------------------------------


def pdf_attachment(
    api: Api, data: Mapping[str, Any], cache: dict[str, Any], cache_dir: Path
) -> Attachment:
    """The PDF attachment ``data``, its file downloaded when its md5 is not the one
    downloaded before (a 404 or a non-PDF is remembered for that md5: not asked again)."""
    key = str(data["key"])
    title = str(data.get("title") or "")
    if data.get("linkMode") == "linked_file":
        return Attachment(key, title, None, linked=True, problem=LINKED)
    md5 = str(data.get("md5") or "")
    if not md5:
        return Attachment(key, title, None, problem=NO_FILE)
    folder = cache_dir / FILES / key
    target = folder / _file_name(data.get("filename"), key)
    files: dict[str, dict[str, str]] = cache["files"]
    record = files.get(key)
    if record is not None and record.get("md5") == md5:
        if record.get("problem"):
            return Attachment(key, title, None, problem=record["problem"])
        kept = cache_dir / record.get("path", "")
        if kept.is_file() and kept.is_relative_to(folder):
            if kept != target:  # renamed in Zotero, the same bytes
                with contextlib.suppress(OSError):
                    os.replace(kept, target)
                    kept = target
            return _found(files, key, md5, title, kept, cache_dir)
    if target.is_file() and _md5(target) == md5:  # downloaded before the cache was lost
        return _found(files, key, md5, title, target, cache_dir)
    try:
        response = api.call(lambda: api.file(key))
    except Unreachable as exc:
        problem = f"could not reach {api.endpoint} to download it: {exc}"
        return Attachment(key, title, None, problem=problem)
    except Failed as exc:
        problem = _download_problem(exc)
        if exc.status in (403, 404, 410):
            files[key] = {"md5": md5, "problem": problem}
        return Attachment(key, title, None, problem=problem)
    body = response.content
    if b"%PDF-" not in body[:1024]:
        kind = response.headers.get("content-type", "no content type")
        problem = f"the web API sent something that is not a PDF ({kind}, {len(body)} bytes)"
        files[key] = {"md5": md5, "problem": problem}
        return Attachment(key, title, None, problem=problem)
    try:
        _write_file(folder, target, body)
    except OSError as exc:
        return Attachment(key, title, None, problem=f"could not save it in {folder}: {exc}")
    return _found(files, key, md5, title, target, cache_dir)


def _found(
    files: dict[str, dict[str, str]], key: str, md5: str, title: str, path: Path, root: Path
) -> Attachment:
    files[key] = {"md5": md5, "path": path.relative_to(root).as_posix()}
    return Attachment(key, title, path, signature=md5)


def _download_problem(exc: Failed) -> str:
    if exc.status == 404:
        return (
            "file not found on the web API (HTTP 404): not uploaded, or Zotero syncs its "
            "files by WebDAV; read the local Zotero library instead"
        )
    if exc.status in (401, 403):
        return (
            f"the API key may not download files (HTTP {exc.status}): give it access to "
            f"the library's files at {KEYS_URL}"
        )
    return f"could not download it: {exc}; the next read tries again"


def _file_name(name: object, key: str) -> str:
    clean = _UNSAFE.sub("_", str(name or "")).strip(" .")[:200]
    return clean or f"{key}.pdf"


def _write_file(folder: Path, target: Path, body: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".download-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    for other in folder.iterdir():  # the attachment's previous file, under another name
        if other != target:
            with contextlib.suppress(OSError):
                other.unlink()


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def forget_files(cache: dict[str, Any], cache_dir: Path) -> None:
    """Files of attachments no longer in the library are removed, with their records."""
    items = cache["items"]
    for key in [k for k in cache["files"] if k not in items]:
        del cache["files"][key]
    root = cache_dir / FILES
    if root.is_dir():
        for folder in root.iterdir():
            if folder.name in items:
                continue
            if folder.is_dir():
                shutil.rmtree(folder, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    folder.unlink()
