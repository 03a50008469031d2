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

ROOT = Path(__file__).resolve().parent.parent
CLI_PAGE = (ROOT / "docs" / "cli.md").read_text()


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(sub.choices)


@pytest.mark.parametrize("command", commands())
def test_every_cli_command_is_documented(command):
    assert f"`layoutalg {command}" in CLI_PAGE


@pytest.mark.parametrize("code", [0, 1, 2])
def test_every_exit_code_has_an_anchor(code):
    assert f"{{#exit-{code}}}" in CLI_PAGE


@pytest.mark.parametrize("name", [n for n in dir(errors) if n.endswith("Error")])
def test_every_core_error_has_an_anchor(name):
    assert f"### {name} {{#{name}}}" in CLI_PAGE


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


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


def test_import_layoutalg_does_not_import_mkdocs():
    code = "import sys, layoutalg; print(any(m.startswith('mkdocs') for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"


def test_public_names_are_exported():
    for name in la.__all__:
        assert hasattr(la, name), name
