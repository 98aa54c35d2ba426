"""Packaging: every subpackage of derive/ ships, so a non-editable install has every command."""

from __future__ import annotations

import sys

from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_every_subpackage_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"derive"} | {
        "derive." + p.parent.relative_to(ROOT / "derive").as_posix().replace("/", ".")
        for p in (ROOT / "derive").rglob("__init__.py")
        if p.parent != ROOT / "derive"
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert {"derive.templates", "derive.operators", "derive.data"} <= listed


def test_every_command_is_registered():
    from derive.commands.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"solve", "key", "check", "compare", "sweep", "chips", "operators"} <= set(sub.choices)


def test_console_script_is_the_run_entry():
    """``derive`` runs derive.commands.cli:run (engine loaded with the collector paused, then main), as python -m derive does."""
    import importlib

    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["derive"]
    module, _, func = target.partition(":")
    assert callable(getattr(importlib.import_module(module), func))
    assert target == "derive.commands.cli:run"
    assert "run()" in (ROOT / "derive" / "__main__.py").read_text()
