"""Templates compiled ahead of time, with jinja's own compiler, shipped beside their sources.

jinja parses a template and generates Python for it the first time it is used, in every
process (its share of a cold ``derive key``: benchmarks/README.md). ``Environment.compile_templates``
writes that Python out once; ``jinja2.ModuleLoader`` imports it, and Python keeps the
bytecode as it does for any module. So ``templates/compiled/<fmt>/`` holds jinja's output
for each format, and ``templates/compiled/manifest.json`` what it was made from: the jinja
version, the environment's settings and each template's SHA-256.

The compiled modules are used only when all of that still matches (an edited, added or
removed template, another jinja release or another setting means the sources are
compiled as before), so output never depends on them; tests/test_compiled_templates.py
checks they are current and render byte-identically. After editing a template run

    python -m derive.present.compiled_templates

as after changing what a golden file shows.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from derive.present.formats import FORMATS
from derive.resources import resource_dir

__all__ = ["compiled_folder", "compiled_loader", "fingerprint", "write_compiled"]

MANIFEST = "manifest.json"


def compiled_folder() -> Path:
    """``templates/compiled``: one folder of modules per format, and the manifest."""
    return resource_dir("templates") / "compiled"


def fingerprint(fmt: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What the compiled modules of ``fmt`` depend on: jinja, settings, template sources."""
    sources = resource_dir("templates")
    return {
        "jinja2": jinja2.__version__,
        "settings": repr(sorted(settings.items())),
        "templates": {
            path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(sources.glob("*" + FORMATS[fmt].template_suffix))
        },
    }


def compiled_loader(fmt: str, settings: dict[str, Any]) -> jinja2.BaseLoader | None:
    """A loader of the compiled modules of ``fmt``, or None when they are not current."""
    folder = compiled_folder()
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        current = manifest.get(fmt) == fingerprint(fmt, settings)
    except (OSError, ValueError, AttributeError):
        return None
    # a manifest without its modules (a package that left them out) is not current either
    return jinja2.ModuleLoader(str(folder / fmt)) if current and (folder / fmt).is_dir() else None


def suffix_filter(suffix: str) -> Callable[[str], bool]:
    """The template names that end in ``suffix``."""
    return lambda name: name.endswith(suffix)


def write_compiled(environments: dict[str, tuple[jinja2.Environment, dict[str, Any]]]) -> Path:
    """Compile every template of each format with its environment, and write the manifest."""
    folder = compiled_folder()
    manifest = {}
    for fmt, (env, settings) in sorted(environments.items()):
        target = folder / fmt
        shutil.rmtree(target, ignore_errors=True)
        suffix = FORMATS[fmt].template_suffix
        env.compile_templates(
            str(target),
            filter_func=suffix_filter(suffix),
            zip=None,
            ignore_errors=False,
        )
        manifest[fmt] = fingerprint(fmt, settings)
    (folder / MANIFEST).write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return folder


def main() -> int:
    """``python -m derive.present.compiled_templates``: compile the templates afresh."""
    from derive.present.render import source_environments

    folder = write_compiled(source_environments())
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
