"""The reference pages of the documentation site, made from the code at build time.

Each page is written once, here, from what the code already says: every ``paperchat``
subcommand's ``--help`` (:func:`cli_page`), every setting's variable, default and
description from :class:`rag.settings.Settings` (:func:`settings_page`), and the HTTP API
from its OpenAPI schema (:func:`http_page`). A subcommand without help or a setting without a
description is an error (:class:`MissingDocs`): the site's build fails instead of publishing
a blank line. ``docs/hooks.py`` hands the pages to MkDocs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo

from rag.settings import Settings

__all__ = [
    "MissingDocs",
    "cli_page",
    "commands",
    "env_names",
    "http_page",
    "settings_page",
    "settings_table",
]

HELP_WIDTH = "100"  # columns argparse wraps --help at, the same on every machine


def env_names(field: str) -> list[str]:
    """The environment variables a setting is read from, the usual name first."""
    alias = Settings.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return [str(c) for c in alias.choices]
    return [f"PAPERCHAT_{field.upper()}"]


class MissingDocs(ValueError):
    """A subcommand or a setting the reference would have to leave blank."""


# --- the command line -----------------------------------------------------------------------


def commands(parser: argparse.ArgumentParser, prefix: str = "paperchat") -> Iterator[
    tuple[str, str, argparse.ArgumentParser]
]:  # fmt: skip
    """Every subcommand under ``parser``, depth first: (``paperchat zotero sync``, its one-line
    help, its parser)."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help or "" for a in action._choices_actions}
        seen: set[int] = set()
        for name, sub in action.choices.items():
            if id(sub) in seen:  # an alias of a command listed under its own name
                continue
            seen.add(id(sub))
            path = f"{prefix} {name}"
            if not helps.get(name, "").strip():
                raise MissingDocs(f"`{path}` has no help: give its add_parser(...) a help=")
            yield path, helps[name], sub
            yield from commands(sub, path)


@contextlib.contextmanager
def _columns(width: str) -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = width
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def cli_page(parser: argparse.ArgumentParser | None = None) -> str:
    """Markdown: the top-level ``--help``, then one section per subcommand with its own."""
    if parser is None:
        from ui.cli.main import parser as make_parser

        parser = make_parser()
    found = list(commands(parser))
    lines = [
        "# Command line",
        "",
        "Every `paperchat` subcommand and its `--help`, as the installed version prints it "
        "(this page is generated from the code when the site is built).",
        "",
    ]
    lines += [f"- [`{path}`](#{_anchor(path)}): {text}" for path, text, _ in found]
    with _columns(HELP_WIDTH):
        lines += ["", "## paperchat", "", "```text", parser.format_help().rstrip(), "```"]
        for path, text, sub in found:
            lines += ["", f"## {path}", "", text[0].upper() + text[1:] + ".", ""]
            lines += ["```text", sub.format_help().rstrip(), "```"]
    return "\n".join(lines) + "\n"


def _anchor(heading: str) -> str:
    """The id MkDocs gives a heading made of words and spaces."""
    return "-".join(heading.lower().split())


# --- settings ---------------------------------------------------------------------------------


def _default(info: FieldInfo) -> str:
    value = info.default_factory() if info.default_factory is not None else info.default  # type: ignore[call-arg]
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if isinstance(value, Path):
        home = str(Path.home())
        text = str(value)
        return "~" + text[len(home) :] if text.startswith(home) else text
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(str(v) for v in value)
    return "" if value is None else str(value)


def _kind(info: FieldInfo) -> str:
    annotation = info.annotation
    if get_origin(annotation) is not None and str(get_origin(annotation)).endswith("Literal"):
        return "one of " + ", ".join(f"`{a}`" for a in get_args(annotation))
    names = {bool: "true/false", int: "integer", float: "number", str: "text", Path: "path"}
    kind = names.get(annotation, "secret" if annotation is SecretStr else "")  # type: ignore[arg-type]
    if not kind:
        kind = str(annotation).replace("typing.", "")
    bounds = []
    for rule in info.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"),
                           ("min_length", "length >=")):  # fmt: skip
            if getattr(rule, attr, None) is not None:
                bounds.append(f"{sign} {getattr(rule, attr)}")
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def settings_table(variables: list[str] | None = None) -> str:
    """Markdown: one row per setting (its variables, default, kind, description); only the
    settings ``variables`` name, in that order, when given (an unknown name is an error)."""
    by_name = {env_names(f)[0]: f for f in Settings.model_fields}
    if variables is None:
        variables = list(by_name)
    unknown = [v for v in variables if v not in by_name]
    if unknown:
        raise MissingDocs(f"no setting is read from {', '.join(unknown)}")
    lines = ["| variable | default | kind | what it does |", "|---|---|---|---|"]
    for name in variables:
        field = by_name[name]
        info = Settings.model_fields[field]
        if not (info.description or "").strip():
            raise MissingDocs(f"setting {field!r} has no description: give its Field one")
        names = env_names(field)
        variable = f"`{names[0]}`" + "".join(f" (or `{n}`)" for n in names[1:])
        default = _default(info)
        shown = f"`{default}`" if default else "(empty)"
        text = " ".join(info.description.split()).replace("|", "\\|")  # type: ignore[union-attr]
        lines.append(f"| {variable} | {shown} | {_kind(info)} | {text} |")
    return "\n".join(lines) + "\n"


def settings_page() -> str:
    """Markdown: every setting, in the order rag/settings.py declares them."""
    intro = [
        "# Settings",
        "",
        "Every setting paperchat reads, generated from `rag/settings.py` when the site is "
        "built. Set them in the environment or in a `.env` file in the directory you run "
        "paperchat from (`.env.example` lists them all with their defaults); environment "
        "variables win over `.env`. An invalid value stops paperchat with an error naming the "
        "setting.",
        "",
    ]
    return "\n".join(intro) + "\n" + settings_table()


# --- the HTTP API ---------------------------------------------------------------------------


def openapi_schema() -> dict[str, Any]:
    """The schema ``paperchat serve`` publishes at /openapi.json, from an app over an empty
    index in a temporary directory (no server started, nothing of the user's read)."""
    from rag.settings import load_settings
    from ui.app import App
    from ui.http.api import create_api

    with tempfile.TemporaryDirectory(prefix="paperchat-docs-") as tmp:
        settings = load_settings(
            data_dir=Path(tmp), cache_dir=Path(tmp) / "cache", chroma_host="", ui=False
        )
        return create_api(App.from_settings(settings)).openapi()


def _schema_type(schema: dict[str, Any], components: dict[str, Any]) -> str:
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    if "anyOf" in schema:
        return " or ".join(_schema_type(s, components) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return "array of " + _schema_type(schema.get("items", {}), components)
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    return str(schema.get("type", "any"))


def _reachable(names: list[str], components: dict[str, Any]) -> list[str]:
    """The schemas ``names`` refer to, and those they refer to in turn, sorted."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in components:
            continue
        seen.add(name)
        text = str(components[name])
        todo += [ref.rsplit("/", 1)[-1] for ref in _REF.findall(text)]
    return sorted(seen)


_REF = re.compile(r"#/components/schemas/[A-Za-z0-9_.-]+")


def _cell(text: Any) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def http_page(schema: dict[str, Any] | None = None) -> str:
    """Markdown: every operation (method, path, what it does, its parameters and body) and
    every body schema with its fields."""
    schema = openapi_schema() if schema is None else schema
    components = schema.get("components", {}).get("schemas", {})
    lines = [
        "# HTTP API",
        "",
        "Every route `paperchat serve` answers, generated from its OpenAPI schema when the "
        "site is built (a running server publishes the same schema at `/openapi.json` and "
        "browsable docs at `/docs`). Errors are JSON, "
        '`{"error": {"message", "type", "code"}}`, with the HTTP status.',
        "",
    ]
    used: list[str] = []
    for path, operations in schema.get("paths", {}).items():
        for method, op in operations.items():
            lines += [f"## {method.upper()} {path}", ""]
            summary = (op.get("description") or op.get("summary") or "").strip()
            if not summary:
                raise MissingDocs(f"{method.upper()} {path} has no docstring")
            lines += [summary, ""]
            params = op.get("parameters", [])
            if params:
                lines += ["| parameter | in | type | required | description |",
                          "|---|---|---|---|---|"]  # fmt: skip
                for p in params:
                    lines.append(
                        f"| `{p['name']}` | {p['in']} | "
                        f"{_schema_type(p.get('schema', {}), components)} | "
                        f"{'yes' if p.get('required') else 'no'} | {_cell(p.get('description'))} |"
                    )
                lines.append("")
            body = op.get("requestBody", {}).get("content", {})
            for media, spec in body.items():
                kind = _schema_type(spec.get("schema", {}), components)
                lines += [f"Body ({media}): {kind}", ""]
                used += [r.strip("`") for r in kind.split() if r.startswith("`")]
    lines += ["## Schemas", ""]
    for name in _reachable(used, components):
        spec = components.get(name, {})
        lines += [f"### {name}", ""]
        if spec.get("description"):
            lines += [_cell(spec["description"]), ""]
        required = set(spec.get("required", []))
        props = spec.get("properties", {})
        if props:
            lines += ["| field | type | default | description |", "|---|---|---|---|"]
            for field, p in props.items():
                default = "required" if field in required else f"`{json.dumps(p.get('default'))}`"
                lines.append(
                    f"| `{field}` | {_schema_type(p, components)} | {default} | "
                    f"{_cell(p.get('description'))} |"
                )
            lines.append("")
    return "\n".join(lines) + "\n"
