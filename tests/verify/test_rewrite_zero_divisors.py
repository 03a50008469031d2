"""The query rewrite never gives a value where Python's ``//`` and ``%`` have none.

``verify.rewrite`` simplifies ``Mod``/``floor``/``ceiling`` by rules that hold for
every non-zero divisor of either sign; ``x % 0`` and ``x // 0`` raise
``ZeroDivisionError``, and a rule that removes a divisor which may be 0 turns a
term with no value at a point into one with a value there (the audit's false
PROVED: ``Mod(Mod(i, 4*r), 4) -> Mod(i, 4)``). Every rule that removes a divisor
is pinned here, each against the formula as written, evaluated with plain Python
ints; the rewritten term is evaluated exactly with ``fractions.Fraction`` (its
own ``%`` and ``math.floor``), never with layoutalg's evaluators. A point where
Python raises must raise in the rewritten term too, and every other point must
give Python's value (negative divisors included: Python's floor semantics).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core.tiling import remainder
from layoutalg.verify import rewrite
from tests import int_oracle as oracle

i, j, r, x, y, a, b = sympy.symbols("i j r x y a b", integer=True, nonnegative=True)
z = sympy.Symbol("z", integer=True)  # may be negative
M, P = sympy.symbols("M P", integer=True, positive=True)


def mod(p, q):
    return sympy.Mod(p, q, evaluate=False)  # as core.tiling.remainder holds it


def floor(e):
    return sympy.floor(e, evaluate=False)


def ceiling(e):
    return sympy.ceiling(e, evaluate=False)


def exact(e: sympy.Basic, env: dict) -> Fraction:
    """``e`` at ``env``, exactly; ZeroDivisionError where a divisor is 0."""
    if e in (sympy.nan, sympy.zoo):  # SymPy's 0/0 and 1/0 (a literal divisor 0)
        raise ZeroDivisionError(str(e))
    if isinstance(e, sympy.Rational):
        return Fraction(int(e.p), int(e.q))
    if isinstance(e, sympy.Symbol):
        return Fraction(env[e])
    if isinstance(e, sympy.Add):
        return sum((exact(t, env) for t in e.args), Fraction(0))
    if isinstance(e, sympy.Mul):
        return math.prod((exact(t, env) for t in e.args), start=Fraction(1))
    if isinstance(e, sympy.Pow):
        return exact(e.args[0], env) ** int(e.args[1])  # 0 ** -1 raises
    if isinstance(e, sympy.Mod):
        return exact(e.args[0], env) % exact(e.args[1], env)
    if isinstance(e, sympy.floor):
        return Fraction(math.floor(exact(e.args[0], env)))
    if isinstance(e, sympy.ceiling):
        return Fraction(math.ceil(exact(e.args[0], env)))
    raise AssertionError(f"unexpected node {e!r}")


def outcome(f, *args):
    try:
        return f(*args)
    except ZeroDivisionError:
        return None


def agree_everywhere(term, truth, ranges):
    """The rewritten ``term`` has Python's value (or none) at every point of ``ranges``."""
    (rewritten,) = rewrite.substitute([term], [], [], ranges)
    names = list(ranges)
    seen_undefined = False
    for point in itertools.product(*(range(lo, hi + 1) for lo, hi in ranges.values())):
        env = dict(zip(names, point))
        want = outcome(truth, *point)
        got = outcome(exact, rewritten, env)
        assert got == want, (term, rewritten, env, want, got)
        seen_undefined |= want is None
    return rewritten, seen_undefined


# (term, Python formula over the range's symbols in order, ranges, does Python raise somewhere)
CASES = {
    # Mod(Mod(a, k), q) = Mod(a, q) for q | k: k = 4r is 0 at r = 0
    "mod_of_mod_by_4r": (mod(mod(i, 4 * r), 4), lambda i, r: (i % (4 * r)) % 4,
                         {i: (0, 9), r: (0, 2)}, True),
    # a multiple of q dropped from Mod(p, q): 4*Mod(i, r) has no value at r = 0
    "dropped_multiple": (mod(i + 4 * mod(i, r), 4), lambda i, r: (i + 4 * (i % r)) % 4,
                         {i: (0, 9), r: (0, 2)}, True),
    "dropped_multiple_8": (mod(j + 8 * mod(i, r), 4), lambda i, j, r: (j + 8 * (i % r)) % 4,
                           {i: (0, 5), j: (0, 5), r: (0, 2)}, True),
    # coefficient reduced (5 -> 1), the divisor r stays
    "reduced_coefficient": (mod(5 * mod(i, r) + j, 4), lambda i, j, r: (5 * (i % r) + j) % 4,
                            {i: (0, 5), j: (0, 5), r: (0, 2)}, True),
    # floor(p/q) = 0 for 0 <= p < q drops p, and p's divisor r with it
    "floor_to_zero": (floor(mod(mod(i, r), 4) / 8), lambda i, r: ((i % r) % 4) // 8,
                      {i: (0, 9), r: (0, 2)}, True),
    # floor((q*t)/q) = t drops the denominator q = r
    "floor_of_multiples": (floor((r * i + r * r) / r), lambda i, r: (r * i + r * r) // r,
                           {i: (0, 5), r: (0, 2)}, True),
    "ceiling_of_multiples": (ceiling((r * i + r * r) / r), lambda i, r: -(-(r * i + r * r) // r),
                             {i: (0, 5), r: (0, 2)}, True),
    # floor(floor(a/b)/c) = floor(a/(b*c)) only for b, c > 0
    "floor_of_floor_by_r": (floor(floor(i / r) / 2), lambda i, r: (i // r) // 2,
                            {i: (0, 9), r: (0, 3)}, True),
    # the removed r is still the outer divisor: no value at r = 0 either way
    "multiple_of_the_outer_divisor": (mod(r * mod(i, r) + i, r), lambda i, r: (r * (i % r) + i) % r,
                                      {i: (0, 9), r: (0, 3)}, True),
    # a tile count ceiling(r/2) is 0 at r = 0 (ceiling(p/q) >= 1 only for p, q > 0)
    "mod_of_mod_by_a_ceiling": (mod(mod(i, 4 * sympy.ceiling(r / 2)), 4),
                                lambda i, r: (i % (4 * -(-r // 2))) % 4,
                                {i: (0, 9), r: (0, 3)}, True),
    # divisors shown non-zero: r + 1 >= 1, a parameter, negative constants
    "mod_of_mod_by_4r_plus_4": (mod(mod(i, 4 * (r + 1)), 4), lambda i, r: (i % (4 * (r + 1))) % 4,
                                {i: (0, 19), r: (0, 3)}, False),
    "mod_of_mod_by_minus_8": (mod(mod(z, -8), 4), lambda z: (z % -8) % 4, {z: (-20, 20)}, False),
    "dropped_multiple_by_minus_3": (mod(z + 4 * mod(j, -3), 4), lambda j, z: (z + 4 * (j % -3)) % 4,
                                    {j: (0, 7), z: (-9, 9)}, False),
    "mod_by_minus_4_is_not_its_argument": (mod(z, -4), lambda z: z % -4, {z: (0, 3)}, False),
    "negative_coefficient": (mod(-5 * z + 3, 4), lambda z: (-5 * z + 3) % 4, {z: (-9, 9)}, False),
    "floor_by_minus_3": (floor((-3 * z + 7) / -3), lambda z: (-3 * z + 7) // -3, {z: (-9, 9)},
                         False),
    "floor_of_sum_by_r_plus_1": (floor(((r + 1) * i + j) / (r + 1)),
                                 lambda i, j, r: ((r + 1) * i + j) // (r + 1),
                                 {i: (0, 4), j: (0, 4), r: (0, 3)}, False),
}


@pytest.mark.parametrize("name", CASES)
def test_python_value_or_none_at_every_point(name):
    term, truth, ranges, raises_somewhere = CASES[name]
    _, seen_undefined = agree_everywhere(term, truth, ranges)
    assert seen_undefined == raises_somewhere  # the box reaches the zero divisor when there is one


# The guard must not cost the rules their use: a divisor shown non-zero is still removed.
SIMPLIFIED = [
    (mod(mod(i, 4 * M), 4), {i: (0, None)}, mod(i, 4)),
    (mod(mod(i, 4 * (r + 1)), 4), {i: (0, 19), r: (0, 3)}, mod(i, 4)),
    (mod(mod(z, -8), 4), {z: (-20, 20)}, mod(z, 4)),
    (mod(i + 4 * mod(j, -3), 4), {i: (0, 9), j: (0, 7)}, mod(i, 4)),
    (mod(r * mod(i, r) + i, r), {i: (0, 9), r: (0, 3)}, mod(i, r)),
    (mod(mod(i, 4 * r), 4), {i: (0, 9), r: (1, 2)}, mod(i, 4)),  # r >= 1 by its range
    (floor((r * i + r * r) / r), {i: (0, 5), r: (1, 2)}, i + r),
    # a tile count of positive sizes, ceiling(M/P) >= 1 (proofs/grid.py's ⌈M/PR⌉)
    (mod(mod(i, 4 * sympy.ceiling(M / P)), 4), {i: (0, None)}, mod(i, 4)),
    (mod(mod(i, 4 * (M + P)), 4), {i: (0, None)}, mod(i, 4)),
]


@pytest.mark.parametrize(("term", "ranges", "expected"), SIMPLIFIED)
def test_a_divisor_shown_non_zero_is_still_removed(term, ranges, expected):
    (rewritten,) = rewrite.substitute([term], [], [], ranges)
    assert rewritten == expected


def test_the_grid_inverse_keeps_its_simplifications():
    """``proofs/grid.py``'s inverse ``(r·TR + o // TC, c·TC + o mod TC)`` at the
    map's image: every divisor is a tile count ``ceiling(M/PR)`` of positive
    sizes, shown non-zero, so ``Mod(i, TR)·TC`` is still dropped from
    ``o mod TC`` and no ``Mod(0, d)`` witness enters (with ``TR`` not shown
    non-zero the term stayed and ``grid_all_sizes::bijective`` timed out)."""
    N, PR, PC = sympy.symbols("N PR PC", integer=True, positive=True)
    tr, tc = sympy.ceiling(M / PR), sympy.ceiling(N / PC)
    image = [i // tr, j // tc, mod(i, tr) * tc + mod(j, tc)]
    back = rewrite.substitute([x * tr + y // tc, b * tc + y % tc], [x, a, y], image,
                              {i: (0, None), j: (0, None)})
    assert back[1] == b * tc + mod(j, tc)
    witnesses = [n for e in back for n in sympy.preorder_traversal(e)
                 if isinstance(n, sympy.Mod) and n.args[0] == 0]
    assert witnesses == []
    # i = 7, j = 5, M = 8, PR = 3 (TR = 3), N = 6, PC = 2 (TC = 3): Python ints
    point = {i: 7, j: 5, b: 1, M: 8, PR: 3, N: 6, PC: 2}
    assert exact(back[0], point) == (7 // 3) * 3 + ((7 % 3) * 3 + 5 % 3) // 3 == 7
    assert exact(back[1], point) == 1 * 3 + ((7 % 3) * 3 + 5 % 3) % 3 == 5


def test_mod_of_mod_by_4r_when_r_is_at_least_1_in_python():
    """The last two simplifications hold in Python ints where r >= 1."""
    assert all((i_ % (4 * r_)) % 4 == i_ % 4 for i_ in range(50) for r_ in range(1, 6))
    assert all((r_ * i_ + r_ * r_) // r_ == i_ + r_ for i_ in range(9) for r_ in range(1, 6))


def test_a_floor_dropped_to_zero_is_not_proved_in_bounds():
    """``(i, r) -> ((i % r) % 4) // 8`` into ``[0, 1)``: Python raises at r = 0, yet
    ``floor(p/8) = 0`` for ``0 <= p < 8`` made the old query's image 0 (PROVED)."""
    domain = la.Space(i=4, r=3)
    i_, r_ = domain.symbols
    m = la.IndexMap(domain, la.Space(o=1, r=3), [floor(remainder(remainder(i_, r_), 4) / 8), r_],
                    name="floor_to_zero")
    assert outcome(lambda: ((1 % 0) % 4) // 8) is None
    assert not la.check_in_bounds(m).proved
    assert not la.check_bijective(m).proved


# SymPy's sums and products cancel after a substitution: x/y at x = y = a is 1, and
# Mod(x, b) - Mod(y, b) is 0, where Python's a // a and (a % b) - (a % b) have no value
# at a = 0 (b = 0). The rewrite keeps the divisor as a witness Mod(0, d) (0 where d != 0).
CANCELLED = {
    "quotient_of_equal_terms": (floor(x / y), (a, a), lambda a, b: a // a),
    "difference_of_equal_remainders": (mod(x, b) - mod(y, b), (a, a),
                                       lambda a, b: (a % b) - (a % b)),
    "ceiling_of_equal_terms": (ceiling((x + 1) / (y + 1)), (a - 1, a - 1),
                               lambda a, b: -(-(a - 1 + 1) // (a - 1 + 1))),
}


@pytest.mark.parametrize("name", CANCELLED)
def test_a_divisor_sympy_cancels_after_substitution_keeps_its_zero(name):
    term, (gx_term, gy_term), truth = CANCELLED[name]
    ranges = {a: (0, 3), b: (0, 3)}
    (rewritten,) = rewrite.substitute([term], [x, y], [gx_term, gy_term], ranges)
    undefined = 0
    for av, bv in itertools.product(range(4), range(4)):
        want = outcome(truth, av, bv)
        assert outcome(exact, rewritten, {a: av, b: bv}) == want, (rewritten, av, bv)
        undefined += want is None
    assert undefined > 0


# -- differential: random compositions, divisors that may be 0 or negative ----------------

NAMESPACE = {"x": x, "y": y, "a": a, "b": b}


def built(e: tuple) -> sympy.Expr:
    """The written formula in SymPy, its Mod/floor/ceiling unevaluated."""
    op = e[0]
    if op == "c":
        return sympy.Integer(e[1])
    if op == "v":
        return NAMESPACE[e[1]]
    if op == "p":
        return M
    left, right = built(e[1]), built(e[2])
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "%":
        return mod(left, right)
    if op == "//":
        return floor(left / right)
    return ceiling(left / right)  # "ceil"


def divisor_trees(names):
    const = st.sampled_from([-4, -3, -1, 1, 2, 3, 4, 8]).map(lambda v: ("c", v))
    coordinate = st.sampled_from([("v", n) for n in names])
    return st.one_of(
        const, const, st.just(("p", "M")), coordinate,                        # a coordinate may be 0
        st.tuples(st.just("*"), coordinate, st.integers(1, 4).map(lambda v: ("c", v))),
        st.tuples(st.just("+"), coordinate, st.just(("c", 1))),              # >= 1
        st.tuples(st.just("-"), coordinate, st.just(("c", 1))),              # may be -1, 0
    )


def trees(names):
    leaves = st.one_of(st.sampled_from([("v", n) for n in names]),
                       st.integers(-3, 9).map(lambda v: ("c", v)))

    def extend(inner):
        binary = st.tuples(st.sampled_from(["+", "-", "*"]), inner, inner)
        rounded = st.tuples(st.sampled_from(["//", "%", "ceil"]), inner, divisor_trees(names))
        scaled = st.tuples(st.just("*"), st.integers(-3, 8).map(lambda v: ("c", v)), inner)
        return st.one_of(binary, rounded, rounded, scaled)

    return st.recursive(leaves, extend, max_leaves=8)


@st.composite
def boxes(draw):
    """Sizes of ``a`` and ``b`` (0 is always a point) and points inside them."""
    a_size, b_size = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return a_size, b_size, list(itertools.product(range(a_size), range(b_size)))


@settings(max_examples=200, deadline=None)
@given(trees("xyab"), trees("ab"), trees("ab"), boxes(), st.booleans(), st.booleans())
def test_substitution_never_gives_a_value_python_has_not(outer, gx, gy, box, ranged, same):
    """``same``: y gets x's term, where SymPy's own sums and products cancel most."""
    gy = gx if same else gy
    a_size, b_size, points = box
    ranges = {a: (0, a_size - 1), b: (0, b_size - 1)} if ranged else {}
    try:
        written = [built(outer), built(gx), built(gy)]
    except ZeroDivisionError:
        return  # SymPy refuses a literal 0 divisor the tree folded to: nothing to rewrite
    (rewritten,) = rewrite.substitute(written[:1], [x, y], written[1:], ranges)
    composed = oracle.substitute(outer, {"x": gx, "y": gy})
    for m_value, (av, bv) in itertools.product((1, 3), points):
        env = {"a": av, "b": bv, "M": m_value}
        values = {a: av, b: bv, M: m_value}
        want = outcome(oracle.value, composed, env, {"M": m_value})
        if want is None and given(written, values) is not None:
            continue  # SymPy's construction cancelled the divisor (x/x is 1): not the rewrite's
        got = outcome(exact, rewritten, values)
        assert got == want, (outer, gx, gy, rewritten, env)


def given(written, values):
    """The value of the outer term SymPy holds at the values of the two it holds."""
    outer, *inner = written
    env = dict(values)
    for symbol, term in zip((x, y), inner):
        value = outcome(exact, term, values)
        if value is not None:
            env[symbol] = value
    try:
        return exact(outer, env)
    except (ZeroDivisionError, KeyError):  # KeyError: it needs an inner term that has no value
        return None
