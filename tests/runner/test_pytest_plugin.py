"""``pytest specs/``: each claim is an item ``spec::claim``; a failure shows the counterexample."""

from __future__ import annotations

pytest_plugins = ["pytester"]

SPEC = '''
import layoutalg as la


@la.spec(claims=["injective", "in_bounds"])
def rows():
    dom = la.Space(i=8, j=16)
    i, j = dom.symbols
    return la.IndexMap(dom, la.Space(offset=128), [STRIDE * i + j], name="rows")
'''


def test_each_claim_is_an_item_and_passes(pytester):
    pytester.mkdir("specs")
    pytester.path.joinpath("specs", "rows.py").write_text(SPEC.replace("STRIDE", "16"))
    result = pytester.runpytest("specs", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*rows.py::rows::injective PASSED*",
                                 "*rows.py::rows::in_bounds PASSED*"])


def test_a_refuted_claim_fails_with_its_counterexample(pytester):
    pytester.mkdir("specs")
    pytester.path.joinpath("specs", "rows.py").write_text(SPEC.replace("STRIDE", "8"))
    result = pytester.runpytest("specs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*rows::injective: expected PROVED, got REFUTED: not injective: "
        "(i=0, j=8) and (i=1, j=0) both map to (offset=8)*"])


def test_files_outside_spec_folders_are_not_collected(pytester):
    pytester.path.joinpath("helpers.py").write_text(SPEC.replace("STRIDE", "8"))
    result = pytester.runpytest("helpers.py", "-p", "no:cacheprovider")
    assert "rows::injective" not in result.stdout.str()
