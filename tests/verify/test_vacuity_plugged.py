"""The vacuity guard decides plainly admitted sizes by plugging them in
(``vacuity.plugged_in``), and never admits what Z3 would not (issue 17 item 4).

Plugging in is a witness only: true means every assertion of the encoding
simplifies to true at the draw, so Z3 would say sat. Pinned here:

* on sound encodings (named extents, quotient and remainder variables) it
  admits every size drawn, so the guard asks Z3 nothing;
* it never admits a size Z3 does not: compared with Z3 on every size 1..40
  of encodings that admit all sizes and of ones that rule some out (the
  naming bug of issue 8 item 3, a quotient variable with a wrong definition);
* the guard's verdict is the same with plugging on and off.
"""

from __future__ import annotations

import pytest
import sympy
import z3
from test_solver_reuse import counting_checks

from layoutalg.verify.z3_backend import solver, vacuity
from layoutalg.verify.z3_backend.terms import Bounded

M = sympy.Symbol("M", integer=True, positive=True)
N = sympy.Symbol("N", integer=True, positive=True)
i = sympy.Symbol("i", integer=True)


def old_naming_recorded(self, expr):
    """The naming bug of issue 8 item 3 (ceil(ceil(M/8)/3) and ceil(M/8) share one
    variable x: x = ceil(M/8) and x = ceil(x/3) hold together only for M <= 8),
    with each value recorded, so plugging in is tried on it and must fail."""
    var = z3.Int(f"extent#{len(self.definitions)}", self.ctx)
    value = self._term(expr)
    self.definitions.append(var == value)
    self.computed.append((var, value))
    return var


def wrong_remainder(self, num, den):
    """A quotient-variable encoding whose remainder bound is off by one
    (``r < den - 1``): it rules out every size where ``num mod den`` is
    ``den - 1`` at the unknown's low end, while its values are recorded."""
    if not den.is_Integer or num.free_symbols & self.bound:
        return None
    self.constant_divisions += 1
    if not self.quotients:
        return None
    key = (num, den)
    if key not in self.divisions:
        top, bottom = self.term(num), self.term(den)
        q, r = self.fresh("quot"), self.fresh("rem")
        self.definitions += [top == bottom * q + r, r >= 0, r < bottom - 1]
        self.computed += [(q, top / bottom), (r, top % bottom)]
        self.divisions[key] = (q, r)
    return self.divisions[key]


QUERIES = {
    # i // 8 >= ceil(ceil(M/8)/3) * 3 + 1 over 0 <= i < M: named extents
    "tower": ([Bounded(i, 0, M)], [sympy.Ge(i // 8, sympy.ceiling(sympy.ceiling(M / 8) / 3) * 3 + 1)],
              [M], False),
    # quotient variables: (M + 5) // 7 and (i + N) mod 3, two sizes
    "quotients": ([Bounded(i, 0, M)], [sympy.Gt(sympy.floor((M + 5) / 7) + sympy.Mod(i + N, 3), M + N)],
                  [M, N], True),
}


def built(name):
    unknowns, constraints, parameters, quotients = QUERIES[name]
    made = solver._build(unknowns, constraints, parameters, [], None, quotients=quotients)
    assert not isinstance(made, solver.Outcome), made
    return made[1], unknowns, parameters


def z3_admits(translator, unknowns, parameters, values):
    s = z3.Solver(ctx=translator.ctx)
    s.add(translator.asserted(parameters, [], unknowns, ()) + translator.definitions)
    s.add([translator.term(p) == v for p, v in zip(parameters, values)])
    answer = s.check()
    assert answer != z3.unknown
    return answer == z3.sat


def plugged(translator, unknowns, parameters, values):
    encoding = translator.asserted(parameters, [], unknowns, ()) + translator.definitions
    sizes = [translator.term(p) for p in parameters]
    return vacuity.plugged_in(translator, encoding, sizes, values, unknowns)


def sizes_of(parameters):
    if len(parameters) == 1:
        return [(m,) for m in range(1, 41)]
    return [(m, n) for m in range(1, 41, 3) for n in range(1, 8)]


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_sound_encoding_is_admitted_by_plugging_at_every_size(name):
    translator, unknowns, parameters = built(name)
    assert translator.computed  # there are side-condition variables to compute
    for values in sizes_of(parameters):
        assert plugged(translator, unknowns, parameters, values), values
        assert z3_admits(translator, unknowns, parameters, values), values


@pytest.mark.parametrize("bug, name", [("naming", "tower"), ("remainder", "quotients")])
def test_plugging_never_admits_a_size_z3_rules_out(monkeypatch, bug, name):
    if bug == "naming":
        monkeypatch.setattr(solver._Translator, "_named", old_naming_recorded)
    else:
        monkeypatch.setattr(solver._Translator, "_divided", wrong_remainder)
    translator, unknowns, parameters = built(name)
    ruled_out = 0
    for values in sizes_of(parameters):
        truth = z3_admits(translator, unknowns, parameters, values)
        ruled_out += not truth
        if plugged(translator, unknowns, parameters, values):
            assert truth, values
    assert ruled_out  # the bug does rule sizes out: the comparison could fail


def test_the_naming_bug_rules_out_exactly_the_sizes_above_8(monkeypatch):
    """Hand-computed: x = ceil(M/8) = ceil(x/3) has a solution only for x <= 1, M <= 8."""
    monkeypatch.setattr(solver._Translator, "_named", old_naming_recorded)
    translator, unknowns, parameters = built("tower")
    admitted = [m for (m,) in sizes_of(parameters) if z3_admits(translator, unknowns, parameters, (m,))]
    assert admitted == list(range(1, 9))


def verdict(name, assumptions=()):
    translator, unknowns, parameters = built(name)
    return vacuity.ruled_out_sizes(translator, parameters, list(assumptions), unknowns, 10_000)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_the_guard_asks_z3_nothing_for_a_sound_encoding(monkeypatch, name):
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 0)
    calls = counting_checks(monkeypatch)
    assert verdict(name) is None
    assert calls == []


@pytest.mark.parametrize("bug, name, assumptions", [
    (None, "tower", ()), (None, "tower", (M <= 1000,)), (None, "quotients", ()),
    ("naming", "tower", ()), ("naming", "tower", (M >= 5,)), ("remainder", "quotients", ()),
])
def test_the_verdict_is_the_same_with_plugging_on_and_off(monkeypatch, bug, name, assumptions):
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 0)
    if bug == "naming":
        monkeypatch.setattr(solver._Translator, "_named", old_naming_recorded)
    elif bug == "remainder":
        monkeypatch.setattr(solver._Translator, "_divided", wrong_remainder)
    with_plugging = verdict(name, assumptions)
    monkeypatch.setattr(vacuity, "holds_at", lambda *args: False)
    assert verdict(name, assumptions) == with_plugging
    assert (with_plugging is None) == (bug is None)
