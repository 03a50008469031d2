"""check_bijective tries the structural ways first on a map compose made of
parts or a mixed-radix linearization (issue 17 item 5: cost linear in chain
depth), then the whole's queries; the verdicts stay those of enumeration.

Truth comes from ``layoutalg.verify.brute`` and from Python ints written
here; the differential test composes random maps (bijective or not, with
right or wrong inverses) and compares ``check_bijective`` with enumeration.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import STEPS, Fresh, maps

import layoutalg as la
from layoutalg.verify import brute, one_query, parts
from layoutalg.verify.result import Status

TIMEOUT_MS = 60_000  # a margin, not a budget


# bench/growth.py's dims and depth axes, loaded from the bench (not a package)
_SPEC = importlib.util.spec_from_file_location(
    "growth", Path(__file__).parents[2] / "bench" / "growth.py")
growth = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(growth)
dims_map, depth_map = growth.dims_map, growth.depth_map


BENCH_MAPS = [(dims_map, 3, 2), (dims_map, 2, 4), (depth_map, 6, 4, 1 << 10),
              (depth_map, 8, 2, 1 << 9)]


def test_the_bench_maps_are_proved_by_parts_and_are_bijections():
    for build, *args in BENCH_MAPS:
        m = build(*args)
        verdict = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
        assert verdict.proved and "by parts" in verdict.reason, verdict
        assert brute.check_bijective(m).proved


def test_the_linearize_part_is_proved_by_its_digits():
    verdict = la.check_bijective(dims_map(3, 2), timeout_ms=TIMEOUT_MS)
    assert "linearize: a bijection of its domain onto its codomain" in verdict.reason
    assert "mixed-radix" in verdict.reason


def test_a_composed_bijection_whose_part_fails_the_lemma_is_proved_whole():
    """[i:4] into [t:8] (slots 4.. padding), then t ↦ t mod 4: the second
    part folds its domain (no lemma), yet the composition i ↦ i mod 4 on
    [0, 4) is a bijection onto [o:4]; the whole's queries prove it."""
    d = la.Space(i=4)
    (i,) = d.symbols
    wide = la.Space(t=8)
    (t,) = wide.symbols
    first = la.IndexMap(d, wide, [i], inverse=[t], valid=t < 4, name="into eight")
    out = la.Space(o=4)
    fold = la.IndexMap(wide, out, [t % 4], inverse=[out.symbols[0]], name="fold")
    m = la.compose(first, fold)
    assert [m(k) for k in range(4)] == [(0,), (1,), (2,), (3,)]
    verdict = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
    assert verdict.proved and "by parts" not in verdict.reason, verdict
    assert brute.check_bijective(m).proved


def test_a_part_whose_inverse_is_wrong_is_refuted_at_a_real_miss():
    """o ↦ (o + 1) mod 12 with the inverse s ↦ (s - 1 + 1) mod 12 = s: a
    bijection, its inverse wrong at every slot."""
    space = la.Space(o=12)
    (o,) = space.symbols
    target = la.Space(s=12)
    (s,) = target.symbols
    turn = la.IndexMap(space, target, [(o + 1) % 12], inverse=[s % 12], name="turn")
    verdict = parts._bijection_with_right_inverse(turn, (), TIMEOUT_MS)
    assert verdict.status is Status.REFUTED, verdict
    slot = int(verdict.reason.rsplit("(", 1)[1].split(",")[0])
    assert (slot + 1) % 12 != slot      # turn(inverse(slot)) = slot + 1 mod 12


@st.composite
def composed(draw):
    """A random map (bijective or not, right or wrong inverse) followed by a
    combinator on its codomain, composed as compose records it."""
    first = draw(maps())
    space = la.Space.of(tuple(f"t{k}" for k in range(first.codomain.rank)),
                        tuple(int(e) for e in first.codomain.extents))
    step = STEPS[draw(st.sampled_from(sorted(STEPS)))]
    then = step(draw, space, Fresh()) or la.identity(space)
    return la.Chain((first, then))


@settings(max_examples=100, deadline=None)
@given(composed())
def test_check_bijective_on_compositions_agrees_with_enumeration(chain):
    if brute.check_bijective_by_parts(chain).refuted and chain_undefined(chain):
        return  # no composition to check
    whole = chain.index_map()
    verdict = la.check_bijective(whole, timeout_ms=TIMEOUT_MS)
    assert verdict.status is not Status.UNKNOWN, verdict
    assert verdict.status is brute.check_bijective(whole).status, (verdict, whole)


def chain_undefined(chain) -> bool:
    """Does the first part send some point outside its codomain?"""
    first = chain.parts[0]
    return not brute.check_in_bounds(first).proved


def test_the_fallback_asks_the_inverse_query_once(monkeypatch):
    """[o:12] into [s:13], o ↦ o, inverse s ↦ s: the point query is unsat (in
    bounds, left inverse, on valid slots), the inverse query sat at s = 12
    (its inverse escapes the domain). The fallback reuses both answers
    instead of asking the three point checks and the inverse query again."""
    asked = []
    real = one_query.inverse_misses

    def counting(*args, **kwargs):
        asked.append(args[0].label)
        return real(*args, **kwargs)

    monkeypatch.setattr(one_query, "inverse_misses", counting)
    monkeypatch.setattr(parts, "inverse_misses", counting)
    for check in ("check_in_bounds", "check_injective", "check_images_valid"):
        monkeypatch.setattr(parts, check, lambda *a, **k: pytest.fail("asked again"))
    space, target = la.Space(o=12), la.Space(s=13)
    widen = la.IndexMap(space, target, [space.symbols[0]], inverse=[target.symbols[0]],
                        name="widen")
    verdict = parts._bijection_with_right_inverse(widen, (), TIMEOUT_MS)
    assert verdict.status is Status.REFUTED and asked == ["widen"], (verdict, asked)
    assert verdict.reason.endswith("(12,)")      # the one slot no element reaches
    assert not brute.check_surjective(widen).proved
