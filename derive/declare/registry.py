"""Loading operator files: every module-level ``Operator`` is registered by name.

An operator file is a Python module. Loading a user's file runs their code;
that is expected and the only place derive runs anything a user wrote.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from derive.declare.operator import Operator
from derive.errors import DeriveError, OperatorFileError, UnknownNameError, did_you_mean
from derive.resources import resource_dir

__all__ = [
    "ModelDeclaration",
    "Registry",
    "builtin_operator_files",
    "load_operator_file",
    "load_registry",
]

# the files a load_registry in progress has run, by resolved path (None outside one)
_session: ContextVar[dict[Path, ModuleType] | None] = ContextVar(
    "derive_operator_files", default=None
)


@dataclass(frozen=True)
class Registry:
    """Operators by name, in load order (built-ins first, then user files)."""

    operators: tuple[Operator, ...]

    def names(self) -> tuple[str, ...]:
        """Operator names in load order."""
        return tuple(op.name for op in self.operators)

    def get(self, name: str) -> Operator:
        """The operator called ``name`` (case-insensitive)."""
        key = name.lower() if isinstance(name, str) else ""
        for op in self.operators:
            if op.name.lower() == key:
                return op
        raise UnknownNameError(
            f"operator {name!r}",
            f"unknown operator; known: {', '.join(self.names())}"
            + did_you_mean(name, self.names()),
        )


def builtin_operator_files() -> tuple[Path, ...]:
    """The shipped operator modules, sorted by file name."""
    return tuple(
        sorted(p for p in resource_dir("operators").glob("*.py") if not p.name.startswith("_"))
    )


def _load_module(path: Path) -> ModuleType:
    if not path.is_file():
        raise OperatorFileError(f"operators file {str(path)!r}", "no such file")
    if path.suffix != ".py":
        raise OperatorFileError(
            f"operators file {str(path)!r}", "an operators file is a Python module ending in .py"
        )
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"derive_operators_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise OperatorFileError(
            f"operators file {str(path)!r}", "cannot be loaded as a Python module"
        )
    module = importlib.util.module_from_spec(spec)
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # loading a file must not write __pycache__ beside it
    try:
        spec.loader.exec_module(module)
    except DeriveError as exc:
        raise OperatorFileError(f"operators file {str(path)!r}", f"{exc.what}: {exc.why}") from None
    except SyntaxError as exc:
        raise OperatorFileError(
            f"operators file {str(path)!r}", f"syntax error at line {exc.lineno}: {exc.msg}"
        ) from None
    except Exception as exc:
        raise OperatorFileError(
            f"operators file {str(path)!r}", f"raised {type(exc).__name__}: {exc}"
        ) from None
    finally:
        sys.dont_write_bytecode = saved
    return module


def load_operator_file(path: Path | str) -> ModuleType:
    """An operators file, run as a module.

    While :func:`load_registry` runs, each file runs once: a file that builds on another
    (``operators/layers.py`` composes the matmul, attention, norm and elementwise files)
    gets the very module the registry loads, so both hold the same ``Operator`` objects.
    Outside a registry load, every call runs the file afresh.
    """
    path = Path(path)
    loaded = _session.get()
    key = path.resolve()
    if loaded is not None and key in loaded:
        return loaded[key]
    module = _load_module(path)
    if loaded is not None:
        loaded[key] = module
    return module


def _operators_in(module: ModuleType) -> list[Operator]:
    return [v for k, v in vars(module).items() if not k.startswith("_") and isinstance(v, Operator)]


class ModelDeclaration:
    """A marker base: a module-level declaration of a whole model (``derive.Transformer``).

    A file that declares only models is a valid operators file: ``--operators`` in a set
    loads models and operators alike (the models are read by ``derive.model.registry``).
    """

    __slots__ = ()


def _declares_models(module: ModuleType) -> bool:
    return any(
        isinstance(v, ModelDeclaration) for k, v in vars(module).items() if not k.startswith("_")
    )


def load_registry(
    paths: tuple[Path, ...] | list[Path] = (), include_builtins: bool = True
) -> Registry:
    """Load the built-in operators (optional) and the given files, refusing duplicate names."""
    builtins = builtin_operator_files() if include_builtins else ()
    files = builtins + tuple(Path(p) for p in paths)
    token = _session.set({})
    try:
        return _register(files, builtins)
    finally:
        _session.reset(token)


def _register(files: tuple[Path, ...], builtins: tuple[Path, ...]) -> Registry:
    seen: dict[str, tuple[Operator, Path]] = {}
    ops: list[Operator] = []
    for path in files:
        module = load_operator_file(path)
        found = _operators_in(module)
        if not found and path not in builtins and not _declares_models(module):
            raise OperatorFileError(
                f"operators file {str(path)!r}",
                "declares no module-level Operator (nor a Transformer model)",
            )
        for op in found:
            key = op.name.lower()
            if key in seen:
                if seen[key][0] is op:
                    continue
                raise OperatorFileError(
                    f"operator {op.name!r} in {str(path)!r}",
                    f"duplicate name: already declared in {str(seen[key][1])!r} (names are unique ignoring case)",
                )
            seen[key] = (op, path)
            ops.append(op)
    return Registry(tuple(ops))
