"""Every check reaches Z3 through ``query.ask``, and every guard holds there.

Issue 11, items 3, 4, 8, 9 (relations with fractions, ITE) and 10: each
reproducer is pinned to its true verdict, and the class behind it is tested
by a guard that cannot be skipped.
"""

from __future__ import annotations

import ast
import itertools
import pathlib
import random

import pytest
import sympy
import z3

import layoutalg as la
from layoutalg.dataflow import Capacities, Schedule, check_meets_compulsory, check_stationary_once
from layoutalg.dataflow import check_tiles_fit
from layoutalg.verify import query
from layoutalg.verify.z3_backend import solver

PACKAGE = pathlib.Path(la.__file__).parent
M, = la.extents("M")


# -- item 4: one door -------------------------------------------------------

def _solver_calls(path: pathlib.Path) -> list[str]:
    """Names under which ``path`` reaches solver.solve / solver.maximize."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "layoutalg.verify.z3_backend.solver":
            found += [a.name for a in node.names if a.name in ("solve", "maximize")]
        if (isinstance(node, ast.Attribute) and node.attr in ("solve", "maximize")
                and isinstance(node.value, ast.Name) and node.value.id == "solver"):
            found.append(f"solver.{node.attr}")
    return found


def test_only_the_query_module_calls_the_solver():
    callers = {str(p.relative_to(PACKAGE)): _solver_calls(p) for p in PACKAGE.rglob("*.py")}
    outside = {p: names for p, names in callers.items()
               if names and p not in ("verify/query.py", "verify/z3_backend/solver.py")}
    assert outside == {}
    assert callers["verify/query.py"]  # the door itself is found by the scan


BACKEND = "verify/z3_backend/"


def _imports(path: pathlib.Path, top: str) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(a.name.startswith(top) for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(top):
            return True
    return False


def _importers(top: str) -> set[str]:
    return {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if _imports(p, top)}


def test_only_the_z3_back_end_imports_z3():
    importers = _importers("z3")
    assert importers and all(path.startswith(BACKEND) for path in importers), importers


def test_only_the_query_door_imports_the_z3_back_end():
    outside = {p for p in _importers("layoutalg.verify.z3_backend") if not p.startswith(BACKEND)}
    assert outside == {"verify/query.py"}


def test_the_import_scan_sees_both_forms(tmp_path):
    plain, dotted = tmp_path / "plain.py", tmp_path / "dotted.py"
    plain.write_text("import z3\n")
    dotted.write_text("from layoutalg.verify.z3_backend.solver import Bounded\n")
    assert _imports(plain, "z3") and not _imports(plain, "layoutalg")
    assert _imports(dotted, "layoutalg.verify.z3_backend")


def test_the_scan_finds_a_direct_call(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("from layoutalg.verify import solver\nsolver.solve([], [])\n"
                      "from layoutalg.verify.z3_backend.solver import maximize\n")
    assert sorted(_solver_calls(sneaky)) == ["maximize", "solver.solve"]


CONTRADICTION = [sympy.Eq(M % 128, 0), M < 100]


@pytest.mark.parametrize("check", [
    lambda assume: check_tiles_fit(Schedule("os", (M, 64, 64), (64, 64, 64)),
                                   Capacities(l2_bytes=1024), assume=assume),
    lambda assume: check_meets_compulsory(Schedule("os", (M, 8, 8), (2, 2, 2)), assume=assume),
    lambda assume: check_stationary_once(Schedule("os", (M, 8, 8), (2, 2, 2)), assume=assume),
    lambda assume: la.check_in_bounds(
        la.IndexMap(la.Space(i=M), la.Space(o=M), [la.Space(i=M).symbols[0] + 1]), assume=assume),
], ids=["tiles_fit", "meets_compulsory", "stationary_once", "in_bounds"])
def test_contradictory_assumptions_never_prove_a_family_claim(check):
    assert check(CONTRADICTION).status is la.Status.UNKNOWN
    assert "contradict" in check(CONTRADICTION).reason


def test_the_family_claim_used_above_is_refuted_without_assumptions():
    result = check_tiles_fit(Schedule("os", (M, 64, 64), (64, 64, 64)), Capacities(l2_bytes=1024))
    assert result.status is la.Status.REFUTED


def test_channel_checks_keep_the_guard():
    C, = la.extents("C")
    layout = la.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=C, n_tiles=4,
                                      k_tiles=4, tile_bytes=64)
    bad = [sympy.Eq(C % 2, 0), sympy.Eq(C % 2, 1)]
    for check in (la.channel.check_fits, la.channel.check_disjoint):
        assert check(layout, assume=bad).status is la.Status.UNKNOWN


def test_contradictions_among_random_assumptions_are_never_proved():
    """Random assumption sets over M, N, with their satisfiability decided by
    enumeration (every set below bounds M and N to [1, 40])."""
    N, = la.extents("N")
    atoms = [sympy.Eq(M % 4, 0), sympy.Eq(M % 4, 1), M < 3, M > 30, sympy.Eq(N % 3, 0),
             N < 2, sympy.Eq(M, N), M < N, sympy.Ne(M, 8), sympy.Eq(N, 2 * M)]
    bounded = [M <= 40, N <= 40]
    dom = la.Space(i=M, j=N)
    i, j = dom.symbols
    wrong = la.IndexMap(dom, la.Space(o=M, p=N), [i + 1, j])  # never in bounds
    rng = random.Random(11)
    for _ in range(40):
        chosen = rng.sample(atoms, rng.randint(1, 4)) + bounded
        possible = any(all(bool(a.subs({M: m, N: n})) for a in chosen)
                       for m, n in itertools.product(range(1, 41), repeat=2))
        result = la.check_in_bounds(wrong, assume=chosen)
        if possible:
            assert result.status is la.Status.REFUTED, chosen
            sizes = {M: result.counterexample["M"], N: result.counterexample["N"]}
            assert all(bool(a.subs(sizes)) for a in chosen)
        else:
            assert result.status is la.Status.UNKNOWN, chosen
            assert "contradict" in result.reason


# -- item 3: nested ceilings --------------------------------------------------

def test_nested_ceilings_get_distinct_names():
    dom = la.Space(i=M)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(a=3, b=sympy.ceiling(sympy.ceiling(M / 8) / 3)),
                    [(i // 8) % 3 + 1, 0])
    result = la.check_in_bounds(m)
    assert result.status is la.Status.REFUTED
    # The truth: a = (i // 8) % 3 + 1 reaches 3 once i >= 16, so M >= 17.
    assert result.counterexample["M"] >= 17
    assert (result.counterexample["i"] // 8) % 3 + 1 == 3
    assert la.check_in_bounds(m.bind(M=17)).status is la.Status.REFUTED


def test_a_deep_tower_of_ceilings_is_translated_one_name_each():
    """ceil(ceil(ceil(M/2)/3)/5) = ceil(M/30): a claim that holds for every M."""
    tower = sympy.ceiling(sympy.ceiling(sympy.ceiling(M / 2) / 3) / 5)
    flat = sympy.ceiling(M / 30)
    outcome = query.ask([], [sympy.Ne(tower, flat)], parameters=[M], timeout_ms=60_000)
    assert outcome.answer == "unsat"
    # and a false one is refuted at a size Python agrees with
    outcome = query.ask([], [sympy.Ne(tower, sympy.ceiling(M / 29))], parameters=[M],
                        timeout_ms=60_000)
    assert outcome.answer == "sat"
    m = outcome.model[M]
    assert -(-(-(-(-(-m // 2)) // 3)) // 5) != -(-m // 29)


# -- item 10: non-vacuity -------------------------------------------------------

def test_an_encoding_that_rules_out_large_sizes_is_unknown_not_proved(monkeypatch):
    """The guard catches item 3's class of bug whatever its cause: a
    translator that names a ceiling before its inner one (the old bug) makes
    a true claim provable only for M ≤ 8; the answer must be UNKNOWN."""
    def old_naming(self, expr):
        var = z3.Int(f"extent#{len(self.definitions)}", self.ctx)
        self.definitions.append(var == self._term(expr))
        return var

    dom = la.Space(i=M)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(a=4, b=sympy.ceiling(sympy.ceiling(M / 8) / 3)),
                    [(i // 8) % 3 + 1, 0])
    assert la.check_in_bounds(m).status is la.Status.PROVED  # true: a <= 3 < 4
    monkeypatch.setattr(solver._Translator, "_named", old_naming)
    result = la.check_in_bounds(m)
    assert result.status is la.Status.UNKNOWN
    assert "does not admit the sizes" in result.reason


def test_the_vacuity_guard_respects_assumptions_that_bound_the_sizes():
    """Sizes capped by the assumptions (M ≤ 5) are not 'ruled out' by the encoding."""
    dom = la.Space(i=M)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(a=sympy.ceiling(M / 2)), [i // 2], assumptions=[M <= 5])
    assert la.check_in_bounds(m).status is la.Status.PROVED


# -- item 8: assumptions mention parameters only ------------------------------------

def test_an_assumption_on_a_coordinate_is_refused():
    dom = la.Space(i=8)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(o=4), [i])
    with pytest.raises(la.LayoutError, match=r"assume\[0\] may mention only .* got symbol i"):
        la.check_in_bounds(m, assume=[i < 4])
    assert la.check_in_bounds(m).status is la.Status.REFUTED  # elements 4..7 escape


def test_a_look_alike_symbol_in_an_assumption_is_the_parameter():
    dom = la.Space(i=M)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(o=64), [i])
    look_alike = sympy.Symbol("M", integer=True)
    result = la.check_in_bounds(m, assume=[look_alike <= 100])
    assert result.status is la.Status.REFUTED
    assert 65 <= result.counterexample["M"] <= 100  # the user's assumption holds
    assert la.check_in_bounds(m, assume=[look_alike <= 64]).status is la.Status.PROVED


def test_an_assumption_must_be_a_boolean():
    m = la.IndexMap(la.Space(i=M), la.Space(o=M), [la.Space(i=M).symbols[0]])
    with pytest.raises(la.LayoutError, match=r"assume\[0\]"):
        la.check_in_bounds(m, assume=["M < 4"])
    with pytest.raises(la.LayoutError, match="assume must be a sequence"):
        la.check_in_bounds(m, assume=M < 4)


# -- item 9: relations divided through, ITE ---------------------------------------------

def test_a_relation_with_a_fraction_is_decided_over_the_integers():
    d = sympy.Symbol("d", integer=True, nonnegative=True)
    held = sympy.Gt(d, sympy.Rational(2, 9))  # what SymPy makes of 9*d > 2
    outcome = query.ask([solver.Bounded(d, 0, 5)], [sympy.Not(held), sympy.Ne(d, 0)],
                        timeout_ms=10_000)
    assert outcome.answer == "unsat"  # d >= 1 means 9d > 2
    outcome = query.ask([solver.Bounded(d, 0, 5)], [sympy.Lt(d, sympy.Rational(7, 3))],
                        timeout_ms=10_000)
    assert outcome.answer == "sat" and outcome.model[d] * 3 < 7


def test_ite_conditions_are_translated():
    d = sympy.Symbol("d", integer=True, nonnegative=True)
    condition = sympy.ITE(d > 2, d < 4, sympy.Eq(d, 0))
    holds = [v for v in range(6) if (v < 4 if v > 2 else v == 0)]
    for v in range(6):
        outcome = query.ask([solver.Bounded(d, 0, 6)], [condition, sympy.Eq(d, v)],
                            timeout_ms=10_000)
        assert (outcome.answer == "sat") == (v in holds)


# -- found by tests/verify/test_soundness.py ---------------------------------------------------

def test_a_map_without_padding_is_not_proved_under_contradictory_assumptions():
    N, = la.extents("N")
    dom = la.Space(x=M, y=3)
    m = la.IndexMap(dom, la.Space(o=N + 2), [M])
    contradictory = [sympy.Eq(M, 2 * N + 1), sympy.Eq(M % 2, 0)]  # M odd and even
    assert la.check_images_valid(m, assume=contradictory).status is la.Status.UNKNOWN
    assert la.check_images_valid(m).status is la.Status.PROVED
    x, _ = dom.symbols
    with pytest.raises(la.LayoutError, match="got symbol x"):
        la.check_images_valid(m, assume=[x < 2])


def test_a_symbolic_capacity_is_a_size_of_its_own():
    """The capacity's N is at least 1 like every size, and the REFUTED
    counterexample names it: 4 bytes do not fit N = 1 (truth: they fit N >= 4)."""
    N, = la.extents("N")
    m = la.IndexMap(la.Space(x=2, y=M), la.Space(o=M + 1, p=2 * M), [0, 0])
    result = la.check_fits(m, N, per=(), element_bytes=4, offsets_in_bytes=True)
    assert result.status is la.Status.REFUTED
    assert 1 <= result.counterexample["N"] < 4
    assert la.check_fits(m, N, per=(), element_bytes=4, offsets_in_bytes=True,
                         assume=[N >= 4]).status is la.Status.PROVED
