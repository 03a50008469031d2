"""``check_padding`` with symbolic sizes: a count written in another form than the map's.

The device of ``parametric_default_map((S0, S1), E)`` is ``[⌈S1/E⌉, S0, E]``, so it has
``S0·(E·⌈S1/E⌉ − S1)`` padding slots. ``E·(⌊(S1 − 1)/E⌋ + 1)`` is ``E·⌈S1/E⌉`` for every
positive ``S1`` (no algebraic expansion shows it; Z3 decides it), and ``E·(⌊S1/E⌋ + 1)``
is not: at S0 = S1 = E = 1 the device has 1·(1·1 − 1) = 0 padding slots, not 1·(1·2 − 1) = 1.
"""

from __future__ import annotations

import sympy

import layoutalg as la
from layoutalg.spyre.checks import check_padding
from layoutalg.spyre.defaults import parametric_default_map


def test_an_equal_count_in_another_form_is_proved_and_a_wrong_one_refuted():
    s0, s1, e = la.extents("S0 S1 E")
    m = parametric_default_map((s0, s1), e)
    assert check_padding(m, s0 * (e * sympy.ceiling(s1 / e) - s1)).proved
    assert check_padding(m, s0 * e * sympy.ceiling(s1 / e) - s0 * s1).proved
    assert check_padding(m, s0 * (e * (sympy.floor((s1 - 1) / e) + 1) - s1)).proved
    wrong = check_padding(m, s0 * (e * (sympy.floor(s1 / e) + 1) - s1))
    assert wrong.refuted
    ce = wrong.counterexample
    s0v, s1v, ev = ce["S0"], ce["S1"], ce["E"]
    assert ce["padding"] == s0v * (ev * -(-s1v // ev) - s1v)
    assert ce["padding"] != s0v * (ev * (s1v // ev + 1) - s1v)
