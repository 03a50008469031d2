"""``chunks.chunk_expr`` (Min/Max left unevaluated) is torch.chunk's rule.

Values pinned by hand from ``torch.chunk`` (5 rows over 4 ranks: 2/2/1/0;
pytorch#194457's nested 5 rows over 2 × 2: 2/1/1/1), at every rank of small
sizes against the int rule, and for every size by Z3 against SymPy's
evaluated Min/Max.
"""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.dtensor.chunks import chunk, chunk_expr, nested_chunk_expr
from layoutalg.verify.checks import check_equivalent

A, B = sympy.symbols("a b", integer=True, nonnegative=True)


def at(expr, **values) -> int:
    return int(sympy.sympify(expr).xreplace({sympy.Symbol(k, integer=True, nonnegative=True): v
                                             for k, v in values.items()}))


def test_torch_chunk_lengths_by_hand():
    lengths = [at(chunk_expr(5, 4, A)[1], a=a) for a in range(4)]
    assert lengths == [2, 2, 1, 0]
    starts = [at(chunk_expr(5, 4, A)[0], a=a) for a in range(4)]
    assert starts == [0, 2, 4, 5]
    nested = [at(nested_chunk_expr(5, (2, 2), (A, B))[1], a=a, b=b)
              for a in range(2) for b in range(2)]
    assert nested == [2, 1, 1, 1]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 8))
def test_every_rank_matches_the_int_rule(size, parts):
    start, length = chunk_expr(size, parts, A)
    for a in range(parts):
        c = -(-size // parts)
        assert (at(start, a=a), at(length, a=a)) == (min(size, a * c),
                                                    max(0, min(size, a * c + c) - a * c))
        assert (at(start, a=a), at(length, a=a)) == chunk(size, parts, a)


def test_for_every_size_the_same_as_sympys_evaluated_form():
    n, k = la.extents("n k")
    ranks = Space(a=k)
    (a,) = ranks.symbols
    c = sympy.ceiling(n / k)
    ours = IndexMap(ranks, Space(start=n + 1, length=n + 1), list(chunk_expr(n, k, a)), name="ours")
    evaluated = [sympy.Min(n, a * c), sympy.Max(0, sympy.Min(n, a * c + c) - a * c)]
    theirs = IndexMap(ranks, Space(start=n + 1, length=n + 1), evaluated, name="evaluated")
    assert check_equivalent(ours, theirs).proved
    off_by_one = IndexMap(ranks, Space(start=n + 1, length=n + 1),
                          [evaluated[0], sympy.Max(0, sympy.Min(n, a * c + c) - a * c - 1)],
                          name="wrong")
    assert check_equivalent(ours, off_by_one).refuted
