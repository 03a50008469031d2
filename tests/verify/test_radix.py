"""The mixed-radix lemma (``layoutalg.verify.radix``) against enumeration.

The lemma itself is pinned in plain Python ints (a row-major sum over a box
of digits hits every offset once, and peeling digits gives them back); the
rule is pinned on hand-built maps, PROVED or silent; and a differential
Hypothesis test builds maps of the lemma's shape with and without faults
and compares every PROVED with enumeration, twice: in Python ints from the
drawn description (no SymPy) and by ``layoutalg.verify.brute``.
"""

from __future__ import annotations

import itertools
import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.verify import brute, radix
from layoutalg.verify.result import Status

TIMEOUT_MS = 60_000  # a margin, not a budget: these queries answer in milliseconds


def peel(o: int, divisors: list[int]) -> list[int]:
    """Digits of ``o``, outermost first, peeled by ``divisors`` (innermost last)."""
    digits = []
    for f in reversed(divisors):
        o, digit = divmod(o, f)
        digits.append(digit)
    return [o] + digits[::-1]


@pytest.mark.parametrize("extents", [(3, 5, 2), (4, 4, 4, 4), (1, 7), (2, 1, 3), (6,), (5, 1, 1)])
def test_the_lemma_in_python_ints(extents):
    strides = [math.prod(extents[k + 1:]) for k in range(len(extents))]
    total = math.prod(extents)
    box = list(itertools.product(*(range(e) for e in extents)))
    offsets = [sum(s * x for s, x in zip(strides, point)) for point in box]
    assert sorted(offsets) == list(range(total))           # onto [0, E), once each
    assert all(tuple(peel(o, list(extents[1:]))) == point for o, point in zip(offsets, box))


def flat(extents, **kwargs) -> la.IndexMap:
    return la.linearize(la.Space(**{f"x{k}": e for k, e in enumerate(extents)}), **kwargs)


@pytest.mark.parametrize("m", [
    flat((3, 5, 2)),
    flat((4, 4, 4, 4, 4, 4, 4, 4)),
    flat((3, 1, 4)),
    flat((3, 4, 1)),
    la.linearize(la.Space(a=3, b=4, c=5), ["c", "a"]),
    la.fuse(la.Space(a=3, b=4, c=2), "c", "a"),
], ids=str)
def test_proved_on_linearizations_and_true_by_enumeration(m):
    proved = radix.digit_by_digit(m, (), TIMEOUT_MS)
    assert proved is not None and proved.status is Status.PROVED, m
    assert brute.check_bijective(m).proved
    for slot in itertools.product(*(range(e) for e in m.codomain.extents)):
        assert m(*m.preimage(*slot)) == slot       # the inverse is right on every slot


def test_the_shape_read_off_an_eight_digit_linearization():
    m = flat((4,) * 8)
    (block,) = radix.shape(m).blocks
    assert block.coefficients == tuple(4 ** k for k in range(7, -1, -1))
    assert block.divisors == (4,) * 7 and block.digits == m.domain.symbols


def test_proved_for_every_size_and_silent_when_a_stride_is_another_size():
    M, N, K = la.extents("M N K")
    assert radix.digit_by_digit(flat((M, N, K)), (), TIMEOUT_MS).proved
    d = la.Space(a=M, b=K)
    a, b = d.symbols
    o = la.Space(o=M * K)
    (s,) = o.symbols
    inverse = [sympy.floor(s / K), sympy.Mod(s, K)]
    wrong = la.IndexMap(d, o, [N * a + b], inverse=inverse, name="N for K")
    assert radix.digit_by_digit(wrong, (), TIMEOUT_MS) is None
    assert brute.check_bijective(wrong.bind(M=3, N=5, K=4)).refuted
    assumed = la.IndexMap(d, o, [N * a + b], inverse=inverse, assumptions=[sympy.Eq(N, K)])
    assert radix.digit_by_digit(assumed, (), TIMEOUT_MS).proved
    contradictory = la.IndexMap(d, o, [N * a + b], inverse=inverse,
                                assumptions=[sympy.Eq(N, K), N < K])
    assert radix.digit_by_digit(contradictory, (), TIMEOUT_MS) is None


def hand(extents, *, strides=None, divisors=None, size=None, reduce_top=False, valid=None):
    """``[x_k: extents] → [o: size]``, ``o = Σ strides·x``, inverse peeled by ``divisors``."""
    d = la.Space(**{f"x{k}": e for k, e in enumerate(extents)})
    strides = strides or [math.prod(extents[k + 1:]) for k in range(len(extents))]
    divisors = divisors or list(extents[1:])
    c = la.Space(o=size or math.prod(extents))
    (o,) = c.symbols
    rest, digits = o, []
    for f in reversed(divisors):
        digits.append(sympy.Mod(rest, f))
        rest = sympy.floor(rest / f)
    top = sympy.Mod(rest, extents[0]) if reduce_top else rest
    return la.IndexMap(d, c, [sum(s * x for s, x in zip(strides, d.symbols))],
                       inverse=[top] + digits[::-1], valid=valid, name="hand")


@pytest.mark.parametrize("m, bijective", [
    (hand((3, 4), strides=[5, 1]), False),           # escapes [0, 12)
    (hand((3, 4), strides=[3, 1]), False),           # collides
    (hand((3, 4), divisors=[3]), True),              # a bijection, its inverse wrong
    (hand((3, 4), size=13), False),                  # slot 12 empty
    (hand((3, 4), reduce_top=True), True),           # right, but not the peeled shape
    (hand((3, 4), valid=sympy.Lt(sympy.Symbol("o", integer=True, nonnegative=True), 12)), True),
], ids=["stride escapes", "stride collides", "divisor", "extent", "top reduced", "padding"])
def test_silent_off_the_lemma(m, bijective):
    assert radix.digit_by_digit(m, (), TIMEOUT_MS) is None
    assert brute.check_bijective(m).proved is bijective


def test_check_bijective_uses_it_on_a_linearization_of_eight_digits():
    verdict = la.check_bijective(flat((4,) * 8))
    assert verdict.proved and "mixed-radix" in verdict.reason, verdict


# -- differential: maps of the lemma's shape, with and without one fault -------------


@st.composite
def digit_maps(draw):
    """A map ``[x_k: e_k, y_j: f_j] → (some order of) [y_j, o]`` with its
    description in Python ints, perhaps one fault: a stride, a divisor, the
    offset's extent or a digit of extent 1 given back as 0 when it is not."""
    extents = draw(st.lists(st.integers(1, 5), min_size=2, max_size=4))
    others = draw(st.lists(st.integers(1, 3), max_size=2))
    strides = [math.prod(extents[k + 1:]) for k in range(len(extents))]
    divisors = list(extents[1:])
    size = math.prod(extents)
    fault = draw(st.sampled_from(["none", "none", "stride", "divisor", "size", "zero"]))
    k = draw(st.integers(0, len(extents) - 1))
    if fault == "stride":
        strides[k] = max(0, strides[k] + draw(st.sampled_from([-1, 1])))
    elif fault == "divisor" and divisors:
        divisors[k % len(divisors)] = max(1, divisors[k % len(divisors)] + 1)
    elif fault == "size":
        size = max(1, size + draw(st.sampled_from([-1, 1])))
    d = la.Space(*[(f"x{j}", e) for j, e in enumerate(extents)],
                 *[(f"y{j}", e) for j, e in enumerate(others)])
    xs, ys = d.symbols[:len(extents)], d.symbols[len(extents):]
    order = draw(st.permutations(list(range(len(others) + 1))))
    names = [f"y{j}" for j in range(len(others))] + ["o"]
    extents_out = list(others) + [size]
    c = la.Space(*[(names[j], extents_out[j]) for j in order])
    slot = dict(zip([names[j] for j in order], c.symbols))
    rest, digits = slot["o"], []
    for f in reversed(divisors):
        digits.append(sympy.Mod(rest, f))
        rest = sympy.floor(rest / f)
    inverse = [rest] + digits[::-1]
    if fault == "zero":
        inverse[k] = sympy.Integer(0)   # right only when extents[k] is 1
    image = {"o": sum(s * x for s, x in zip(strides, xs)), **dict(zip(names, ys))}
    m = la.IndexMap(d, c, [image[names[j]] for j in order],
                    inverse=inverse + [slot[f"y{j}"] for j in range(len(others))], name="drawn")
    truth = _truth(extents, others, strides, divisors, size, fault, k, order)
    # the shape the combinators make (IndexMap simplifies digits of extent 1 away)
    plain = fault == "none" and min(extents) >= 2
    return m, truth, plain


def _truth(extents, others, strides, divisors, size, fault, k, order) -> bool:
    """Is the drawn map a bijection onto its codomain with its inverse right on
    every slot? Python ints from the description alone."""
    box = list(itertools.product(*(range(e) for e in extents)))
    offsets = sorted(sum(s * x for s, x in zip(strides, p)) for p in box)
    if offsets != list(range(size)):
        return False
    for o in range(size):
        digits = peel(o, divisors)
        if fault == "zero":
            digits[k] = 0
        if not all(0 <= v < e for v, e in zip(digits, extents)):
            return False
        if sum(s * v for s, v in zip(strides, digits)) != o:
            return False
    return True


@settings(max_examples=200, deadline=None)
@given(digit_maps())
def test_proved_only_where_enumeration_agrees(drawn):
    m, truth, plain = drawn
    proved = radix.digit_by_digit(m, (), TIMEOUT_MS)
    if proved is not None:
        assert proved.proved and truth, m
        assert brute.check_bijective(m).proved
        for slot in itertools.product(*(range(e) for e in m.codomain.extents)):
            assert m(*m.preimage(*slot)) == slot
    elif plain:  # the lemma's own shape, fault-free: it must apply (completeness)
        pytest.fail(f"the lemma did not apply to {m} with inverse {m.inverse}")
