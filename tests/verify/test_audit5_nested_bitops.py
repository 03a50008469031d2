"""Audit 5: a bit operation nested inside another escapes ``terms._defined``.

8132285 guards every bit operation under ``mod``/``floor`` (``expr.atoms``), and
``Translator._term`` guards a bare one, but only its *direct* arguments:
``core.bit_facts.known_nonnegative`` says True for any ``BitOp`` ("its own
arguments are checked where it is encoded"), and the Int encoding does not
encode the inner one through ``term``: ``bits._structural_split`` reads it
(``BitAnd`` with a constant mask, ``BitXor``) and ``_fresh_split`` takes the
two's complement of its negative argument. So ``((a - 1) & 3) ^ 1`` over
``a in [0, 4)`` is PROVED in bounds, injective, on valid slots, onto and a
bijection, though at ``a = 0`` it has no value (``bit_and(-1, 3)`` is refused
by the evaluator, like ``x mod 0``). Where Z3 instead finds a point at the
negative argument (``((a - 1) ^ 1) ^ 0``, -2 at a = 0 in two's complement),
``check_in_bounds`` crashes reading its counterexample (MapError), a
counterexample that is not genuine.

Truth in plain Python ints: a - 1 = -1 < 0 at a = 0, outside the domain of
every bit operation (core.bits); the other three points are fine.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.core.bits import bit_and, bit_xor, shift_right
from layoutalg.errors import MapError
from layoutalg.verify.result import Status


def _map(kind: str) -> la.IndexMap:
    d = la.Space.of(("a",), (4,))
    (a,) = d.symbols
    expr = {"xor_and": bit_xor(bit_and(a - 1, 3), 1),
            "and_and": bit_and(bit_and(a - 1, 7), 3),
            "xor_xor": bit_xor(bit_xor(a - 1, 1), 0),
            # the inner one under a Mod, a product, a shift: read by the split too
            "xor_mod_and": bit_xor(sympy.Mod(bit_and(a - 1, 7), 4), 1),
            "and_mul_and": bit_and(2 * bit_and(a - 1, 1), 3),
            "and_shr": bit_and(shift_right(a - 1, 1), 3)}[kind]
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [expr], name=kind)


def test_truth_in_plain_python():
    assert [a - 1 for a in range(4) if a - 1 < 0] == [-1]  # no value at a = 0
    assert [((a - 1) & 3) ^ 1 for a in range(1, 4)] == [1, 0, 3]
    for kind in ("xor_and", "and_and", "xor_xor", "xor_mod_and", "and_mul_and", "and_shr"):
        with pytest.raises(MapError):
            _map(kind)(0)


CHECKS = [la.check_in_bounds, la.check_injective, la.check_images_valid,
          la.check_surjective, la.check_bijective]


@pytest.mark.parametrize("kind", ["xor_and", "and_and"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_not_proved_where_a_nested_argument_is_negative(kind, check):
    assert check(_map(kind)).status is not Status.PROVED


def test_in_bounds_gives_a_verdict_not_a_crash():
    m = _map("xor_xor")
    result = la.check_in_bounds(m)
    assert result.status is not Status.PROVED
    if result.status is Status.REFUTED:  # a genuine point: the map has a value there
        m(result.counterexample["a"])


@pytest.mark.parametrize("kind", ["xor_mod_and", "and_mul_and", "and_shr"])
def test_in_bounds_not_proved_through_other_nestings(kind):
    assert la.check_in_bounds(_map(kind)).status is not Status.PROVED


def test_surjective_by_the_inverse_not_proved():
    d, c = la.Space.of(("a",), (4,)), la.Space.of(("p",), (4,))
    (a,), (p,) = d.symbols, c.symbols
    m = la.IndexMap(d, c, [bit_xor(bit_and(a - 1, 3), 1)],
                    inverse=[sympy.Mod(bit_xor(p, 1) + 1, 4)], name="inv")
    assert la.check_surjective(m).status is not Status.PROVED
