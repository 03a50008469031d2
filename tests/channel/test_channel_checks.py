"""The channel checks on seed 003's worked example and over all sizes.

Conflict counts are derived by hand from the seed's formulas (e.g. round-robin
A[ti,tk] and B[tk,tj] share a channel exactly when tj ≡ tk mod 4 at 16 tiles
per side); every REFUTED counterexample is replayed on the layout.
"""

from __future__ import annotations

import pytest
import sympy
from test_channel_seed import iteration_aware_channel, round_robin_global_index

import layoutalg as la
from layoutalg.channel import (
    ChannelLayout,
    check_conflict_free,
    check_disjoint,
    check_fits,
    check_single_channel,
)
from layoutalg.channel.iteration import concurrent
from layoutalg.runner.dsl import run_claim
from layoutalg.verify.result import Status
from oracles import channel as brute

SEED = {"num_channels": 4, "m_tiles": 16, "n_tiles": 16, "k_tiles": 16, "tile_bytes": 16384}
MB = 1 << 20
PROVED, REFUTED = Status.PROVED, Status.REFUTED


def seed(option, **extra):
    return ChannelLayout(option, **SEED, **extra)


def replay(lay, result, dataflow, grain):
    """The counterexample's concurrent granules really share a channel."""
    ce = result.counterexample
    assert {"ti", "tj", "tk"} <= set(ce)
    channels = []
    for matrix in concurrent(dataflow):
        base = lay.address(matrix, ce["ti"], ce["tj"], ce["tk"])
        beat = {"tile": 0, "beat": ce.get("beat", 0), "footprint": ce.get(f"beat_{matrix}", 0)}
        channels.append(lay.decoder.channel(base + 64 * beat[grain]))
    assert len(set(channels)) < len(channels), f"{ce} is no conflict: channels {channels}"


# -- verdicts the math gives on the worked example ---------------------------------------------

VERDICTS = [
    ("matrix", "os", PROVED, PROVED, PROVED),
    ("matrix", "ws", PROVED, PROVED, PROVED),
    ("round_robin", "os", REFUTED, REFUTED, REFUTED),
    ("round_robin", "is", REFUTED, REFUTED, REFUTED),
    ("iteration_aware", "os", PROVED, PROVED, PROVED),
    ("iteration_aware", "ws", REFUTED, REFUTED, REFUTED),
    ("iteration_aware", "is", PROVED, PROVED, PROVED),
    ("hardware", "os", PROVED, PROVED, REFUTED),
    ("hardware", "is", REFUTED, REFUTED, REFUTED),
]


@pytest.mark.parametrize("option, dataflow, tile, beat, footprint", VERDICTS)
def test_seed_example_verdicts(option, dataflow, tile, beat, footprint):
    lay = seed(option)
    for grain, expected in (("tile", tile), ("beat", beat), ("footprint", footprint)):
        result = check_conflict_free(lay, dataflow=dataflow, grain=grain)
        assert result.status is expected, result
        if result.refuted:
            replay(lay, result, dataflow, grain)


def hand_count(option, dataflow):
    """Conflicting (ti, tj, tk) on the worked example, from the seed's formulas."""
    count = 0
    for ti in range(16):
        for tj in range(16):
            for tk in range(16):
                if option == "round_robin":
                    channel = {x: round_robin_global_index(x, ti, tj, tk, 16, 16, 16) % 4
                               for x in "ABC"}
                else:
                    channel = {x: iteration_aware_channel(x, ti, tj, tk, 4) for x in "ABC"}
                a, b = concurrent(dataflow)
                count += channel[a] == channel[b]
    return count


@pytest.mark.parametrize("option, dataflow, expected", [
    ("round_robin", "os", 16 * 16 * 4),   # tj ≡ tk (mod 4)
    ("round_robin", "is", 16 ** 3),       # B and C are both ≡ tj (mod 4): always
    ("iteration_aware", "ws", 16 ** 3 // 2),  # tj ≡ tk (mod 2)
    ("iteration_aware", "os", 0),
])
def test_conflict_counts_by_hand(option, dataflow, expected):
    lay = seed(option)
    assert hand_count(option, dataflow) == expected
    assert brute.count_conflicts(lay, dataflow=dataflow) == expected
    # Tiles on one channel: every beat of a conflicting iteration conflicts.
    assert brute.count_conflicts(lay, dataflow=dataflow, grain="beat") == expected * 256


def test_hardware_footprint_conflicts_are_a_quarter_of_beat_pairs():
    # A 16 KB tile covers each of the 4 channels with 64 of its 256 beats, so for
    # any two tiles 4 · 64 · 64 of the 256² beat pairs share a channel.
    count = brute.count_conflicts(seed("hardware"), grain="footprint")
    assert count == 16 ** 3 * 4 * 64 * 64


def test_round_robin_refuted_at_the_first_iteration():
    result = check_conflict_free(seed("round_robin"))
    replay(seed("round_robin"), result, "os", "tile")
    assert "A and B both use (channel=0)" in result.reason


# -- placement checks --------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["matrix", "round_robin", "iteration_aware", "hardware"])
def test_seed_layouts_fit_and_never_overlap(option):
    lay = seed(option)
    assert check_fits(lay).proved
    assert check_disjoint(lay).proved
    single = check_single_channel(lay)
    assert single.status is (REFUTED if option == "hardware" else PROVED)


def test_matrix_groups_in_small_channels_overlap_and_spill():
    lay = seed("matrix", channel_bytes=3 * MB)
    overlap = check_disjoint(lay)
    assert overlap.refuted
    ce = overlap.counterexample
    first = [k for k in ce if not k.endswith("'")]
    second = [k for k in ce if k.endswith("'")]
    assert len(first) == len(second) == 2
    assert brute.check_disjoint(lay).refuted
    fit = check_fits(lay)
    assert fit.refuted and fit.counterexample["channel"] == 3  # B reaches C's channel
    # B's 256 tiles of 16 KB need 4 MB, B's group is channel 2 of 3 MB: tiles
    # from linear index 192 (tk = 12) on land on channel 3.
    assert lay.channel("B", 0, 0, 12) == 3 and lay.channel("B", 0, 15, 11) == 2


def test_capacity_argument_overrides_the_layouts():
    lay = seed("round_robin")
    assert check_fits(lay, 3 * MB).proved
    small = check_fits(lay, 3 * MB - 64)
    assert small.refuted and brute.check_fits(lay, 3 * MB - 64).refuted


def test_hardware_single_channel_counterexample_is_real():
    lay = seed("hardware")
    result = check_single_channel(lay)
    ce = result.counterexample
    base = lay.address("A", ce["ti"], 0, ce["tk"])
    assert lay.decoder.channel(base + 64 * ce["beat"]) == ce["channel"] != ce["base_channel"]


# -- all sizes ------------------------------------------------------------------------------------

M, NT, K, H = la.extents("M NT K H")
# Proofs over symbolic sizes answer in well under a second on a quiet machine; a
# timeout would make them UNKNOWN (a failure), so they get room for a loaded one.
PROOF_MS = 60_000


def every_size(option, channels):
    return ChannelLayout(option, num_channels=channels, m_tiles=M, n_tiles=NT, k_tiles=K,
                         tile_bytes=4096)


def test_iteration_aware_for_every_even_channel_count():
    lay = every_size("iteration_aware", 2 * H)
    assert check_conflict_free(lay, dataflow="os", timeout_ms=PROOF_MS).proved
    assert check_conflict_free(lay, dataflow="os", grain="beat", timeout_ms=PROOF_MS).proved
    assert check_fits(lay, timeout_ms=PROOF_MS).proved
    refuted = check_conflict_free(lay, dataflow="ws", timeout_ms=PROOF_MS)
    assert refuted.refuted and {"H", "M", "NT", "K"} <= set(refuted.counterexample)
    bound = lay.bind(**{k: refuted.counterexample[k] for k in ("H", "M", "NT", "K")})
    replay(bound, refuted, "ws", "tile")


def test_symbolic_round_robin_counterexample_replays():
    lay = every_size("round_robin", 4)
    result = check_conflict_free(lay, timeout_ms=PROOF_MS)
    assert result.refuted
    sizes = {k: result.counterexample[k] for k in ("M", "NT", "K")}
    replay(lay.bind(**sizes), result, "os", "tile")


def test_unknown_is_reported_never_proved():
    # The hardware walk with a symbolic channel count is beyond Z3 (docs/channel.md).
    lay = ChannelLayout("hardware", num_channels=2 * H, m_tiles=4, n_tiles=4, k_tiles=4,
                        tile_bytes=4096)
    result = check_conflict_free(lay, timeout_ms=1)
    assert result.status is Status.UNKNOWN
    assert "timeout" in result.reason or "canceled" in result.reason
    with pytest.raises(TypeError, match="three outcomes"):
        bool(result)  # an UNKNOWN can never be mistaken for a pass


# -- spec claims ---------------------------------------------------------------------------------


def test_claims_run_through_the_spec_dsl():
    spec = la.spec(claims=[("channel_conflict_free", "os", "beat"), "tiles_disjoint",
                           ("channel_totals", {0: 2 * MB}, ("A", "B")), ("load_balance", 1.5)])(
        lambda: seed("iteration_aware"))
    subject = spec.build()
    statuses = [run_claim(spec, claim, subject).status for claim in spec.claims]
    assert statuses == [PROVED] * 4


def test_totals_claim_refutes_the_seed_table_with_c():
    result = la.channel.check_channel_totals(seed("iteration_aware"), {0: 2 * MB})
    assert result.refuted and result.counterexample == {"channel": 0, "bytes": 4 * MB}
    assert result.method == "enumeration"


def test_load_balance_names_the_busiest_channel():
    result = la.channel.check_load_balance(seed("matrix"), 1.2)
    assert result.refuted and result.counterexample == {"channel": 0, "bytes": 4 * MB}
    assert la.channel.check_load_balance(seed("round_robin"), 1.0).proved


def test_symbolic_sizes_enter_counterexamples_as_ints():
    result = check_conflict_free(every_size("round_robin", 4), timeout_ms=PROOF_MS)
    assert all(isinstance(v, int) for v in result.counterexample.values())
    assert sympy.Symbol("M") not in result.counterexample
