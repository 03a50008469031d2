"""Audit 2 reproducer: compose substitutes ``first``'s images into ``then``'s
formulas with SymPy's evaluation (index_map.substitute_exprs: xreplace), which
cancels ``Mod(i, M - 1) - Mod(i, M - 1)`` to 0 when ``first`` sends two dims to
the same image. The divisor M - 1 (0 at M = 1) is lost: the composed map has the
value 0 + i at M = 1, where ``then(first(i))`` has none (Python's ``i % 0``);
the promise is that such a map is refused there (UndefinedValueError), as
verify.rewrite keeps a witness ``Mod(0, d)`` for a divisor SymPy cancels. Fixed:
``core.index_map.substitute`` keeps the same witness."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la

M, = la.extents("M")


def python_then_first(i: int, m: int) -> int:
    a, b = i, i  # first: i -> (i, i)
    return a + a % (m - 1) - b % (m - 1)  # then: (a, b) -> a + a mod (M-1) - b mod (M-1)


def maps() -> tuple[la.IndexMap, la.IndexMap]:
    d = la.Space(i=M)
    (i,) = d.symbols
    mid = la.Space(a=M, b=M)
    a, b = mid.symbols
    first = la.IndexMap(d, mid, [i, i], name="dup")
    then = la.IndexMap(mid, la.Space(o=M), [a + sympy.Mod(a, M - 1) - sympy.Mod(b, M - 1)],
                       name="then")
    return first, then


def test_truth_and_agreement_where_defined():
    with pytest.raises(ZeroDivisionError):
        python_then_first(0, 1)
    h = la.compose(*maps())
    for m in (2, 3, 5):
        assert [h.bind(M=m)(i)[0] for i in range(m)] == [python_then_first(i, m)
                                                           for i in range(m)]


def test_composed_map_has_no_value_at_m_1():
    with pytest.raises(la.LayoutError):  # refused at M = 1 (or the composition refused)
        la.compose(*maps()).bind(M=1)(0)
