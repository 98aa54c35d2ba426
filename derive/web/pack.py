"""The Python a published workbook runs in the browser, packed from the installed packages.

The page's worker runs derive's checker in Pyodide. It needs derive (without the web
server's static files) and what the checker imports: sympy, mpmath, jinja2, markupsafe and
pylatexenc, all pure Python. They are packed from this interpreter's installed copies into
one zip (sources only: no tests, no caches, no compiled extensions), so publishing downloads
nothing; the zip is byte-identical for the same installed packages (sorted names, a fixed
date).
"""

from __future__ import annotations

import importlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

from derive.resources import resource_dir
from derive.web.book import BUILTIN_SET

PACKAGES = ("sympy", "mpmath", "jinja2", "markupsafe", "pylatexenc")
"""The packages derive's checker imports beside the standard library (Pyodide has that)."""

_RESOURCES = ("operators", "models", "templates")
"""derive's shipped folders that sit beside the package in a checkout (see resources.py)."""

_SKIP_DIRS = frozenset({"__pycache__", "tests", "benchmarks"})
_SKIP_SUFFIXES = frozenset({".pyc", ".pyo", ".so", ".pyd", ".c", ".h", ".pyi"})
_DATE = (1980, 1, 1, 0, 0, 0)
# what writes docs/model-configs.md, whose example states a built-in answer (DeepSeek-V3's count)
_DOCS_ONLY = ("derive/present/model_configs_doc.py", "derive/templates/model_configs.md.j2")


def _files(root: Path, prefix: str) -> Iterator[tuple[str, Path]]:
    """The files under ``root`` worth packing, as (name in the zip, path)."""
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if not path.is_file() or _SKIP_DIRS.intersection(parts):
            continue
        if path.suffix in _SKIP_SUFFIXES:
            continue
        yield f"{prefix}/{'/'.join(parts)}", path


def _derive_files() -> Iterator[tuple[str, Path]]:
    """derive itself, minus the server's static files (the site carries what the page needs)
    and the built-in set (the site carries its own set, without its answers when hidden); the
    docs page's writer is left out by :func:`python_zip`."""
    here = Path(__file__).resolve().parent.parent
    for name, path in _files(here, "derive"):
        if not name.startswith("derive/web/static/") and not name.endswith(f"/{BUILTIN_SET}"):
            yield name, path
    for folder in _RESOURCES:
        root = resource_dir(folder)
        if root.parent != here:  # a checkout: the folder sits beside the package
            yield from _files(root, f"derive/{folder}")


def python_zip() -> bytes:
    """The zip of derive and its pure-Python dependencies, deterministic.

    Raises:
        ImportError: a package the checker needs is not installed.
    """
    entries = {name: path for name, path in _derive_files() if name not in _DOCS_ONLY}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for root in module.__path__:
            entries.update(_files(Path(root), package))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, _DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, entries[name].read_bytes())
    return buffer.getvalue()
