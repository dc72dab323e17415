"""The CLI as people meet it: a mistyped --data-dir, chat on a real terminal (readline),
--refs, --json with notes present, and output piped into `head`."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.answer.cite import Citation, Source
from rag.answer.prompts import EXTRACTIVE_NOTE
from rag.answer.references import format_references
from rag.records import PaperRow
from tests.conftest import ROOT, SAMPLE, free_port
from ui.cli.main import main

QUESTION = "How does KCache reduce the memory overhead of the KV cache?"
CLI = [sys.executable, "-m", "ui.cli.main"]


@pytest.fixture
def index(sample_index: Path) -> Path:
    return sample_index


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


COMMANDS = [
    ["ask", QUESTION],
    ["chat"],
    ["search", "kv cache"],
    ["papers"],
    ["stats"],
    ["reset", "--yes"],
    ["models"],
]


@pytest.mark.parametrize("argv", COMMANDS)
def test_an_unknown_data_dir_is_an_error_and_nothing_is_created(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "paperchta"
    assert main([*argv, "--data-dir", str(typo)]) == 1
    err = capsys.readouterr().err
    assert f"data directory {typo} does not exist" in err
    assert f"paperchat ingest PATH --data-dir {typo}" in err
    assert not typo.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*argv, "--data-dir", str(empty)]) == 1
    assert "holds no paperchat index" in capsys.readouterr().err
    assert list(empty.iterdir()) == []


def test_ingest_creates_the_data_dir(tmp_path: Path) -> None:
    fresh = tmp_path / "new" / "dir"
    assert main(["ingest", str(SAMPLE / "003_31596ba06aedeb50.txt"), "--data-dir", str(fresh)]) == 0
    assert (fresh / "chroma").is_dir()


@pytest.mark.slow  # a subprocess of its own
def test_json_stdout_stays_json_while_notes_go_to_stderr(index: Path) -> None:
    env = _env() | {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",  # nobody listens: fallback
        "PAPERCHAT_LLM_RETRIES": "0",
    }
    run = subprocess.run(
        [*CLI, "ask", QUESTION, "--data-dir", str(index), "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)  # nothing but the JSON
    assert out["mode"] == "extractive" and out["fallback_reason"]
    assert "paperchat: note: cannot reach the language model" in run.stderr


@pytest.mark.slow  # a subprocess of its own
def test_piped_into_head_there_is_no_broken_pipe_traceback(index: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("What is KCache?\n" * 400)  # far more than a pipe buffer of answers
    run = subprocess.run(
        ["sh", "-c", '"$0" -m ui.cli.main chat --data-dir "$1" < "$2" | head -1',
         sys.executable, str(index), str(questions)],
        capture_output=True, text=True, env=_env(), timeout=300,
    )  # fmt: skip
    assert run.stdout.count("\n") == 1
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr, run.stderr
    assert run.stderr == ""


def _citation(n: int, entry_type: str = "", bibtex_key: str = "") -> Citation:
    row = PaperRow(id=f"p{n}", label="vLLM", title="Efficient Memory Management",
                   authors=("Woosuk Kwon",), year=2023, source="refs.bib", position=n,
                   n_chunks=1, doi="10.1145/3600006.3613165", entry_type=entry_type,
                   cite_key=bibtex_key)  # fmt: skip
    return Citation(n, Source(n, row), "We propose PagedAttention.")


def test_bibtex_keeps_the_papers_entry_type_and_key() -> None:
    import bibtexparser

    text = format_references(
        [_citation(1, entry_type="inproceedings", bibtex_key="kwon2023vllm"),
         _citation(2, entry_type="article", bibtex_key="kwon2023vllm"),  # taken: made up
         _citation(3)],
        "bibtex",
    )  # fmt: skip
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    entries = [(e.entry_type, e.key) for e in library.entries]
    assert entries[0] == ("inproceedings", "kwon2023vllm")
    assert entries[1][0] == "article" and entries[1][1] not in ("kwon2023vllm", "")
    assert entries[2][0] == "misc"
    assert library.entries[0].fields_dict["doi"].value == "10.1145/3600006.3613165"


def test_markdown_refs_link_the_doi() -> None:
    text = format_references([_citation(1)], "markdown")
    assert text.startswith(
        "1. **Efficient Memory Management**. Woosuk Kwon (2023). "
        "<https://doi.org/10.1145/3600006.3613165>."
    )


def test_refs_keep_the_answer(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION, "--data-dir", str(index), "--refs", "bibtex"]) == 0
    out = capsys.readouterr().out
    answer, refs = out.split("\n\n@", 1)
    assert answer.startswith(EXTRACTIVE_NOTE) and "[1]" in answer
    assert refs.startswith("misc{") and "KCache" in refs


def _read_until(
    fd: int, needle: bytes, seen: bytearray, *, count: int = 1, timeout: float = 60
) -> None:
    """Read the terminal into ``seen`` until ``needle`` is there ``count`` times."""
    deadline = time.monotonic() + timeout
    while seen.count(needle) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"waited for {needle!r}; got {bytes(seen)[-500:]!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                return


@pytest.mark.slow  # a subprocess of its own
def test_chat_on_a_terminal_edits_recalls_and_keeps_history(index: Path) -> None:
    leader, follower = os.openpty()
    proc = subprocess.Popen(
        [*CLI, "chat", "--data-dir", str(index)],
        stdin=follower, stdout=follower, stderr=follower, env=_env() | {"TERM": "dumb"},
        close_fds=True,
    )  # fmt: skip
    os.close(follower)
    seen = bytearray()
    try:
        _read_until(leader, b"> ", seen)
        os.write(leader, b"What is KCachX\x7fe?\r")  # a typo, erased with backspace
        _read_until(leader, b"References", seen)
        _read_until(leader, b"> ", seen, count=2)
        os.write(leader, b"\r")  # an empty line is skipped, not the end
        _read_until(leader, b"> ", seen, count=3)
        os.write(leader, b"\x1b[A\r")  # up-arrow: the question again
        _read_until(leader, b"References", seen, count=2)
        _read_until(leader, b"> ", seen, count=4)
        os.write(leader, b"/quit\r")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        os.close(leader)
    text = bytes(seen).decode(errors="replace")
    assert text.count("References") == 2 and "KCache" in text
    history = (index / "chat_history").read_text()
    assert "What is KCache?" in history and "KCachX" not in history
