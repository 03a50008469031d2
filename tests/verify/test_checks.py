"""The Z3 checks on hand-made maps with known answers.

Every REFUTED verdict's counterexample is replayed on the map (by point
evaluation and by enumeration) to show it is a real witness; UNKNOWN is
never a pass.
"""

import itertools
import re

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import MapError
from layoutalg.verify import brute

S = la.Space
PROVED, REFUTED, UNKNOWN = la.Status.PROVED, la.Status.REFUTED, la.Status.UNKNOWN


def points(extents):
    return list(itertools.product(*(range(e) for e in extents)))


def domain_point(m, counterexample, suffix=""):
    return tuple(counterexample[name + suffix] for name in m.domain.names)


def slot_valid(m, slot):
    if m.valid is None:
        return True
    return bool(m.valid.subs(dict(zip(m.codomain.symbols, slot))))


def make(domain, codomain, exprs, **kwargs):
    """A map written with plain symbols, as a user would."""
    names = {n: sympy.Symbol(n) for n in domain.names + codomain.names}
    build = lambda f: f(**names) if callable(f) else f  # noqa: E731
    kwargs = {k: build(v) for k, v in kwargs.items()}
    return la.IndexMap(domain, codomain, build(exprs), **kwargs)


ROW_MAJOR = make(S(i=3, j=4), S(o=12), lambda i, j, o: [4 * i + j], name="row_major")
DIAGONAL = make(S(i=3, j=4), S(o=12), lambda i, j, o: [i + j], name="diagonal")
SKEW = make(S(i=3, j=4), S(a=3, b=4), lambda i, j, a, b: [i, i + j], name="skew")
EVEN = make(S(i=4), S(o=8), lambda i, o: [2 * i], name="even")


# -- check_in_bounds --------------------------------------------------------------


def test_in_bounds_proved():
    verdict = la.check_in_bounds(ROW_MAJOR)
    assert verdict.status is PROVED
    assert verdict.counterexample is None
    assert verdict.check == "in_bounds" and verdict.subject == "row_major"
    assert verdict.seconds >= 0


def test_in_bounds_refuted_with_a_point_that_really_escapes():
    verdict = la.check_in_bounds(SKEW)
    assert verdict.status is REFUTED
    x = domain_point(SKEW, verdict.counterexample)
    image = SKEW(*x)
    assert any(not 0 <= v < e for v, e in zip(image, SKEW.codomain.extents))
    assert f"maps to (a={image[0]}, b={image[1]})" in verdict.reason
    assert "b=" in verdict.reason and "not in [0, 4)" in verdict.reason


def test_in_bounds_refuted_for_a_negative_image():
    m = make(S(i=4), S(o=4), lambda i, o: [i - 1], name="minus_one")
    verdict = la.check_in_bounds(m)
    assert verdict.status is REFUTED
    assert verdict.counterexample == {"i": 0}
    assert m(0) == (-1,)


def test_floor_division_tiles_escape_the_mesh():
    # [100] over 8 PEs with tile 100 // 8 = 12 (floor, not ceil): rows 96..99
    # land on PE 8, which does not exist.
    m = make(S(i=100), S(pe=8, off=12), lambda i, pe, off: [i // 12, i % 12], name="floor_tiles")
    verdict = la.check_in_bounds(m)
    assert verdict.status is REFUTED
    (i,) = domain_point(m, verdict.counterexample)
    assert i >= 96 and m(i)[0] == 8


# -- check_injective --------------------------------------------------------------


def test_injective_proved():
    assert la.check_injective(ROW_MAJOR).status is PROVED
    assert la.check_injective(EVEN).status is PROVED


def test_injective_refuted_with_two_distinct_points_on_one_slot():
    verdict = la.check_injective(DIAGONAL)
    assert verdict.status is REFUTED
    first = domain_point(DIAGONAL, verdict.counterexample)
    second = domain_point(DIAGONAL, verdict.counterexample, "'")
    assert first != second
    assert DIAGONAL(*first) == DIAGONAL(*second)
    assert first[0] + first[1] == second[0] + second[1]  # by hand: i + j collides
    slot = DIAGONAL(*first)[0]
    expected = (f"not injective: (i={first[0]}, j={first[1]}) and "
                f"(i={second[0]}, j={second[1]}) both map to (o={slot})")
    assert verdict.reason == expected


def test_a_one_point_domain_is_injective():
    m = make(S(i=1), S(o=1), lambda i, o: [0])
    assert la.check_injective(m).status is PROVED


# -- check_images_valid / check_surjective ----------------------------------------


def test_images_valid_proved_when_every_element_is_on_a_valid_slot():
    m = make(S(i=4), S(o=8), lambda i, o: [2 * i], valid=lambda i, o: sympy.Eq(o % 2, 0))
    assert la.check_images_valid(m).status is PROVED


def test_images_valid_refuted_with_an_element_on_padding():
    m = make(S(i=4), S(o=8), lambda i, o: [2 * i], valid=lambda i, o: o < 6, name="short")
    verdict = la.check_images_valid(m)
    assert verdict.status is REFUTED
    (i,) = domain_point(m, verdict.counterexample)
    assert not slot_valid(m, m(i))
    assert i == 3  # by hand: only 2*3 = 6 is past the valid range
    assert verdict.reason == "element (i=3) lands on padding slot (o=6)"


def test_surjective_refuted_with_a_slot_nobody_reaches():
    verdict = la.check_surjective(EVEN)
    assert verdict.status is REFUTED
    slot = verdict.counterexample["o"]
    assert slot_valid(EVEN, (slot,))
    assert all(EVEN(i) != (slot,) for i in range(4))
    assert verdict.reason == f"not onto: valid slot (o={slot}) holds no element"


def test_surjective_refuted_with_an_inverse_confirms_the_empty_slot():
    m = make(S(i=4), S(o=8), lambda i, o: [2 * i], inverse=lambda i, o: [o // 2], name="even")
    verdict = la.check_surjective(m)
    assert verdict.status is REFUTED
    slot = verdict.counterexample["o"]
    assert slot % 2 == 1  # the even slots are all reached
    assert all(m(i) != (slot,) for i in range(4))


def test_surjective_proved_with_valid_marking_the_holes():
    m = make(S(i=4), S(o=8), lambda i, o: [2 * i], valid=lambda i, o: sympy.Eq(o % 2, 0))
    assert la.check_surjective(m).status is PROVED
    assert la.check_bijective(m).status is PROVED


def test_a_wrong_inverse_does_not_refute_a_bijection():
    # i ↦ 3 - i is a bijection, but the supplied inverse (the identity) is wrong.
    m = make(S(i=4), S(o=4), lambda i, o: [3 - i], inverse=lambda i, o: [o], name="rev")
    assert m.preimage(0) == (0,) and m(0) == (3,)  # the inverse really is wrong
    assert la.check_surjective(m).status is PROVED
    assert la.check_bijective(m).status is PROVED


# -- check_bijective -----------------------------------------------------------------


def transpose_into(rows: int, name: str) -> la.IndexMap:
    """``(i, j) ↦ (j, i)`` of a 3 × 5 grid into ``5 × rows`` slots, with its inverse."""
    return make(S(i=3, j=5), S(a=5, b=rows), lambda i, j, a, b: [j, i],
                inverse=lambda i, j, a, b: [b, a], name=name)


def test_bijective_proved_for_a_transpose():
    m = transpose_into(3, "transpose")
    verdict = la.check_bijective(m)
    assert verdict.status is PROVED
    assert "bijection" in verdict.reason


@pytest.mark.parametrize("m, part", [(SKEW, "out of bounds"), (DIAGONAL, "not injective"),
                                     (EVEN, "not onto")])
def test_bijective_refuted_reports_the_failing_part(m, part):
    verdict = la.check_bijective(m)
    assert verdict.status is REFUTED
    assert verdict.check == "bijective"
    assert verdict.reason.startswith(part)
    assert brute.check_bijective(m).status is REFUTED


def test_transpose_into_a_too_small_codomain_is_refuted():
    m = transpose_into(2, "transpose_short")
    verdict = la.check_bijective(m)
    assert verdict.status is REFUTED
    x = domain_point(m, verdict.counterexample)
    assert x[0] == 2 and m(*x)[1] == 2  # row i = 2 has no column b = 2


# -- check_equivalent -----------------------------------------------------------------


def test_equivalent_proved_for_two_spellings_of_row_major():
    other = make(S(x=3, y=4), S(p=12), lambda x, y, p: [(4 * x + y) % 12], name="modded")
    verdict = la.check_equivalent(ROW_MAJOR, other)
    assert verdict.status is PROVED
    assert verdict.subject == "row_major ≡ modded"


def test_equivalent_refuted_with_a_point_where_they_differ():
    other = make(S(i=3, j=4), S(o=12), lambda i, j, o: [4 * i + j % 3], name="typo")
    verdict = la.check_equivalent(ROW_MAJOR, other)
    assert verdict.status is REFUTED
    x = domain_point(ROW_MAJOR, verdict.counterexample)
    assert ROW_MAJOR(*x) != other(*x)
    assert x[1] == 3  # by hand: j % 3 differs from j only at j = 3
    assert f"they differ at (i={x[0]}, j=3)" in verdict.reason
    assert brute.check_equivalent(ROW_MAJOR, other).status is REFUTED


def test_equivalent_needs_domains_of_equal_rank_and_codomain_ranks():
    # different sizes are an answer (issue 15 item 6), different ranks bad input
    assert la.check_equivalent(la.identity(S(i=3)), la.identity(S(i=4))).refuted
    with pytest.raises(MapError, match=r"equal extents; got \[i:3, j:1\] and \[i:3\]"):
        la.check_equivalent(la.identity(S(i=3, j=1)), la.identity(S(i=3)))
    with pytest.raises(MapError, match=r"codomains of equal rank"):
        la.check_equivalent(ROW_MAJOR, SKEW)


@pytest.mark.parametrize("check", [la.check_in_bounds, la.check_injective, la.check_bijective,
                                   la.check_surjective, la.check_images_valid])
def test_checks_refuse_non_maps(check):
    with pytest.raises(MapError, match=r"m must be an IndexMap; got Space\(i=3\)"):
        check(S(i=3))


# -- padding -------------------------------------------------------------------------


@pytest.mark.parametrize("m, count, total", [
    (la.pad(S(i=10), "i", 4), 2, 12),
    (la.split(S(i=10, j=3), "i", 4), 6, 36),
    (la.scale(S(i=5), "i", 4), 15, 20),
    (ROW_MAJOR, 0, 12),
    (EVEN, 4, 8),
])
def test_padding_counts_empty_slots(m, count, total):
    result = la.padding(m)
    assert (result.count, result.total) == (count, total)
    assert result.fraction == pytest.approx(count / total)
    # Cross-check by enumeration written here.
    used = {m(*x) for x in points(m.domain.extents)}
    assert total - len(used) == count


def test_padding_of_a_symbolic_pad_is_a_formula():
    (M,) = la.extents("M")
    result = la.padding(la.pad(S(i=M), "i", 4))
    assert isinstance(result.count, sympy.Expr)
    assert result.count.free_symbols == {M}
    for value in range(1, 21):
        assert result.count.subs(M, value) == (-value) % 4
        assert result.total.subs(M, value) == value + (-value) % 4


def test_padding_of_a_symbolic_tiling_is_a_formula():
    M, N, T = la.extents("M N T")
    result = la.padding(la.split(S(i=M, j=N), "i", T))
    for m, n, t in [(10, 3, 4), (8, 2, 4), (1, 5, 3)]:
        tiles = -(-m // t)
        assert result.count.subs({M: m, N: n, T: t}) == (tiles * t - m) * n
        assert result.total.subs({M: m, N: n, T: t}) == tiles * t * n


def test_padding_of_a_large_non_injective_map_is_refused():
    big = make(S(i=2**23), S(o=2**23), lambda i, o: [i // 2], name="halving")
    with pytest.raises(la.VerificationError, match=r"injective is REFUTED"):
        la.padding(big)


# -- check_fits ------------------------------------------------------------------------

TWO_PE = make(S(i=10), S(pe=2, off=5), lambda i, pe, off: [i // 5, i % 5], name="two_pe")


def test_fits_proved_at_exactly_the_capacity():
    # Each PE holds 5 elements of 4 bytes: 20 bytes.
    assert la.check_fits(TWO_PE, 20, element_bytes=4).status is PROVED


@pytest.mark.parametrize("capacity", [19, 16, 4])
def test_fits_refuted_names_an_element_whose_bytes_exceed_the_capacity(capacity):
    verdict = la.check_fits(TWO_PE, capacity, element_bytes=4, memory_name="PE")
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    pe, off = TWO_PE(ce["i"])
    assert ce["pe"] == pe
    assert ce["bytes"] == (off + 1) * 4 > capacity
    assert ce["bytes"] == 20  # the fullest memory: 5 elements × 4 bytes
    assert f"PE {pe} exceeds memory: 20 > {capacity} bytes" in verdict.reason
    assert brute.check_fits(TWO_PE, capacity, element_bytes=4).status is REFUTED


def test_fits_with_byte_offsets():
    m = la.scale(la.linearize(S(i=4, j=4)), "offset", 4)  # 16 fp32: 64 bytes
    assert la.check_fits(m, 64, element_bytes=4, offsets_in_bytes=True).status is PROVED
    verdict = la.check_fits(m, 32, element_bytes=4, offsets_in_bytes=True)
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    (byte,) = m(ce["i"], ce["j"])
    assert ce["bytes"] == byte + 4 > 32


def test_fits_per_memory_over_two_dims():
    m = make(S(i=8, j=8), S(r=2, c=2, off=16),
             lambda i, j, r, c, off: [i // 4, j // 4, (i % 4) * 4 + j % 4], name="grid")
    assert la.check_fits(m, 64, per=("r", "c"), element_bytes=4).status is PROVED
    verdict = la.check_fits(m, 60, per=("r", "c"), element_bytes=4)
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    r, c, off = m(ce["i"], ce["j"])
    assert (ce["r"], ce["c"]) == (r, c)
    assert ce["bytes"] == (off + 1) * 4 > 60


def test_fits_parametric_counterexample_is_real():
    (M,) = la.extents("M")
    m = make(S(i=M), S(off=M), lambda i, off: [i], name="vector")
    verdict = la.check_fits(m, 64, element_bytes=4)
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    assert 0 <= ce["i"] < ce["M"]
    (off,) = m.bind(M=ce["M"])(ce["i"])
    assert ce["bytes"] == (off + 1) * 4 > 64


def test_fits_bad_arguments():
    with pytest.raises(MapError, match=r"per must name codomain dims of \[pe:2, off:5\]; got \['x'\]"):
        la.check_fits(TWO_PE, 20, per=("x",))
    with pytest.raises(MapError, match=r"element_bytes must be a positive int; got 0"):
        la.check_fits(TWO_PE, 20, element_bytes=0)
    with pytest.raises(MapError, match=r"capacity must be a number of bytes; got '20'"):
        la.check_fits(TWO_PE, "20")
    with pytest.raises(MapError, match=r"leaves no offset dim"):
        la.check_fits(TWO_PE, 20, per=("pe", "off"))


# -- check_conflict_free ----------------------------------------------------------------

STEPS = S(t=4)
ADDR = S(addr=16)
BANK = make(ADDR, S(bank=4), lambda addr, bank: [addr % 4], name="bank")


def access(expr, name):
    return make(STEPS, ADDR, lambda t, addr: [expr(t)], name=name)


def test_conflict_free_proved_when_banks_differ():
    accesses = {"a": access(lambda t: t, "a"), "b": access(lambda t: t + 1, "b")}
    verdict = la.check_conflict_free(STEPS, accesses, BANK)
    assert verdict.status is PROVED
    for t in range(4):  # by hand: t and t + 1 differ mod 4
        assert BANK(*accesses["a"](t)) != BANK(*accesses["b"](t))


def test_conflict_refuted_with_a_step_where_two_accesses_share_a_bank():
    accesses = {"a": access(lambda t: t, "a"), "b": access(lambda t: 2 * t + 1, "b"),
                "c": access(lambda t: t + 4, "c")}
    verdict = la.check_conflict_free(STEPS, accesses, BANK, subject="triple")
    assert verdict.status is REFUTED
    t = verdict.counterexample["t"]
    banks = {name: BANK(*m(t)) for name, m in accesses.items()}
    assert len(set(banks.values())) < 3
    found = re.search(r"conflict at \(t=(\d+)\): (\w) and (\w) both use \(bank=(\d+)\)",
                      verdict.reason)
    assert found, verdict.reason
    assert int(found.group(1)) == t
    x, y, bank = found.group(2), found.group(3), int(found.group(4))
    assert x != y and banks[x] == banks[y] == (bank,)


def test_conflict_without_a_resource_compares_addresses():
    # t and 3 - t never meet (3 is odd); t and 6 - t meet at t = 3 only.
    apart = {"a": access(lambda t: t, "a"), "b": access(lambda t: 3 - t, "b")}
    assert la.check_conflict_free(STEPS, apart).status is PROVED
    meet = {"a": access(lambda t: t, "a"), "b": access(lambda t: 6 - t, "b")}
    verdict = la.check_conflict_free(STEPS, meet)
    assert verdict.status is REFUTED
    assert verdict.counterexample == {"t": 3}
    assert verdict.reason == "conflict at (t=3): a and b both use (addr=3)"


def test_conflict_free_refuses_a_single_access():
    with pytest.raises(MapError, match=r"at least two names"):
        la.check_conflict_free(STEPS, {"a": access(lambda t: t, "a")}, BANK)


# -- UNKNOWN is never a pass --------------------------------------------------------------

I = sympy.Symbol("i")

UNSUPPORTED = [
    ("sin", sympy.sin(I)),
    ("non-integer rational", I / 2),
    ("square root", sympy.sqrt(I)),
    ("undefined function", sympy.Function("bitwise_and")(I, 3)),
    ("partial piecewise", sympy.Piecewise((I, I < 2))),
]


@pytest.mark.parametrize("expr", [u[1] for u in UNSUPPORTED], ids=[u[0] for u in UNSUPPORTED])
@pytest.mark.parametrize("check", [la.check_in_bounds, la.check_injective, la.check_bijective])
def test_unsupported_operators_give_unknown_never_proved(expr, check):
    m = la.IndexMap(S(i=4), S(o=4), [expr], name="odd")
    verdict = check(m)
    assert verdict.status is UNKNOWN
    assert not verdict.proved and not verdict.refuted
    assert verdict.counterexample is None
    assert "unsupported" in verdict.reason


def test_unsupported_valid_gives_unknown():
    m = make(S(i=4), S(o=4), lambda i, o: [i], valid=lambda i, o: sympy.sin(o) < 1)
    verdict = la.check_images_valid(m)
    assert verdict.status is UNKNOWN
    assert "unsupported" in verdict.reason


def test_a_timeout_is_unknown_not_proved():
    # Full row-major linearization of a symbolic tiling: nonlinear, beyond Z3
    # within a few milliseconds.
    M, N, T = la.extents("M N T")
    tiles = la.split(la.split(S(i=M, j=N), "i", T), "j", T)
    m = la.linearize(la.permute(tiles, ["i_o", "j_o", "i_i", "j_i"]))
    verdict = la.check_injective(m, timeout_ms=5)
    assert verdict.status is UNKNOWN
    assert "timeout" in verdict.reason or "canceled" in verdict.reason
    # check_bijective proves the combinators' map by its parts (no solver time needed:
    # issue 17); the same formulas written by hand have no parts, and time out.
    written = la.IndexMap(m.domain, m.codomain, m.exprs, name="written")
    whole = la.check_bijective(written, timeout_ms=5)
    assert whole.status is UNKNOWN
    assert "timeout" in whole.reason


# -- parametric checks ----------------------------------------------------------------------


def padded_tiling():
    """[i:M, j:N] in T×T tiles: tile coordinates, then the offset inside a tile."""
    M, N, T = la.extents("M N T")
    tiles = la.split(la.split(S(i=M, j=N), "i", T), "j", T)
    return la.linearize(la.permute(tiles, ["i_o", "j_o", "i_i", "j_i"]), ["i_i", "j_i"])


def test_padded_tiling_is_proved_bijective_for_all_sizes():
    m = padded_tiling()
    assert {str(p) for p in m.parameters} == {"M", "N", "T"}
    for check in (la.check_in_bounds, la.check_injective, la.check_images_valid,
                  la.check_surjective, la.check_bijective):
        verdict = check(m)
        assert verdict.status is PROVED, f"{check.__name__}: {verdict.reason}"


@pytest.mark.parametrize("sizes", [(5, 7, 2), (4, 4, 4), (3, 2, 5), (1, 1, 1)])
def test_padded_tiling_bound_to_sizes_agrees_with_enumeration(sizes):
    M, N, T = sizes
    bound = padded_tiling().bind(M=M, N=N, T=T)
    for i, j in points((M, N)):
        assert bound(i, j) == (i // T, j // T, (i % T) * T + j % T)
    assert brute.check_bijective(bound).status is PROVED
    tiles_i, tiles_j = -(-M // T), -(-N // T)
    assert la.padding(bound).count == tiles_i * tiles_j * T * T - M * N


def test_parametric_refutation_names_the_sizes():
    (M,) = la.extents("M")
    m = make(S(i=M), S(o=M), lambda i, o: [i + 1], name="shift")
    verdict = la.check_in_bounds(m)
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    assert ce["i"] == ce["M"] - 1  # only the last element escapes
    assert f"with M={ce['M']}" in verdict.reason
    assert m.bind(M=ce["M"])(ce["i"]) == (ce["M"],)


def test_parametric_injectivity_refuted_with_sizes_that_collide():
    (M,) = la.extents("M")
    m = make(S(i=M), S(o=M), lambda i, o: [i % 2], name="parity")
    verdict = la.check_injective(m)
    assert verdict.status is REFUTED
    ce = verdict.counterexample
    bound = m.bind(M=ce["M"])
    assert ce["i"] != ce["i'"] and bound(ce["i"]) == bound(ce["i'"])


def test_assumptions_decide_a_parametric_check():
    M, N = la.extents("M N")
    m = make(S(i=M), S(o=N), lambda i, o: [i], name="embed")
    assert la.check_in_bounds(m).status is REFUTED
    assert la.check_in_bounds(m, assume=[sympy.Le(M, N)]).status is PROVED
    assert la.check_in_bounds(m.assuming(sympy.Le(M, N))).status is PROVED
    assert la.check_in_bounds(m.assuming(sympy.Lt(N, M))).status is REFUTED


def test_divisibility_assumption_removes_the_padding():
    M, T = la.extents("M T")
    m = la.split(S(i=M), "i", T)
    # Without assumptions some slot is padding; assuming T | M, none is.
    valid_everywhere = la.IndexMap(m.domain, m.codomain, m.exprs, inverse=m.inverse)
    assert la.check_surjective(valid_everywhere).status is REFUTED
    divisible = sympy.Eq(M % T, 0)
    assert la.check_surjective(valid_everywhere, assume=[divisible]).status is PROVED


# -- CheckResult ----------------------------------------------------------------------------


def test_check_result_refuses_truthiness():
    verdict = la.check_injective(ROW_MAJOR)
    with pytest.raises(TypeError, match=r"three outcomes"):
        bool(verdict)
    with pytest.raises(TypeError):
        if verdict:
            pass
    assert verdict.proved is True and verdict.refuted is False


def test_check_result_text_and_status_text():
    verdict = la.check_injective(DIAGONAL)
    assert str(verdict.status) == "REFUTED"
    assert str(verdict).startswith("injective(diagonal): REFUTED — not injective: ")
    assert all(type(v) is int for v in verdict.counterexample.values())


def test_contradictory_assumptions_prove_nothing():
    M, N = la.extents("M N")
    dom = la.Space(i=M)
    (i,) = dom.symbols
    escapes = la.IndexMap(dom, la.Space(o=N), [i], name="escapes")
    # Without assumptions Z3 finds M > N; with contradictory ones unsat would be vacuous.
    assert la.check_in_bounds(escapes).status is la.Status.REFUTED
    verdict = la.check_in_bounds(escapes, assume=[M < N, N < M])
    assert verdict.status is la.Status.UNKNOWN
    assert "contradict" in verdict.reason


def test_surjective_without_an_inverse_is_proved_by_counting_for_every_size():
    M, N = la.extents("M N")
    dom = la.Space(i=M, j=N)
    i, j = dom.symbols
    column_major = la.IndexMap(dom, la.Space(offset=M * N), [j * M + i], name="column_major")
    result = la.check_surjective(column_major)
    assert result.status is la.Status.PROVED
    assert "as many elements as slots" in result.reason


def test_equal_sizes_without_injectivity_are_not_counted_as_onto():
    dom = la.Space(i=4)
    (i,) = dom.symbols
    halves = la.IndexMap(dom, la.Space(o=4), [i // 2], name="halves")
    result = la.check_surjective(halves)
    assert result.status is la.Status.REFUTED
    assert result.counterexample["o"] in (2, 3)


def test_bijective_reports_the_first_part_refuted():
    dom = la.Space(i=4)
    (i,) = dom.symbols
    shifted = la.IndexMap(dom, la.Space(o=4), [i + 1], name="shifted")
    result = la.check_bijective(shifted)
    assert result.status is la.Status.REFUTED
    assert result.reason.startswith("out of bounds: (i=3)")
