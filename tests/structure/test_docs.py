"""Every code block of the README and of the manual in ``docs/`` is true today.

- A ```python block runs (issue 16: the Composite snippet raised NameError); one written as a
  session (``>>>`` prompts) runs as a doctest, so its shown output must match.
- A ```toml block is a problem set: written to a folder and keyed (``derive key --trust``).
- A ```console block runs: each ``$ derive …`` command in-process, its shown output compared
  line by line with what it prints (``…`` stands for lines, or part of a line, left out);
  ``$ cat FILE`` followed by the file's text writes that file.
- A block right after ``<!-- file: NAME -->`` is also written as ``NAME`` in the folder the
  page's console and TOML blocks run in; one after ``<!-- not run: why -->`` is only shown.

And the README stays one screen (≤ 250 lines), every relative link of the README and the
manual names a file that exists (and a heading there, for ``#anchor``), and every page of the
manual starts by saying what it covers.
"""

from __future__ import annotations

import doctest
import re
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
README_MAX_LINES = 250

_BLOCK = re.compile(r"(?:<!-- (file|not run): ([^>]*?) -->\n)?```(\w*)\n(.*?)```", re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page, with the marker written before it (if any)."""

    page: Path
    number: int  # 1-based, among the page's blocks
    lang: str
    text: str
    file: str | None  # written as this file for the page's console and TOML blocks
    not_run: str | None  # why the block is only shown

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)} block {self.number} ({self.lang})"


def blocks_of(page: Path) -> list[Block]:
    found = []
    for number, match in enumerate(_BLOCK.finditer(page.read_text(encoding="utf-8")), 1):
        marker, value, lang, text = match.groups()
        file = value.strip() if marker == "file" else None
        not_run = value.strip() if marker == "not run" else None
        found.append(Block(page, number, lang, text, file, not_run))
    return found


BLOCKS = [block for page in PAGES for block in blocks_of(page)]


def of_lang(lang: str) -> list[Block]:
    return [b for b in BLOCKS if b.lang == lang and b.not_run is None]


def _ids(blocks: list[Block]) -> list[str]:
    return [b.name for b in blocks]


def write_page_files(page: Path, folder: Path) -> None:
    """The page's ``<!-- file: NAME -->`` blocks, written into ``folder``."""
    for block in blocks_of(page):
        if block.file is not None:
            (folder / block.file).write_text(block.text, encoding="utf-8")


# --- python -------------------------------------------------------------------------


def test_the_docs_have_blocks_of_every_kind():
    assert len(of_lang("python")) >= 3
    assert len(of_lang("console")) >= 10
    assert len(of_lang("toml")) >= 3


@pytest.mark.parametrize("block", of_lang("python"), ids=_ids(of_lang("python")))
def test_python_block_runs(block: Block):
    if block.text.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(block.text, {}, block.name, block.name, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0, f"{block.name}: {runner.failures} example(s) failed"
        return
    exec(compile(block.text, block.name, "exec"), {})


# --- toml ---------------------------------------------------------------------------


@pytest.mark.parametrize("block", of_lang("toml"), ids=_ids(of_lang("toml")))
def test_toml_block_is_a_problem_set(block: Block, tmp_path: Path):
    write_page_files(block.page, tmp_path)
    path = tmp_path / (block.file or "block.toml")
    path.write_text(block.text, encoding="utf-8")
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out"), "--trust", "--jobs", "1"])
    assert result.code == 0, f"{block.name}: {result.err}"


# --- console ------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    line: str  # as shown, continuation lines joined
    shown: tuple[str, ...]  # the output shown under it


def commands_of(text: str) -> list[Command]:
    """The ``$ …`` commands of a console block, each with the output shown under it."""
    commands: list[Command] = []
    continued = False  # the previous command line ended in a backslash
    for line in text.splitlines():
        if line.startswith("$ ") or continued:
            words = line[2:] if line.startswith("$ ") else line
            continued = words.endswith("\\")
            words = " ".join(words.removesuffix("\\").split())
            if line.startswith("$ "):
                commands.append(Command(words, ()))
            else:
                commands[-1] = Command(f"{commands[-1].line} {words}", ())
        elif commands:
            last = commands[-1]
            commands[-1] = Command(last.line, (*last.shown, line))
        else:
            raise AssertionError(f"output before the first command: {line!r}")
    return commands


def _pattern(shown: str) -> re.Pattern[str]:
    """A shown line as a pattern: ``…`` inside it stands for any text."""
    return re.compile(".*".join(re.escape(part) for part in shown.rstrip().split("…")))


def shown_mismatch(shown: tuple[str, ...], printed: list[str]) -> str | None:
    """Why the shown output is not what was printed, or None when it is.

    Shown lines must be printed in order and next to each other; a line ``…`` alone stands
    for any number of printed lines. Blank lines are not compared.
    """
    printed = [line for line in printed if line.strip()]
    at, gap = 0, False
    for line in (line for line in shown if line.strip()):
        if line.strip() == "…":
            gap = True
            continue
        pattern = _pattern(line)
        while at < len(printed) and not pattern.fullmatch(printed[at].rstrip()):
            if not gap:
                return f"shown {line!r}, printed {printed[at]!r}"
            at += 1
        if at == len(printed):
            return f"shown {line!r}, not printed (after line {at} of the output)"
        at, gap = at + 1, False
    return None


def _argument(arg: str, folder: Path) -> str:
    """A path the docs give relative to the repository (``derive/data/…``), made absolute."""
    if "/" in arg and not (folder / arg).exists() and (ROOT / arg).is_file():
        return str(ROOT / arg)
    return arg


def run_console(block: Block, folder: Path) -> None:
    for command in commands_of(block.text):
        words = shlex.split(command.line, comments=True)
        if words[0] == "cat":
            (folder / words[1]).write_text("\n".join(command.shown) + "\n", encoding="utf-8")
            continue
        assert words[0] == "derive", (
            f"{block.name}: only `derive` and `cat` run here; "
            f"mark a block that cannot run with <!-- not run: why -->: {command.line}"
        )
        result = run_cli([_argument(word, folder) for word in words[1:]])
        wrong_claim = result.code == 1 and words[1] == "check"
        assert result.code == 0 or wrong_claim, f"{block.name}: $ {command.line}\n{result!r}"
        why = shown_mismatch(command.shown, result.out.splitlines())
        assert why is None, f"{block.name}: $ {command.line}\n{why}"


@pytest.mark.parametrize("block", of_lang("console"), ids=_ids(of_lang("console")))
def test_console_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    write_page_files(block.page, tmp_path)
    monkeypatch.chdir(tmp_path)
    run_console(block, tmp_path)


def test_shown_output_is_compared_line_by_line():
    printed = ["a", "b 1.5 s", "c", "d"]
    assert shown_mismatch(("a", "b … s"), printed) is None
    assert shown_mismatch(("…", "c", "d"), printed) is None
    assert shown_mismatch(("a", "c"), printed) == "shown 'c', printed 'b 1.5 s'"
    assert shown_mismatch(("…", "e"), printed) is not None


def test_every_block_is_checked_or_says_why_not():
    checked = {"python", "console", "toml"}
    for block in BLOCKS:
        if block.not_run is None and block.file is None and block.lang not in checked:
            assert block.lang == "bash" and block.page.name == "README.md", (
                f"{block.name}: a block of {block.lang!r} is neither run nor a file; "
                "mark it <!-- not run: why --> or <!-- file: NAME -->"
            )


# --- the pages ----------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_marker_is_right_before_a_block(page: Path):
    text = page.read_text(encoding="utf-8")
    for marker in re.finditer(r"<!-- (file|not run):[^>]*-->\n(.*)", text):
        assert marker.group(2).startswith("```"), f"{page.name}: {marker.group(0)!r}"


def test_the_readme_is_one_screen():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"


def test_the_readme_quick_start_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = re.search(r"## Quick start\n\n```bash\n(.*?)```", readme, re.S)
    assert quick is not None
    install, test = quick.group(1).splitlines()
    assert install == "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/derive"
    assert test in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_docs_page_says_what_it_covers():
    for page in PAGES[1:]:
        title, blank, first = page.read_text(encoding="utf-8").splitlines()[:3]
        assert title.startswith("# ") and blank == "", page.name
        assert first.startswith("This "), f"{page.name}: starts with {first!r}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    text = heading.strip().lower()
    kept = "".join(
        c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN"
    )  # letters, digits, spaces, dashes, underscores
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.M)}


def test_slug_is_githubs():
    assert slug("Comparing a model's serving step") == "comparing-a-models-serving-step"
    assert slug("`ask`, `expect` and errors") == "ask-expect-and-errors"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http://, https://, mailto:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_file(), f"{page.name}: link {target!r} names no file"
        if anchor:
            assert anchor in anchors(file), f"{page.name}: link {target!r}: no such heading"
