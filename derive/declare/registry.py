"""Loading operator files: every module-level ``Operator`` is registered by name.

An operator file is a Python module. Loading a user's file runs their code;
that is expected and the only place derive runs anything a user wrote.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from types import ModuleType

from derive.declare.operator import Operator
from derive.errors import DeriveError, OperatorFileError, UnknownNameError, did_you_mean
from derive.resources import resource_dir

# the files a load_registry in progress has run, by resolved path (None outside one)
_session: ContextVar[dict[Path, ModuleType] | None] = ContextVar(
    "derive_operator_files", default=None
)


class Registry:
    """Operators by name, in load order (built-ins first, then user files)."""

    __slots__ = ("_operators",)

    def __init__(self, operators: tuple[Operator, ...]) -> None:
        self._operators = tuple(operators)

    @property
    def operators(self) -> tuple[Operator, ...]:
        """Every operator, in load order."""
        return self._operators

    def __repr__(self) -> str:
        return f"Registry({', '.join(self.names())})"

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
        exists = os.path.lexists(path)  # /dev/zero, a folder, a FIFO exist: say what they are
        why = "not a regular file; give a Python file" if exists else "no such file"
        raise OperatorFileError(f"operators file {str(path)!r}", why)
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
    if str(path) in _as_files:
        return _as_files[str(path)]
    loaded = _session.get() if _pinned is None else _pinned
    key = path.resolve()
    if loaded is not None and key in loaded:
        return loaded[key]
    module = _load_module(path)
    if loaded is not None:
        loaded[key] = module
    return module


_pinned: dict[Path, ModuleType] | None = None

_as_files: dict[str, ModuleType] = {}
"""Operators declared as data, by the name that stands for them among operator files."""


def operators_as_file(name: str, operators: tuple[Operator, ...]) -> str:
    """Let ``name`` stand among operator files for ``operators`` (declared as data, not code).

    A set's ``[[operator]]`` tables travel with its Python files this way, so every path that
    takes a set's operator files (keys, checks, grading, the workbook) loads its tables too.
    """
    name = str(Path(name))
    module = ModuleType(name)
    for n, op in enumerate(operators):
        setattr(module, f"operator_{n}", op)
    _as_files[name] = module
    return name


def pin_operator_files() -> None:
    """From now on, each operators file runs at most once in this process.

    ``derive serve`` calls it before reading its set: a trusted file runs once, in the
    server, and every checking worker (forked from the server) holds the very same
    declarations, so an edit to the file while serving cannot give two verdicts.
    """
    global _pinned
    if _pinned is None:
        _pinned = {}


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
    paths: tuple[Path, ...] | list[Path] = (), include_builtins: bool = True, lazy: bool = False
) -> Registry:
    """Load the built-in operators (optional) and the given files, refusing duplicate names.

    A module-level name bound to an operator declared before it (a built-in the file took
    from ``load_registry()``, or one it imported) is not a new declaration: only a
    different operator under a name already taken is refused.

    ``lazy``: a built-in file runs when one of its operators is first looked up by name
    (:class:`_LazyRegistry`); the given files run now, as always. The operators, their
    order and every error are those of a registry loaded whole.
    """
    builtins = builtin_operator_files() if include_builtins else ()
    files = builtins + tuple(Path(p) for p in paths)
    if _session.get() is not None:  # a file loading the registry shares its files' modules
        return _register(files, builtins)
    if lazy and builtins:
        return _LazyRegistry(builtins, tuple(Path(p) for p in paths))
    with _sharing({}):
        return _register(files, builtins)


@contextmanager
def _sharing(modules: dict[Path, ModuleType]) -> Iterator[None]:
    """Operator files loaded in the block run once each, into ``modules``."""
    token = _session.set(modules)
    try:
        yield
    finally:
        _session.reset(token)


@cache
def builtin_names(path: Path) -> frozenset[str]:
    """The operator names (lower case) a built-in file declares, read from its source without
    running it: each module-level ``x = Operator(name="…", …)`` (any call with a string
    ``name``). tests/declare/test_builtin_operators.py checks them against the files run."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return frozenset(
        keyword.value.value.lower()
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for keyword in node.value.keywords
        if keyword.arg == "name"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, str)
    )


class _LazyRegistry(Registry):
    """A registry whose built-in files run one at a time, as their operators are looked up.

    ``derive key`` of a set that names no layer never builds ``operators/layers.py``'s
    composites (a few hundredths of a second of sympy: benchmarks/README.md). The given
    files run at once, with the built-in files whose names they reuse, so a duplicate is
    refused where and as a whole load refuses it. Anything but a lookup by a built-in's
    name (listing, an unknown name) loads the rest, then answers as :class:`Registry`.
    """

    __slots__ = ("_builtins", "_files", "_given", "_modules", "_whole")

    def __init__(self, builtins: tuple[Path, ...], given: tuple[Path, ...]) -> None:
        self._builtins, self._files = builtins, builtins + given
        self._modules: dict[Path, ModuleType] = {}
        self._whole: tuple[Operator, ...] | None = None
        with _sharing(self._modules):
            named = {
                op.name.lower() for path in given for op in _operators_in(load_operator_file(path))
            }
            reused = tuple(path for path in builtins if builtin_names(path) & named)
            self._given = _register(reused + given, builtins).operators
        super().__init__(())

    @property
    def operators(self) -> tuple[Operator, ...]:
        if self._whole is None:
            with _sharing(self._modules):
                self._whole = _register(self._files, self._builtins).operators
        return self._whole

    def get(self, name: str) -> Operator:
        key = name.lower() if isinstance(name, str) else ""
        if self._whole is None:
            path = next((p for p in self._builtins if key in builtin_names(p)), None)
            if path is not None:
                with _sharing(self._modules):
                    found = _operators_in(load_operator_file(path))
                for op in found:
                    if op.name.lower() == key:
                        return op
            for op in self._given:
                if op.name.lower() == key:
                    return op
        return super().get(name)


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
                if seen[key][0] is op or seen[key][0] == op:
                    continue  # a name bound to an operator already declared, not a new one
                raise OperatorFileError(
                    f"operator {op.name!r} in {str(path)!r}",
                    f"duplicate name: already declared in {str(seen[key][1])!r} (names are unique ignoring case)",
                )
            seen[key] = (op, path)
            ops.append(op)
    return Registry(tuple(ops))
