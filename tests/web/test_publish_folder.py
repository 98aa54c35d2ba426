"""``derive publish`` into a folder already published (issue 49, item 6).

The user's files in ``-o`` (files the site did not write: ``CNAME``, ``.nojekyll``, notes) are
kept; what a kill left beside the site (``.derive-publish-*``, ``.derive-old-*``) is removed at
the start, and a site a kill left parked is put back. Kills are simulated in a forked child at
every filesystem step of the write (each staged file, each copy, rename, swap and removal):
``-o`` then holds the old site or the new one, whole, and the next publish leaves nothing beside.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import run_cli

from derive.errors import OutputError
from derive.web import site as site_module
from derive.web.site import MARKER, Site, write_site

USERS = {"CNAME": "example.org\n", ".nojekyll": "", "notes/todo.md": "grade q3\n"}


def _site(title: str, names: tuple[str, ...]) -> Site:
    files = {name: f"{title} {name}".encode() for name in names}
    listing = "".join(f"{name}\n" for name in sorted(files))
    files[MARKER] = f"derive publish: {title}\n{listing}".encode()
    return Site(files, {})


OLD = _site("old", ("index.html", "api/problems.json", "api/problems/q1.json", "static/a.js"))
NEW = _site("new", ("index.html", "api/problems.json", "api/problems/q2.json", "static/b.js"))


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _published(tmp_path: Path) -> Path:
    out = tmp_path / "docs"
    write_site(OLD, out)
    for name, text in USERS.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    return out


def _whole(site: Site) -> dict[str, bytes]:
    return {**site.files, **{name: text.encode() for name, text in USERS.items()}}


def test_an_empty_folder_is_published_into(tmp_path: Path):
    """An ``-o`` that exists and is empty (``mkdir docs`` first) was a traceback."""
    out = tmp_path / "docs"
    out.mkdir()
    write_site(NEW, out)
    assert _tree(out) == NEW.files


def test_the_users_files_are_kept(tmp_path: Path):
    out = _published(tmp_path)
    write_site(NEW, out)
    assert _tree(out) == _whole(NEW)  # q1 and a.js, the old site's, gone; the user's kept
    write_site(OLD, out)
    assert _tree(out) == _whole(OLD)


def test_a_users_file_named_as_a_site_file_is_refused(tmp_path: Path):
    out = _published(tmp_path)
    (out / "api" / "problems" / "q2.json").write_text("mine")  # not the old site's: the user's
    with pytest.raises(OutputError, match=r"q2\.json") as caught:
        write_site(NEW, out)
    assert "\n" not in str(caught.value)
    assert (out / "api" / "problems" / "q2.json").read_text() == "mine"


def _kill_at(k: int, out: Path, exchange: bool) -> int:
    """Publish NEW over ``out`` in a child that exits abruptly at its ``k``-th filesystem step."""
    pid = os.fork()
    if pid == 0:  # the child: count each step, exit at the k-th, as a kill would
        left = [k]

        def step(real):
            def counted(*args, **kwargs):
                left[0] -= 1
                if left[0] < 0:
                    os._exit(137)
                return real(*args, **kwargs)

            return counted

        os.rename = step(os.rename)
        shutil.rmtree = step(shutil.rmtree)
        shutil.copy2 = step(shutil.copy2)
        Path.write_bytes = step(Path.write_bytes)
        site_module._exchange = step(site_module._exchange if exchange else lambda a, b: False)
        try:
            write_site(NEW, out)
        finally:
            os._exit(0)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.parametrize("exchange", [True, False], ids=["one-swap", "two-renames"])
def test_a_kill_at_every_step_leaves_a_site(tmp_path: Path, exchange: bool):
    if exchange and not site_module._exchange(tmp_path, tmp_path):
        pytest.skip("no renameat2 exchange on this system")
    for k in range(200):
        base = tmp_path / str(k)
        base.mkdir()
        out = _published(base)
        code = _kill_at(k, out, exchange)
        if exchange or out.exists():  # the one swap never leaves -o missing
            assert _tree(out) in (_whole(OLD), _whole(NEW)), k
        else:  # between the two renames: the old site parked beside, whole
            (parked,) = base.glob(".derive-old-*/docs")
            assert _tree(parked) == _whole(OLD), k
        write_site(NEW, out)  # the next publish heals, then publishes
        assert _tree(out) == _whole(NEW), k
        assert sorted(p.name for p in base.iterdir()) == ["docs"], k
        if code == 0:  # the child finished: every step was killed once
            assert k > len(NEW.files) + len(USERS)  # each write, copy and rename was a step
            return
    raise AssertionError("the publish never finished")


def test_a_parked_site_is_put_back_and_leftovers_removed(tmp_path: Path):
    out = _published(tmp_path)
    parked = tmp_path / ".derive-old-abc123"
    parked.mkdir()
    out.rename(parked / "docs")  # a kill between the two renames
    (tmp_path / ".derive-publish-xyz789").mkdir()  # and a staging folder of another kill
    r = run_cli(["publish", "-o", str(tmp_path / "elsewhere")])  # any publish beside heals
    assert r.code == 0, r
    assert _tree(out) == _whole(OLD)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "elsewhere"]


def test_the_github_pages_recipe_keeps_cname(tmp_path: Path):
    docs = tmp_path / "docs"
    assert run_cli(["publish", "-o", str(docs)]).code == 0
    (docs / "CNAME").write_text("workbook.example.org\n")
    (docs / ".nojekyll").write_text("")
    again = run_cli(["publish", "-o", str(docs)])
    assert again.code == 0, again
    assert (docs / "CNAME").read_text() == "workbook.example.org\n"
    assert (docs / ".nojekyll").is_file() and (docs / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]
