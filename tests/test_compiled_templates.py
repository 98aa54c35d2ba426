"""The templates compiled ahead of time are current, are used, and change no output.

When this fails after editing a template: ``python -m derive.present.compiled_templates``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jinja2
import pytest

from derive.present import compiled_templates, render
from derive.present.compiled_templates import MANIFEST, compiled_folder, fingerprint
from derive.present.formats import FORMATS as ALL_FORMATS

ROOT = Path(__file__).resolve().parent.parent
FIX = "run: python -m derive.present.compiled_templates"
# the formats written from templates
FORMATS = tuple(name for name, f in ALL_FORMATS.items() if f.jinja is not None)


def _settings(fmt: str) -> dict:
    syntax = ALL_FORMATS[fmt].jinja
    assert syntax is not None
    return syntax.settings


def test_manifest_matches_the_template_sources():
    """Every template of each format, and only those, compiled from its current source."""
    manifest = json.loads((compiled_folder() / MANIFEST).read_text(encoding="utf-8"))
    for fmt in FORMATS:
        settings = _settings(fmt)
        want = fingerprint(fmt, settings)
        assert manifest[fmt]["templates"] == want["templates"], FIX
        assert manifest[fmt]["settings"] == want["settings"], FIX
        modules = sorted(p.name for p in (compiled_folder() / fmt).glob("tmpl_*.py"))
        assert len(modules) == len(want["templates"]), FIX


@pytest.mark.skipif(
    json.loads((compiled_folder() / MANIFEST).read_text(encoding="utf-8"))["md"]["jinja2"]
    != jinja2.__version__,
    reason="compiled with another jinja release: derive compiles the sources instead",
)
def test_compiled_modules_are_what_jinja_writes_now(tmp_path, monkeypatch):
    """Compiling afresh gives the committed modules byte for byte (and they are in use)."""
    copy = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(compiled_templates, "compiled_folder", lambda: copy / "compiled")
    compiled_templates.write_compiled(render.source_environments())
    for fmt in (*FORMATS, ""):
        committed = compiled_folder() / fmt
        fresh = copy / "compiled" / fmt
        names = sorted(p.name for p in fresh.iterdir() if p.is_file())
        assert names == sorted(p.name for p in committed.iterdir() if p.is_file()), FIX
        for name in names:
            assert (fresh / name).read_bytes() == (committed / name).read_bytes(), FIX
    for fmt in FORMATS:
        assert isinstance(render.environment(fmt).loader, jinja2.ModuleLoader)


def test_a_stale_manifest_falls_back_to_the_sources(tmp_path, monkeypatch):
    folder = tmp_path / "compiled"
    shutil.copytree(compiled_folder(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(compiled_templates, "compiled_folder", lambda: folder)
    settings = _settings("md")
    assert compiled_templates.compiled_loader("md", settings) is not None
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest["md"]["templates"]["key.md.j2"] = "0" * 64  # as if key.md.j2 were edited since
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert compiled_templates.compiled_loader("md", settings) is None
    assert compiled_templates.compiled_loader("tex", _settings("tex"))
    (folder / MANIFEST).write_text("{not json", encoding="utf-8")
    assert compiled_templates.compiled_loader("tex", _settings("tex")) is None
    (folder / MANIFEST).unlink()
    assert compiled_templates.compiled_loader("tex", _settings("tex")) is None


def test_compiled_and_source_templates_render_alike():
    """The same context through both loaders: the worked solution, a model and a key."""
    from derive import solve
    from derive.present.report import Entry, Report
    from derive.present.view import view_of

    d = solve("transformer_block", dtype="bf16", chip="h100")
    report = Report((Entry("verdict", "correct", ("a detail",)),), (("diagnosis", ("a", "b")),))
    for fmt in FORMATS:
        source = render._environment(fmt, compiled=False)
        compiled = render._environment(fmt, compiled=True)
        assert isinstance(compiled.loader, jinja2.ModuleLoader)
        view = view_of(d.solution, "A block", "")
        suffix = ALL_FORMATS[fmt].template_suffix
        for name, context in (
            ("solution", {"view": view, "level": 2}),
            ("report", {"report": report}),
        ):
            if not (ROOT / "templates" / f"{name}{suffix}").exists():
                continue  # plain text has report templates only
            rendered = compiled.get_template(name + suffix).render(**context)
            assert rendered == source.get_template(name + suffix).render(**context)
