"""Import gradio without the work it does for its own developers: ~1.2 s of every start.

Each gradio component class, as it is defined, re-parses its module's source, renders a
type-stub template and rewrites the ``.pyi`` beside it in site-packages
(``gradio.component_meta.create_or_modify_pyi``, called from the component metaclass). The
stubs are for editors working on gradio itself; nothing reads them at run time, and writing
into site-packages is something a server should not do. Skipping it takes ``import
gradio`` from 2.41 s to 1.26 s on these machines (bench/startup.py; cProfile puts the
time in ``ast.get_source_segment`` re-splitting whole files, 162 calls).

The function is looked up as a module global each time a class is made, so it is replaced
right after ``gradio.component_meta`` runs and before the first component is defined: a
one-shot import hook does that. Everything else about gradio is untouched. If a gradio
release renames the function, the hook finds nothing to replace and gradio imports as usual
(slower); ``tests/test_ui.py`` checks the replacement still takes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["SelectData", "gr", "skips_stub_writing"]

_MODULE = "gradio.component_meta"
_FUNCTION = "create_or_modify_pyi"


def _no_stub(*_args: Any, **_kwargs: Any) -> None:
    """Stands in for gradio's stub writer: there is nothing to write at run time."""


def _patch(module: ModuleType) -> None:
    if hasattr(module, _FUNCTION):
        setattr(module, _FUNCTION, _no_stub)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds ``gradio.component_meta`` the usual way and patches it once it has run."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _import_gradio() -> ModuleType:
    if _MODULE in sys.modules:  # imported before us: only later classes are spared
        _patch(sys.modules[_MODULE])
    else:
        sys.meta_path.insert(0, _PatchOnImport())
    import gradio

    return gradio


def skips_stub_writing() -> bool:
    """Whether gradio's stub writer is replaced (False: a gradio release changed it)."""
    module = sys.modules.get(_MODULE)
    return module is not None and getattr(module, _FUNCTION, None) is _no_stub


gr = _import_gradio()
# Event data classes that handlers name in their signatures (gradio reads the annotation).
SelectData: Any = gr.SelectData
