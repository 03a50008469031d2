"""``compose`` and ``Chain`` against composing by hand (issue 11, items 6 and 9).

The oracle composes two maps with plain Python ints: every part is drawn
together with its definition written in Python (a combinator's documented
formula, or a user map's formula, inverse and valid predicate), and the
composition, its real slots and the truth of every check are computed from
those definitions over the whole small domain: no layoutalg evaluator, no
SymPy. The rule for the composition's real slots (``_composed_valid``): a
slot is real when ``then`` calls it real and ``then`` sends a real point of
``first`` there (inside ``first``'s codomain, where ``first`` calls it real).

Then the reproducers, each with the verdict it must have.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import sympy
from hypothesis import event, given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.verify.compose import compose
from layoutalg.verify import composition as facts
from layoutalg.verify import enumerated
from layoutalg.verify.z3_backend import solver

TIMEOUT_MS = 60_000  # small concrete queries answer in milliseconds: a margin, not a budget


def points(extents):
    return list(itertools.product(*(range(e) for e in extents)))


def inside(point, extents) -> bool:
    return len(point) == len(extents) and all(0 <= v < e for v, e in zip(point, extents))


def flat_of(x, extents) -> int:
    flat = 0
    for v, e in zip(x, extents):
        flat = flat * e + v
    return flat


@dataclass(frozen=True)
class Part:
    """A layoutalg map and its definition in Python: ``fn`` (domain point →
    image, which may leave the codomain) and ``real`` (slot → holds a real
    element, as the map's author claims)."""

    m: la.IndexMap
    domain: tuple
    codomain: tuple
    fn: Callable[[tuple], tuple]
    real: Callable[[tuple], bool]
    kind: str
    inverse: Callable[[tuple], tuple] | None = None  # a user map's written inverse


def exact_part(m, domain, codomain, fn, kind) -> Part:
    """A combinator's map: a bijection onto its images, by its definition."""
    assert m.codomain.extents == codomain, (kind, m.codomain, codomain)
    images = {fn(x) for x in points(domain)}
    return Part(m, domain, codomain, fn, images.__contains__, kind)


KINDS = ["split", "fuse", "permute", "pad", "cyclic", "linearize", "offset", "scale"]


@st.composite
def combinator_parts(draw, space: la.Space) -> Part:
    """One combinator on ``space``, with its formula written out."""
    names, ext = space.names, space.extents
    rank = len(ext)
    kind = draw(st.sampled_from(KINDS if rank > 1 else [k for k in KINDS if k != "fuse"]))
    k = draw(st.integers(0, rank - 1))
    e = ext[k]

    def at(x, values):
        return x[:k] + values + x[k + 1:]

    def grown(values):
        return ext[:k] + values + ext[k + 1:]

    if kind == "split":
        f = draw(st.integers(1, 4))
        return exact_part(la.split(space, names[k], f), ext, grown((-(-e // f), f)),
                          lambda x: at(x, (x[k] // f, x[k] % f)), kind)
    if kind == "fuse":
        ko, ki = draw(st.permutations(range(rank)))[:2]
        eo, ei = ext[ko], ext[ki]
        cod = tuple(eo * ei if j == ko else ext[j] for j in range(rank) if j != ki)
        return exact_part(la.fuse(space, names[ko], names[ki]), ext, cod,
                          lambda x: tuple(x[ko] * ei + x[ki] if j == ko else x[j]
                                          for j in range(rank) if j != ki), kind)
    if kind == "permute":
        order = draw(st.permutations(range(rank)))
        return exact_part(la.permute(space, [names[j] for j in order]), ext,
                          tuple(ext[j] for j in order), lambda x: tuple(x[j] for j in order),
                          kind)
    if kind == "pad":
        mult = draw(st.integers(1, 4))
        return exact_part(la.pad(space, names[k], mult), ext, grown((-(-e // mult) * mult,)),
                          lambda x: x, kind)
    if kind == "cyclic":
        p, b = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        local = -(-(-(-e // b)) // p) * b
        return exact_part(la.cyclic(space, names[k], p, block=b), ext, grown((p, local)),
                          lambda x: at(x, ((x[k] // b) % p, (x[k] // (b * p)) * b + x[k] % b)),
                          kind)
    if kind == "linearize":
        return exact_part(la.linearize(space), ext, (math.prod(ext),),
                          lambda x: (flat_of(x, ext),), kind)
    if kind == "offset":
        a = draw(st.integers(0, 3))
        return exact_part(la.offset(space, names[k], a), ext, grown((e + a,)),
                          lambda x: at(x, (x[k] + a,)), kind)
    f = draw(st.integers(1, 3))
    return exact_part(la.scale(space, names[k], f), ext, grown((e * f,)),
                      lambda x: at(x, (x[k] * f,)), kind)


@st.composite
def user_parts(draw, space: la.Space) -> Part:
    """A hand-written map to one flat dim: ``a·flat + c``, wrapped or not (so it
    may escape), with no inverse, the right one or a wrong one, and a valid
    predicate that may or may not match its images."""
    ext = space.extents
    size = math.prod(ext)
    a, c = draw(st.integers(1, 3)), draw(st.integers(0, 3))
    n = draw(st.integers(max(1, size - 2), a * (size - 1) + c + 2))
    wrap = draw(st.booleans())
    syms = space.symbols
    flat = sum((s * math.prod(ext[j + 1:]) for j, s in enumerate(syms)), sympy.Integer(0))
    expr = (a * flat + c) % n if wrap else a * flat + c
    cod = la.Space(o=n)
    (o,) = cod.symbols

    def fn(x):
        value = a * flat_of(x, ext) + c
        return (value % n if wrap else value,)

    shift = draw(st.sampled_from([None, 0, 0, 1]))
    inverse = inverse_fn = None
    strides = [math.prod(ext[j + 1:]) for j in range(len(ext))]
    if shift is not None:  # the flat index, unflattened row-major
        back = (o - c) // a + shift
        inverse = [back // strides[0]] + [(back // s) % e for s, e in zip(strides[1:], ext[1:])]

        def inverse_fn(y):
            flat = (y[0] - c) // a + shift
            return (flat // strides[0],) + tuple((flat // s) % e
                                                 for s, e in zip(strides[1:], ext[1:]))
    claim = draw(st.sampled_from(["all", "below", "lattice"]))
    t = draw(st.integers(1, n))
    valid = {"all": None, "below": o < t, "lattice": sympy.Eq(o % a, c % a)}[claim]
    real = {"all": lambda y: True, "below": lambda y: y[0] < t,
            "lattice": lambda y: y[0] % a == c % a}[claim]
    m = la.IndexMap(space, cod, [expr], inverse=inverse, valid=valid,
                    name=f"user({a}·flat+{c}{' mod ' + str(n) if wrap else ''}, inv+{shift}, "
                    f"{claim})")
    return Part(m, ext, (n,), fn, real, "user", inverse_fn)


@st.composite
def spaces(draw, prefix: str = "x", extents=None):
    if extents is None:
        rank = draw(st.integers(1, 2))
        extents = [draw(st.integers(1, 5)) for _ in range(rank)]
    return la.Space.of(tuple(f"{prefix}{k}" for k in range(len(extents))), tuple(extents))


@st.composite
def parts(draw, space):
    if draw(st.integers(0, 2)) == 0:
        return draw(user_parts(space))
    return draw(combinator_parts(space))


@st.composite
def first_parts(draw):
    """A part, or two combinators already composed (an exact composition)."""
    space = draw(spaces())
    one = draw(parts(space))
    if one.kind == "user" or draw(st.booleans()):
        return one
    two = draw(combinator_parts(la.Space.of(one.m.codomain.names, one.codomain)))
    m = compose(one.m, two.m)
    return exact_part(m, one.domain, two.codomain, lambda x: two.fn(one.fn(x)), "two steps")


@st.composite
def pairs(draw):
    """``first`` and a ``then`` whose domain has ``first``'s codomain extents,
    each sometimes one larger or smaller."""
    first = draw(first_parts())
    grow = draw(st.sampled_from(["same", "same", "perturbed"]))
    extents = [e if grow == "same" else max(1, e + draw(st.sampled_from([-1, 0, 1])))
               for e in first.codomain]
    then = draw(parts(draw(spaces("t", extents))))
    return first, then


# -- the oracle ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ByHand:
    escapes: list  # domain points whose image leaves first's codomain or then's domain
    images: dict  # domain point -> image, when defined everywhere
    real: Callable[[tuple], bool]
    codomain: tuple

    def truth(self) -> dict[str, bool]:
        values = list(self.images.values())
        in_bounds = all(inside(y, self.codomain) for y in values)
        injective = len(set(values)) == len(values)
        images_valid = all(self.real(y) for y in values if inside(y, self.codomain))
        onto = all(y in set(values) for y in points(self.codomain) if self.real(y))
        return {"in_bounds": in_bounds, "injective": injective, "images_valid": images_valid,
                "bijective": in_bounds and injective and images_valid and onto}


def by_hand(first: Part, then: Part) -> ByHand:
    domain = points(first.domain)
    escapes = [x for x in domain
               if not (inside(first.fn(x), first.codomain) and inside(first.fn(x), then.domain))]
    images = {x: then.fn(first.fn(x)) for x in domain} if not escapes else {}
    reached = {then.fn(z) for z in points(then.domain)
               if inside(z, first.codomain) and first.real(z)}
    return ByHand(escapes, images, lambda y: then.real(y) and y in reached, then.codomain)


def held_valid(m: la.IndexMap, slot) -> bool:
    """The composed ``valid`` at a slot, by SymPy substitution of integers."""
    if m.valid is None:
        return True
    value = m.valid.xreplace(dict(zip(m.codomain.symbols, map(sympy.Integer, slot))))
    assert value in (sympy.true, sympy.false), value
    return bool(value)


CHECKS = {"in_bounds": la.check_in_bounds, "injective": la.check_injective,
          "images_valid": la.check_images_valid, "bijective": la.check_bijective}


def escaping_point(message: str, names) -> tuple:
    found = re.search(r"\((" + r"=-?\d+, ".join(names) + r"=-?\d+)\) maps to", message)
    assert found, message
    return tuple(int(v) for v in re.findall(r"=(-?\d+)", found.group(1)))


@given(pairs())
def test_compose_is_the_composition_by_hand(pair):
    """compose refuses exactly the pairs whose composition is undefined somewhere
    (naming a real escape); else its images, real slots and every check's
    verdict are those of the composition by hand."""
    first, then = pair
    hand = by_hand(first, then)
    event(f"then: {then.kind}" + (", inverse" if then.m.inverse is not None else ""))
    try:
        composed = compose(first.m, then.m)
    except la.CompositionError as error:
        event("undefined: refused")
        assert hand.escapes, f"compose refused a composition defined everywhere: {error}"
        assert escaping_point(str(error), first.m.domain.names) in hand.escapes, str(error)
        return
    assert not hand.escapes, f"compose accepted {hand.escapes[0]} escaping"
    for x, y in hand.images.items():
        assert composed(*x) == y, x
    for slot in points(then.codomain):
        assert held_valid(composed, slot) == hand.real(slot), (slot, composed.valid)
    event(f"bijective: {hand.truth()['bijective']}")
    if any(not hand.real(y) for y in points(then.codomain)) and then.m.valid is None:
        event("first's padding pulled back")
    for check, truth in hand.truth().items():
        verdict = CHECKS[check](composed, timeout_ms=TIMEOUT_MS)
        assert verdict.status is not la.Status.UNKNOWN, verdict
        assert verdict.proved == truth, (check, verdict)


@given(pairs())
def test_a_chain_is_proved_by_parts_exactly_when_the_composition_by_hand_is_a_bijection(pair):
    first, then = pair
    if first.codomain != then.domain:  # a Chain's parts meet end to end
        return
    hand = by_hand(first, then)
    verdict = la.check_bijective_by_parts(la.Chain((first.m, then.m)), timeout_ms=TIMEOUT_MS)
    assert verdict.status is not la.Status.UNKNOWN, verdict
    if hand.escapes:
        assert verdict.refuted, verdict
        point = tuple(verdict.counterexample[n] for n in first.m.domain.names)
        assert point in hand.escapes, verdict
        return
    assert verdict.proved == hand.truth()["bijective"], verdict


# -- item 6: a chain part escaping its own codomain ------------------------------------------


def escaping_chain():
    d = la.Space(x=4)
    (x,) = d.symbols
    first = la.IndexMap(d, la.Space(q=4), [x + 2], name="first")
    (q,) = first.codomain.symbols
    out = la.Space(o=4)
    then = la.IndexMap(first.codomain, out, [q % 4], inverse=[out.symbols[0]], name="then")
    return first, then


def test_a_first_part_escaping_its_codomain_refutes_the_chain_at_the_escape():
    first, then = escaping_chain()
    verdict = la.check_bijective_by_parts(la.Chain((first, then)))
    assert verdict.refuted, verdict
    assert verdict.counterexample["x"] in (2, 3)
    assert "out of bounds" in verdict.reason and "maps to (q=" in verdict.reason


def test_compose_refuses_a_first_map_escaping_its_own_codomain():
    first, then = escaping_chain()
    with pytest.raises(la.CompositionError, match=r"must lie in its codomain \[q:4\] and in the "
                       r"domain \[q:4\] of then; out of bounds: \(x=[23]\) maps to \(q=[45]\)"):
        compose(first, then)
    with pytest.raises(la.CompositionError, match="out of bounds"):
        la.Chain((first, then)).index_map()


def test_compose_refuses_a_first_map_escaping_its_codomain_even_into_a_wider_domain():
    first, _ = escaping_chain()
    with pytest.raises(la.CompositionError, match=r"its codomain \[q:4\].*\(x=[23]\) maps to"):
        compose(first, la.identity(la.Space(q=8)))


def test_a_later_part_escaping_only_where_the_chain_never_goes_leaves_it_defined():
    """The lemma needs every later part in bounds on its whole domain; this
    one escapes at q = 2, 3, which the chain never reaches, so the
    composition (a bijection of [x:2]) decides."""
    first = la.pad(la.Space(x=2), "x", to=4)
    (q,) = first.codomain.symbols
    out = la.Space(o=2)
    then = la.IndexMap(first.codomain, out, [q], inverse=[out.symbols[0]], name="narrowing")
    verdict = la.check_bijective_by_parts(la.Chain((first, then)))
    assert verdict.proved, verdict
    assert "checked whole: part narrowing" in verdict.reason


def test_the_same_map_is_proved_in_bounds_once():
    first, _ = escaping_chain()
    d, (x,) = first.domain, first.domain.symbols
    fine = la.IndexMap(d, la.Space(q=4), [3 - x], name="reverse")
    assert count_queries(lambda: compose(fine, la.linearize(fine.codomain))) <= 1

    def three_more():
        for _ in range(3):
            compose(fine, la.linearize(fine.codomain))

    assert count_queries(three_more) == 0
    assert count_queries(lambda: compose(fine.renamed("again"), la.pad(fine.codomain, "q", 8))) == 0


def test_combinators_compose_without_a_query():
    M, N, T = la.extents("M N T")
    tiles = la.linearize(la.split(la.Space(i=M, j=N), "j", T), ["j_i"])
    assert count_queries(lambda: la.Chain((tiles, la.linearize(tiles.codomain))).index_map()) == 0


def test_an_undecided_fit_is_refused_naming_the_reason(monkeypatch):
    first, then = escaping_chain()
    (x,) = first.domain.symbols
    shifted = la.IndexMap(first.domain, first.codomain, [(x + 1) % 4], name="undecided")
    monkeypatch.setattr(solver, "solve", lambda *a, **k: solver.Outcome("unknown", reason="z3: "
                                                                        "timeout"))
    monkeypatch.setattr(enumerated, "FALLBACK_UP_TO", 0)  # not decided by enumeration either
    with pytest.raises(la.CompositionError, match=r"Z3 did not decide it \(z3: timeout\), and "
                       r"compose does not assume it"):
        compose(shifted, then)


def count_queries(action) -> int:
    calls = []
    original = solver.solve

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    solver.solve = counting
    try:
        action()
    finally:
        solver.solve = original
    return len(calls)


# -- item 9: first's padding through a then without (a right) inverse -----------------------


def flatten(space: la.Space, *, inverse=None, name="flatten") -> la.IndexMap:
    a, b = space.symbols
    width = space.extents[1]
    out = la.Space(o=space.extents[0] * width)
    inv = None if inverse is None else inverse(out.symbols[0], width)
    return la.IndexMap(space, out, [width * a + b], inverse=inv, name=name)


def test_split_then_a_flatten_without_inverse_is_a_bijection_onto_its_ten_real_slots():
    tiles = la.split(la.Space(x=10), "x", 4)
    composed = compose(tiles, flatten(tiles.codomain))
    assert [held_valid(composed, (o,)) for o in range(12)] == [True] * 10 + [False] * 2
    verdict = la.check_bijective(composed)
    assert verdict.proved, verdict
    assert la.padding(composed).count == 2


def test_a_wrong_inverse_is_not_used_for_the_real_slots():
    tiles = la.split(la.Space(x=10), "x", 4)
    wrong = flatten(tiles.codomain, inverse=lambda o, w: [o // w, (o + 1) % w], name="wrong")
    composed = compose(tiles, wrong)
    assert [held_valid(composed, (o,)) for o in range(12)] == [True] * 10 + [False] * 2
    assert composed.inverse is None  # the inverse compose found wrong is not carried on
    assert la.check_bijective(composed).proved


def test_a_wrong_inverse_can_no_longer_hide_a_broken_first_map():
    """first claims slots 0..2 but fills 1..3; the wrong inverse pulled its
    padding to slot 0, which made a false PROVED."""
    d = la.Space(x=3)
    (x,) = d.symbols
    mid = la.Space(q=4)
    (q,) = mid.symbols
    first = la.IndexMap(d, mid, [x + 1], valid=q < 3, name="off by one")
    out = la.Space(o=4)
    (o,) = out.symbols
    then = la.IndexMap(mid, out, [q], inverse=[(o + 3) % 4], name="wrong inverse")
    composed = compose(first, then)
    assert [held_valid(composed, (s,)) for s in range(4)] == [True, True, True, False]
    verdict = la.check_bijective(composed)
    assert verdict.refuted and "padding slot (o=3)" in verdict.reason, verdict


def test_a_proved_user_inverse_pulls_the_padding_back_for_every_size():
    M, T = la.extents("M T")
    tiles = la.split(la.Space(x=M), "x", T)
    right = flatten(tiles.codomain, inverse=lambda o, w: [o // w, o % w], name="flat")
    composed = compose(tiles, right)
    assert composed.inverse is not None
    for m, t in [(10, 4), (12, 4), (3, 5)]:
        bound = composed.bind(M=m, T=t)
        slots = range(bound.codomain.extents[0])
        assert [held_valid(bound, (s,)) for s in slots] == [s < m for s in slots]


def test_symbolic_padding_through_a_map_without_a_usable_inverse_is_refused():
    M, T = la.extents("M T")
    tiles = la.split(la.Space(x=M), "x", T)
    with pytest.raises(la.CompositionError, match=r"cannot say which slots of \[o:.*\] hold real "
                       r"elements: the padding of split\(x, T\) must be pulled back through "
                       r"flatten, whose inverse is not usable \(flatten has no inverse\)"):
        compose(tiles, flatten(tiles.codomain))
    wrong = flatten(tiles.codomain, inverse=lambda o, w: [o // w, (o + 1) % w], name="wrong")
    with pytest.raises(la.CompositionError, match=r"its inverse is not right at \(o="):
        compose(tiles, wrong)


def test_compose_without_padding_to_pull_back_keeps_then_valid_and_asks_nothing():
    space = la.Space(a=3, b=4)
    flat = flatten(space)
    first = la.identity(space)
    assert count_queries(lambda: compose(first, flat)) == 0
    assert compose(first, flat).valid is None


def test_facts_memo_is_bounded():
    memo = facts._Memo(size=2)
    for k in range(5):
        memo.put(k, k)
    assert list(memo.items) == [3, 4] and memo.get(0) is None and memo.get(4) == 4


# -- the inverse compose pulls padding back through -----------------------------------------


def inverse_truth(part: Part) -> bool:
    """By hand: the inverse is right on every real slot and left on every point
    sent to one (the written inverse, recomputed from the part's formula)."""
    for y in points(part.codomain):
        if part.real(y):
            x = part.inverse(y)
            if not inside(x, part.domain) or part.fn(x) != y:
                return False
    for z in points(part.domain):
        y = part.fn(z)
        if inside(y, part.codomain) and part.real(y) and part.inverse(y) != z:
            return False
    return True


@given(st.data())
def test_the_inverse_is_judged_alike_by_enumeration_z3_and_by_hand(data):
    part = data.draw(user_parts(data.draw(spaces())))
    if part.m.inverse is None:
        return
    enumerated = facts._inverse_by_enumeration(part.m, 0.0)
    proved = facts._prove_inverse(part.m, 0.0, TIMEOUT_MS)
    assert proved.status is not la.Status.UNKNOWN, proved
    assert enumerated.proved == proved.proved == inverse_truth(part), (enumerated, proved)


def test_an_inverse_leaving_the_domain_is_not_right_even_where_the_formula_maps_back():
    space = la.Space(a=2, b=3)
    a, b = space.symbols
    out = la.Space(o=9)
    (o,) = out.symbols
    m = la.IndexMap(space, out, [3 * a + b], inverse=[o // 3, o % 3], name="two rows of nine")
    for verdict in (facts._inverse_by_enumeration(m, 0.0),
                    facts._prove_inverse(m, 0.0, TIMEOUT_MS)):
        assert verdict.refuted and verdict.counterexample["o"] in (6, 7, 8), verdict


def test_a_composition_equal_to_one_of_its_parts_does_not_recurse():
    """Found by the CuTe algebra work: ``I ∘ L`` keyed like ``L`` once made
    ``L`` a part of itself, and asking whether it is in bounds never ended."""
    layout, identity = la.strided((2, 1), (1, 0)), la.strided(2, 1)
    la.compose(identity, layout)
    whole = la.compose(layout, identity)
    assert la.check_in_bounds(whole).status is la.Status.PROVED
    assert [whole(i) for i in range(2)] == [(0,), (1,)]


@pytest.mark.parametrize("stride,keep", [(2, 1), (3, 2)])
def test_padding_left_in_a_repeating_pattern_is_written_by_its_residues(stride, keep):
    """A padded ``first`` (only rows < keep of 4 are real, 10·16 slots each) then a
    stride-``stride`` map onto ``stride``·320 slots: every real element lands on
    a multiple of ``stride``, the others on nothing, far more than RUN_LIMIT
    runs of unreached slots. The composition's valid slots are exactly the
    multiples of ``stride`` (plain ints below), not a refusal."""
    domain = la.Space(r=keep, b=10, c=16)
    r, b, c = domain.symbols
    padded = la.Space(n=4, b=10, c=16)
    n, pb, pc = padded.symbols
    first = la.IndexMap(domain, padded, [r, b, c], inverse=[n, pb, pc], valid=n < keep,
                        name="first")
    rows = la.Space(t0=4, t1=10, t2=16)
    t0, t1, t2 = rows.symbols
    slots = stride * 160 * keep
    then = la.IndexMap(rows, la.Space(slot=slots),
                       [stride * sympy.Mod(160 * t0 + 16 * t1 + t2, 160 * keep)], name="spread")
    reached = {stride * ((160 * x + 16 * y + z) % (160 * keep))
               for x in range(keep) for y in range(10) for z in range(16)}
    assert len(reached) == 160 * keep and reached == set(range(0, slots, stride))
    whole = compose(first, then)
    (slot,) = whole.codomain.symbols
    assert [bool(whole.valid.subs(slot, s)) for s in range(slots)] == [
        s in reached for s in range(slots)]
    assert la.check_bijective(whole).proved
