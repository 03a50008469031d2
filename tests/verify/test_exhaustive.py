"""``layoutalg.verify.exhaustive``: the enumeration that decides small concrete
maps inside ``query.shortcuts`` (``layoutalg prove``, ``bench/isl.py``).

Pinned by hand-computed truths, held to the test oracle
(``layoutalg.verify.brute``, a separate implementation) on random maps with
every counterexample replayed on the map, and to Z3 (forced: outside the
shortcuts every public check asks Z3).
"""

from __future__ import annotations

import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import equivalence_pairs, maps

import layoutalg as la
from layoutalg.errors import CompositionError
from layoutalg.verify import brute, exhaustive, query
from layoutalg.verify.result import Status


def _map(extents, codomain, exprs, valid=None, name="m"):
    domain = la.Space(**{f"x{k}": e for k, e in enumerate(extents)})
    cod = la.Space(**{f"y{k}": e for k, e in enumerate(codomain)})
    built = exprs(*domain.symbols)
    return la.IndexMap(domain, cod, list(built), name=name,
                       valid=None if valid is None else valid(*cod.symbols))


# -- truths computed by hand ------------------------------------------------------------


def test_row_major_is_a_bijection():
    m = _map([3, 4], [12], lambda i, j: [4 * i + j])
    verdict = exhaustive.bijective(m)
    assert verdict.proved and verdict.method == "enumeration"


def test_mod_collides_first_at_zero_and_four():
    # i mod 4 on [0, 8): 0 and 4 share slot 0, the first collision in row-major order
    m = _map([8], [4], lambda i: [sympy.Mod(i, 4)])
    verdict = exhaustive.injective(m)
    assert verdict.refuted and verdict.counterexample == {"x0": 0, "x0'": 4}


def test_shift_escapes_at_the_last_point():
    m = _map([4], [4], lambda i: [i + 1])
    verdict = exhaustive.in_bounds(m)
    assert verdict.refuted and verdict.counterexample == {"x0": 3}
    assert "y0=4 not in [0, 4)" in verdict.reason


def test_padding_slot_found():
    # 5 elements into 8 slots of which 6 are valid (y < 6): slot 5 stays empty
    m = _map([5], [8], lambda i: [i], valid=lambda y: y < 6)
    assert exhaustive.images_valid(m).proved
    empty = exhaustive.surjective(m)
    assert empty.refuted and empty.counterexample == {"y0": 5}
    assert exhaustive.bijective(m).counterexample == {"y0": 5}


def test_element_on_padding_found():
    # 2*i on [0, 4) into 8 slots, valid only below 5: element 3 lands on slot 6
    m = _map([4], [8], lambda i: [2 * i], valid=lambda y: y < 5)
    verdict = exhaustive.images_valid(m)
    assert verdict.refuted and verdict.counterexample == {"x0": 3}


def test_equivalence_differs_where_the_divisor_matters():
    # floor(i/4) vs floor(i/5) on [0, 10): first differ at i = 4 (1 vs 0)
    a = _map([10], [3], lambda i: [sympy.floor(i / 4)], name="a")
    b = _map([10], [3], lambda i: [sympy.floor(i / 5)], name="b")
    verdict = exhaustive.equivalent(a, b)
    assert verdict.refuted and verdict.counterexample == {"x0": 4}
    assert exhaustive.equivalent(a, a).proved


def test_images_past_int64_are_exact():
    # i * 2**62 on [0, 4): 2**62 escapes [0, 4) at i = 1; a wrap of 2**64 (i = 4) is never used,
    # and 3 * 2**62 is past int64: injective declines (Z3 decides), never a wrapped code
    m = _map([4], [4], lambda i: [i * 2**62])
    verdict = exhaustive.in_bounds(m)
    assert verdict.refuted and verdict.counterexample == {"x0": 1}
    assert exhaustive.injective(m) is None
    with query.shortcuts(reuse=False):
        public = la.check_injective(m)
    assert public.proved and public.method == "z3"


def test_public_check_enumerates_only_inside_shortcuts():
    m = _map([8], [4], lambda i: [sympy.Mod(i, 4)])
    outside = la.check_injective(m)
    with query.shortcuts(reuse=False):
        inside = la.check_injective(m)
    assert outside.method == "z3" and inside.method == "enumeration"
    assert outside.status is inside.status is Status.REFUTED
    assert inside.counterexample == {"x0": 0, "x0'": 4}


def test_a_divisor_that_may_be_zero_is_left_to_z3():
    # i mod j on [4]x[3]: at j = 0 Python raises (no value), so enumeration must not decide;
    # Z3 refuses a modulus not known positive: UNKNOWN, never PROVED
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=4), [sympy.Mod(i, j)], name="i mod j")
    with query.shortcuts(reuse=False):
        verdict = la.check_in_bounds(m)
    assert verdict.method == "z3" and verdict.status is Status.UNKNOWN


# -- against the oracle and Z3 on random maps ---------------------------------------------

CHECKS = {
    "in_bounds": (exhaustive.in_bounds, brute.check_in_bounds),
    "injective": (exhaustive.injective, brute.check_injective),
    "images_valid": (exhaustive.images_valid, brute.check_images_valid),
    "surjective": (exhaustive.surjective, brute.check_surjective),
    "bijective": (exhaustive.bijective, brute.check_bijective),
}


def _replays(check: str, m: la.IndexMap, ce: dict) -> bool:
    """The counterexample shows the failure, by plain Python evaluation of ``m``."""
    if check in ("in_bounds", "injective", "images_valid"):
        x = tuple(ce[n] for n in m.domain.names)
        y = tuple(int(v) for v in m(*x))
        inside = all(0 <= v < e for v, e in zip(y, m.codomain.extents))
        if check == "in_bounds":
            return not inside
        if check == "injective":
            other = tuple(ce[f"{n}'"] for n in m.domain.names)
            return other != x and tuple(int(v) for v in m(*other)) == y
        return inside and not bool(m.valid.xreplace(dict(zip(m.codomain.symbols, y))))
    slot = tuple(ce[n] for n in m.codomain.names)
    _, ys = brute.image_table(m)
    held = {tuple(int(v) for v in row) for row in ys}
    valid = m.valid is None or bool(m.valid.xreplace(dict(zip(m.codomain.symbols, slot))))
    return valid and slot not in held


@settings(max_examples=120, deadline=None)
@given(maps())
def test_agrees_with_the_oracle_and_replays(m):
    for check, (mine, oracle) in CHECKS.items():
        verdict, truth = mine(m), oracle(m)
        if verdict is None:  # declined: images too spread for one code
            continue
        assert verdict.method == "enumeration"
        assert verdict.status is truth.status, f"{check}: {verdict} vs {truth} on {m!r}"
        if verdict.refuted:
            part = check
            if check == "bijective":
                part = next(p for p in ("in_bounds", "injective", "images_valid", "surjective")
                            if CHECKS[p][0](m) is not None and CHECKS[p][0](m).refuted)
            assert _replays(part, m, verdict.counterexample), f"{check}: {verdict} on {m!r}"


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_equivalence_agrees_with_the_oracle(data):
    try:
        first, second = data.draw(equivalence_pairs())
    except CompositionError:  # the strategy's own compose refused a route (not under test)
        assume(False)
    verdict, truth = exhaustive.equivalent(first, second), brute.check_equivalent(first, second)
    assert verdict.status is truth.status
    if verdict.refuted:
        x = tuple(verdict.counterexample[n] for n in first.domain.names)
        assert tuple(map(int, first(*x))) != tuple(map(int, second(*x)))


@settings(max_examples=40, deadline=None)
@given(maps())
def test_shortcut_verdicts_agree_with_z3(m):
    # the public check inside the shortcuts (enumeration) against the same check asking Z3
    with query.shortcuts(reuse=False):
        fast = la.check_bijective(m, timeout_ms=10_000)
    slow = la.check_bijective(m, timeout_ms=10_000)
    assert slow.method == "z3"
    if slow.status is not Status.UNKNOWN:
        assert fast.status is slow.status, f"{fast} vs {slow} on {m!r}"
