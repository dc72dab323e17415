"""The one settings object. Read once at the edge (CLI, server) and passed down.

Every field has a default and a description; ``.env.example`` lists exactly these fields
(a test keeps the two in step). Environment variables use the ``PAPERCHAT_`` prefix, except
the OpenAI ones, which keep their usual names so existing setups just work.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["MIN_API_KEY_CHARS", "Settings", "load_settings"]

MIN_API_KEY_CHARS = 16


def _default_data_dir() -> Path:
    return Path.home() / ".paperchat"


def _default_cache_dir() -> Path:
    return Path.home() / ".cache" / "paperchat"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PAPERCHAT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Where the embedded Chroma index and caches live.",
    )
    cache_dir: Path = Field(
        default_factory=_default_cache_dir,
        description="Where files shared by every index live (the optimised embedder graph).",
    )
    chroma_host: str = Field(
        default="",
        description="Chroma server host; empty = embedded Chroma in data_dir.",
    )
    chroma_port: int = Field(default=8000, ge=1, le=65535, description="Chroma server port.")
    chroma_ssl: bool = Field(default=False, description="Use HTTPS to reach the Chroma server.")
    chroma_tenant: str = Field(
        default="default_tenant", min_length=1, description="Chroma tenant on the server."
    )
    chroma_database: str = Field(
        default="default_database", min_length=1, description="Chroma database on the server."
    )
    chroma_token: SecretStr = Field(
        default=SecretStr(""),
        description="Token for a Chroma server that requires one; empty = none.",
    )
    chroma_token_header: Literal["Authorization", "X-Chroma-Token"] = Field(
        default="Authorization",
        description="How the token is sent: Authorization (as Bearer) or X-Chroma-Token "
        "(Chroma Cloud).",
    )
    collection_prefix: str = Field(
        default="paperchat",
        description="Prefix of the Chroma collection name (the rest is derived from settings).",
    )
    embedder: Literal["minilm-int8", "openai"] = Field(
        default="minilm-int8",
        description="minilm-int8 = offline all-MiniLM-L6-v2 (ONNX, shipped on PyPI); "
        "openai = an OpenAI-compatible /embeddings endpoint.",
    )
    embed_model: str = Field(
        default="text-embedding-3-small",
        description="Embedding model name when embedder=openai.",
    )
    embed_batch_size: int = Field(
        default=32, ge=1, le=1024, description="Texts per embedding call."
    )
    embed_concurrency: int = Field(
        default=4,
        ge=1,
        le=64,
        description="Embeddings API (PAPERCHAT_EMBEDDER=openai): requests in flight at once "
        "while ingesting; raise it to match a server with several workers.",
    )
    embed_batch_tokens: int = Field(
        default=512,
        ge=256,
        le=1_048_576,
        description="Offline embedder: padded tokens per batch (texts x the longest). Bounds "
        "its memory (512: about 0.3 GB at the peak; 8192, 32 full chunks: 1.2 GB) and was "
        "also the fastest measured on 2 cores.",
    )
    embed_threads: int = Field(
        default=0, ge=0, le=256, description="ONNX Runtime intra-op threads; 0 = one per core."
    )
    chunk_tokens: int = Field(
        default=224,
        ge=32,
        le=8192,
        description="Target chunk size in tiktoken tokens (title + passage); a chunk over "
        "the embedder's own limit is split again.",
    )
    chunk_overlap: int = Field(
        default=32, ge=0, le=4096, description="Tokens shared by consecutive chunks of a paper."
    )
    tiktoken_encoding: Literal["cl100k_base", "o200k_base"] = Field(
        default="cl100k_base", description="tiktoken encoding used to count tokens."
    )
    retrieval_pool: int = Field(
        # 200: SciFact train hybrid nDCG@10 0.7376 as at 400 (R@100 0.9565 against 0.9596)
        # and hybrid p95 13.5 against 14.9 ms at 5k chunks, side by side (docs/benchmarks.md)
        default=200,
        ge=10,
        le=10_000,
        description="Candidates taken from each side (dense chunks, lexical papers) before fusion.",
    )
    fusion_alpha: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Weight of the dense side in hybrid fusion (1 - alpha for lexical).",
    )
    index_refresh_seconds: float = Field(
        default=2.0,
        ge=0.0,
        description="How often a running process checks the store for other writers' changes.",
    )
    openai_api_key: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("OPENAI_API_KEY", "PAPERCHAT_OPENAI_API_KEY"),
        description="Key for the OpenAI-compatible API (OPENAI_API_KEY).",
    )
    openai_base_url: str = Field(
        default="",
        validation_alias=AliasChoices("OPENAI_BASE_URL", "PAPERCHAT_OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible API (OPENAI_BASE_URL); empty = OpenAI.",
    )
    openai_timeout: float = Field(
        default=60.0,
        gt=0,
        description="Seconds a call to the OpenAI-compatible API may take to start answering, "
        "retries included (a timeout is not retried).",
    )

    llm: Literal["auto", "extractive", "openai"] = Field(
        default="auto",
        description="Who writes answers: auto = the OpenAI-compatible API when OPENAI_API_KEY "
        "or OPENAI_BASE_URL is set, else a local server detect_local_llm finds, else "
        "extractive; extractive = the abstracts' own sentences, no model; openai = always "
        "the API.",
    )
    detect_local_llm: bool = Field(
        default=True,
        description="With neither OPENAI_BASE_URL nor OPENAI_API_KEY set, look once per process "
        "for a local OpenAI-compatible server (Ollama, llama.cpp) at local_llm_urls and answer "
        "with it; false = extractive unless configured.",
    )
    local_llm_urls: str = Field(
        default="http://127.0.0.1:11434/v1,http://127.0.0.1:8080/v1",
        description="Where detect_local_llm looks, comma-separated, in order (loopback only): "
        "Ollama's and llama.cpp's default addresses.",
    )
    llm_model: str = Field(
        default="gpt-4o-mini",
        description="Chat model name at the OpenAI-compatible API.",
    )
    llm_max_tokens: int = Field(
        default=512, ge=16, le=32_768, description="Most tokens the model may write per answer."
    )
    llm_temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature of the model."
    )
    llm_context_tokens: int = Field(
        default=3000,
        ge=64,
        le=1_000_000,
        description="Token budget for the numbered sources in the prompt (lowest-ranked "
        "sources are dropped first).",
    )
    llm_history_tokens: int = Field(
        default=600,
        ge=0,
        le=100_000,
        description="Token budget for earlier turns of the conversation in the prompt.",
    )
    llm_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Retries of a failed call (connection, timeout, 429, 5xx) before giving up.",
    )
    llm_concurrency: int = Field(
        default=4, ge=1, le=1024, description="Most model calls running at once per process."
    )
    llm_fallback: bool = Field(
        default=True,
        description="When the model fails, answer extractively instead (labelled as such).",
    )
    attribution: Literal["attach", "strict", "off"] = Field(
        default="attach",
        description="How a generated answer's markers are checked: attach = each sentence gets "
        "the markers of the sources that say it (added, moved or removed) and a sentence no "
        "source supports is flagged; strict = such sentences are dropped; off = only markers "
        "naming no source offered are removed.",
    )
    answer_k: int = Field(default=5, ge=1, le=50, description="Papers an answer draws on.")
    api_key: SecretStr = Field(
        default=SecretStr(""),
        description="When set, /api and /v1 need 'Authorization: Bearer <key>' and the UI asks "
        "for it at login; empty = no auth, and `serve` binds to loopback only.",
    )
    ui: bool = Field(
        default=True,
        description="Serve the chat UI at / (false: only the APIs, which start faster).",
    )
    max_question_chars: int = Field(
        default=2000, ge=10, le=100_000, description="Longest question the server accepts."
    )
    max_upload_mb: float = Field(
        default=50.0, gt=0, le=10_000, description="Largest request body /api/ingest accepts."
    )
    chroma_timeout: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Seconds before one call to Chroma (embedded or server) fails instead of "
        "waiting for ever.",
    )
    chroma_threads: int = Field(
        default=8,
        ge=1,
        le=256,
        description="Threads that run Chroma calls; calls beyond them wait (bounded by "
        "chroma_timeout).",
    )
    health_timeout: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="Seconds /healthz waits for the store before it answers 503 (not ok).",
    )
    work_concurrency: int = Field(
        default=2,
        ge=0,
        le=1024,
        description="Requests that search or answer at once per process (the rest wait in "
        "the queue); 0 = no bound.",
    )
    work_queue: int = Field(
        default=64,
        ge=0,
        le=100_000,
        description="Requests that may wait for a slot; beyond them the server answers 429 "
        "with Retry-After.",
    )
    allowed_hosts: str = Field(
        default="",
        description="Extra Host names the server answers to, comma-separated (loopback names "
        "always; '*' = any). Without an API key only these and loopback are served; with a "
        "key any name is, unless this lists some.",
    )
    auth_failures_per_minute: int = Field(
        default=10,
        ge=1,
        le=100_000,
        description="Failed API-key attempts a client may make per minute before 429.",
    )
    arxiv_api_url: str = Field(
        default="https://export.arxiv.org/api/query",
        description="arXiv API (Atom) used by `paperchat add` and `enrich`.",
    )
    openalex_api_url: str = Field(
        default="https://api.openalex.org",
        description="OpenAlex API: metadata and abstracts of papers by DOI.",
    )
    crossref_api_url: str = Field(
        default="https://api.crossref.org",
        description="Crossref API: the fallback for DOIs OpenAlex does not know.",
    )
    contact_email: str = Field(
        default="",
        description="Sent as mailto= to OpenAlex and Crossref (their polite pool); empty = none.",
    )
    sources_timeout: float = Field(
        default=10.0, gt=0, le=120, description="Seconds to wait for arXiv, OpenAlex, Crossref."
    )
    sources_retries: int = Field(
        default=3, ge=0, le=10, description="Retries of a 429, 5xx or timeout, with backoff."
    )
    arxiv_delay_seconds: float = Field(
        default=3.0, ge=0, le=60, description="Pause between arXiv requests (arXiv asks for 3 s)."
    )
    zotero_dir: Path = Field(
        default_factory=lambda: Path.home() / "Zotero",
        description="Zotero's data directory (zotero.sqlite and storage/) that "
        "`paperchat zotero sync` reads, read-only.",
    )
    zotero_api_key: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("ZOTERO_API_KEY", "PAPERCHAT_ZOTERO_API_KEY"),
        description="Key for Zotero's web API (ZOTERO_API_KEY), for `paperchat zotero sync "
        "--user ID` / `--group ID` without a local Zotero.",
    )
    zotero_api_url: str = Field(default="https://api.zotero.org", description="Zotero's web API.")
    min_relevance: float = Field(
        default=0.0,
        ge=-1.0,
        le=1.0,
        description="A floor: refuse when the best retrieved paper's cosine similarity to the "
        "question is below this, whatever the other evidence (rag/answer/gather.py weighs "
        "similarity and word coverage together); 0 leaves the decision to that evidence.",
    )

    @field_validator("data_dir", "cache_dir", "zotero_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("local_llm_urls")
    @classmethod
    def _loopback(cls, value: str) -> str:
        from urllib.parse import urlsplit

        for url in filter(None, (u.strip() for u in value.split(","))):
            host = urlsplit(url).hostname or ""
            if host not in ("127.0.0.1", "localhost", "::1"):
                raise ValueError(f"{url!r}: only loopback addresses are probed")
        return value

    @field_validator("chroma_token")
    @classmethod
    def _printable(cls, value: SecretStr) -> SecretStr:
        if any(not 32 < ord(c) < 127 for c in value.get_secret_value()):
            raise ValueError("the token must be printable ASCII without spaces")
        return value

    @field_validator("api_key")
    @classmethod
    def _strong(cls, value: SecretStr) -> SecretStr:
        key = value.get_secret_value()
        if key and len(key) < MIN_API_KEY_CHARS:
            raise ValueError(
                f"the API key has {len(key)} characters, fewer than {MIN_API_KEY_CHARS}: a short "
                "key can be guessed; make one with `python -c 'import secrets; "
                "print(secrets.token_urlsafe(24))'`"
            )
        return value

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.chunk_overlap >= self.chunk_tokens:
            raise ValueError(
                f"PAPERCHAT_CHUNK_OVERLAP ({self.chunk_overlap}) must be smaller than "
                f"PAPERCHAT_CHUNK_TOKENS ({self.chunk_tokens})"
            )
        return self

    @property
    def embedder_id(self) -> str:
        """What identifies the vectors an embedder makes (part of the collection name)."""
        if self.embedder == "openai":
            return f"openai-{self.embed_model}"
        return "minilm-int8"

    def collection_name(self) -> str:
        """Named from everything that changes the vectors, so a change never mixes them."""
        key = (
            f"{self.embedder_id}|{self.tiktoken_encoding}|{self.chunk_tokens}|{self.chunk_overlap}"
        )
        slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", self.embedder_id).strip("-")[:40]
        digest = hashlib.sha256(key.encode()).hexdigest()[:8]
        return f"{self.collection_prefix}-{slug}-c{self.chunk_tokens}o{self.chunk_overlap}-{digest}"


def load_settings(**overrides: object) -> Settings:
    """Read settings from the environment and ``.env``; explicit overrides win."""
    from pydantic import ValidationError

    from rag.errors import ConfigError

    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**clean)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(
            f"invalid setting {field}: {first['msg']} (check your environment or .env; "
            "see .env.example)"
        ) from exc
