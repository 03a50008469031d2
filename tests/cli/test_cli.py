"""The ``layoutalg`` CLI: exit codes, the table, counterexamples, bad input, reports.

Most tests call ``main(argv, stream=..., errors=...)`` on small spec modules
written into ``tmp_path``; the last ones run the installed console script.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from cli_helpers import assert_bad_input, run_cli as run
import layoutalg as la
from layoutalg.cli import main
from layoutalg.cli.prove import result_table
from layoutalg.runner.prover import Outcome

ROOT = Path(__file__).resolve().parents[2]

GOOD = '''
import layoutalg as la


@la.spec(claims=["bijective", ("fits", 32)])
def row_major():
    """[4, 8] row-major in 32 one-byte slots."""
    return la.linearize(la.Space(i=4, j=8))


@la.spec(claims=["injective"], expect="REFUTED")
def overlap():
    """(4,4):(1,2): column stride 2 < 4 rows, so columns overlap."""
    return la.strided((4, 4), (1, 2))
'''

# expect PROVED on a map that is not injective
UNEXPECTED = '''
import layoutalg as la


@la.spec(claims=["in_bounds", "injective"])
def collide():
    return la.strided((4, 4), (1, 2))
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def table_rows(out: str) -> list[dict[str, str]]:
    """The result table's rows as dicts keyed by its header."""
    lines = out.splitlines()
    header = next(line for line in lines if "┃" in line and "verdict" in line)
    names = [c.strip() for c in header.split("┃")[1:-1]]
    rows = []
    for line in lines:
        cells = line.split("│")[1:-1]
        if len(cells) == len(names) and cells[0].strip():
            rows.append(dict(zip(names, (c.strip() for c in cells))))
    return rows


# -- exit 0 ---------------------------------------------------------------------------


def test_all_claims_as_expected_exits_0_and_tabulates_them(tmp_path):
    path = write(tmp_path, "good.py", GOOD)
    code, out, err = run("prove", str(path))
    assert code == 0, out + err
    assert err == ""
    rows = table_rows(out)
    assert [(r["spec"], r["claim"], r["expected"], r["verdict"]) for r in rows] == [
        ("good::row_major", "bijective", "PROVED", "PROVED"),
        ("good::row_major", "fits(32)", "PROVED", "PROVED"),
        ("good::overlap", "injective", "REFUTED", "REFUTED"),
    ]
    assert "3 claims in 2 specs" in out
    assert "all as expected" in out


def test_a_refuted_as_expected_claim_shows_its_counterexample(tmp_path):
    code, out, _ = run("prove", str(write(tmp_path, "good.py", GOOD)))
    assert code == 0
    assert "refuted as expected" in out
    assert "both map to" in out


def test_a_folder_is_searched_for_spec_modules(tmp_path):
    write(tmp_path, "one.py", GOOD)
    (tmp_path / "nested").mkdir()
    write(tmp_path / "nested", "two.py", GOOD.replace("row_major", "row_major_again"))
    code, out, _ = run("prove", str(tmp_path))
    assert code == 0
    specs = {r["spec"] for r in table_rows(out)}
    assert {"one::row_major", "one::overlap", "two::row_major_again", "two::overlap"} <= specs
    assert "6 claims in 4 specs" in out


def test_without_paths_the_specs_folder_of_the_working_directory_is_proved(tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    write(tmp_path / "specs", "local.py", GOOD)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("prove")
    assert code == 0
    assert {r["spec"] for r in table_rows(out)} == {"local::row_major", "local::overlap"}


def test_quiet_prints_no_table_but_the_summary(tmp_path):
    code, out, _ = run("prove", "-q", str(write(tmp_path, "good.py", GOOD)))
    assert code == 0
    assert "verdict" not in out
    assert "3 claims in 2 specs" in out


# -- exit 1 ---------------------------------------------------------------------------


def test_an_unexpected_verdict_exits_1_with_the_counterexample(tmp_path):
    code, out, err = run("prove", str(write(tmp_path, "bad.py", UNEXPECTED)))
    assert code == 1
    assert err == ""
    rows = table_rows(out)
    assert [(r["claim"], r["expected"], r["verdict"]) for r in rows] == [
        ("in_bounds", "PROVED", "PROVED"), ("injective", "PROVED", "REFUTED")]
    assert "UNEXPECTED bad::collide::injective (expected PROVED, got REFUTED)" in out
    assert "1 unexpected" in out
    # the printed counterexample is a real collision of (4,4):(1,2)
    found = re.search(r"\(i=(\d+)\) and \(i=(\d+)\) both map to \(offset=(\d+)\)", out)
    assert found, out
    a, b, slot = map(int, found.groups())
    m = la.strided((4, 4), (1, 2))
    assert a != b and m(a) == m(b) == (slot,)


def test_a_spec_that_raises_while_building_exits_1_without_traceback(tmp_path):
    path = write(tmp_path, "raises.py", '''
        import layoutalg as la


        @la.spec(claims=["injective"])
        def broken():
            return 1 // 0
        ''')
    code, out, err = run("prove", str(path))
    assert code == 1
    assert "Traceback" not in out + err
    assert table_rows(out)[0]["verdict"] == "ERROR"
    assert "ZeroDivisionError" in out


def test_a_spec_returning_a_non_layout_exits_1_naming_the_spec(tmp_path):
    path = write(tmp_path, "nolayout.py", '''
        import layoutalg as la


        @la.spec(claims=["injective"])
        def just_a_number():
            return 42
        ''')
    code, out, _ = run("prove", str(path))
    assert code == 1
    assert "just_a_number must return an IndexMap" in out


@pytest.fixture
def unknown_claim():
    """A family claim that always answers UNKNOWN (removed afterwards)."""
    yield "always_unknown"
    # the registry lives in layoutalg.runner.dsl
    importlib.import_module("layoutalg.verify.claims").forget_claim("always_unknown")


def test_unknown_is_never_a_pass(tmp_path, unknown_claim):
    path = write(tmp_path, "undecided.py", '''
        import layoutalg as la
        from layoutalg.runner.dsl import register_claim


        def always_unknown(m, **options):
            return la.CheckResult(la.Status.UNKNOWN, "always_unknown", m.label,
                                  reason="timeout")


        register_claim("always_unknown", always_unknown)


        @la.spec(claims=["always_unknown"], expect="PROVED")
        def hoped_proved():
            return la.strided(4, 1)


        @la.spec(claims=["always_unknown"], expect="REFUTED")
        def hoped_refuted():
            return la.strided(4, 1)
        ''')
    code, out, _ = run("prove", str(path))
    assert code == 1
    assert [r["verdict"] for r in table_rows(out)] == ["UNKNOWN", "UNKNOWN"]
    assert "2 unexpected" in out


# -- exit 2: bad input ----------------------------------------------------------------


def test_a_missing_path_is_bad_input(tmp_path):
    missing = tmp_path / "nowhere.py"
    line = assert_bad_input(*run("prove", str(missing)))
    assert str(missing) in line


def test_a_missing_path_is_reported_even_beside_good_ones(tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    line = assert_bad_input(*run("prove", str(good), str(tmp_path / "typo.py")))
    assert "typo.py" in line


def test_a_non_python_file_is_bad_input(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("injective\n")
    line = assert_bad_input(*run("prove", str(notes)))
    assert "notes.txt" in line
    assert ".py" in line  # the rule


def test_a_syntax_error_in_a_spec_module_is_bad_input(tmp_path):
    path = write(tmp_path, "broken_syntax.py", "import layoutalg as la\n\ndef f(:\n    pass\n")
    line = assert_bad_input(*run("prove", str(path)))
    assert "broken_syntax.py" in line
    assert "SyntaxError" in line
    assert "line 3" in line


def test_a_syntax_error_is_reported_only_at_its_own_line(tmp_path):
    path = write(tmp_path, "broken_syntax.py", "import layoutalg as la\n\ndef f(:\n    pass\n")
    line = assert_bad_input(*run("prove", str(path)))
    assert set(re.findall(r"line (\d+)", line)) == {"3"}


def test_a_name_error_at_import_is_bad_input(tmp_path):
    path = write(tmp_path, "typo_name.py", "import layoutalg as la\n\nx = undefined_name\n")
    line = assert_bad_input(*run("prove", str(path)))
    assert "typo_name.py" in line
    assert "NameError" in line and "undefined_name" in line
    assert "line 3" in line


def test_an_unknown_claim_in_a_spec_module_is_bad_input(tmp_path):
    path = write(tmp_path, "misspelled.py", '''
        import layoutalg as la


        @la.spec(claims=["injectiv"])
        def s():
            return la.strided(4, 1)
        ''')
    line = assert_bad_input(*run("prove", str(path)))
    assert "misspelled.py" in line
    assert "'injectiv'" in line
    assert "injective" in line.split("'injectiv'", 1)[1]  # the known claims follow


def test_a_bad_spec_module_stops_the_run_before_proving(tmp_path):
    write(tmp_path, "a_good.py", GOOD)
    write(tmp_path, "b_bad.py", "raise RuntimeError('no')\n")
    code, out, err = run("prove", str(tmp_path))
    assert_bad_input(code, out, err)
    assert "PROVED" not in out


def test_a_multi_line_import_error_is_still_one_line(tmp_path):
    path = write(tmp_path, "multi.py", "raise ValueError('first line\\nsecond line')\n")
    line = assert_bad_input(*run("prove", str(path)))
    assert "first line" in line and "second line" in line


def test_a_spec_module_calling_sys_exit_is_bad_input(tmp_path):
    path = write(tmp_path, "exits.py", "import sys\n\nsys.exit(0)\n")
    line = assert_bad_input(*run("prove", str(path)))
    assert "exits.py" in line


@pytest.mark.parametrize("argv", [
    ("prove", "--bogus"),
    ("--bogus",),
    ("prove", "--json"),
])
def test_an_unknown_or_incomplete_option_is_bad_input(argv):
    line = assert_bad_input(*run(*argv))
    assert "--bogus" in line or "--json" in line


def test_an_unknown_command_is_bad_input():
    line = assert_bad_input(*run("disprove"))
    assert "disprove" in line


def test_no_command_prints_help_and_exits_2():
    code, out, _ = run()
    assert code == 2
    assert "prove" in out


def test_an_unwritable_report_is_bad_input(tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    target = tmp_path / "no_such_dir" / "r.json"
    line = assert_bad_input(*run("prove", str(good), "--json", str(target)))
    assert "no_such_dir" in line


# -- reports --------------------------------------------------------------------------


@pytest.fixture
def mixed(tmp_path) -> Path:
    """Two modules: three claims as expected, then one unexpected of two."""
    write(tmp_path, "a_good.py", GOOD)
    write(tmp_path, "b_bad.py", UNEXPECTED)
    return tmp_path


def test_json_report_has_counts_and_statuses(mixed, tmp_path):
    report = tmp_path / "report.json"
    code, _, _ = run("prove", str(mixed), "--json", str(report))
    assert code == 1
    data = json.loads(report.read_text())
    assert data["summary"] == {"claims": 5, "as_expected": 4, "unexpected": 1, "errors": 0}
    got = [(r["spec"], r["claim"], r["expected"], r["status"], r["ok"]) for r in data["results"]]
    assert got == [
        ("row_major", "bijective", "PROVED", "PROVED", True),
        ("row_major", "fits(32)", "PROVED", "PROVED", True),
        ("overlap", "injective", "REFUTED", "REFUTED", True),
        ("collide", "in_bounds", "PROVED", "PROVED", True),
        ("collide", "injective", "PROVED", "REFUTED", False),
    ]
    collide = data["results"][-1]
    assert collide["path"].endswith("b_bad.py")
    assert "both map to" in collide["reason"]
    m = la.strided((4, 4), (1, 2))
    cx = collide["counterexample"]
    assert cx["i"] != cx["i'"] and m(cx["i"]) == m(cx["i'"])
    assert all(r["seconds"] >= 0 for r in data["results"])


def test_junit_report_has_counts_and_failures(mixed, tmp_path):
    report = tmp_path / "report.xml"
    code, _, _ = run("prove", str(mixed), "--junit", str(report))
    assert code == 1
    suite = ET.parse(report).getroot()
    assert suite.tag == "testsuite"
    assert (suite.get("tests"), suite.get("failures")) == ("5", "1")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("a_good.row_major", "bijective"), ("a_good.row_major", "fits(32)"),
        ("a_good.overlap", "injective"), ("b_bad.collide", "in_bounds"),
        ("b_bad.collide", "injective"),
    ]
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["injective"]
    failure = failed[0].find("failure")
    assert failure.get("message") == "expected PROVED, got REFUTED"
    assert "both map to" in failure.text


def test_both_reports_at_once_agree_when_all_pass(tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    code, _, _ = run("prove", str(good), "--json", str(tmp_path / "r.json"),
                     "--junit", str(tmp_path / "r.xml"))
    assert code == 0
    data = json.loads((tmp_path / "r.json").read_text())
    suite = ET.parse(tmp_path / "r.xml").getroot()
    assert data["summary"]["unexpected"] == 0 and suite.get("failures") == "0"
    assert int(suite.get("tests")) == data["summary"]["claims"] == 3


# -- --version ------------------------------------------------------------------------


def test_version_is_written_to_the_stream_and_returns_0():
    code, out, err = run("--version")
    assert code == 0
    assert out.strip() == f"layoutalg {la.__version__}"
    assert err == ""


# -- the installed command ------------------------------------------------------------


def command() -> list[str]:
    """The console script installed beside this Python, else ``python -m layoutalg``."""
    script = shutil.which("layoutalg", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "layoutalg"]


def test_console_script_proves_the_shipped_cute_specs():
    done = subprocess.run([*command(), "prove", str(ROOT / "specs" / "cute.py")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "cute::composition_intro" in done.stdout
    assert "all as expected" in done.stdout


def test_console_script_exit_keeps_the_code_the_output_and_the_reports(tmp_path):
    """The console script ends the process without tearing the interpreter
    down (cli.main.entry): the exit code, everything printed and the JSON
    report must still be all there."""
    spec = tmp_path / "wrong_expectation.py"
    spec.write_text(textwrap.dedent("""
        import layoutalg as la

        @la.spec(claims=["surjective"], expect="PROVED")
        def holes():
            return la.IndexMap.from_exprs(la.Space((3,)), lambda i: (2 * i,), (6,))
    """))
    report = tmp_path / "report.json"
    done = subprocess.run([*command(), "prove", str(spec), "--no-cache", "--json", str(report),
                           "--cache-dir", str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "UNEXPECTED wrong_expectation::holes::surjective" in done.stdout
    assert done.stdout.rstrip().endswith("1 unexpected")
    assert json.loads(report.read_text())["summary"]["unexpected"] == 1


def test_console_script_reports_bad_input_in_one_line(tmp_path):
    done = subprocess.run([*command(), "prove", str(tmp_path / "missing.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "missing.py" in done.stderr


def test_console_script_version():
    done = subprocess.run([*command(), "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert done.stdout.strip() == f"layoutalg {la.__version__}"


def test_the_table_shows_names_as_written_never_as_markup():
    """A claim or spec name with square brackets (a list argument, or text rich would
    read as a style tag) is shown as written; the old markup cells dropped ``[bold]``."""
    outcomes = [Outcome("specs/x.py", "spec[bold]", "pages([0, 1])[red]", "PROVED", "PROVED",
                        "", 1234.5),
                Outcome("specs/x.py", "other", "bijective", "PROVED", "REFUTED", "", 0.0004)]
    text = io.StringIO()
    Console(file=text, width=200, highlight=False).print(result_table(outcomes))
    rows = table_rows(text.getvalue())
    assert [(r["spec"], r["claim"], r["verdict"], r[""], r["time"]) for r in rows] == [
        ("x::spec[bold]", "pages([0, 1])[red]", "PROVED", "✓", "1234.500s"),
        ("x::other", "bijective", "REFUTED", "✗", "0.000s"),
    ]
