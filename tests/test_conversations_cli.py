"""Saved conversations on the command line: `chat` saves, `chat --resume [ID]` shows the
past turns and goes on with their subject, `--no-save`, `ask --save` and
`--conversation ID`, and `conversations` (list, --json, show, export, rename, delete)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rag.answer import prompts
from rag.errors import QueryError
from rag.settings import load_settings
from tests.conftest import ingested_sample
from ui.cli import main as cli
from ui.cli import query
from ui.cli.main import main

QUESTION = "How does KCache reduce the memory overhead of the KV cache?"
FOLLOW_UP = "and how much faster is it?"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_sample(tmp_path_factory, "cli-conversations")


def _chat(data: Path, lines: str, *flags: str) -> int:
    args = cli.parser().parse_args(["chat", "--data-dir", str(data), *flags])
    return query.chat(args, load_settings(data_dir=data), stdin=io.StringIO(lines))


def _listing(data: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict:
    capsys.readouterr()
    assert main(["conversations", "--json", "--data-dir", str(data), *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_chat_is_saved_and_resumed_with_its_subject(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _listing(data, capsys)["total"]
    assert _chat(data, f"{QUESTION}\n/quit\n") == 0
    err = capsys.readouterr().err
    listing = _listing(data, capsys)
    assert listing["total"] == before + 1
    latest = listing["conversations"][0]
    cid = latest["id"]
    assert f"saved as conversation {cid}" in err and f"chat --resume {cid}" in err
    assert latest["n_turns"] == 1 and latest["title"].startswith("How does KCache")
    # --resume without an id: the latest; its past turns first, then the follow-up with
    # the stored subject (KCache is its first source).
    assert _chat(data, f"{FOLLOW_UP}\n", "--resume") == 0
    out = capsys.readouterr().out
    past, answer = out.split(prompts.EXTRACTIVE_NOTE, 1)
    assert past.startswith(f'Resuming "{latest["title"]}" (1 turns') and f"> {QUESTION}" in past
    assert "(searched: and how much faster is it? KCache)" in past  # printed before the answer
    assert answer.split("References")[1].lstrip().startswith("[1] KCache")
    got = _listing(data, capsys)["conversations"][0]
    assert got["id"] == cid and got["n_turns"] == 2
    # --resume ID, --no-save: its turns are the history, nothing is appended.
    assert _chat(data, "and what about accuracy?\n", "--resume", cid, "--no-save") == 0
    assert "KCache" in capsys.readouterr().out
    assert _listing(data, capsys)["conversations"][0]["n_turns"] == 2
    assert _chat(data, "What is Llumnix?\n", "--no-save") == 0
    assert _listing(data, capsys)["total"] == before + 1


def test_ask_saves_only_when_asked(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _listing(data, capsys)["total"]
    assert main(["ask", QUESTION, "--data-dir", str(data)]) == 0
    assert _listing(data, capsys)["total"] == before
    assert main(["ask", QUESTION, "--save", "--json", "--data-dir", str(data)]) == 0
    cid = json.loads(capsys.readouterr().out)["conversation_id"]
    assert main(["ask", FOLLOW_UP, "--conversation", cid, "--data-dir", str(data)]) == 0
    captured = capsys.readouterr()
    assert "(searched: and how much faster is it? KCache)" in captured.out
    assert f"saved in conversation {cid}" in captured.err
    assert main(["conversations", "show", cid, "--json", "--data-dir", str(data)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [t["question"] for t in shown["turns"]] == [QUESTION, FOLLOW_UP]
    assert shown["turns"][1]["answer"]["citations"][0]["label"] == "KCache"


def test_list_show_export_rename_delete(
    data: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    d = ["--data-dir", str(data)]
    assert main(["ask", QUESTION, "--save", "--json", *d]) == 0
    cid = json.loads(capsys.readouterr().out)["conversation_id"]
    assert main(["conversations", *d]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "TURNS", "UPDATED", "TITLE"]
    assert lines[1].startswith(f"{cid}      1  ") and "How does KCache" in lines[1]
    assert main(["conversations", "show", cid, *d]) == 0
    assert f"> {QUESTION}" in capsys.readouterr().out
    assert main(["conversations", "export", cid, *d]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("# How does KCache") and "References" in markdown
    target = tmp_path / "refs.bib"
    assert main(["conversations", *d, "export", cid, "--format", "bibtex", "-o", str(target)]) == 0
    assert target.read_text().startswith("@misc{") and "title = {KCache}" in target.read_text()
    assert main(["conversations", "rename", cid, "KCache reading", *d]) == 0
    found = _listing(data, capsys, "--search", "kcache READING")
    assert [c["id"] for c in found["conversations"]] == [cid]
    assert main(["conversations", "delete", cid, *d]) == 0
    capsys.readouterr()
    assert main(["conversations", "show", cid, *d]) == 1
    assert f"no saved conversation '{cid}'" in capsys.readouterr().err
    assert main(["conversations", "--search", "no such title at all", *d]) == 0
    assert "no conversations whose title holds" in capsys.readouterr().err


def test_resume_with_nothing_saved_says_how_to_start(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    fresh = tmp_path / "fresh"
    shutil.copytree(data, fresh, ignore=shutil.ignore_patterns("conversations.sqlite3*"))
    args = cli.parser().parse_args(["chat", "--resume", "--data-dir", str(fresh)])
    with pytest.raises(QueryError, match="no saved conversation to resume"):
        query.chat(args, load_settings(data_dir=fresh), stdin=io.StringIO(""))
    assert main(["chat", "--resume", "0123456789abcdef", "--data-dir", str(fresh)]) == 1
    assert "no saved conversation '0123456789abcdef'" in capsys.readouterr().err
    assert main(["conversations", "--json", "--data-dir", str(fresh)]) == 0
    assert json.loads(capsys.readouterr().out) == {"total": 0, "conversations": []}


def test_help_says_what_is_saved(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["chat", "--help"])
    chat_help = " ".join(capsys.readouterr().out.split())
    assert "Every chat is saved" in chat_help and "--resume [ID]" in chat_help
    with pytest.raises(SystemExit):
        main(["ask", "--help"])
    assert "a single ask is not saved by default" in " ".join(capsys.readouterr().out.split())
