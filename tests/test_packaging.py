"""Packaging: every subpackage of derive/ ships, so a non-editable install has every command."""

from __future__ import annotations

import os
import subprocess
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


def test_every_data_file_of_a_package_ships():
    """A file of derive/ that is not Python (a set, a template, a script the site runs) is matched by
    its package's package-data, so a non-editable install (and the site it publishes) has it."""
    from fnmatch import fnmatchcase

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    missing = []
    for path in sorted((ROOT / "derive").rglob("*")):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT / "derive")
        for depth in range(len(rel.parts) - 1, -1, -1):  # the deepest package holding the file
            package = ".".join(("derive", *rel.parts[:depth]))
            if package in data:
                inside = "/".join(rel.parts[depth:])
                break
        else:
            missing.append(rel.as_posix())
            continue
        patterns = data[package]
        if not any(
            fnmatchcase(inside, pat) and inside.count("/") == pat.count("/") for pat in patterns
        ):
            missing.append(rel.as_posix())
    assert not missing, f"add to [tool.setuptools.package-data]: {missing}"


def test_every_command_is_registered():
    from derive.commands.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"solve", "key", "check", "compare", "sweep", "chips", "operators"} <= set(sub.choices)


def test_console_script_is_the_command_entry():
    """``derive`` runs derive.commands.cli:command (run: the engine loaded with the collector
    paused, then main; then the quick exit), as python -m derive does."""
    import importlib

    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["derive"]
    module, _, func = target.partition(":")
    assert callable(getattr(importlib.import_module(module), func))
    assert target == "derive.commands.cli:command"
    assert "command()" in (ROOT / "derive" / "__main__.py").read_text()


def test_the_quick_exit_keeps_the_exit_code_the_output_and_the_atexit_handlers(tmp_path):
    """``command()`` ends the process with os._exit: what was printed (even unflushed),
    what atexit would have run, and the exit code all survive it."""
    code = (
        "import atexit, sys\n"
        "path = sys.argv[1]\n"
        "atexit.register(lambda: open(path, 'w').write('ran'))\n"
        "sys.argv = ['derive', 'solve', 'nosuch']\n"
        "from derive.commands.cli import command\n"
        "print('before', end='')\n"
        "command()\n"
        "print('never')\n"
    )
    marker = tmp_path / "atexit"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, str(marker)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == "before"
    assert done.stderr.count("\n") == 1 and "nosuch" in done.stderr
    assert marker.read_text() == "ran"
