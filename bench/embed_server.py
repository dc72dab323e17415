"""An OpenAI-compatible ``/v1/embeddings`` server over the shipped MiniLM (bench only).

    PAPERCHAT_CACHE_DIR=... python -m uvicorn bench.embed_server:app --workers 2 --port 8000

Each worker process holds one model with one inference thread and embeds one request at a
time, so the server's capacity is its number of workers, as with a text-embeddings-inference
or vLLM deployment sized by replicas. For bench/embed_throughput.py, which measures whether
`paperchat ingest` with PAPERCHAT_EMBEDDER=openai follows that capacity. No real embeddings
server can run on these machines offline: llama.cpp's Python server returns one vector per
token for the only GGUF model there is (SmolLM2), with no pooling option.
"""

from __future__ import annotations

import base64
import os
import sys
import threading
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.index.minilm import OnnxMiniLM

app = FastAPI()
_model = OnnxMiniLM(threads=1, cache_dir=Path(os.environ["PAPERCHAT_CACHE_DIR"]))
_one_at_a_time = threading.Lock()  # a worker's capacity: one batch at a time


class EmbeddingsRequest(BaseModel):
    model: str
    input: list[str] | str
    encoding_format: str = "float"


@app.post("/v1/embeddings")
def embeddings(request: EmbeddingsRequest) -> dict[str, Any]:
    texts = [request.input] if isinstance(request.input, str) else request.input
    with _one_at_a_time:
        vectors = _model.embed_documents(texts)
    as_base64 = request.encoding_format == "base64"
    data = [
        {
            "object": "embedding",
            "index": i,
            "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode()
            if as_base64
            else v.tolist(),
        }
        for i, v in enumerate(vectors)
    ]
    return {"object": "list", "model": request.model, "data": data,
            "usage": {"prompt_tokens": 0, "total_tokens": 0}}  # fmt: skip
