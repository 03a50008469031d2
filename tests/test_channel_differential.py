"""Z3 against enumeration for the channel checks, on random small layouts.

Every check runs through Z3 and through its twin in ``layoutalg.channel.brute``;
the statuses must agree (a Z3 UNKNOWN is a failure, never agreement), the
exact conflict count is zero exactly when Z3 proves conflict-freedom, and
every REFUTED counterexample, from either side, is replayed on the layout
with plain integer arithmetic.
"""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.channel import (
    Banks,
    ChannelLayout,
    Interleave,
    Swizzle,
    check_bank_conflict_free,
    check_conflict_free,
    check_disjoint,
    check_fits,
    check_single_channel,
)
from layoutalg.channel import brute
from layoutalg.channel.iteration import concurrent
from layoutalg.channel.options import TILE_DIMS
from layoutalg.verify.result import CheckResult, Status

TIMEOUT_MS = 10_000


def agree(proved: CheckResult, enumerated: CheckResult) -> None:
    assert proved.status is not Status.UNKNOWN, f"Z3 said UNKNOWN: {proved}"
    assert enumerated.method == "enumeration"
    assert proved.status is enumerated.status, (
        f"Z3 and enumeration disagree:\n  z3:    {proved}\n  brute: {enumerated}")


@st.composite
def layouts(draw):
    """A small concrete layout; sometimes with channels smaller than it needs."""
    option = draw(st.sampled_from(la.channel.OPTIONS))
    if option in ("iteration_aware", "hardware"):
        channels = 2 * draw(st.integers(1, 3))
    elif option == "matrix":
        channels = draw(st.integers(3, 5))
    else:
        channels = draw(st.integers(1, 5))
    sizes = {"m_tiles": draw(st.integers(1, 3)), "n_tiles": draw(st.integers(1, 3)),
             "k_tiles": draw(st.integers(1, 3))}
    interleave = draw(st.sampled_from([16, 64]))
    tile = interleave * draw(st.integers(1, 4))
    lay = ChannelLayout(option, num_channels=channels, tile_bytes=tile, interleave=interleave,
                        **sizes)
    if draw(st.integers(0, 2)) == 0:
        unit = tile if lay.range_decoded else interleave
        smaller = unit * draw(st.integers(1, max(1, lay.channel_bytes // unit)))
        lay = ChannelLayout(option, num_channels=channels, tile_bytes=tile,
                            interleave=interleave, channel_bytes=smaller, **sizes)
    return lay


dataflows = st.sampled_from(["os", "ws", "is", ("A", "B", "C")])
grains = st.sampled_from(["tile", "beat", "footprint"])


def tile_address(lay, matrix, ce, suffix=""):
    r, c = (ce[f"{d}{suffix}"] for d in TILE_DIMS[matrix])
    return int(lay.address_of(matrix, r, c))


def replay_conflict(lay, ce, dataflow, grain):
    channels = []
    for matrix in concurrent(dataflow):
        beat = {"tile": 0, "beat": ce.get("beat"), "footprint": ce.get(f"beat_{matrix}")}[grain]
        address = tile_address(lay, matrix, ce) + lay.interleave * beat
        channels.append(lay.decoder.channel(address))
    assert len(set(channels)) < len(channels), f"{ce}: channels {channels}, no conflict"


@given(layouts(), dataflows, grains)
def test_conflict_free(lay, dataflow, grain):
    proved = check_conflict_free(lay, dataflow=dataflow, grain=grain, timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_conflict_free(lay, dataflow=dataflow, grain=grain)
    agree(proved, enumerated)
    count = brute.count_conflicts(lay, dataflow=dataflow, grain=grain)
    assert (count == 0) is proved.proved
    for result in (proved, enumerated):
        if result.refuted:
            replay_conflict(lay, result.counterexample, dataflow, grain)


def matrix_of(ce, suffix=""):
    dims = {k[: -len(suffix)] if suffix else k for k in ce
            if k in {f"{d}{suffix}" for d in ("ti", "tj", "tk")}}
    return next(x for x, pair in TILE_DIMS.items() if set(pair) == dims)


def replay_overlap(lay, ce):
    first, second = matrix_of(ce), matrix_of(ce, "'")
    a, b = tile_address(lay, first, ce), tile_address(lay, second, ce, "'")
    same = first == second and all(ce[d] == ce[f"{d}'"] for d in TILE_DIMS[first])
    assert not same and abs(a - b) < lay.tile_bytes, f"{ce}: tiles at {a} and {b}"


def replay_overflow(lay, ce):
    matrix = matrix_of({k: v for k, v in ce.items() if k in ("ti", "tj", "tk")})
    r, c = (ce[d] for d in TILE_DIMS[matrix])
    if lay.range_decoded:
        channel, offset, limit = (int(v) for v in lay.designed(matrix, r, c))
        assert offset + lay.tile_bytes > lay.channel_bytes or channel >= limit, ce
    else:
        address = int(lay.address_of(matrix, r, c)) + lay.interleave * ce["beat"]
        assert lay.decoder.offset(address) + lay.interleave > lay.channel_bytes, ce


def replay_split(lay, ce):
    matrix = matrix_of({k: v for k, v in ce.items() if k in ("ti", "tj", "tk")})
    base = tile_address(lay, matrix, ce)
    assert lay.decoder.channel(base + lay.interleave * ce["beat"]) != lay.decoder.channel(base)


PLACEMENT = {
    "fits": (check_fits, brute.check_fits, replay_overflow),
    "disjoint": (check_disjoint, brute.check_disjoint, replay_overlap),
    "single_channel": (check_single_channel, brute.check_single_channel, replay_split),
}


@given(layouts(), st.sampled_from(sorted(PLACEMENT)))
def test_placement(lay, name):
    z3_check, enumerate_check, replay = PLACEMENT[name]
    proved, enumerated = z3_check(lay, timeout_ms=TIMEOUT_MS), enumerate_check(lay)
    agree(proved, enumerated)
    for result in (proved, enumerated):
        if result.refuted:
            replay(lay, result.counterexample)


# -- symbolic theorems against enumeration of bound sizes -----------------------------------------

M, NT, K, H = la.extents("M NT K H")
EVERY_EVEN = ChannelLayout("iteration_aware", num_channels=2 * H, m_tiles=M, n_tiles=NT,
                           k_tiles=K, tile_bytes=256)


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4),
       st.sampled_from(["tile", "beat"]))
def test_every_even_channel_count_theorem_holds_when_bound(m, n, k, h, grain):
    # proofs/channel.py proves os and is conflict-free and ws refuted for all sizes.
    lay = EVERY_EVEN.bind(M=m, NT=n, K=k, H=h)
    assert brute.count_conflicts(lay, dataflow="os", grain=grain) == 0
    assert brute.count_conflicts(lay, dataflow="is", grain=grain) == 0
    assert brute.check_fits(lay).proved and brute.check_disjoint(lay).proved


# -- swizzles ----------------------------------------------------------------------------------------


@st.composite
def swizzles(draw, max_bits=3):
    bits = draw(st.integers(0, max_bits))
    shift = draw(st.integers(bits, bits + 2)) * draw(st.sampled_from([1, -1]))
    if shift == 0 and bits == 0 and draw(st.booleans()):
        shift = 1
    return Swizzle(bits, draw(st.integers(0, 3)), shift)


@given(swizzles(max_bits=4))
def test_swizzle_expression_is_cute_bitwise(sw):
    x = sympy.Symbol("x", integer=True, nonnegative=True)
    size = 4 * sw.period
    arithmetic = la.IndexMap(la.Space(x=size), la.Space(y=size), [sw.expr(x)])
    (values,) = arithmetic.apply(np.arange(size))
    assert list(values) == [sw(v) for v in range(size)]
    # An involution that keeps every period block in place.
    assert all(sw(sw(v)) == v and sw(v) // sw.period == v // sw.period for v in range(size))


@st.composite
def bank_problems(draw):
    """Lanes reading a small row-major tile (rows × chunks), swizzled or not."""
    sw = draw(swizzles(max_bits=2))
    chunk = 2 ** draw(st.integers(0, 2))
    chunks, lanes = 2 ** draw(st.integers(1, 2)), 2 ** draw(st.integers(1, 2))
    size = lanes * chunks * chunk
    size = -(-size // sw.period) * sw.period
    space = la.Space(step=chunks, lane=lanes)
    step, lane = space.symbols
    by_column = draw(st.booleans())
    logical = lane * chunks * chunk + step * chunk if by_column else (
        step * lanes * chunk + lane * chunk)
    access = la.IndexMap(space, la.Space(addr=size), [sw.expr(logical)], name=f"read via {sw}")
    if draw(st.booleans()):
        resource = Banks(2 ** draw(st.integers(1, 3)), chunk * 2 ** draw(st.integers(0, 1)))
    else:
        resource = Interleave(2 ** draw(st.integers(1, 2)), chunk)
    return access, resource


@given(bank_problems())
def test_bank_conflict_free(problem):
    access, resource = problem
    proved = check_bank_conflict_free(access, resource, lane="lane", method="z3",
                                      timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_bank_conflict_free(access, resource, lane="lane")
    agree(proved, enumerated)
    assert (brute.bank_conflict_degree(access, resource, lane="lane") == 1) is proved.proved
    for result in (proved, enumerated):
        if result.refuted:
            ce = result.counterexample
            first = access(ce["step"], ce["lane"])[0]
            second = access(ce["step"], ce["lane'"])[0]
            same_unit = (first // resource.bank_bytes == second // resource.bank_bytes
                         if isinstance(resource, Banks) else False)
            used = (resource.bank if isinstance(resource, Banks) else resource.channel)
            assert used(first) == used(second) and not same_unit, ce
