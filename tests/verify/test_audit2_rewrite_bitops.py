"""Audit 2 reproducer: verify.rewrite rebuilds a bit operation with evaluation
(its default ``e.func(*args)``), and ``x ^ x`` is 0: substituting ``a = b = i``
into ``Mod(a, M - 1) ^ Mod(b, M - 1)`` gives 0, dropping the divisor M - 1, which
is 0 at M = 1 where Python's ``i % 0`` has no value (the witness ``Mod(0, d)`` of
6460246 was kept only for sums, products and powers). Fixed:
``rewrite._Rewriter.witnessed`` keeps it (``+ Mod(0, d)``)."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.core.bits import bit_xor
from layoutalg.verify import rewrite

M, = la.extents("M")
a, b, i = sympy.symbols("a b i", integer=True, nonnegative=True)


def test_truth():
    with pytest.raises(ZeroDivisionError):
        _ = (0 % (1 - 1)) ^ (0 % (1 - 1))
    assert all((k % 4) ^ (k % 4) == 0 for k in range(10))


def test_rewrite_keeps_divisor_of_cancelled_xor():
    (out,) = rewrite.substitute([bit_xor(sympy.Mod(a, M - 1), sympy.Mod(b, M - 1))],
                                [a, b], [i, i])
    assert (M - 1) in rewrite._divisors(out)
