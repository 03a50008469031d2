"""``core.tiling``'s digit arithmetic with ``lazy=True`` (SymPy's floor and ``Mod`` left
unevaluated), as the Tenstorrent maps build it.

Every function must give the values of plain Python integer arithmetic (``//`` and ``%``,
floor semantics) at every integer point, negative ones included, whether given ints or
SymPy expressions (evaluated afterwards by substitution); and the one rewrite it makes,
``Mod(Mod(x, k·m), m)`` → ``Mod(x, m)``, must hold wherever it is made.
"""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core import tiling


class lazy:  # noqa: N801 - the lazy forms, by the names the TT maps use
    digits = staticmethod(lambda value, factor: tiling.digits(value, factor, lazy=True))
    unflatten = staticmethod(lambda index, sizes: tiling.unflatten(index, sizes, lazy=True))
    unflatten_colex = staticmethod(
        lambda index, sizes: tiling.unflatten_colex(index, sizes, lazy=True))
    face_position = staticmethod(
        lambda offset, shape, per_row: tiling.face_position(offset, shape, per_row, lazy=True))

X = sympy.Symbol("x", integer=True)


def _at(expr, x: int) -> int:
    return int(expr.xreplace({X: sympy.Integer(x)})) if isinstance(expr, sympy.Basic) else expr


@settings(max_examples=150, deadline=None)
@given(x=st.integers(-10**6, 10**6), outer=st.integers(1, 40), factor=st.integers(1, 40),
       wrap=st.booleans())
def test_digits_are_floor_division_and_remainder(x, outer, factor, wrap):
    modulus = outer * factor
    value = sympy.Mod(3 * X + 5, modulus, evaluate=False) if wrap else 3 * X + 5
    truth = ((3 * x + 5) % modulus) if wrap else 3 * x + 5
    q, r = lazy.digits(value, factor)
    assert (_at(q, x), _at(r, x)) == (truth // factor, truth % factor)
    assert lazy.digits(truth, factor) == (truth // factor, truth % factor)


def test_a_remainder_of_a_multiple_is_folded_and_no_other():
    _, r = lazy.digits(sympy.Mod(X, 1024, evaluate=False), 16)
    assert r == sympy.Mod(X, 16)
    _, kept = lazy.digits(sympy.Mod(X, 24, evaluate=False), 16)  # 16 does not divide 24
    assert kept.args[0] == sympy.Mod(X, 24, evaluate=False)
    assert [_at(kept, x) for x in (-5, 23, 40)] == [(x % 24) % 16 for x in (-5, 23, 40)]


@settings(max_examples=100, deadline=None)
@given(x=st.integers(-5000, 5000), sizes=st.lists(st.integers(1, 9), min_size=1, max_size=4))
def test_unflatten_peels_digits_like_python(x, sizes):
    coords = lazy.unflatten(X, (None, *sizes))
    rest, want = x, []
    for size in reversed(sizes):
        rest, digit = divmod(rest, size)
        want.append(digit)
    want = [rest, *want[::-1]]
    assert [_at(c, x) for c in coords] == want
    assert lazy.unflatten(x, (None, *sizes)) == want
    assert [_at(c, x) for c in lazy.unflatten_colex(X, (*sizes[::-1], None))] == want[::-1]


def test_face_position_of_a_32_by_32_tile():
    """TT-Metal tile.hpp: four 16 × 16 faces, row-major over the tile, each row-major:
    offset 786 = face 3 (rows 16.., cols 16..), row 1, col 2 → (17, 18); offset 256 is
    face 1's first element, (0, 16)."""
    offset = sympy.Symbol("o", integer=True)
    row, col = lazy.face_position(offset, (16, 16), 2)
    assert [(int(row.xreplace({offset: v})), int(col.xreplace({offset: v})))
            for v in (0, 256, 512, 786, 1023)] == [(0, 0), (0, 16), (16, 0), (17, 18), (31, 31)]
