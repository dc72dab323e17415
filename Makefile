# One task runner: the README's commands and CI call these targets.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SAMPLE := data/sample

.PHONY: setup run test lint bench-ingest clean

$(BIN)/paperchat: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(BIN)/paperchat

setup: $(BIN)/paperchat

## The main job on the embedded default: index the sample corpus, show it, search and ask it.
run: setup
	$(BIN)/paperchat ingest $(SAMPLE)
	$(BIN)/paperchat stats
	$(BIN)/paperchat papers --limit 8
	$(BIN)/paperchat search "request scheduling for LLM serving" -k 3
	$(BIN)/paperchat ask "How do systems reduce KV cache memory in LLM inference?"

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check rag ingest ui tests bench
	$(BIN)/ruff format --check rag ingest ui tests bench

## Ingest benchmark; CORPUS is a BEIR-style corpus.jsonl (e.g. SciFact's).
bench-ingest: setup
	$(BIN)/python bench/ingest.py --corpus $(CORPUS)

clean:
	rm -rf $(VENV) .pytest_cache
