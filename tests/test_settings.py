from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rag.errors import ConfigError
from rag.settings import Settings, load_settings
from ui.reference import env_names

ROOT = Path(__file__).resolve().parent.parent


def test_env_example_lists_exactly_the_settings() -> None:
    text = (ROOT / ".env.example").read_text()
    listed = set(re.findall(r"^([A-Z0-9_]+)=", text, flags=re.M))
    expected = {env_names(f)[0] for f in Settings.model_fields}
    assert listed == expected


def test_env_example_values_parse_as_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / ".env.example").read_text()
    for key, value in re.findall(r"^([A-Z0-9_]+)=(.*)$", text, flags=re.M):
        monkeypatch.setenv(key, value)
    from_example = load_settings()
    monkeypatch.undo()
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]
    for field in Settings.model_fields:
        if field == "data_dir":
            assert from_example.data_dir == Path("~/.paperchat").expanduser()
            continue
        if field == "cache_dir":
            assert from_example.cache_dir == Path("~/.cache/paperchat").expanduser()
            continue
        assert getattr(from_example, field) == getattr(defaults, field), field


def test_every_field_has_a_description() -> None:
    assert all(f.description for f in Settings.model_fields.values())


def test_openai_variables_keep_their_usual_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    s = load_settings()
    assert s.openai_api_key.get_secret_value() == "sk-test"
    assert "sk-test" not in repr(s)
    assert s.openai_base_url == "http://127.0.0.1:9/v1"


def test_dotenv_file_is_read_and_env_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("PAPERCHAT_CHUNK_TOKENS=300\nPAPERCHAT_EMBED_BATCH_SIZE=8\n")
    monkeypatch.setenv("PAPERCHAT_EMBED_BATCH_SIZE", "16")
    s = load_settings()
    assert (s.chunk_tokens, s.embed_batch_size) == (300, 16)


def test_collection_name_changes_with_what_changes_vectors() -> None:
    base = Settings(_env_file=None)  # type: ignore[call-arg]
    names = {
        base.collection_name(),
        Settings(_env_file=None, chunk_tokens=128).collection_name(),  # type: ignore[call-arg]
        Settings(_env_file=None, chunk_overlap=0).collection_name(),  # type: ignore[call-arg]
        Settings(_env_file=None, embedder="openai").collection_name(),  # type: ignore[call-arg]
    }
    assert len(names) == 4
    assert base.collection_name() == Settings(_env_file=None).collection_name()  # type: ignore[call-arg]
    assert all(re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]", n) for n in names)


@pytest.mark.parametrize(
    ("env", "value", "needle"),
    [
        ("PAPERCHAT_CHUNK_TOKENS", "ten", "chunk_tokens"),
        ("PAPERCHAT_EMBEDDER", "bert", "embedder"),
        ("PAPERCHAT_CHUNK_OVERLAP", "500", "CHUNK_OVERLAP"),
    ],
)
def test_bad_settings_name_the_field(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, needle: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError, match=needle):
        load_settings()


def test_import_rag_is_light() -> None:
    code = (
        "import sys, rag, rag.settings, rag.index.store, ui.cli.main, ingest.pipeline;"
        "heavy = {'gradio', 'chromadb', 'onnxruntime', 'openai', 'tiktoken'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"
