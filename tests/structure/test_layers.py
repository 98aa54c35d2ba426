"""The stage packages read as the pipeline: a module never imports from a later stage.

Every module under ``derive/`` is parsed (never imported) and each of its imports,
at module level or inside a function, is checked against the stage order below.
A module in a folder that is not in the order fails the test, so a new package
has to be placed in the pipeline on purpose. The few imports that break the order
today are listed, each with its reason, in ``ALLOWED``: a new one fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "derive"

# Stage order, earliest first; stages on one line are one stage (they may import each other).
# ``model`` is whole models; ``web`` the workbook server.
ORDER: tuple[tuple[str, ...], ...] = (
    # errors, shipped files, time budgets, lazy names
    ("errors", "resources", "deadline", "lazy"),
    ("declare",),
    ("registry",),  # a compatibility alias of declare.registry (the flat module before the move)
    ("formula",),  # reading typed text: exact decimals and derive's whitelisted math parser
    ("catalogue",),  # what derive knows by name: problem kinds, quantities
    ("problem",),
    ("analysis",),
    ("model",),
    ("training",),  # a model trained on a cluster: memory, comms, step time per strategy
    ("questions",),  # givens, defined quantities and equations over the analyses' quantities
    ("solution",),
    ("present", "figures"),
    ("pipeline",),  # one entry per problem kind, and the cache of what it analysed
    ("checking",),  # judges claims against the pipeline's analyses
    ("web",),  # the workbook server; ``derive serve`` (commands) starts it
    ("commands",),
    ("__init__", "__main__"),  # the package's face: the public API and ``python -m derive``
)
RANK = {stage: rank for rank, stages in enumerate(ORDER) for stage in stages}

# The package root is loaded before any of its modules, so reading a plain constant
# from it depends on nothing later; any other name from ``derive`` is the public face.
ROOT_CONSTANTS = {"__version__"}

# (importing module, imported module) → why the later stage is imported. Keep it short;
# an entry that is no longer needed fails test_allow_list_is_current.
ALLOWED: dict[tuple[str, str], str] = {}


def stage_of(module: str) -> str:
    """``derive.present.view`` → ``present``; ``derive.errors`` → ``errors``; ``derive`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The derive modules a module imports anywhere in its body (absolute or relative)."""
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base == "derive":  # ``from derive import errors`` names a module; else the face
                found.update(
                    f"derive.{alias.name}" if alias.name in RANK else "derive"
                    for alias in node.names
                    if alias.name not in ROOT_CONSTANTS
                )
            else:
                found.add(base)
    return {name for name in found if name == "derive" or name.startswith("derive.")}


def violations() -> dict[tuple[str, str], int]:
    """(importer, imported) → how many times, for every import of a later stage."""
    found: dict[tuple[str, str], int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for imported in imported_modules(tree, module, path.name == "__init__.py"):
            if RANK[stage_of(imported)] > RANK[stage_of(module)]:
                found[(module, imported)] = found.get((module, imported), 0) + 1
    return found


def test_every_module_has_a_stage():
    stages = {stage_of(module_name(path)) for path in PACKAGE.rglob("*.py")}
    assert stages <= set(RANK), f"place these in ORDER: {sorted(stages - set(RANK))}"


def test_no_module_imports_a_later_stage():
    new = sorted(set(violations()) - set(ALLOWED))
    assert not new, "imports of a later stage:\n" + "\n".join(f"  {a} imports {b}" for a, b in new)


def test_allow_list_is_current():
    stale = sorted(set(ALLOWED) - set(violations()))
    assert not stale, f"no longer needed, remove from ALLOWED: {stale}"


# What the command layer may import: it parses flags, calls the pipeline and hands the result
# to ``present``; it never analyses, builds steps or reaches into a stage's internals.
COMMANDS_MAY_IMPORT: dict[str, str] = {
    "derive.commands": "the command modules themselves (flags, files, the CLI)",
    "derive.pipeline": "the way in: one entry per problem kind, the key, compare and sweep",
    "derive.present": "the documents a command prints or writes",
    "derive.checking.api": "derive check judges claims through the checker's public API",
    "derive.problem": "the typed specs a command builds from its flags, and problem sets",
    "derive.catalogue": "the problem kinds a command dispatches on (a table keyed by kind)",
    "derive.errors": "the one-line errors a command raises",
    "derive.deadline": "the time budget a command runs under (--time-limit, --jobs)",
    "derive.formula": "the claim syntaxes derive check offers (--syntax)",
    "derive.web": "derive serve starts the workbook server",
}


def test_commands_import_only_the_pipeline_present_and_the_checking_api():
    """No command imports ``analysis``, ``model``, ``solution``, ``declare`` or a checker's internals."""
    found = []
    for path in sorted((PACKAGE / "commands").rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for imported in imported_modules(tree, module, path.name == "__init__.py"):
            allowed = any(
                imported == prefix or imported.startswith(prefix + ".")
                for prefix in COMMANDS_MAY_IMPORT
            )
            if not allowed:
                found.append(f"  {module} imports {imported}")
    assert not found, "commands reach past the pipeline:\n" + "\n".join(sorted(found))


def test_the_checker_sees_imports_inside_functions():
    source = (
        "from derive import __version__, errors\n"
        "def f():\n"
        "    from derive.commands import cli\n"
        "    from ..pipeline import solve\n"
        "    from . import notation\n"
        "    import derive\n"
    )
    imported = imported_modules(ast.parse(source), "derive.present.view", False)
    assert imported == {
        "derive",
        "derive.errors",
        "derive.commands",
        "derive.pipeline",
        "derive.present",
    }


def test_the_flag_groups_default_tolerance_is_the_checkers():
    """``commands.options`` spells the default ``--rtol`` so that ``--help`` loads no sympy."""
    from derive.checking.api import DEFAULT_RTOL
    from derive.commands.options import DEFAULT_RTOL as FLAG_DEFAULT

    assert FLAG_DEFAULT == DEFAULT_RTOL
