"""The substitution queries use (``verify.rewrite``) is the same integer function.

The rules replace SymPy's evaluation of ``Mod``/``floor``/``ceiling`` when a
query substitutes points or inverses into a map (issue 17). Each rewritten
term is compared, at every point of a small box, with the composition
computed by plain Python ints from the written formulas (``int_oracle``:
``//`` and ``%`` as Python has them), never with layoutalg's own evaluators.
"""

from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.verify import rewrite
from tests import int_oracle as oracle

COORD = {n: sympy.Symbol(n, integer=True, nonnegative=True) for n in "xyab"}
M = sympy.Symbol("M", integer=True, positive=True)
NAMESPACE = {"sympy": sympy, "M": M, **COORD}


def sympy_of(e: tuple) -> sympy.Expr:
    return eval(oracle.source(e, {}, {"M": "M"}), dict(NAMESPACE))  # noqa: S307 - our own text


@st.composite
def divisors(draw):
    kind = draw(st.sampled_from(["const", "const", "param", "scaled"]))
    if kind == "const":
        return ("c", draw(st.integers(1, 8)))
    if kind == "param":
        return ("p", "M")
    return ("*", ("p", "M"), ("c", draw(st.integers(1, 4))))


def trees(names):
    leaves = st.one_of(st.sampled_from([("v", n) for n in names]),
                       st.integers(-3, 9).map(lambda v: ("c", v)))

    def extend(inner):
        binary = st.tuples(st.sampled_from(["+", "-", "*"]), inner, inner)
        rounded = st.tuples(st.sampled_from(["//", "%", "ceil"]), inner, divisors())
        scaled = st.tuples(st.just("*"), st.integers(-3, 8).map(lambda v: ("c", v)), inner)
        return st.one_of(binary, rounded, rounded, scaled)

    return st.recursive(leaves, extend, max_leaves=8)


def value_of(expr: sympy.Basic, env: dict) -> int:
    """SymPy's arithmetic on numbers (no symbol left), as a Python int; doit()
    evaluates a node rewrite left unevaluated over numbers (floor(-1/2))."""
    return int(expr.xreplace({COORD[n]: sympy.Integer(v) for n, v in env.items() if n in COORD}
                             | {M: sympy.Integer(env["M"])}).doit())


@st.composite
def boxes(draw):
    """Sizes of ``a`` and ``b`` and points inside them (the corners always)."""
    a_size, b_size = draw(st.integers(1, 60)), draw(st.integers(1, 60))
    inside = st.tuples(st.integers(0, a_size - 1), st.integers(0, b_size - 1))
    corners = [(0, 0), (a_size - 1, b_size - 1), (a_size - 1, 0), (0, b_size - 1)]
    return a_size, b_size, corners + draw(st.lists(inside, min_size=5, max_size=25))


@settings(max_examples=200, deadline=None)
@given(trees("xy"), trees("ab"), trees("ab"), boxes(), st.booleans())
def test_substitution_is_the_composition_python_computes(outer, gx, gy, box, ranged):
    x, y, a, b = (COORD[n] for n in "xyab")
    a_size, b_size, points = box
    ranges = {a: (0, a_size - 1), b: (0, b_size - 1)} if ranged else {}
    (rewritten,) = rewrite.substitute([sympy_of(outer)], [x, y], [sympy_of(gx), sympy_of(gy)],
                                      ranges)
    composed = oracle.substitute(outer, {"x": gx, "y": gy})
    for m_value, (av, bv) in itertools.product((1, 3, 7), points):
        env = {"a": av, "b": bv, "M": m_value}
        truth = oracle.value(composed, env, {"M": m_value})
        assert value_of(rewritten, env) == truth, (rewritten, composed, env)


def test_floor_of_a_floor_meets_the_flat_floor():
    """floor(floor(i/B)/P) and floor(i/(B·P)) are one term after the rules, so an
    equivalence that differs only there needs no solver (the block-cyclic chain
    against MeshLayout.block_cyclic)."""
    i = COORD["x"]
    B, P = sympy.symbols("B P", integer=True, positive=True)
    nested = sympy.floor(sympy.floor(i / B) / P)
    flat = sympy.floor(i / (B * P))
    ranges = {i: (0, None)}
    assert rewrite.substitute([nested], [], [], ranges) == rewrite.substitute([flat], [], [], ranges)
    # values (hand-computed): i = 23, B = 2, P = 3 → 23 // 2 = 11, 11 // 3 = 3; 23 // 6 = 3
    (term,) = rewrite.substitute([nested], [], [], ranges)
    assert int(term.xreplace({i: 23, B: 2, P: 3})) == 3


def test_ranges_drop_a_modulo_that_cannot_wrap_and_keep_one_that_can():
    a, b = COORD["a"], COORD["b"]
    x = COORD["x"]
    (inside,) = rewrite.substitute([sympy.Mod(x, 8)], [x], [a], {a: (0, 7)})
    (wraps,) = rewrite.substitute([sympy.Mod(x, 8)], [x], [a], {a: (0, 8)})
    assert inside == a
    assert isinstance(wraps, sympy.Mod)
    # a + b reaches 8 at a = b = 4: (4 + 4) % 8 = 0, so the Mod must stay
    (edge,) = rewrite.substitute([sympy.Mod(x, 8)], [x], [a + b], {a: (0, 4), b: (0, 4)})
    assert int(edge.xreplace({a: 4, b: 4})) == 0
    (below,) = rewrite.substitute([sympy.Mod(x, 8)], [x], [a + b], {a: (0, 4), b: (0, 3)})
    assert below == a + b
    (split,) = rewrite.substitute([sympy.floor(x / 4), sympy.Mod(x, 4)][:1], [x], [4 * a + b],
                                  {a: (0, 9), b: (0, 3)})
    assert split == a  # floor((4a + b)/4) = a for 0 <= b < 4


def test_sizes_alone_are_left_as_written():
    """A term of the extents only is not rewritten: the solver names it as
    written, and the codomain's bounds use the same term."""
    N, C = sympy.symbols("N C", integer=True, positive=True)
    tile = sympy.ceiling(sympy.ceiling(N / C) / 4)
    x = COORD["x"]
    (out,) = rewrite.substitute([x * tile], [x], [COORD["a"]], {COORD["a"]: (0, None)})
    assert out == COORD["a"] * tile
