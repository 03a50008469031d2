"""Z3 against enumeration for the channel checks, on random small layouts.

Every check runs through Z3 and through its twin in ``tests/oracles/channel.py``;
the statuses must agree (a Z3 UNKNOWN is a failure, never agreement), the
exact conflict count is zero exactly when Z3 proves conflict-freedom, and
every REFUTED counterexample, from either side, is replayed on the layout
with plain integer arithmetic.

Agreement is not the truth (both sides read the same formulas), so each test
also states the verdict from plain ints: tile addresses are checked against
the ports of seed 003's listings in ``test_channel_seed`` (round-robin's
global index, the hardware walk, option 1's address, option 3's channel),
then decoded by the seed's rules — ``(addr // granule) % N`` or by range,
``addr // channel_bytes`` — and judged here: which tiles of one iteration
share a channel, whether tiles overlap, fit their channel, stay on one.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_channel_seed import (
    hardware_layout_tiles, interleave_channel, iteration_aware_channel, matrix_channel_groups,
    matrix_tile_address, round_robin_global_index,
)
from test_channel_swizzle import cute_swizzle

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
from layoutalg.channel.iteration import concurrent
from layoutalg.channel.options import TILE_DIMS
from layoutalg.verify.result import CheckResult, Status
from agreement import agree
from oracles import channel as brute

# Generous: the slowest query here takes well under a second on a quiet machine; a
# timeout turns PROVED into UNKNOWN (a failure), so leave room for a loaded one.
TIMEOUT_MS = 60_000


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


# -- the truth, from seed 003 with plain ints ---------------------------------------------------

# The matrices streamed together (seed 004): OS streams A and B into the
# array, WS streams A and the partial sums of C, IS streams B and C.
STREAMED = {"os": ("A", "B"), "ws": ("A", "C"), "is": ("B", "C")}
# Option 1's channel groups: the seed lists 4 and 8 channels; for 3 and 5 the
# streamed A and B get the larger shares, as in the seed's 3/3/2 for 8.
GROUPS = {3: {"A": [0], "B": [1], "C": [2]}, 4: matrix_channel_groups(4),
          5: {"A": [0, 1], "B": [2, 3], "C": [4]}, 8: matrix_channel_groups(8)}


def iteration_tile(matrix, ti, tj, tk):
    """The (row, col) of ``matrix``'s tile used by iteration (ti, tj, tk)."""
    return {"A": (ti, tk), "B": (tk, tj), "C": (ti, tj)}[matrix]


def an_iteration(matrix, r, c):
    """An iteration (ti, tj, tk) that uses tile (r, c) of ``matrix``."""
    return {"A": (r, 0, c), "B": (0, c, r), "C": (r, c, 0)}[matrix]


def seed_addresses(lay) -> dict:
    """{(matrix, row, col): byte address} — the layout's, checked against the seed."""
    m, n, k = lay.m_tiles, lay.n_tiles, lay.k_tiles
    size, cb, channels = lay.tile_bytes, lay.channel_bytes, lay.num_channels
    grids = {"A": (m, k), "B": (k, n), "C": (m, n)}
    walk = (hardware_layout_tiles(m, n, k, channels, size, lay.interleave)
            if lay.option == "hardware" else None)
    table = {}
    for x, (rows, cols) in grids.items():
        for r, c in itertools.product(range(rows), range(cols)):
            ti, tj, tk = an_iteration(x, r, c)
            address = int(lay.address_of(x, r, c))
            if lay.option == "round_robin":
                assert address == round_robin_global_index(x, ti, tj, tk, m, n, k) * size
            elif lay.option == "hardware":
                assert address == walk["ABC".index(x)][r, c]
            elif lay.option == "matrix":
                assert address == matrix_tile_address(x, ti, tj, tk, m, n, k, size, cb,
                                                      GROUPS[channels])
            else:  # option 3: in the seed's channel, at a whole tile slot of it
                within = address - iteration_aware_channel(x, ti, tj, tk, channels) * cb
                assert within >= 0 and within % size == 0, (x, r, c, address)
            table[x, r, c] = address
    return table


def channel_of(lay, address) -> int:
    if lay.option in ("matrix", "iteration_aware"):
        return address // lay.channel_bytes
    granule = lay.tile_bytes if lay.option == "round_robin" else lay.interleave
    return interleave_channel(address, granule, lay.num_channels)


def offset_in_channel(lay, address) -> int:
    if lay.option in ("matrix", "iteration_aware"):
        return address % lay.channel_bytes
    granule = lay.tile_bytes if lay.option == "round_robin" else lay.interleave
    return (address // (granule * lay.num_channels)) * granule + address % granule


def beat_channels(lay, address) -> list[int]:
    """The channel of each beat of the tile at ``address``, in streaming order."""
    return [channel_of(lay, address + lay.interleave * b) for b in range(lay.beats)]


def seed_conflict_free(lay, dataflow, grain) -> bool:
    """No two streamed tiles of one iteration on one channel (at the grain)."""
    names = STREAMED[dataflow] if isinstance(dataflow, str) else tuple(dataflow)
    where = seed_addresses(lay)
    for ti, tj, tk in itertools.product(range(lay.m_tiles), range(lay.n_tiles),
                                        range(lay.k_tiles)):
        beats = {x: beat_channels(lay, where[(x, *iteration_tile(x, ti, tj, tk))])
                 for x in names}
        for a, b in itertools.combinations(names, 2):
            if grain == "tile" and beats[a][0] == beats[b][0]:
                return False
            if grain == "beat" and any(p == q for p, q in zip(beats[a], beats[b])):
                return False
            if grain == "footprint" and set(beats[a]) & set(beats[b]):
                return False
    return True


def seed_fits(lay) -> bool:
    where = seed_addresses(lay)
    if lay.option == "matrix":  # every tile inside one channel of its matrix's group
        group = GROUPS[lay.num_channels]
        return all(channel_of(lay, a) == channel_of(lay, a + lay.tile_bytes - 1)
                   and channel_of(lay, a) in group[x] for (x, _, _), a in where.items())
    if lay.option == "iteration_aware":  # every tile inside its seed channel
        return all(channel_of(lay, a) == channel_of(lay, a + lay.tile_bytes - 1)
                   == iteration_aware_channel(x, *an_iteration(x, r, c), lay.num_channels)
                   for (x, r, c), a in where.items())
    return all(offset_in_channel(lay, a + lay.interleave * b) + lay.interleave
               <= lay.channel_bytes for a in where.values() for b in range(lay.beats))


def seed_disjoint(lay) -> bool:
    starts = sorted(seed_addresses(lay).values())
    return all(later - earlier >= lay.tile_bytes for earlier, later in zip(starts, starts[1:]))


def seed_single_channel(lay) -> bool:
    return all(len(set(beat_channels(lay, a))) == 1 for a in seed_addresses(lay).values())


def default_capacity(lay) -> int:
    return ChannelLayout(lay.option, num_channels=lay.num_channels, m_tiles=lay.m_tiles,
                         n_tiles=lay.n_tiles, k_tiles=lay.k_tiles, tile_bytes=lay.tile_bytes,
                         interleave=lay.interleave).channel_bytes


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
    assert proved.proved is seed_conflict_free(lay, dataflow, grain), proved
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
    "fits": (check_fits, brute.check_fits, replay_overflow, seed_fits),
    "disjoint": (check_disjoint, brute.check_disjoint, replay_overlap, seed_disjoint),
    "single_channel": (check_single_channel, brute.check_single_channel, replay_split,
                       seed_single_channel),
}


@given(layouts(), st.sampled_from(sorted(PLACEMENT)))
def test_placement(lay, name):
    z3_check, enumerate_check, replay, truth = PLACEMENT[name]
    proved, enumerated = z3_check(lay, timeout_ms=TIMEOUT_MS), enumerate_check(lay)
    agree(proved, enumerated)
    assert proved.proved is truth(lay), proved
    if name != "single_channel" and lay.channel_bytes == default_capacity(lay):
        assert proved.proved  # the default capacity holds every tile, none overlapping
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
    assert list(values) == [cute_swizzle(sw.bits, sw.base, sw.shift, v) for v in range(size)]
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
    # the same reads with plain ints: lane addresses at each step, before the swizzle
    reads = [[lane * chunks * chunk + step * chunk if by_column else
              step * lanes * chunk + lane * chunk for lane in range(lanes)]
             for step in range(chunks)]
    return access, resource, (sw, reads)


def plain_bank_conflict_free(resource, sw, reads) -> bool:
    """No two lanes of one step on one bank (a shared bank word broadcasts) or channel."""
    for step in reads:
        addresses = [cute_swizzle(sw.bits, sw.base, sw.shift, a) for a in step]
        for a, b in itertools.combinations(addresses, 2):
            if isinstance(resource, Banks):
                width = resource.bank_bytes
                if (a // width) % resource.num_banks == (b // width) % resource.num_banks \
                        and a // width != b // width:
                    return False
            elif (a // resource.granule) % resource.num_channels == \
                    (b // resource.granule) % resource.num_channels:
                return False
    return True


@given(bank_problems())
def test_bank_conflict_free(problem):
    access, resource, (sw, reads) = problem
    proved = check_bank_conflict_free(access, resource, lane="lane", method="z3",
                                      timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_bank_conflict_free(access, resource, lane="lane")
    agree(proved, enumerated)
    assert (brute.bank_conflict_degree(access, resource, lane="lane") == 1) is proved.proved
    assert proved.proved is plain_bank_conflict_free(resource, sw, reads), proved
    for result in (proved, enumerated):
        if result.refuted:
            ce = result.counterexample
            first = access(ce["step"], ce["lane"])[0]
            second = access(ce["step"], ce["lane'"])[0]
            same_unit = (first // resource.bank_bytes == second // resource.bank_bytes
                         if isinstance(resource, Banks) else False)
            used = (resource.bank if isinstance(resource, Banks) else resource.channel)
            assert used(first) == used(second) and not same_unit, ce
