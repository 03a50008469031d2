"""``check_bijective_by_parts`` against enumeration of the composition, and
the lemma's conditions: a part that fails them never decides the whole."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from strategies import STEPS, Fresh, maps

import layoutalg as la
from layoutalg.verify import brute

TIMEOUT_MS = 60_000  # concrete queries answer in milliseconds: a margin, not a budget


def rotation(space: la.Space, shift: int, stride: int, inverse_off: int) -> la.IndexMap:
    """Flat slot ``o ↦ (stride·o + shift) mod n`` with the inverse of the
    plain rotation moved by ``inverse_off``: a whole-space bijection with a
    right inverse when stride is 1 and inverse_off 0, else not one or the
    other."""
    flat = la.linearize(space)
    n = int(flat.codomain.extents[0])
    (o,) = flat.codomain.symbols
    target = la.Space(slot=n)
    (s,) = target.symbols
    turn = la.IndexMap(flat.codomain, target, [(stride * o + shift) % n],
                       inverse=[(s - shift + inverse_off) % n], name="rotation")
    return la.compose(flat, turn)


@st.composite
def chains(draw):
    first = draw(maps())
    space = la.Space.of(tuple(f"t{k}" for k in range(first.codomain.rank)),
                        tuple(int(e) for e in first.codomain.extents))
    kind = draw(st.sampled_from(["step", "rotation"]))
    if kind == "step":
        step = STEPS[draw(st.sampled_from(sorted(STEPS)))]
        then = step(draw, space, Fresh()) or la.identity(space)
    else:
        then = rotation(space, draw(st.integers(0, 5)), draw(st.sampled_from([1, 1, 2])),
                        draw(st.sampled_from([0, 0, 1])))
    return la.Chain((first, then))


def escapes_of(chain):
    """Domain points whose image under the first part leaves its codomain
    (the composition is undefined there), by enumeration."""
    first = chain.parts[0]
    xs, ys = brute.image_table(first)
    outside = np.any((ys < 0) | (ys >= np.asarray(first.codomain.extents)), axis=1)
    return {tuple(int(v) for v in x) for x in xs[outside]}


@given(chains())
def test_by_parts_agrees_with_enumerating_the_composition(chain):
    proved = la.check_bijective_by_parts(chain, timeout_ms=TIMEOUT_MS)
    assert proved.status is not la.Status.UNKNOWN, proved
    escapes = escapes_of(chain)
    if escapes:  # no composition to enumerate: refuted at an escape
        assert proved.refuted, proved
        assert tuple(proved.counterexample[n] for n in chain.parts[0].domain.names) in escapes
        return
    enumerated = brute.check_bijective_by_parts(chain)
    assert proved.status is enumerated.status, (proved, enumerated)
    if proved.refuted:  # the counterexample is one of the composition's
        whole = chain.index_map()
        names = whole.domain.names
        assert set(names) <= set(proved.counterexample) or set(
            whole.codomain.names) <= set(proved.counterexample)


def test_a_wrong_inverse_in_a_later_part_is_caught_not_trusted():
    first = la.linearize(la.Space(i=3, j=4))
    then = rotation(first.codomain, shift=1, stride=1, inverse_off=1)
    result = la.check_bijective_by_parts(la.Chain((first, then)))
    # The composition's valid slots come from the wrong inverse, so it is not
    # a bijection onto them; the parts do not vouch for it.
    assert result.status is brute.check_bijective(la.Chain((first, then)).index_map()).status
    assert "checked whole: part" in result.reason


# Symbolic sizes: chains whose every query answers in at most 0.2 s on a loaded
# 2-core machine, each allowed a minute (300 times that), so no load can turn
# the verdict. The hard theorems (a 2-D padded tiling flattened, block-cyclic
# deals) are shipped claims in proofs/ (tiling.py::flat_padded_tiling_all_sizes),
# where a verdict is expected of the machine that proves them, not of a unit test.


def test_a_bijective_chain_is_proved_by_its_parts_for_every_size():
    M, T = la.extents("M T")
    tiles = la.split(la.Space(i=M), "i", T)
    chain = la.Chain((tiles, la.linearize(tiles.codomain)))
    result = la.check_bijective_by_parts(chain, timeout_ms=TIMEOUT_MS)
    assert result.proved, result
    assert "by parts" in result.reason and "checked whole" not in result.reason


def test_a_chain_of_several_parts_is_proved_by_parts_for_every_size():
    M, N = la.extents("M N")
    turned = la.permute(la.Space(i=M, j=N), ["j", "i"])
    padded = la.pad(turned.codomain, "i", 4)
    flat = la.linearize(padded.codomain)
    result = la.check_bijective_by_parts(la.Chain((turned, padded, flat)), timeout_ms=TIMEOUT_MS)
    assert result.proved and "by parts" in result.reason, result


def test_a_later_part_that_is_not_onto_stops_the_lemma_and_the_whole_decides():
    """The lemma needs every later part onto its valid slots; a part that is
    not (here: widened past its images) sends the check to the composition,
    which is refuted with a slot no element reaches."""
    M, = la.extents("M")
    first = la.identity(la.Space(i=M))
    (i,) = first.codomain.symbols
    wide = la.Space(o=M + 1)
    widen = la.IndexMap(first.codomain, wide, [i], inverse=[wide.symbols[0]], name="widen")
    result = la.check_bijective_by_parts(la.Chain((first, widen)), timeout_ms=TIMEOUT_MS)
    assert result.refuted, result
    assert "checked whole: part widen is REFUTED" in result.reason


def test_chain_parts_must_meet_end_to_end():
    with pytest.raises(la.CompositionError, match=r"parts\[0\]'s codomain .* must have the "
                       r"extents of parts\[1\]'s domain"):
        la.Chain((la.linearize(la.Space(i=3)), la.linearize(la.Space(i=4))))
    with pytest.raises(la.CompositionError, match=r"parts must be a non-empty sequence"):
        la.Chain(())
    with pytest.raises(la.CompositionError, match=r"parts\[1\] must be an IndexMap"):
        la.Chain((la.linearize(la.Space(i=3)), "linearize"))
    with pytest.raises(la.MapError, match="chain must be a Chain"):
        la.check_bijective_by_parts(la.linearize(la.Space(i=3)))


def test_the_chain_label_and_map_are_the_composition():
    first = la.linearize(la.Space(i=3, j=4), ["j"])
    then = la.linearize(first.codomain)
    chain = la.Chain((first, then))
    whole = chain.index_map()
    assert chain.label == f"{then.label} ∘ {first.label}"
    assert [whole(i, j) for i in range(3) for j in range(4)] == [(k,) for k in range(12)]
    assert sympy.simplify(whole.codomain.extents[0] - 12) == 0


def test_the_chain_is_defined_or_not_under_the_assumptions():
    """A first part in bounds only for M ≤ 8: undefined at M = 9 without
    assumptions (REFUTED there), defined and proved when M = 8 is assumed."""
    M, = la.extents("M")
    d = la.Space(x=M)
    (x,) = d.symbols
    first = la.IndexMap(d, la.Space(q=8), [x], name="first")
    chain = la.Chain((first, la.identity(first.codomain)))
    unassumed = la.check_bijective_by_parts(chain, timeout_ms=TIMEOUT_MS)
    assert unassumed.refuted and unassumed.counterexample["M"] > 8, unassumed
    assert "not defined everywhere" in unassumed.reason
    assumed = la.check_bijective_by_parts(chain, assume=[sympy.Eq(M, 8)], timeout_ms=TIMEOUT_MS)
    assert assumed.proved and "by parts" in assumed.reason, assumed
