"""Sizes the combinators take on trust: what ``core.exact`` records must hold at every size.

A combinator's map from a Space is recorded exact by construction (in
bounds, a bijection onto its valid slots, its inverse right and left), and
compose then proves nothing about it. The audit found ``offset`` and ``pad``
recording maps whose amount (``to - extent``) is negative at some sizes. These
tests hold every recording to plain Python ints:

* each combinator with symbolic sizes, bound to sizes drawn by Hypothesis,
  is checked point by point against images written here from its definition;
* every size argument that may be zero or negative at some size (``M - 1``
  is 0 at ``M = 1``) is refused; an ``offset`` amount may be 0 (``M - 1``);
* ``offset`` amounts and ``pad`` targets ``a·M + b·N + c``: a refusal names
  a real negative point, a recording holds at every size, and a map left
  unrecorded is settled by Z3 in agreement with Python.
"""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_combinators import cyclic_deal as deal  # index -> (part, local), by simulation

import layoutalg as la
from layoutalg.errors import MapError
from layoutalg.verify import composition as facts

S = la.Space
M, N, T, B = la.extents("M N T B")


def ceil(a: int, b: int) -> int:
    return -(-a // b)


# name, the map with symbolic sizes, and from sizes (m, n, t, b): codomain extents and
# the image of a domain point, written from the definition in plain Python
CASES = [
    ("identity", lambda: la.identity(S(i=M)),
     lambda m, n, t, b: ((m,), lambda p: p)),
    ("split", lambda: la.split(S(i=M), "i", T),
     lambda m, n, t, b: ((ceil(m, t), t), lambda p: (p[0] // t, p[0] % t))),
    ("pad multiple", lambda: la.pad(S(i=M), "i", T),
     lambda m, n, t, b: ((ceil(m, t) * t,), lambda p: p)),
    ("split M·T by T", lambda: la.split(S(i=M * T), "i", T),   # divides: no padding
     lambda m, n, t, b: ((m, t), lambda p: (p[0] // t, p[0] % t))),
    ("pad 2M to a multiple of 2", lambda: la.pad(S(i=2 * M), "i", 2),
     lambda m, n, t, b: ((2 * m,), lambda p: p)),
    ("scale by M", lambda: la.scale(S(i=N), "i", M),
     lambda m, n, t, b: ((n * m,), lambda p: (p[0] * m,))),
    ("pad to M + N", lambda: la.pad(S(i=M), "i", to=M + N),
     lambda m, n, t, b: ((m + n,), lambda p: p)),
    ("pad to M", lambda: la.pad(S(i=M), "i", to=M),
     lambda m, n, t, b: ((m,), lambda p: p)),
    ("cyclic", lambda: la.cyclic(S(i=M), "i", T, block=B),
     lambda m, n, t, b: ((t, ceil(ceil(m, b), t) * b), lambda p: deal(m, t, b)[p[0]])),
    ("offset N", lambda: la.offset(S(i=M), "i", N),
     lambda m, n, t, b: ((m + n,), lambda p: (p[0] + n,))),
    ("offset M - 1", lambda: la.offset(S(i=M), "i", M - 1),  # 0 at M = 1
     lambda m, n, t, b: ((2 * m - 1,), lambda p: (p[0] + m - 1,))),
    ("offset 2M - 2", lambda: la.offset(S(i=3), "i", 2 * M - 2),
     lambda m, n, t, b: ((3 + 2 * m - 2,), lambda p: (p[0] + 2 * m - 2,))),
    ("scale", lambda: la.scale(S(i=M), "i", T),
     lambda m, n, t, b: ((m * t,), lambda p: (p[0] * t,))),
    ("fuse", lambda: la.fuse(S(a=M, b=N), "a", "b"),
     lambda m, n, t, b: ((m * n,), lambda p: (p[0] * n + p[1],))),
    ("permute", lambda: la.permute(S(a=M, b=N), ["b", "a"]),
     lambda m, n, t, b: ((n, m), lambda p: (p[1], p[0]))),
    ("linearize", lambda: la.linearize(S(a=M, b=N)),
     lambda m, n, t, b: ((m * n,), lambda p: (p[0] * n + p[1],))),
    ("delinearize", lambda: la.delinearize(S(i=M * N), "i", x=M, y=N),
     lambda m, n, t, b: ((m, n), lambda p: (p[0] // n, p[0] % n))),
]


def _at(exprs, symbols, point, sizes):
    """SymPy substitution of numbers (no NumPy, no evaluator)."""
    values = {**dict(zip(symbols, point)), **sizes}
    return tuple(int(sympy.sympify(e).subs(values)) for e in exprs)


def _valid(m: la.IndexMap, slot, sizes) -> bool:
    if m.valid is None:
        return True
    value = m.valid.subs({**dict(zip(m.codomain.symbols, slot)), **sizes})
    assert value in (sympy.true, sympy.false), value
    return bool(value)


@pytest.mark.parametrize("name, build, expected", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.tuples(*[st.integers(1, 5)] * 4))
def test_a_recorded_map_is_exact_at_every_size(name, build, expected, sizes):
    m = build()
    assert facts.is_exact(m), name
    values = {s: v for s, v in zip((M, N, T, B), sizes) if s in m.parameters}
    extents, image = expected(*sizes)
    domain = [int(sympy.sympify(e).subs(values)) for e in m.domain.extents]
    assert tuple(int(sympy.sympify(e).subs(values)) for e in m.codomain.extents) == extents
    points = list(itertools.product(*(range(e) for e in domain)))
    images = {}
    for p in points:
        y = image(p)
        assert _at(m.exprs, m.domain.symbols, p, values) == y, (name, sizes, p)
        assert all(0 <= c < e for c, e in zip(y, extents)), (name, sizes, p, y)  # in bounds
        assert _valid(m, y, values), (name, sizes, p, y)
        assert _at(m.inverse, m.codomain.symbols, y, values) == p      # left inverse
        images[y] = p
    assert len(images) == len(points)                                   # one-to-one
    slots = [y for y in itertools.product(*(range(e) for e in extents)) if _valid(m, y, values)]
    assert sorted(slots) == sorted(images)                              # onto the valid slots


# -- a size that may be zero or negative --------------------------------------------------

MAYBE_ZERO = M - 1          # 0 at M = 1
MAYBE_NEGATIVE = M - 5      # -4 at M = 1

SIZE_ARGUMENTS = [
    ("split factor", lambda v: la.split(S(i=8), "i", v)),
    ("pad multiple", lambda v: la.pad(S(i=8), "i", v)),
    ("pad to", lambda v: la.pad(S(i=1), "i", to=v)),
    ("cyclic parts", lambda v: la.cyclic(S(i=8), "i", v)),
    ("cyclic block", lambda v: la.cyclic(S(i=8), "i", 2, block=v)),
    ("scale factor", lambda v: la.scale(S(i=8), "i", v)),
    ("delinearize extent", lambda v: la.delinearize(S(i=8), "i", x=v, y=8)),
    ("space extent", lambda v: S(i=v)),
]


def test_the_sizes_are_zero_and_negative_in_python_ints():
    assert (1 - 1, 1 - 5) == (0, -4)   # M - 1 and M - 5 at M = 1


@pytest.mark.parametrize("value", [MAYBE_ZERO, MAYBE_NEGATIVE], ids=["M-1", "M-5"])
@pytest.mark.parametrize("build", [a[1] for a in SIZE_ARGUMENTS], ids=[a[0] for a in SIZE_ARGUMENTS])
def test_a_size_that_may_be_zero_or_negative_is_refused(build, value):
    with pytest.raises(la.SpaceError, match=r"must be a positive integer.*got M - [15]"):
        build(value)


def test_an_offset_amount_may_be_zero_at_some_size():
    m = la.offset(S(i=3), "i", MAYBE_ZERO)
    assert facts.is_exact(m)
    at_one = m.bind(M=1)   # shift 0: every slot holds its own element
    assert [at_one(i) for i in range(3)] == [(0,), (1,), (2,)]


def test_an_offset_amount_must_be_an_integer():
    with pytest.raises(MapError, match=r"offset: amount must be a nonnegative integer; got M/2"):
        la.offset(S(i=3), "i", M / 2)


def test_a_delinearize_that_may_be_too_small_is_built_but_not_recorded():
    """delinearize keeps its rule (tests/verify/test_radix.py builds such maps to
    refute them): N indices may not hold M, so Z3 decides, here M = 2, N = 1."""
    m = la.delinearize(S(i=M), "i", a=N)
    assert not facts.is_exact(m)
    verdict = la.check_in_bounds(m)
    assert verdict.refuted and verdict.counterexample["N"] < verdict.counterexample["M"]


# -- offset amounts and pad targets a·M + b·N + c, against Python --------------------------

GRID = range(1, 61)


def _python_negative(a: int, b: int, c: int):
    """A point (M, N) of the grid where a·M + b·N + c < 0, or None."""
    return next(((m, n) for m in GRID for n in GRID if a * m + b * n + c < 0), None)


linear = st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-6, 40))


def _settle(m: la.IndexMap, refuted_at):
    """A recorded map holds on the grid; an unrecorded one is settled by Z3 as Python says."""
    if facts.is_exact(m):
        assert refuted_at is None
        return
    verdict = la.check_in_bounds(m, timeout_ms=20_000)
    if refuted_at is None:
        assert verdict.proved, verdict.reason
    else:
        assert verdict.refuted, verdict.reason
        return verdict.counterexample
    return None


@settings(max_examples=120, deadline=None)
@given(coefficients=linear)
def test_offset_amounts_agree_with_python(coefficients):
    a, b, c = coefficients
    amount = a * M + b * N + c
    assume(sympy.sympify(M + amount).is_positive)   # else the codomain itself is refused
    try:
        m = la.offset(S(i=M), "i", amount)
    except MapError as refused:
        assert _python_negative(a, b, c) is not None, refused
        return
    ce = _settle(m, _python_negative(a, b, c))
    if ce is not None:   # Z3's point, checked in Python: element 0 escapes
        assert a * ce["M"] + b * ce.get("N", 1) + c < 0


@settings(max_examples=120, deadline=None)
@given(coefficients=linear)
def test_pad_targets_agree_with_python(coefficients):
    a, b, c = coefficients
    to = a * M + b * N + c
    assume(sympy.sympify(to).is_positive)           # else check_extent refuses `to`
    try:
        m = la.pad(S(i=M), "i", to=to)
    except MapError as refused:    # to - M = (a - 1)·M + b·N + c
        assert _python_negative(a - 1, b, c) is not None, refused
        return
    ce = _settle(m, _python_negative(a - 1, b, c))
    if ce is not None:   # Z3's point, checked in Python: element M - 1 escapes [0, to)
        size_m = ce["M"]
        assert not size_m - 1 < a * size_m + b * ce.get("N", 1) + c


def test_an_amount_negative_only_past_the_trial_sizes_is_left_to_z3():
    """20 - M is negative from M = 21: no small size shows it, so the map is
    built unrecorded and Z3 finds the point."""
    assert next(m for m in range(1, 40) if 20 - m < 0) == 21
    m = la.offset(S(i=M), "i", 20 - M)   # into [0, 20)
    assert not facts.is_exact(m)
    verdict = la.check_in_bounds(m)
    assert verdict.refuted and 20 - verdict.counterexample["M"] < 0


def test_mesh_pad_to_the_pe_count_is_proved_not_trusted():
    """``MeshLayout`` pads ceil(M / ceil(M / PR)) PE tiles to PR
    (layoutalg/mesh/maps.py): never more, but SymPy cannot show it, so Z3
    proves it. Python: the tile count never exceeds PR."""
    assert all(ceil(m, ceil(m, pr)) <= pr for m in range(1, 80) for pr in range(1, 20))
    PR = la.extents("PR")[0]
    tiles = sympy.ceiling(M / sympy.ceiling(M / PR))
    m = la.pad(S(i=tiles), "i", to=PR)
    assert not facts.is_exact(m)
    assert facts.in_own_codomain(m).proved and facts.inverse_exact(m).proved
