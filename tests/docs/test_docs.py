"""The docs keep up with the code: every CLI command, exit code and error
class is documented, and the README's and Get-started's examples run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import layoutalg as la
from layoutalg import errors
from layoutalg.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
CLI_PAGE = (ROOT / "docs" / "cli.md").read_text()


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(sub.choices)


@pytest.mark.parametrize("command", commands())
def test_every_cli_command_is_documented(command):
    assert f"`layoutalg {command}" in CLI_PAGE


@pytest.mark.parametrize("code", [0, 1, 2, 130])
def test_every_exit_code_has_an_anchor(code):
    assert f"{{#exit-{code}}}" in CLI_PAGE


@pytest.mark.parametrize("name", [n for n in dir(errors) if n.endswith("Error")])
def test_every_core_error_has_an_anchor(name):
    assert f"### {name} {{#{name}}}" in CLI_PAGE


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


PAGES_WITH_CODE = sorted(path.relative_to(ROOT).as_posix() for path in
                         [*(ROOT / "docs").glob("*.md"), ROOT / "README.md"]
                         if python_blocks(path))


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_every_python_example_of_a_page_runs(page, tmp_path):
    """A page's ``python`` blocks run in order as one session (later blocks use
    earlier names); signature listings are fenced as ``text``."""
    session = "\n".join(python_blocks(ROOT / page))
    result = subprocess.run([sys.executable, "-c", session], capture_output=True, text=True,
                            cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_readme_tour_runs_and_prints_what_it_says():
    tour = python_blocks(ROOT / "README.md")[0]
    result = subprocess.run([sys.executable, "-c", tour], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "not injective: (i=0, j=8) and (i=1, j=0) both map to (offset=8)" in result.stdout
    assert "they differ at (i=5)" in result.stdout


def test_the_getting_started_spec_proves_and_its_broken_form_is_refuted(tmp_path):
    from io import StringIO

    from layoutalg.cli import main

    source = python_blocks(ROOT / "docs" / "getting-started.md")[0]
    good = tmp_path / "my_specs.py"
    good.write_text(source)
    out = StringIO()
    assert main(["prove", "--no-cache", str(good)], stream=out, errors=StringIO()) == 0
    broken = tmp_path / "broken" / "my_specs.py"
    broken.parent.mkdir()
    broken.write_text(source.replace("[16 * i + j]", "[8 * i + j]"))
    out = StringIO()
    assert main(["prove", "--no-cache", str(broken)], stream=out, errors=StringIO()) == 1
    text = " ".join(out.getvalue().split())
    assert "not injective: (i=0, j=8) and (i=1, j=0) both map to (offset=8)" in text


def test_the_getting_started_show_and_publish_commands_run(tmp_path):
    import os

    page = (ROOT / "docs" / "getting-started.md").read_text()
    (tmp_path / "my_specs.py").write_text(python_blocks(ROOT / "docs" / "getting-started.md")[0])
    block = re.search(r"## Look at it and publish it\n\n```bash\n(.*?)```", page, re.S).group(1)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", "-ec", block], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "rows: [i:8, j:16] → [offset:128]" in result.stdout
    assert (tmp_path / "rows.svg").read_text().count("<rect") == 8 * 16
    assert "rows" in (tmp_path / "site" / "index.html").read_text()


def test_import_layoutalg_does_not_import_mkdocs():
    code = "import sys, layoutalg; print(any(m.startswith('mkdocs') for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"


def test_public_names_are_exported():
    for name in la.__all__:
        assert hasattr(la, name), name


def tour_steps(text: str) -> list[tuple[str, int, list[str]]]:
    """(shell commands, expected exit code, lines the output must contain) per
    ``bash`` block of the README's tour; a ``text`` block after a ``bash``
    block lists lines of its output, and ``# exit code N`` sets the code."""
    section = text.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    steps: list[tuple[str, int, list[str]]] = []
    for kind, body in re.findall(r"```(bash|text)\n(.*?)```", section, flags=re.S):
        if kind == "bash":
            code = re.search(r"# exit code (\d+)", body)
            steps.append((body, int(code.group(1)) if code else 0, []))
        else:
            steps[-1][2].extend(line for line in body.splitlines() if line.strip())
    return steps


def squeeze(text: str) -> str:
    """Table cells and wrapped lines compared without their padding."""
    return re.sub(r"\s+", " ", text)


def test_the_readme_five_minute_tour_runs_step_by_step(tmp_path):
    import os

    steps = tour_steps((ROOT / "README.md").read_text())
    assert [code for _, code, _ in steps] == [0, 0, 1, 0]  # write, prove, break, docs
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "200"}
    for commands, code, expected in steps:
        result = subprocess.run(["bash", "-c", commands], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == code, (commands, result.stdout, result.stderr)
        printed = squeeze(result.stdout)
        for line in expected:
            assert squeeze(line) in printed, (line, result.stdout)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "activations" in index and "REFUTED" in index
    page = (tmp_path / "site" / "my-specs-activations.html").read_text()  # opens from disk
    assert "pe_row=32 not in [0, 32)" in page
    assert (tmp_path / "site" / "my-specs-activations.svg").read_text().startswith("<svg")
