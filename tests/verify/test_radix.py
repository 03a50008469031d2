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


@pytest.mark.parametrize("m", [
    la.delinearize(la.Space(i=4 ** 8), "i", **{f"a{k}": 4 for k in range(8)}),
    la.delinearize(la.Space(i=10, j=3), "i", a=3, b=4),     # padded: 12 slots, 10 valid
    la.split(la.Space(a=10, b=3), "a", 4),
    la.split(la.Space(a=12), "a", 4),
], ids=str)
def test_proved_on_delinearizations_and_true_by_enumeration(m):
    proved = radix.digit_by_digit(m, (), TIMEOUT_MS)
    assert proved is not None and proved.proved and radix.shape(m).reverse, m
    assert brute.check_bijective(m).proved
    for slot in itertools.product(*(range(e) for e in m.codomain.extents)):
        if m.valid is None or m.valid.subs(dict(zip(m.codomain.symbols, slot))):
            assert m(*m.preimage(*slot)) == slot


def test_a_delinearization_is_proved_for_every_size_only_when_it_holds_every_index():
    M, N = la.extents("M N")
    assert radix.digit_by_digit(la.delinearize(la.Space(i=M * N), "i", a=M, b=N), (),
                                TIMEOUT_MS).proved
    assert radix.digit_by_digit(la.split(la.Space(a=M), "a", N), (), TIMEOUT_MS).proved
    short = la.delinearize(la.Space(i=M), "i", a=N, b=4)   # M > 4·N escapes
    assert radix.digit_by_digit(short, (), TIMEOUT_MS) is None
    assert not brute.check_bijective(short.bind(M=13, N=3)).proved
    assert radix.digit_by_digit(short.assuming(M <= 4 * N), (), TIMEOUT_MS).proved


def test_check_bijective_uses_it_on_a_linearization_of_eight_digits():
    verdict = la.check_bijective(flat((4,) * 8))
    assert verdict.proved and "mixed-radix" in verdict.reason, verdict


# -- differential: maps of the lemma's shape, with and without one fault -------------


def peeled(value, divisors):
    """The peeled digits of a SymPy ``value`` (outermost first, the top unreduced)."""
    digits = []
    for f in reversed(divisors):
        digits.append(sympy.Mod(value, f))
        value = sympy.floor(value / f)
    return [value] + digits[::-1]


@st.composite
def digit_maps(draw):
    """A map of the lemma's shape with pass-through dims ``y_j`` and its
    description in Python ints, perhaps with one fault (a stride, a divisor,
    the flat extent, or a digit of extent > 1 given back as 0). Forward
    ``[x_k, y_j] → [y_j, o]`` (in some order), ``o = Σ s_k·x_k``, the inverse
    peeling ``o``; or reversed ``[i, y_j] → [y_j, a_k]``, peeling ``i``, the
    inverse the sum, perhaps padded (``valid``: the sum < the extent of i)."""
    extents = draw(st.lists(st.integers(1, 5), min_size=2, max_size=4))
    others = draw(st.lists(st.integers(1, 3), max_size=2))
    reverse, padded = draw(st.booleans()), False
    strides = [math.prod(extents[k + 1:]) for k in range(len(extents))]
    divisors = list(extents[1:])
    box = size = math.prod(extents)
    if reverse and box > 1 and draw(st.booleans()):
        padded, size = True, draw(st.integers(1, box - 1))
    fault = draw(st.sampled_from(["none", "none", "stride", "divisor", "size", "zero"]))
    k = draw(st.integers(0, len(extents) - 1))
    if fault == "stride":
        strides[k] = max(0, strides[k] + draw(st.sampled_from([-1, 1])))
    elif fault == "divisor" and divisors:
        divisors[k % len(divisors)] = max(1, divisors[k % len(divisors)] + 1)
    elif fault == "size":
        size = box + 1 if padded else max(1, size + draw(st.sampled_from([-1, 1])))
    ys = [(f"y{j}", e) for j, e in enumerate(others)]
    digits = [(f"a{j}", e) for j, e in enumerate(extents)]
    flat = [("o", size)] if not reverse else [("i", size)]
    d = la.Space(*(flat if reverse else digits), *ys)
    outputs = ys + (digits if reverse else flat)
    order = draw(st.permutations(range(len(outputs))))
    c = la.Space(*(outputs[j] for j in order))
    src = dict(zip(d.names, d.symbols))
    dst = dict(zip(c.names, c.symbols))
    if reverse:
        parts = peeled(src["i"], divisors)
        if fault == "zero":
            parts[k] = sympy.Integer(0)
        image = {**dict(zip((n for n, _ in digits), parts)), **{n: src[n] for n, _ in ys}}
        total = sum(s * dst[n] for s, (n, _) in zip(strides, digits))
        inverse = [total] + [dst[n] for n, _ in ys]
        valid = sympy.Lt(total, size) if padded else None
    else:
        image = {"o": sum(s * src[n] for s, (n, _) in zip(strides, digits)),
                 **{n: src[n] for n, _ in ys}}
        parts = peeled(dst["o"], divisors)
        if fault == "zero":
            parts[k] = sympy.Integer(0)
        inverse = parts + [dst[n] for n, _ in ys]
        valid = None
    m = la.IndexMap(d, c, [image[n] for n in c.names], inverse=inverse, valid=valid,
                    name="drawn")
    truth = _truth(extents, strides, divisors, size, fault, k, reverse, padded)
    # the shape the combinators make (IndexMap simplifies digits of extent 1 away)
    plain = fault == "none" and min(extents) >= 2 and not padded
    return m, truth, plain


def _truth(extents, strides, divisors, size, fault, k, reverse, padded) -> bool:
    """Is the drawn map a bijection onto its valid slots with its inverse
    right on each? Python ints from the description alone."""
    box = list(itertools.product(*(range(e) for e in extents)))

    def peel_faulty(o):
        digits = peel(o, divisors)
        if fault == "zero":
            digits[k] = 0
        return tuple(digits)

    def total(digits):
        return sum(s * v for s, v in zip(strides, digits))

    if not reverse:   # x ↦ total(x) onto [0, size), the inverse peel_faulty
        forward, inverse, points, slots = total, peel_faulty, box, [(o,) for o in range(size)]
        images = [(forward(p),) for p in points]
        if sorted(images) != slots:
            return False
        return all(inverse(o) in set(box) and total(inverse(o)) == o for (o,) in slots)
    valid = [y for y in box if not padded or total(y) < size]
    images = [peel_faulty(i) for i in range(size)]
    if sorted(images) != sorted(valid):           # onto the valid slots, once each
        return False
    return all(0 <= total(y) < size and peel_faulty(total(y)) == y for y in valid)


@settings(max_examples=200, deadline=None)
@given(digit_maps())
def test_proved_only_where_enumeration_agrees(drawn):
    m, truth, plain = drawn
    proved = radix.digit_by_digit(m, (), TIMEOUT_MS)
    if proved is not None:
        assert proved.proved and truth, m
        assert brute.check_bijective(m).proved
        for slot in itertools.product(*(range(e) for e in m.codomain.extents)):
            if m.valid is None or m.valid.subs(dict(zip(m.codomain.symbols, slot))):
                assert m(*m.preimage(*slot)) == slot
    elif plain:  # the lemma's own shape, fault-free: it must apply (completeness)
        pytest.fail(f"the lemma did not apply to {m} with inverse {m.inverse}")
