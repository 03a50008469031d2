"""``layoutalg.verify.plugged``: sizes plugged into the assumptions with exact
integers show the assumptions can hold (the non-vacuity guards of issue 8)
without asking Z3. A witness it gives must satisfy the assumptions by plain
Python arithmetic and by Z3; contradictory assumptions never get one, and a
check under them stays UNKNOWN.
"""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.verify import plugged
from layoutalg.verify import query as q
from layoutalg.verify.result import Status

M, N = la.extents("M N")


def test_contradictory_assumptions_have_no_witness_and_stay_unknown():
    assert plugged.witness([M > 5, M < 3], [M]) is None
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [i], name="id")
    verdict = la.check_injective(m, assume=[M > 5, M < 3])
    assert verdict.status is Status.UNKNOWN and "contradict" in verdict.reason


def test_no_candidate_fits_then_z3_decides():
    # M = 3 (mod 7) and M > 100: none of the candidates (powers of two up to 2**16, 3) fit,
    # so the guard asks Z3, which finds M = 101; the proof stands
    assumptions = [sympy.Eq(sympy.Mod(M, 7), 3), M > 100]
    assert plugged.witness(assumptions, [M]) is None
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [i], name="id")
    assert la.check_injective(m, assume=assumptions).proved


def test_witness_found_exactly():
    # M*N = 2**12 with M = N: 64 (the candidate all 64) is the first that fits
    assert plugged.witness([sympy.Eq(M * N, 4096), sympy.Eq(M, N)], [M, N]) == {M: 64, N: 64}
    assert plugged.witness([sympy.Eq(sympy.Mod(M, 5), 4)], [M]) == {M: 4}


def test_holds_is_exact_past_int64():
    # 5 * 2**62 = 2**64 + 2**62 > 2**64; an int64 wrap would give 2**62 and say no
    assert plugged.holds([M * 2**62 > 2**64], {M: 5})
    assert not plugged.holds([M * 2**62 > 2**65], {M: 5})
    assert plugged.holds([sympy.Eq(sympy.floor(M / 3), 2)], {M: 8})
    assert not plugged.holds([M >= 1], {M: 0})  # sizes are at least 1


# random assumptions over M and N, each with its plain-Python twin
ATOMS = [
    (lambda a, b: M * a + N * b, lambda m, n, a, b: m * a + n * b),
    (lambda a, b: sympy.Mod(M + b, a % 7 + 1), lambda m, n, a, b: (m + b) % (a % 7 + 1)),
    (lambda a, b: sympy.floor(M * N / (a % 5 + 1)) - b,
     lambda m, n, a, b: (m * n) // (a % 5 + 1) - b),
]
RELATIONS = [(sympy.Ge, lambda x, c: x >= c), (sympy.Lt, lambda x, c: x < c),
             (sympy.Eq, lambda x, c: x == c)]


@st.composite
def assumption_sets(draw):
    pairs = []
    for _ in range(draw(st.integers(1, 3))):
        (make, twin), (rel, holds) = draw(st.sampled_from(ATOMS)), draw(st.sampled_from(RELATIONS))
        a, b, c = (draw(st.integers(-4, 9)) for _ in range(3))
        pairs.append((rel(make(a, b), c), lambda m, n, t=twin, h=holds, a=a, b=b, c=c:
                      h(t(m, n, a, b), c)))
    return pairs


@settings(max_examples=120, deadline=None)
@given(assumption_sets())
def test_a_witness_holds_by_python_and_z3(pairs):
    conditions = [c for c, _ in pairs if c not in (sympy.true, sympy.false)]
    if len(conditions) != len(pairs):
        return  # SymPy decided one alone: nothing to plug in
    found = plugged.witness(conditions, [M, N])
    pinned = conditions + [sympy.Eq(M, found[M]), sympy.Eq(N, found[N])] if found else conditions
    z3_says = q.ask([], [], parameters=[M, N], assumptions=pinned, timeout_ms=10_000).answer
    if found is None:
        return
    assert all(twin(found[M], found[N]) for _, twin in pairs), (conditions, found)
    assert z3_says == "sat", (conditions, found)


@settings(max_examples=60, deadline=None)
@given(assumption_sets())
def test_z3_contradiction_means_no_witness(pairs):
    conditions = [c for c, _ in pairs if c not in (sympy.true, sympy.false)]
    if len(conditions) != len(pairs):
        return
    # with no constraint the query is sat unless the assumptions contradict each other,
    # which the door reports as unknown, naming the contradiction
    outcome = q.ask([], [], parameters=[M, N], assumptions=conditions, timeout_ms=10_000)
    if outcome.answer != "sat" and "contradict" in outcome.reason:
        assert plugged.witness(conditions, [M, N]) is None
