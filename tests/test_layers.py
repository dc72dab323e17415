"""The layering rule holds: ``ui -> ingest -> rag`` (and ``ui -> rag``), no import cycles.

Every import counts, wherever it is written: at the top of a module, inside a function, or
under ``TYPE_CHECKING`` (a type both sides need moves down a layer instead). The graph is
read from the source with ``ast``, so nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rag", "ingest", "ui")
# What each package may import from the others.
ALLOWED = {"rag": set(), "ingest": {"rag"}, "ui": {"ingest", "rag"}}
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The project module ``name`` refers to (a name imported from a module counts as that
    module), or None when it is not ours."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{a.name}" for a in node.names] or [base]
        for name in names:
            target = _resolve(name, known)
            if target and target != module:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    known = _modules()
    return {m: _imports(m, p, known) for m, p in known.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_dependencies_point_one_way() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for target in targets
        if (a := module.split(".")[0]) != (b := target.split(".")[0]) and b not in ALLOWED[a]
    ]
    assert not wrong, "layering broken (ui -> ingest -> rag):\n" + "\n".join(sorted(wrong))


def test_no_import_cycles() -> None:
    cycles = _cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_checks_catch_what_they_look_for() -> None:
    """The two checks above would fail on a cycle or an upward import (they are not empty)."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = import_graph()
    assert "rag.answer.stream" in graph["rag.engine"], "the graph misses real imports"
    assert any(t.startswith("ingest.") for t in graph["ui.app"])


@pytest.mark.parametrize("path", sorted(_modules().values()), ids=lambda p: p.name)
def test_modules_stay_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (> {MAX_LINES})"


def test_package_inits_do_no_work() -> None:
    """A package __init__ holds a docstring at most: importing a package costs nothing and
    adds no edge to the graph."""
    busy = []
    for module, path in _modules().items():
        if path.name != "__init__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        if any(not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)) for n in body):
            busy.append(module)
    assert not busy, f"package __init__ with code: {busy}"


_DOORS_BYPASSED = {"store", "retriever"}  # what Engine holds that faces must not reach into


def _reaches_past_the_doors(tree: ast.AST) -> list[str]:
    """``engine.store``/``engine.retriever`` (or ``x.engine.store``) reads in a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _DOORS_BYPASSED:
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name == "engine":
                found.append(f"line {node.lineno}: engine.{node.attr}")
    return found


def test_faces_reach_data_through_the_two_doors() -> None:
    """Every face (ui.*) reaches the library through Engine or Ingester only: it imports
    nothing of rag.index (store, lexical index, catalogue) and never reads the engine's
    store or retriever (names, locations, counts and the health probe are Engine's)."""
    graph = import_graph()
    wrong = [
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.startswith("ui.")
        for target in targets
        if target == "rag.index" or target.startswith("rag.index.")
    ]
    for module, path in _modules().items():
        if module.startswith("ui."):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            wrong += [f"{module} {hit}" for hit in _reaches_past_the_doors(tree)]
    assert not wrong, "a face past the two doors:\n" + "\n".join(sorted(wrong))


def test_the_door_check_catches_what_it_looks_for() -> None:
    tree = ast.parse("n = app.engine.store.count_chunks()\nr = engine.retriever.index\n")
    assert sorted(_reaches_past_the_doors(tree)) == [
        "line 1: engine.store",
        "line 2: engine.retriever",
    ]
