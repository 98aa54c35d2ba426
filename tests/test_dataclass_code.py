"""The compiled dataclass code kept between runs (derive/dataclass_code.py) changes nothing.

The pin: every dataclass derive defines is made three ways in fresh processes (by
``dataclasses`` alone, with the table being filled, and with the table read back from its
file) and each generated method's code is the same, byte for byte as ``marshal`` writes it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from derive import dataclass_code

ROOT = Path(__file__).resolve().parent.parent

_COLLECT = r"""
import dataclasses, importlib, json, marshal, pkgutil, sys
if sys.argv[1] == "table":
    from derive import dataclass_code
    dataclass_code.install()
import derive
seen = {}
for info in pkgutil.walk_packages(derive.__path__, "derive."):
    if info.name.startswith("derive.web.node") or info.name == "derive.__main__":
        continue
    try:
        module = importlib.import_module(info.name)
    except ImportError:
        continue
    for value in list(vars(module).values()):
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__.startswith("derive."):
            methods = {
                name: marshal.dumps(fn.__code__).hex()
                for name, fn in sorted(vars(value).items())
                if name.startswith("__") and callable(fn) and hasattr(fn, "__code__")
                and fn.__code__.co_filename == "<string>"
            }
            seen[value.__module__ + "." + value.__qualname__] = methods
print(json.dumps(seen, sort_keys=True))
"""


def _writing(prefix: Path) -> dict[str, str]:
    """An environment in which Python writes bytecode, under ``prefix`` (not in the checkout)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(prefix))
    return env


def _table_files(prefix: Path) -> list[Path]:
    return sorted(prefix.rglob("dataclass_code.*.marshal"))


def _collect(how: str, prefix: Path) -> dict[str, dict[str, str]]:
    env = _writing(prefix)
    out = subprocess.run(
        [sys.executable, "-c", _COLLECT, how],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return json.loads(out)


def test_every_derive_dataclass_gets_the_code_dataclasses_makes(tmp_path):
    plain = _collect("plain", tmp_path)
    assert not _table_files(tmp_path)  # nothing installed, nothing written
    filling = _collect("table", tmp_path)
    (table,) = _table_files(tmp_path)
    read_back = _collect("table", tmp_path)
    assert len(plain) > 100 and sum(map(len, plain.values())) > 400
    assert filling == plain
    assert read_back == plain
    assert len(dataclass_code._read(table)) >= sum(map(len, plain.values()))


@pytest.fixture
def table(tmp_path):
    dataclass_code.uninstall()
    path = tmp_path / "cache" / "code.marshal"
    dataclass_code.install(path)
    yield dataclass_code.installed()
    dataclass_code.uninstall()


def _make(n: int) -> type:
    namespace = {"__annotations__": {"a": "int", f"b{n}": "str"}, "__module__": __name__}
    return dataclasses.dataclass(frozen=True)(type(f"C{n}", (), namespace))


def test_a_class_made_from_the_table_behaves_as_made_by_dataclasses(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    made = _make(1)
    assert table.compiled == 3 + 3  # __init__, __repr__, __eq__, __setattr__, __delattr__, __hash__
    table.save()
    dataclass_code.uninstall()
    dataclass_code.install(table.path)
    again = dataclass_code.installed()
    remade = _make(1)
    assert again.compiled == 0 and len(again.known) == 6
    assert remade(1, "x") == remade(1, "x") and repr(remade(1, "x")) == "C1(a=1, b1='x')"
    assert repr(made(1, "x")) == repr(remade(1, "x"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        remade(1, "x").a = 2  # type: ignore[misc]


def test_nothing_is_written_when_python_writes_no_bytecode(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _make(2)
    table.save()
    assert not table.path.exists()


def test_a_forked_child_does_not_write(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _make(3)
    monkeypatch.setattr(table, "owner", os.getpid() + 1)
    table.save()
    assert not table.path.exists()


@pytest.mark.parametrize(
    "content", [b"", b"garbage", dataclass_code._FORMAT + b"\xff\x00", dataclass_code._FORMAT]
)
def test_a_file_that_is_not_a_table_is_ignored_and_replaced(tmp_path, content, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "code.marshal"
    path.write_bytes(content)
    dataclass_code.uninstall()
    dataclass_code.install(path)
    try:
        assert dataclass_code.installed().known == {}
        _make(4)(1, "y")
        dataclass_code.installed().save()
    finally:
        dataclass_code.uninstall()
    assert len(dataclass_code._read(path)) == 6


def test_a_table_others_may_write_is_not_read(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _make(6)
    table.save()
    assert len(dataclass_code._read(table.path)) == 6
    table.path.chmod(0o666)
    assert dataclass_code._read(table.path) == {}


def test_the_table_keeps_what_this_run_used_within_its_bound(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(dataclass_code, "MAX_ENTRIES", 8)
    table.known = {f"# old {k}\n": compile("", "<string>", "exec") for k in range(20)}
    _make(5)
    table.save()
    kept = dataclass_code._read(table.path)
    assert len(kept) == 8 and all(source in kept for source in table.used)


def test_uninstall_gives_dataclasses_the_builtin_exec_back(table):
    assert vars(dataclasses)["exec"] == table.exec
    dataclass_code.uninstall()
    assert "exec" not in vars(dataclasses) and dataclass_code.installed() is None


def test_the_table_is_kept_beside_the_modules_bytecode(monkeypatch):
    path = dataclass_code.cache_file()
    pyc = Path(importlib.util.cache_from_source(dataclass_code.__file__))
    assert path == pyc.with_suffix(".marshal") and path.parent.name == "__pycache__"
    monkeypatch.setattr(sys, "pycache_prefix", "/somewhere")
    assert str(dataclass_code.cache_file()).startswith("/somewhere/")


def test_the_command_line_writes_the_table_and_prints_the_same(tmp_path):
    env = _writing(tmp_path)
    argv = [sys.executable, "-m", "derive", "solve", "matmul", "--dtype", "bf16", "--chip", "h100"]
    first = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    (written,) = _table_files(tmp_path)
    assert written.parent.name == "derive"  # the prefix mirrors the checkout's folders
    second = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    written.unlink()
    uncached = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    assert first.stdout.strip() and first.stdout == second.stdout == uncached.stdout
    assert not _table_files(tmp_path)  # Python told not to write bytecode: none written
