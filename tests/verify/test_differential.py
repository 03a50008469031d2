"""Z3 against enumeration: every check, on random small layouts, must agree.

Each test runs one check through Z3 (``layoutalg``) and through its NumPy
twin (``layoutalg.verify.brute``) and asserts the same status. A Z3 UNKNOWN
fails the test (it is never agreement), and every REFUTED counterexample,
from either side, is replayed on the map to show it is genuine. Where Z3
says unknown on one of these small maps (a timeout: how fast depends on the
machine), the core check decides it by enumeration instead
(``verify.enumerated.falls_back``, labelled); that example then compares
the library's enumeration with the oracle, and is counted as an event.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from profiles import core_settings
from strategies import (
    compose_problems,
    conflict_problems,
    equivalence_pairs,
    fit_problems,
    layouts,
    maps,
    needed_bytes,
)

import layoutalg as la
from layoutalg.core import evaluate as ev
from layoutalg.errors import CompositionError, VerificationError
from layoutalg.verify import brute
from layoutalg.verify.result import CheckResult, Status
from agreement import agree

TIMEOUT_MS = 10_000

padding_module = importlib.import_module("layoutalg.verify.padding")
solver_module = importlib.import_module("layoutalg.verify.z3_backend.solver")

# solve() starts with Z3's own div/mod and races quotient variables against it
# only on slow queries; half of the examples swap the two, so both encodings
# are held to enumeration on every kind of map, not only on the rare race.
encodings = st.sampled_from(["native_first", "quotients_first"])


@contextlib.contextmanager
def encoding(order: str):
    if order == "native_first":
        yield
        return
    build = solver_module._build

    def swapped(*query, quotients, **options):
        return build(*query, quotients=not quotients, **options)

    with mock.patch.object(solver_module, "_build", swapped):
        yield


# -- replaying counterexamples ---------------------------------------------------------


def point(m: la.IndexMap, ce: dict, suffix: str = "") -> tuple[int, ...]:
    return tuple(ce[f"{n}{suffix}"] for n in m.domain.names)


def slot(m: la.IndexMap, ce: dict) -> tuple[int, ...]:
    return tuple(ce[n] for n in m.codomain.names)


def inside(m: la.IndexMap, image) -> bool:
    return all(0 <= v < e for v, e in zip(image, m.codomain.extents))


def is_valid(m: la.IndexMap, p) -> bool:
    if m.valid is None:
        return True
    return bool(m.valid.xreplace(dict(zip(m.codomain.symbols, p))))


def occupied(m: la.IndexMap) -> set[tuple[int, ...]]:
    _, ys = brute.image_table(m)
    return {tuple(int(v) for v in y) for y in ys}


def escapes(m, ce) -> bool:
    return not inside(m, m(*point(m, ce)))


def collides(m, ce) -> bool:
    first, second = point(m, ce), point(m, ce, "'")
    return first != second and m(*first) == m(*second)


def lands_on_padding(m, ce) -> bool:
    image = m(*point(m, ce))
    return inside(m, image) and not is_valid(m, image)


def empty_slot(m, ce) -> bool:
    p = slot(m, ce)
    return inside(m, p) and is_valid(m, p) and p not in occupied(m)


GENUINE = {
    "in_bounds": escapes,
    "injective": collides,
    "images_valid": lands_on_padding,
    "surjective": empty_slot,
}


def genuine(check: str, m: la.IndexMap, result: CheckResult) -> None:
    if not result.refuted:
        return
    ce = result.counterexample
    assert ce is not None, f"REFUTED without a counterexample: {result}"
    if check == "bijective":
        # The counterexample is the one of the first part refuted.
        assert any(_fits_part(part, m, ce) for part in GENUINE), (
            f"{result.method} bijective counterexample {ce} is not genuine for {m!r}")
        return
    assert GENUINE[check](m, ce), f"{result.method} counterexample {ce} is not genuine: " \
        f"{result} for {m!r}"


def _fits_part(part: str, m: la.IndexMap, ce: dict) -> bool:
    try:
        return GENUINE[part](m, ce)
    except (KeyError, la.MapError):
        return False


# -- one-map checks --------------------------------------------------------------------------


@pytest.mark.parametrize("by_z3, by_enumeration", [
    (la.check_in_bounds, brute.check_in_bounds),
    (la.check_injective, brute.check_injective),
    (la.check_images_valid, brute.check_images_valid),
    (la.check_surjective, brute.check_surjective),
    (la.check_bijective, brute.check_bijective),
], ids=["in_bounds", "injective", "images_valid", "surjective", "bijective"])
@core_settings
@given(maps(), encodings)
def test_check_agrees_with_its_enumeration_twin(by_z3, by_enumeration, m, order):
    check = by_z3.__name__.removeprefix("check_")
    with encoding(order):
        proved = by_z3(m, timeout_ms=TIMEOUT_MS)
    event(f"{check}: decided by {proved.method}")
    enumerated = by_enumeration(m)
    genuine(check, m, proved)
    genuine(check, m, enumerated)
    agree(proved, enumerated)


# -- padding ---------------------------------------------------------------------------------


@core_settings
@given(maps())
def test_padding(m):
    counted = brute.padding(m)
    assert la.padding(m).count == counted.count
    # Force the Z3 route (|codomain| - |domain| once injective and in bounds).
    with mock.patch.object(padding_module, "ENUMERATION_LIMIT", 0):
        try:
            derived = la.padding(m)
        except VerificationError:
            derived = None
    countable = brute.check_injective(m).proved and brute.check_in_bounds(m).proved
    if not countable:
        assert derived is None, f"padding counted {derived} for a map that is not countable"
        return
    assert derived is not None, "padding refused a map that is injective and in bounds"
    assert derived.method == "z3"
    assert (derived.count, derived.total) == (counted.count, counted.total)


# -- two maps ----------------------------------------------------------------------------------


@core_settings
@given(equivalence_pairs(), encodings)
def test_equivalent(pair, order):
    m1, m2 = pair
    with encoding(order):
        proved = la.check_equivalent(m1, m2, timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_equivalent(m1, m2)
    for result in (proved, enumerated):
        if result.refuted:
            x = point(m1, result.counterexample)
            assert m1(*x) != m2(*x), f"{result.method}: maps agree at {x}"
    agree(proved, enumerated)


# -- memory fit ---------------------------------------------------------------------------------


@core_settings
@given(fit_problems(), encodings)
def test_fits(problem, order):
    options = dict(per=problem.per, element_bytes=problem.element_bytes,
                   offsets_in_bytes=problem.offsets_in_bytes)
    with encoding(order):
        proved = la.check_fits(problem.m, problem.capacity, timeout_ms=TIMEOUT_MS, **options)
    enumerated = brute.check_fits(problem.m, problem.capacity, **options)
    need = needed_bytes(problem.m, **options)
    xs, _ = brute.image_table(problem.m)
    for result in (proved, enumerated):
        if result.refuted:
            x = point(problem.m, result.counterexample)
            k = int(np.flatnonzero(np.all(xs == x, axis=1))[0])
            assert need[k] > problem.capacity, f"{result.method}: {x} fits"
            assert result.counterexample["bytes"] == need[k]
    agree(proved, enumerated)


# -- conflicts ----------------------------------------------------------------------------------


def clash(problem, ce) -> bool:
    it = tuple(ce[n] for n in problem.space.names)
    used = []
    for access in problem.accesses.values():
        address = access(*it)
        if problem.resource is not None:
            address = problem.resource.apply(*(np.int64(a) for a in address))
            address = tuple(int(v) for v in address)
        used.append(address)
    return any(a == b for a, b in itertools.combinations(used, 2))


@core_settings
@given(conflict_problems(), encodings)
def test_conflict_free(problem, order):
    if not problem.well_formed:
        for check in (la.check_conflict_free, brute.check_conflict_free):
            with pytest.raises(la.MapError, match="must have one rank"):
                check(problem.space, problem.accesses, problem.resource)
        return
    with encoding(order):
        proved = la.check_conflict_free(problem.space, problem.accesses, problem.resource,
                                        timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_conflict_free(problem.space, problem.accesses, problem.resource)
    for result in (proved, enumerated):
        if result.refuted:
            assert clash(problem, result.counterexample), f"{result.method}: no clash"
    agree(proved, enumerated)


def test_unknown_is_not_agreement():
    """The harness itself: an UNKNOWN from Z3 fails even when enumeration proves."""
    unknown = CheckResult(Status.UNKNOWN, "injective", "m", reason="timeout")
    proved = CheckResult(Status.PROVED, "injective", "m", method="enumeration")
    with pytest.raises(AssertionError, match="UNKNOWN"):
        agree(unknown, proved)


# -- postconditions of the combinators ------------------------------------------------------


@core_settings
@given(layouts(bijective=True))
def test_combinator_chains_are_bijections(m):
    """A chain of combinators over a space (or a compact CuTe layout) is a
    bijection onto its valid slots, and its inverse sends every image back to
    its element. (Enumeration only: test_bijective already holds Z3 to the
    same verdict on such chains.)"""
    verdict = brute.check_bijective(m)
    assert verdict.proved, f"{m}: {verdict.reason}"
    xs, ys = brute.image_table(m)
    assert m.inverse is not None, f"{m.label} lost its inverse"
    env = dict(zip(m.codomain.symbols, ys.T))
    back = [np.broadcast_to(ev.evaluate(e, env), (len(xs),)) for e in m.inverse]
    assert np.array_equal(np.stack(back, axis=1), xs), f"the inverse of {m.label} is wrong"


@core_settings
@given(compose_problems(), encodings)
def test_compose(problem, order):
    """compose's in-bounds proof (Z3) refuses exactly the chains enumeration
    shows escaping (first's codomain or then's domain); a chain it builds is
    ``then(first(x))``, and a chain of bijections is a bijection."""
    first, then = problem.first, problem.then
    probe = la.IndexMap(first.domain, then.domain, first.exprs, name="probe")
    escapes = brute.check_in_bounds(first).refuted or brute.check_in_bounds(probe).refuted
    with encoding(order):
        try:
            composed = la.compose(first, then)
        except CompositionError as exc:
            assert escapes, f"compose refused a chain that fits: {exc}"
            return
    assert not escapes, "compose accepted a chain that escapes"
    xs, ys = brute.image_table(first)
    _, zs = brute.image_table(composed)
    direct = np.stack([np.broadcast_to(v, (len(ys),)) for v in then.apply(*ys.T)], axis=1)
    assert np.array_equal(zs, direct), "compose is not then ∘ first"
    if problem.bijections:
        verdict = brute.check_bijective(composed)
        assert verdict.proved, f"{composed}: {verdict.reason}"
