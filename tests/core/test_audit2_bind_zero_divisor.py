"""Audit 2 reproducer: binding a size where a written divisor becomes 0
(``i mod (M - 1)`` at M = 1, which Python's ``%`` has no value for) escapes
IndexMap.bind as SymPy's bare ZeroDivisionError, not one LayoutError
(UndefinedValueError, as the evaluator raises) naming the divisor. Fixed: bind
checks every written divisor first."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la

M, = la.extents("M")


def make() -> la.IndexMap:
    d = la.Space(i=M)
    (i,) = d.symbols
    return la.IndexMap(d, la.Space(o=M), [sympy.Mod(i, M - 1)], name="r")


def test_truth():
    with pytest.raises(ZeroDivisionError):
        _ = 0 % (1 - 1)  # M = 1: no value at any point
    assert [i % (3 - 1) for i in range(3)] == [0, 1, 0]
    assert make().bind(M=3)(2) == (0,)


def test_bind_to_zero_divisor_is_a_layout_error():
    with pytest.raises(la.LayoutError, match="M - 1|divisor"):
        try:
            make().bind(M=1)
        except ZeroDivisionError as exc:
            pytest.fail(f"bare ZeroDivisionError: {exc}")
