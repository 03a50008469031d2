"""A divisor counts as written, even where SymPy could cancel it.

``floor((i*r + r**2)/r)`` is ``i + r`` for every r > 0, but at r = 0 Python's
``(i*r + r*r) // r`` raises: the map has no value there. Bringing the
fraction together cancels r, so a rule reading only the combined
denominator saw no divisor, the evaluator gave ``m(1, 0) = (1, 0)`` and
``check_bijective`` said PROVED (found by the session's audit). Every
divisor as written now meets the rule (a positive integer), so the
evaluator refuses and the checks answer UNKNOWN, never PROVED.
"""

import pytest
import sympy

import layoutalg as la
from layoutalg.core.expr import divisors, written_divisors

i, r = sympy.symbols("i r", integer=True, nonnegative=True)


def _cancelling_map():
    grid = la.Space.of(("i", "r"), (4, 4))
    return la.IndexMap(grid, la.Space.of(("a", "b"), (8, 4)),
                       [sympy.floor((i * r + r**2) / r) - r, r])


def test_python_has_no_value_at_r_zero():
    with pytest.raises(ZeroDivisionError):
        (1 * 0 + 0 * 0) // 0  # noqa: B018 - the truth the map must keep


def test_the_evaluator_refuses_the_cancelled_divisor():
    with pytest.raises(la.MapError, match="division by r"):
        _cancelling_map()(1, 0)


@pytest.mark.parametrize("check", [la.check_bijective, la.check_injective, la.check_in_bounds])
def test_no_check_proves_it(check):
    assert check(_cancelling_map()).status is not la.Status.PROVED


def test_the_walker_lists_it():
    expr = sympy.floor((i * r + r**2) / r)
    assert r in divisors(expr)
    assert written_divisors((i * r + r**2) / r) == (r,)


def test_a_positive_written_divisor_is_still_fine():
    # (i*M + M**2)/M with M a positive size: M cancels and is > 0, so the map
    # evaluates as Python does: (i*M + M*M) // M == i + M
    M = sympy.Symbol("M", integer=True, positive=True)
    m = la.IndexMap(la.Space.of(("i",), (4,)), la.Space.of(("a",), (12,)),
                    [sympy.floor((i * M + M**2) / M)]).bind(M=5)
    assert [m(k)[0] for k in range(4)] == [(k * 5 + 25) // 5 for k in range(4)]
