"""``same_for_every_size(a, b)``: True only when a == b at every size.

The truth comes from plain Python ints: ``-(-a // b)`` is ceil(a / b)."""

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.expr import ceil_div, same_for_every_size

M, N, P = sympy.symbols("M N P", integer=True, positive=True)


def _ceil(a, b):
    return -(-a // b)


def test_the_mesh_and_dtensor_case_differs():
    # PR = 4 PEs, M = 5 rows in blocks of ceil(5/4) = 2: ceil(5/2) = 3 blocks, not 4
    assert _ceil(5, _ceil(5, 4)) == 3
    assert not same_for_every_size(ceil_div(M, ceil_div(M, P)), P)


def test_equal_forms_are_the_same():
    assert same_for_every_size(M + M, 2 * M)
    assert same_for_every_size(ceil_div(M * P, P), M)  # (M*P + P - 1) // P == M
    assert all(_ceil(m * p, p) == m for m in range(1, 30) for p in range(1, 30))


def test_a_difference_no_trial_size_shows_is_left_to_simplify():
    # (M - 100)**2 + 1 > 0 differs from 0 everywhere; 0 at no size
    assert not same_for_every_size((M - 100) ** 2 + 1, 0)


#: each term as SymPy holds it and as plain Python computes it
_TERMS = [
    (M, lambda m, n, p: m), (N, lambda m, n, p: n), (P, lambda m, n, p: p),
    (2 * M, lambda m, n, p: 2 * m), (M + N, lambda m, n, p: m + n),
    (ceil_div(M, P), lambda m, n, p: _ceil(m, p)),
    (ceil_div(M, ceil_div(M, P)), lambda m, n, p: _ceil(m, _ceil(m, p))),
    (M * N, lambda m, n, p: m * n), (sympy.Integer(3), lambda m, n, p: 3),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_TERMS), st.sampled_from(_TERMS), st.sampled_from(_TERMS))
def test_true_means_equal_at_every_size_tried(a, b, c):
    left, right = a[0] + b[0], b[0] + c[0]
    if same_for_every_size(left, right):
        for m, n, p in itertools.product(range(1, 9), repeat=3):
            assert a[1](m, n, p) + b[1](m, n, p) == b[1](m, n, p) + c[1](m, n, p)
    elif a[0] == c[0]:
        raise AssertionError("a + b and b + a are the same for every size")


def test_a_trial_where_the_difference_has_no_value_is_skipped():
    """A trial at Q = 4 evaluates M mod 0 (Python: 5 % 0 raises); it is skipped
    and another trial answers (M = 4, Q = 7: 4 mod 3 = 1, not 0)."""
    assert 4 % (7 - 4) == 1
    q = sympy.Symbol("Q", integer=True, positive=True, odd=True)
    assert not same_for_every_size(sympy.Mod(M, q - 4), 0)


def test_a_difference_zero_only_by_a_fact_z3_never_sees_is_not_the_same():
    """(M·Q + M) mod 2 is 0 for every odd Q, but the Z3 translation knows only
    "positive integer": at Q = 2, M = 1 it is 1 (plain ints). Saying "same" let
    pad drop its valid predicate, and Z3 refuted the padded map with Q = 2."""
    assert (1 * 2 + 1) % 2 == 1
    q = sympy.Symbol("Q", integer=True, positive=True, odd=True)
    assert not same_for_every_size(sympy.Mod(M * q + M, 2), 0)
    import layoutalg as la

    padded = la.pad(la.Space(i=M), "i", to=M + sympy.Mod(M * q + M, 2))
    assert padded.valid is not None
    assert la.check_bijective(padded, timeout_ms=10000).status is not la.Status.REFUTED


def test_a_size_with_no_value_at_a_trial_leaves_the_check_unknown():
    """The audit's map: an extent M·P + (M mod (P - 4))² with P odd. The map is
    row-major over the whole box, so onto; the check must not crash or refute
    (today it is UNKNOWN: Z3 cannot show the divisor P - 4 positive)."""
    import layoutalg as la

    (m,) = la.extents("M")
    p = sympy.Symbol("P", integer=True, positive=True, odd=True)
    extent = m * p + sympy.Mod(m, p - 4) ** 2
    domain = la.Space(i=m + 1, j=extent)
    i, j = domain.symbols
    flat = la.IndexMap(domain, la.Space(o=m * extent + extent), [i + (m + 1) * j])
    assert la.check_surjective(flat, timeout_ms=5000).status is not la.Status.REFUTED
