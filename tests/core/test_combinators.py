"""Combinators: each one's postconditions over its whole (small) domain.

Expected images are written from the combinator's definition in plain
Python (``expected``); the map under test is compared with them point by
point, its inverse is checked on every image, and its padding (slots no
element reaches, computed from ``expected``) is compared with ``valid`` and
``preimage``. Every map is also proved a bijection onto its valid slots by
Z3, and the brute-force twin must agree.
"""

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import CompositionError, MapError
from layoutalg.verify import brute
from layoutalg.verify import composition as facts
from layoutalg.verify.z3_backend import solver

S = la.Space


def points(extents):
    return list(itertools.product(*(range(e) for e in extents)))


def is_valid(m, slot):
    """``m.valid`` at a slot, by SymPy substitution (independent of NumPy evaluation)."""
    if m.valid is None:
        return True
    value = m.valid.subs(dict(zip(m.codomain.symbols, slot)))
    assert value in (sympy.true, sympy.false), value
    return bool(value)


@dataclass
class Case:
    name: str
    build: Callable[[], la.IndexMap]
    codomain: tuple  # expected (names, extents) of the codomain
    expected: Callable  # domain point -> expected image tuple


def cyclic_deal(n, parts, block):
    """Deal indices 0..n-1 in blocks of ``block`` round-robin over ``parts``,
    by simulation: returns index -> (part, position within the part)."""
    filled = [0] * parts
    placed = {}
    for number, start in enumerate(range(0, n, block)):
        part = number % parts
        for d in range(start, min(start + block, n)):
            placed[d] = (part, filled[part])
            filled[part] += 1
    return placed


def cyclic_case(n, parts, block):
    deal = cyclic_deal(n, parts, block)
    blocks = -(-n // block)
    local = -(-blocks // parts) * block  # whole rounds of blocks, padded
    return Case(
        f"cyclic(n={n}, parts={parts}, block={block})",
        lambda: la.cyclic(S(i=n), "i", parts, block=block),
        (("i_part", "i_local"), (parts, local)),
        lambda i: deal[i],
    )


CASES = [
    Case("identity", lambda: la.identity(S(i=3, j=2)),
         (("i", "j"), (3, 2)), lambda i, j: (i, j)),
    Case("split exact", lambda: la.split(S(i=12, j=2), "i", 4),
         (("i_o", "i_i", "j"), (3, 4, 2)), lambda i, j: (i // 4, i % 4, j)),
    Case("split ragged", lambda: la.split(S(i=10, j=3), "i", 4),
         (("i_o", "i_i", "j"), (3, 4, 3)), lambda i, j: (i // 4, i % 4, j)),
    Case("split inner dim, named", lambda: la.split(S(i=2, j=7), "j", 3, names=("jt", "jl")),
         (("i", "jt", "jl"), (2, 3, 3)), lambda i, j: (i, j // 3, j % 3)),
    Case("split by more than the extent", lambda: la.split(S(i=3), "i", 8),
         (("i_o", "i_i"), (1, 8)), lambda i: (0, i)),
    Case("fuse", lambda: la.fuse(S(a=3, b=5, c=2), "a", "c"),
         (("ac", "b"), (6, 5)), lambda a, b, c: (2 * a + c, b)),
    Case("fuse inner first", lambda: la.fuse(S(a=3, b=5), "b", "a", name="ba"),
         (("ba",), (15,)), lambda a, b: (3 * b + a,)),
    Case("permute", lambda: la.permute(S(a=2, b=3, c=4), ["c", "a", "b"]),
         (("c", "a", "b"), (4, 2, 3)), lambda a, b, c: (c, a, b)),
    Case("pad to a multiple", lambda: la.pad(S(i=10, j=3), "i", 4),
         (("i", "j"), (12, 3)), lambda i, j: (i, j)),
    Case("pad to an extent", lambda: la.pad(S(i=10), "i", to=13),
         (("i",), (13,)), lambda i: (i,)),
    Case("pad already a multiple", lambda: la.pad(S(i=8), "i", 4),
         (("i",), (8,)), lambda i: (i,)),
    cyclic_case(13, 3, 2),
    cyclic_case(12, 3, 2),
    cyclic_case(7, 4, 1),
    cyclic_case(5, 2, 3),
    cyclic_case(2, 3, 2),
    Case("linearize all", lambda: la.linearize(S(a=2, b=3, c=4)),
         (("offset",), (24,)), lambda a, b, c: (12 * a + 4 * b + c,)),
    Case("linearize some, in the given order", lambda: la.linearize(S(a=2, b=3, c=4), ["c", "a"]),
         (("b", "offset"), (3, 8)), lambda a, b, c: (b, 2 * c + a)),
    Case("linearize with a name", lambda: la.linearize(S(r=3, c=5), name="addr"),
         (("addr",), (15,)), lambda r, c: (5 * r + c,)),
    Case("delinearize exact", lambda: la.delinearize(S(i=24), "i", x=2, y=3, z=4),
         (("x", "y", "z"), (2, 3, 4)), lambda i: (i // 12, (i // 4) % 3, i % 4)),
    Case("delinearize ragged", lambda: la.delinearize(S(i=10), "i", x=3, y=4),
         (("x", "y"), (3, 4)), lambda i: (i // 4, i % 4)),
    Case("offset", lambda: la.offset(S(i=5, j=2), "i", 3),
         (("i", "j"), (8, 2)), lambda i, j: (i + 3, j)),
    Case("offset by zero", lambda: la.offset(S(i=5), "i", 0),
         (("i",), (5,)), lambda i: (i,)),
    Case("scale", lambda: la.scale(S(i=5), "i", 4),
         (("i",), (20,)), lambda i: (4 * i,)),
    Case("scale by one", lambda: la.scale(S(i=5), "i", 1),
         (("i",), (5,)), lambda i: (i,)),
]
IDS = [case.name for case in CASES]


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    return request.param


def test_codomain_names_and_extents(case):
    m = case.build()
    names, extents = case.codomain
    assert m.codomain.names == names
    assert m.codomain.extents == extents


def test_images_follow_the_definition_over_the_whole_domain(case):
    m = case.build()
    for x in points(m.domain.extents):
        assert m(*x) == case.expected(*x), x


def test_images_are_distinct_and_in_bounds(case):
    m = case.build()
    images = [case.expected(*x) for x in points(m.domain.extents)]
    assert len(set(images)) == len(images)  # injective, by the definition
    assert set(images) <= set(points(m.codomain.extents))
    got = {m(*x) for x in points(m.domain.extents)}
    assert len(got) == m.domain.size


def test_inverse_undoes_every_image(case):
    m = case.build()
    assert m.inverse is not None
    for x in points(m.domain.extents):
        assert m.preimage(*m(*x)) == x


def test_padding_is_exactly_the_invalid_slots(case):
    m = case.build()
    images = {case.expected(*x) for x in points(m.domain.extents)}
    slots = points(m.codomain.extents)
    padding = [s for s in slots if s not in images]
    for slot in slots:
        assert is_valid(m, slot) == (slot not in padding), slot
        if slot in padding:
            assert m.preimage(*slot) is None, slot
    counted = la.padding(m)
    assert counted.count == len(padding)
    assert counted.total == len(slots)
    assert counted.fraction == pytest.approx(len(padding) / len(slots))


def test_proved_bijective_and_brute_twin_agrees(case):
    m = case.build()
    proved = la.check_bijective(m)
    assert proved.status is la.Status.PROVED, proved.reason
    assert proved.method == "z3"
    assert brute.check_bijective(m).status is la.Status.PROVED


def test_compose_takes_on_trust_only_what_the_map_is(case):
    """compose proves nothing about a combinator's own map: it is recorded
    exact by construction (in bounds, its inverse right on the valid slots
    and left on every point). Held to that here, by enumeration."""
    m = case.build()
    assert facts.is_exact(m)
    assert brute.check_in_bounds(m).proved
    assert facts._inverse_by_enumeration(m, 0.0).proved


# -- the block-cyclic deal, stated directly --------------------------------------------


@pytest.mark.parametrize("n, parts, block", [(13, 3, 2), (20, 4, 3), (9, 9, 1), (6, 1, 4)])
def test_cyclic_sends_index_to_part_of_its_block(n, parts, block):
    m = la.cyclic(S(i=n), "i", parts, block=block)
    counts = [0] * parts
    for d in range(n):
        part, _local = m(d)
        assert part == (d // block) % parts
        counts[part] += 1
    # Each part holds the indices of its blocks, in order, from position 0.
    for p in range(parts):
        mine = [d for d in range(n) if (d // block) % parts == p]
        assert [m(d)[1] for d in mine] == list(range(len(mine)))
        assert counts[p] == len(mine)


# -- combinators on maps chain -----------------------------------------------------


def test_chain_of_combinators_equals_the_direct_formula():
    tiles = la.split(S(i=8, j=6), "i", 4)
    placed = la.linearize(la.permute(tiles, ["i_o", "j", "i_i"]))
    assert placed.domain == S(i=8, j=6)
    assert placed.codomain.extents == (48,)
    for i, j in points((8, 6)):
        assert placed(i, j) == ((i // 4) * 24 + j * 4 + i % 4,)
    i, j = placed.domain.symbols
    direct = la.IndexMap(S(i=8, j=6), S(o=48), [(i // 4) * 24 + j * 4 + i % 4], name="direct")
    assert la.check_equivalent(placed, direct).status is la.Status.PROVED
    assert la.check_bijective(placed).status is la.Status.PROVED


def test_chain_through_padding_keeps_the_padding():
    # [i:10] split by 4 then linearized: an identity on the elements, with the
    # two slots 10 and 11 as padding.
    chain = la.linearize(la.split(S(i=10), "i", 4))
    assert chain.codomain.extents == (12,)
    assert [chain(i) for i in range(10)] == [(i,) for i in range(10)]
    assert [is_valid(chain, (o,)) for o in range(12)] == [True] * 10 + [False] * 2
    assert chain.preimage(11) is None
    assert la.check_bijective(chain).status is la.Status.PROVED
    assert la.padding(chain).count == 2


def test_explicit_compose_applies_first_then_then():
    first = la.split(S(i=10), "i", 4)  # [i_o:3, i_i:4]
    then = la.linearize(S(a=3, b=4))  # names differ, extents agree
    composed = la.compose(first, then)
    assert composed.domain == first.domain
    assert composed.codomain == then.codomain
    for i in range(10):
        assert composed(i) == then(*first(i)) == (i,)
    # The composed inverse and validity come from both parts.
    for o in range(12):
        assert composed.preimage(o) == ((o,) if o < 10 else None)
    assert la.check_bijective(composed).status is la.Status.PROVED


def test_compose_with_identity_changes_nothing():
    m = la.cyclic(S(i=11), "i", 3, block=2)
    left = la.compose(la.identity(m.domain), m)
    right = la.compose(m, la.identity(m.codomain))
    for i in range(11):
        assert left(i) == right(i) == m(i)
    assert la.check_equivalent(left, m).status is la.Status.PROVED
    assert la.check_equivalent(right, m).status is la.Status.PROVED


def test_compose_into_a_wider_domain_is_accepted_without_a_query(monkeypatch):
    first = la.identity(S(i=4))
    then = la.pad(S(i=6), "i", 4)  # [i:6] → [i:8], slots 6, 7 padding
    with monkeypatch.context() as patched:  # both exact by construction: nothing to ask Z3
        patched.setattr(solver, "solve", lambda *args, **kwargs: pytest.fail("a Z3 query"))
        composed = la.compose(first, then)
    assert composed.codomain.extents == (8,)
    # Only the 4 elements of first are real now: slots 4..7 are padding.
    assert [is_valid(composed, (o,)) for o in range(8)] == [True] * 4 + [False] * 4
    assert la.check_bijective(composed).status is la.Status.PROVED
    assert la.padding(composed).count == 4


def test_compose_whose_images_fit_a_narrower_domain_is_proved_and_accepted():
    # pad's codomain [i:12] is wider than [i:10], but every image is < 10.
    composed = la.compose(la.pad(S(i=10), "i", 4), la.identity(S(i=10)))
    assert [composed(i) for i in range(10)] == [(i,) for i in range(10)]


def test_compose_with_rank_mismatch_is_refused():
    with pytest.raises(CompositionError, match=r"same rank; got 1 and 2"):
        la.compose(la.linearize(S(a=2, b=3)), la.identity(S(a=2, b=3)))


def test_compose_whose_images_escape_names_a_counterexample():
    first = la.offset(S(i=5), "i", 3)  # images 3..7
    then = la.identity(S(i=6), name="six")
    with pytest.raises(CompositionError, match=r"domain \[i:6\] of six") as info:
        la.compose(first, then)
    message = str(info.value)
    found = re.search(r"\(i=(\d+)\) maps to \(i=(\d+)\)", message)
    assert found, message
    x, image = int(found.group(1)), int(found.group(2))
    assert 0 <= x < 5 and image == x + 3 and image >= 6  # a real escape


def test_compose_refuses_non_maps():
    with pytest.raises(CompositionError, match=r"first must be an IndexMap; got Space\(i=3\)"):
        la.compose(S(i=3), la.identity(S(i=3)))
    with pytest.raises(CompositionError, match=r"then must be an IndexMap; got 3"):
        la.compose(la.identity(S(i=3)), 3)


# -- symbolic extents --------------------------------------------------------------


def test_parametric_combinators_are_proved_for_every_size():
    M, N, T = la.extents("M N T")
    maps = [
        la.split(S(i=M), "i", T),
        la.pad(S(i=M), "i", T),
        la.cyclic(S(i=M), "i", T),
        la.offset(S(i=M), "i", N),
        la.scale(S(i=M), "i", T),
        la.fuse(S(a=M, b=N), "a", "b"),
    ]
    for m in maps:
        verdict = la.check_bijective(m, timeout_ms=10_000)
        assert verdict.status is la.Status.PROVED, f"{m.label}: {verdict.reason}"


def test_parametric_combinators_are_exact_as_recorded_for_every_size():
    """What compose takes on trust, proved by Z3 for symbolic sizes: each
    inverse right on the valid slots and left everywhere. (A cyclic deal with
    a block other than 1 is beyond one query — its theorem is shipped by parts
    in proofs/block_cyclic.py — and is held to it by enumeration above.)"""
    M, N, T = la.extents("M N T")
    maps = [
        la.split(S(i=M), "i", T), la.pad(S(i=M), "i", T), la.cyclic(S(i=M), "i", T),
        la.offset(S(i=M), "i", N), la.scale(S(i=M), "i", T), la.fuse(S(a=M, b=N), "a", "b"),
        la.permute(S(a=M, b=N), ["b", "a"]), la.linearize(S(a=M, b=N)),
        la.delinearize(S(i=M * N), "i", x=M, y=N), la.identity(S(i=M)),
    ]
    for m in maps:
        assert facts.is_exact(m), m.label
        verdict = facts._prove_inverse(m, 0.0, 60_000)
        assert verdict.proved, f"{m.label}: {verdict.reason}"


def test_a_ragged_symbolic_delinearize_is_not_taken_on_trust():
    """Its extents may not hold every index (M·N < K is possible), so compose
    must prove its images in bounds before composing after it."""
    K, M, N = la.extents("K M N")
    m = la.delinearize(S(i=K), "i", x=M, y=N)
    assert not facts.is_exact(m)
    with pytest.raises(CompositionError, match=r"out of bounds"):
        la.compose(m, la.identity(m.codomain))


def test_parametric_split_binds_to_the_concrete_split():
    M, T = la.extents("M T")
    symbolic = la.split(S(i=M), "i", T)
    for m, t in [(10, 4), (12, 4), (3, 5)]:
        bound = symbolic.bind(M=m, T=t)
        concrete = la.split(S(i=m), "i", t)
        assert bound.codomain == concrete.codomain
        assert [bound(i) for i in range(m)] == [concrete(i) for i in range(m)]
        slots = points(concrete.codomain.extents)
        assert [is_valid(bound, s) for s in slots] == [is_valid(concrete, s) for s in slots]


# -- bad input -----------------------------------------------------------------------

BAD = [
    ("split factor 0", lambda: la.split(S(i=4), "i", 0), la.SpaceError,
     r"extent factor must be a positive integer.*got 0"),
    ("split unknown dim", lambda: la.split(S(i=4), "k", 2), la.SpaceError,
     r"dimension 'k' is not in the space; its dimensions are \('i',\)"),
    ("split duplicate names", lambda: la.split(S(i=4), "i", 2, names=("a", "a")), MapError,
     r"names must be 2 distinct names; got \('a', 'a'\)"),
    ("fuse a dim with itself", lambda: la.fuse(S(a=2, b=3), "a", "a"), MapError,
     r"fuse: outer and inner must differ; got 'a' twice"),
    ("permute with a repeat", lambda: la.permute(S(a=2, b=3), ["a", "a"]), MapError,
     r"permute: order must be a permutation of \('a', 'b'\); got \('a', 'a'\)"),
    ("permute missing a dim", lambda: la.permute(S(a=2, b=3), ["a"]), MapError,
     r"permute: order must be a permutation of \('a', 'b'\); got \('a',\)"),
    ("pad with both", lambda: la.pad(S(i=4), "i", 2, to=8), MapError,
     r"pad: give exactly one of multiple= and to=; got 2, 8"),
    ("pad with neither", lambda: la.pad(S(i=4), "i"), MapError,
     r"pad: give exactly one of multiple= and to=; got None, None"),
    ("pad to less", lambda: la.pad(S(i=4), "i", to=2), MapError,
     r"pad: to must be at least the extent 4 of i; got 2"),
    ("cyclic zero parts", lambda: la.cyclic(S(i=4), "i", 0), la.SpaceError,
     r"extent parts must be .*got 0"),
    ("cyclic negative block", lambda: la.cyclic(S(i=4), "i", 2, block=-1), la.SpaceError,
     r"extent block must be .*got -1"),
    ("linearize no dims", lambda: la.linearize(S(a=2), []), MapError,
     r"linearize: dims must be distinct names of \('a',\); got \[\]"),
    ("linearize repeated dims", lambda: la.linearize(S(a=2, b=2), ["a", "a"]), MapError,
     r"linearize: dims must be distinct .*got \['a', 'a'\]"),
    ("delinearize too small", lambda: la.delinearize(S(i=13), "i", x=3, y=4), MapError,
     (r"delinearize: the new extents must hold all 13 indices of i; got \{'x': 3, 'y': 4\} "
      r"\(product 12\)")),
    ("delinearize no dims", lambda: la.delinearize(S(i=13), "i"), MapError,
     r"delinearize: give the new dims as name=extent keywords; got none"),
    ("offset negative", lambda: la.offset(S(i=3), "i", -1), MapError,
     r"offset: amount must be a nonnegative integer; got -1"),
    ("offset float", lambda: la.offset(S(i=3), "i", 1.5), MapError,
     r"offset: amount must be a nonnegative integer; got 1\.5"),
    ("offset maybe negative", lambda: la.offset(S(i=8), "i", la.extents("M")[0] - 5), MapError,
     (r"offset: amount must be a nonnegative integer for every size; got M - 5, which is -4 "
      r"at M = 1")),
    ("pad to maybe less", lambda: la.pad(S(i=la.extents("M")[0]), "i", to=la.extents("N")[0]),
     MapError, (r"pad: to must be at least the extent M of i for every size; got N, which is "
                r"below it at M = 2, N = 1")),
    ("scale by zero", lambda: la.scale(S(i=3), "i", 0), la.SpaceError,
     r"extent factor must be .*got 0"),
    ("source not a space or map", lambda: la.split(3, "i", 2), MapError,
     r"source must be a Space or an IndexMap; got 3"),
]


@pytest.mark.parametrize("build, error, pattern", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_combinator_input_is_refused(build, error, pattern):
    with pytest.raises(error, match=pattern):
        build()
