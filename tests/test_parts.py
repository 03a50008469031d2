"""``check_bijective_by_parts`` against enumeration of the composition, and
the lemma's conditions: a part that fails them never decides the whole."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from strategies import STEPS, Fresh, maps

import layoutalg as la
from layoutalg.verify import brute

TIMEOUT_MS = 10_000


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


@given(chains())
def test_by_parts_agrees_with_enumerating_the_composition(chain):
    proved = la.check_bijective_by_parts(chain, timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_bijective_by_parts(chain)
    assert proved.status is not la.Status.UNKNOWN, proved
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


def test_a_bijective_chain_is_proved_by_its_parts_for_every_size():
    M, N, T = la.extents("M N T")
    tiles = la.linearize(la.split(la.Space(i=M, j=N), "j", T), ["j_i"])
    result = la.check_bijective_by_parts(la.Chain((tiles, la.linearize(tiles.codomain))))
    assert result.proved and "by parts" in result.reason


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
