"""Opening the store: the collection named from the settings, in embedded Chroma under the
data directory or on a Chroma server, within a time limit and with errors that say what to
check."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from rag.errors import StoreError
from rag.index.calls import bound_http
from rag.index.store import DEFAULT_DATABASE, Store, get_or_create_collection

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    from rag.settings import Settings

__all__ = ["open_store"]


def open_store(settings: Settings) -> Store:
    """Open (creating if needed) the collection named from ``settings``."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    token = settings.chroma_token.get_secret_value()
    auth: dict[str, Any] = {}
    if settings.chroma_host and token:
        auth = {
            "chroma_client_auth_provider": "chromadb.auth.token_authn.TokenAuthClientProvider",
            "chroma_client_auth_credentials": token,
            "chroma_auth_token_transport_header": settings.chroma_token_header,
        }
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False, **auth)
    if settings.chroma_host:
        scheme = "https" if settings.chroma_ssl else "http"
        location = f"{scheme}://{settings.chroma_host}:{settings.chroma_port}"
        if (settings.chroma_tenant, settings.chroma_database) != DEFAULT_DATABASE:
            location += f"/{settings.chroma_tenant}/{settings.chroma_database}"
        hint = (
            "is `chroma run` up at that host and port, and do the tenant, database and token "
            "exist there? (PAPERCHAT_CHROMA_HOST, _PORT, _TENANT, _DATABASE, _TOKEN)"
        )
    else:
        path = settings.data_dir / "chroma"
        location = str(path)
        hint = "check that PAPERCHAT_DATA_DIR (or --data-dir) is a writable directory"

    def connect() -> tuple[ClientAPI, Collection]:
        if settings.chroma_host:
            client = chromadb.HttpClient(
                host=settings.chroma_host,
                port=settings.chroma_port,
                ssl=settings.chroma_ssl,
                settings=chroma_settings,
                tenant=settings.chroma_tenant,
                database=settings.chroma_database,
            )
            # Longer than a call's own limit: a stuck request keeps failing the next calls
            # fast (BoundedCalls) until the server answers or this expires.
            bound_http(client, 2 * settings.chroma_timeout)
        else:
            path.mkdir(parents=True, exist_ok=True)
            client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        collection = get_or_create_collection(
            client,
            settings.collection_name(),
            {
                "embedder": settings.embedder_id,
                "chunk_tokens": settings.chunk_tokens,
                "chunk_overlap": settings.chunk_overlap,
            },
        )
        return client, collection

    opener = ThreadPoolExecutor(1, thread_name_prefix="paperchat-chroma-open")
    try:
        client, collection = opener.submit(connect).result(timeout=settings.chroma_timeout)
    except FutureTimeout:
        raise StoreError(
            f"cannot open the Chroma store at {location}: no answer within "
            f"{settings.chroma_timeout:g} s (PAPERCHAT_CHROMA_TIMEOUT); {hint}"
        ) from None
    except Exception as exc:  # connection refused, bad path, incompatible on-disk version...
        detail = str(exc).replace(token, "***") if token else str(exc)
        raise StoreError(
            f"cannot open the Chroma store at {location}: {type(exc).__name__}: {detail}; {hint}"
        ) from exc
    finally:
        opener.shutdown(wait=False)
    store = Store(
        client,
        collection,
        location=location,
        timeout=settings.chroma_timeout,
        threads=settings.chroma_threads,
    )
    store.finish_removals()  # a removal a crash cut short is finished before anything else
    return store
