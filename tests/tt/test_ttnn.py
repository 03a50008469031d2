"""The TTNN bridge: MemoryConfig / ShardSpec / NdShardSpec by TTNN's field names, padded
shapes covering whole shards, padding writes off the data, L1 fit against free L1.

Pinned truths: the figures of the tracker reports (tt-metal#53110's tensor and its 50 %
of padding left dirty, tt-metal#54621's and #28835's addresses), each recomputed here
with plain integer arithmetic from TT-Metal's documented rules (tiles of 32 × 32 in
16 × 16 faces, shards row-major over the shard grid, pages row-major in a shard), not
read back from the family. ``ttnn`` cannot be installed here (its wheel is cp310-only),
so its objects are stood in for by plain objects with its field names.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.runner.prover import Found, prove_spec
from layoutalg.tt import (
    L1Budget,
    MemoryConfig,
    NdShardSpec,
    ShardSpec,
    ShardSpecError,
    TensorSpec,
    TTError,
    as_layout,
    check_l1_fit,
    check_l1_guard,
    check_padded_to_shards,
    check_padding_disjoint,
    shard_padded_2d,
    shard_shapes,
    tensor_spec,
)
from layoutalg.tt.l1_budget import guard_map
from layoutalg.tt.padding import padded_spec
from layoutalg.tt.ttnn_text import parse_memory_config

BLOCK_53110 = {"memory_layout": "BLOCK_SHARDED", "buffer_type": "L1",
               "shard_spec": {"grid": ((0, 0), (1, 1)), "shape": (64, 128),
                              "orientation": "COL_MAJOR"}}
SPEC_53110 = tensor_spec((1, 1, 100, 256), "BFLOAT16", BLOCK_53110)
# the fill's addressing in our model of tt-metal#53110: pages dealt to cores in runs of a
# shard's page count (8), cores in the grid's COL_MAJOR order — a HEIGHT-sharded reading
RUNS_53110 = TensorSpec((1, 1, 128, 256), "bfloat16", memory=ShardSpec(
    "HEIGHT", (2, 2), (32, 256), "COL_MAJOR"), storage="L1")


# -- reading TTNN's objects and plain forms -------------------------------------------------


def _enum(name):
    return SimpleNamespace(name=name)


def _core(x, y):
    return SimpleNamespace(x=x, y=y)


def test_ttnn_objects_are_read_by_their_fields():
    core_range = SimpleNamespace(start=_core(0, 0), end=_core(1, 1))
    grid = SimpleNamespace(ranges=lambda: [core_range])
    shard = SimpleNamespace(grid=grid, shape=[64, 128], orientation=_enum("COL_MAJOR"))
    config = SimpleNamespace(memory_layout=_enum("BLOCK_SHARDED"), buffer_type=_enum("L1"),
                             shard_spec=shard, nd_shard_spec=None)
    assert MemoryConfig.of(config) == MemoryConfig.of(BLOCK_53110)
    tensor = SimpleNamespace(shape=(1, 1, 100, 256), dtype=_enum("BFLOAT16"),
                             layout=_enum("TILE"), memory_config=lambda: config)
    assert as_layout(tensor) == SPEC_53110
    assert as_layout(SPEC_53110) is SPEC_53110


def test_the_printed_enum_spellings_are_read():
    config = MemoryConfig("TensorMemoryLayout::WIDTH_SHARDED", "BufferType.L1",
                          {"grid": {"start": {"x": 0, "y": 0}, "end": {"x": 3, "y": 0}},
                           "shape": [32, 64], "orientation": "ShardOrientation.ROW_MAJOR"})
    assert config.memory == ShardSpec("WIDTH", (4, 1), (32, 64))
    assert MemoryConfig().memory == "INTERLEAVED" and MemoryConfig().storage == "DRAM"


def test_nd_shard_spec_by_ttnn_names():
    config = MemoryConfig.of({"memory_layout": "BLOCK_SHARDED", "buffer_type": "L1",
                              "nd_shard_spec": {"shard_shape": (1, 64, 64), "grid": (4, 1),
                                                "orientation": "ROW_MAJOR",
                                                "shard_distribution_strategy": "ROUND_ROBIN_1D"}})
    assert config.memory == NdShardSpec((1, 64, 64), (4, 1))
    spec = tensor_spec((4, 64, 64), "bfloat16", config)
    assert la.check_bijective(spec.page_map()).proved


BAD = [
    ("unknown layout", TTError, lambda: MemoryConfig("SHARDED", "L1"),
     (r"memory_layout must be one of \('INTERLEAVED', 'HEIGHT_SHARDED', 'WIDTH_SHARDED', "
     r"'BLOCK_SHARDED'\); got 'SHARDED'")),
    ("unknown buffer", TTError, lambda: MemoryConfig("INTERLEAVED", "SRAM"),
     r"buffer_type must be one of \('DRAM', 'L1'\); got 'SRAM'"),
    ("sharded without spec", ShardSpecError, lambda: MemoryConfig("HEIGHT_SHARDED", "L1"),
     r"shard_spec: a HEIGHT_SHARDED memory config needs a shard_spec"),
    ("interleaved with spec", ShardSpecError,
     lambda: MemoryConfig("INTERLEAVED", "L1", {"grid": (1, 1), "shape": (32, 32)}),
     r"shard_spec: an INTERLEAVED memory config has no shard spec"),
    ("grid off origin", ShardSpecError,
     lambda: MemoryConfig("HEIGHT_SHARDED", "L1", {"grid": ((1, 0), (2, 0)), "shape": (32, 32)}),
     (r"grid: this model places shards on a grid from core \(0, 0\); the core range starts at "
     r"\(x=1, y=0\)")),
    ("two ranges", ShardSpecError,
     lambda: MemoryConfig("HEIGHT_SHARDED", "L1", {"grid": [((0, 0), (0, 0)), ((2, 0), (2, 0))],
                                                   "shape": (32, 32)}),
     r"grid: this model places shards on one rectangle .* got 2 core ranges"),
    ("grid distribution", TTError,
     lambda: MemoryConfig("BLOCK_SHARDED", "L1", nd_shard_spec={
         "shard_shape": (32, 32), "grid": (2, 1), "shard_distribution_strategy": "GRID_2D"}),
     (r"nd_shard_spec.shard_distribution_strategy must be one of \('ROUND_ROBIN_1D',\); "
     r"got 'GRID_2D'")),
    ("unknown field", TTError,
     lambda: MemoryConfig.of({"memory_layout": "INTERLEAVED", "buffer": "L1"}),
     r"memory_config: unknown field 'buffer'"),
    ("budget negative", TTError, lambda: L1Budget(1024, reserved=-1),
     r"reserved must be an int >= 0; got -1"),
    ("budget both sizes", TTError, lambda: L1Budget(1024, device="blackhole"),
     r"L1Budget: give l1_bytes or device=, one of them"),
    ("budget entry", TTError, lambda: L1Budget(1024, buffers=[("a", 1, 2)]),
     r"buffers\[0\] must be a \(name, bytes\) pair; got \('a', 1, 2\)"),
    ("guard name", TTError, lambda: check_l1_guard(L1Budget(1024), "total"),
     r"guard must be one of \('free', 'max'\); got 'total'"),
    ("fit of DRAM tensor", TTError,
     lambda: check_l1_fit(TensorSpec((32, 32), "bfloat16"), L1Budget(1 << 20)),
     r"subject must be a tensor in L1; got storage DRAM"),
    ("padded pair", TTError,
     lambda: check_padded_to_shards(SPEC_53110, (128,)),
     r"padded must be a \(height, width\) pair of positive ints; got \(128,\)"),
]


@pytest.mark.parametrize("label, error, call, message", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_one_clear_error(label, error, call, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert isinstance(info.value, la.LayoutError) and "\n" not in str(info.value)


# -- tt-metal#53110: padding fill on BLOCK_SHARDED data --------------------------------------


def _tile_offset(i, j):
    """TT-Metal's 32 × 32 tile: 16 × 16 faces, face by face, row-major inside a face."""
    return (2 * (i // 16) + j // 16) * 256 + (i % 16) * 16 + j % 16


def _block_location(r, c):
    """BLOCK_SHARDED (64, 128) on a 2 × 2 COL_MAJOR grid, by hand: shard (r // 64, c // 128)
    numbered row-major, cores in COL_MAJOR order, tiles row-major in the shard."""
    tr, tc = r // 32, c // 32
    shard = (tr // 2) * 2 + tc // 4
    core = [(0, 0), (0, 1), (1, 0), (1, 1)][shard]
    slot = (tr % 2) * 4 + tc % 4
    return core, slot * 2048 + 2 * _tile_offset(r % 32, c % 32)


def _runs_location(r, c):
    """The fill's addressing in our model: page p = 8·tile_row + tile_col goes to the
    (p // 8)-th core in COL_MAJOR order, slot p % 8."""
    page = (r // 32) * 8 + c // 32
    core = [(0, 0), (0, 1), (1, 0), (1, 1)][page // 8]
    return core, (page % 8) * 2048 + 2 * _tile_offset(r % 32, c % 32)


def test_53110_hand_placement_is_the_family_placement():
    m = padded_spec(SPEC_53110).index_map()
    for r, c in [(0, 0), (68, 144), (99, 255), (100, 16), (127, 0), (31, 200)]:
        (x, y), address = _block_location(r, c)
        assert m(0, 0, r, c) == (x, y, address)
        (x, y), address = _runs_location(r, c)
        assert RUNS_53110.index_map()(0, 0, r, c) == (x, y, address)


def test_53110_the_fill_overwrites_data_and_leaves_half_the_padding():
    """The report: BLOCK_SHARDED logical region overwritten, padding 50.0 % non-zero."""
    data = {_block_location(r, c) for r in range(100) for c in range(256)}
    padding = {_block_location(r, c) for r in range(100, 128) for c in range(256)}
    written = {_runs_location(r, c) for r in range(100, 128) for c in range(256)}
    assert written & data  # data overwritten
    assert len(padding - written) / len(padding) == 0.5  # half of the padding stays dirty
    verdict = check_padding_disjoint(SPEC_53110, RUNS_53110)
    assert verdict.status is la.Status.REFUTED
    ce = verdict.counterexample
    a = (ce["d2"], ce["d3"])
    b = (ce["d2'"], ce["d3'"])
    pad, real = (a, b) if a[0] >= 100 else (b, a)
    assert pad[0] >= 100 > real[0] and _runs_location(*pad) == _block_location(*real)
    assert check_padding_disjoint(SPEC_53110).proved


@st.composite
def sharded_specs(draw):
    strategy = draw(st.sampled_from(["HEIGHT", "WIDTH", "BLOCK"]))
    gx, gy = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    th, tw = draw(st.integers(1, 3)), draw(st.integers(1, 3))  # shard in tiles
    cores = gx * gy
    if strategy == "HEIGHT":
        rows, cols, shard = draw(st.integers(1, cores * th * 32)), tw * 32, (th * 32, tw * 32)
    elif strategy == "WIDTH":
        rows, cols, shard = th * 32, draw(st.integers(1, cores * tw * 32)), (th * 32, tw * 32)
    else:
        rows = draw(st.integers(1, gy * th * 32))
        cols = draw(st.integers(1, gx * tw * 32))
        shard = (th * 32, tw * 32)
    spec = TensorSpec((rows, cols), "bfloat16", memory=ShardSpec(strategy, (gx, gy), shard),
                      storage="L1")
    return spec


def _collides_by_enumeration(spec, fill):
    own, writes = padded_spec(spec).index_map(), fill.index_map()
    rows, cols = np.meshgrid(*(np.arange(n) for n in spec.padded_shape), indexing="ij")
    real = (rows < spec.shape[0]) & (cols < spec.shape[1])
    data = set(zip(*(np.asarray(v).tolist() for v in own.apply(rows[real], cols[real]))))
    padding = set(zip(*(np.asarray(v).tolist() for v in writes.apply(rows[~real],
                                                                      cols[~real]))))
    placed = data | padding
    return len(placed) < rows.size  # two elements (a data one and a padding one) share a slot


@settings(max_examples=40, deadline=None)
@given(sharded_specs(), st.booleans())
def test_padding_disjoint_z3_agrees_with_enumeration(spec, interleaved_fill):
    fill = None
    if interleaved_fill:
        fill = TensorSpec(spec.padded_shape, "bfloat16", memory=ShardSpec(
            "HEIGHT", spec.memory.grid, (32, spec.padded_shape[1])), storage="L1") \
            if spec.padded_shape[0] <= 32 * spec.memory.num_cores else None
    verdict = check_padding_disjoint(spec, fill)
    assert verdict.status is not la.Status.UNKNOWN
    expected = _collides_by_enumeration(spec, fill or padded_spec(spec))
    assert verdict.refuted == expected
    if fill is None:
        assert verdict.proved


# -- tt-metal#24425: the padded width of a WIDTH_SHARDED tensor --------------------------------


def test_24425_tile_padding_is_not_whole_shards():
    """70 columns, shards of 64 on 2 cores: TTNN pads to tiles (96), the shards span 128."""
    spec = tensor_spec((32, 70), "bfloat16", {"memory_layout": "WIDTH_SHARDED",
                                              "buffer_type": "L1",
                                              "shard_spec": {"grid": (2, 1), "shape": (32, 64)}})
    assert spec.physical_2d == (32, 96) and shard_padded_2d(spec) == (32, 2 * 64)
    verdict = check_padded_to_shards(spec)
    assert verdict.status is la.Status.REFUTED
    ce = verdict.counterexample
    assert ce["shard_col"] * 64 + ce["col_in_shard"] >= 96  # a shard column past the width
    assert check_padded_to_shards(spec, (32, 128)).proved


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 4), st.integers(1, 4))
def test_padded_to_shards_agrees_with_arithmetic(width, tiles_per_shard, cores):
    shard_w = 32 * tiles_per_shard
    if -(-width // shard_w) > cores:
        return
    spec = TensorSpec((32, width), "bfloat16", memory=ShardSpec("WIDTH", (cores, 1),
                                                                (32, shard_w)), storage="L1")
    verdict = check_padded_to_shards(spec)
    tile_padded = -(-width // 32) * 32
    assert verdict.proved == (tile_padded % shard_w == 0)
    assert check_padded_to_shards(spec, shard_padded_2d(spec)).proved


# -- tt-metal#54621 / #28835: free L1, not max L1 --------------------------------------------


P100_CORE = L1Budget(device="blackhole", reserved=1_430_656 - 1_310_720,
                     buffers=[("L1 buffers", 1_572_864 - 1_378_048)])


def test_54621_figures_from_the_report():
    """'L1 buffer allocated at 1378048 and static circular buffer region ends at 1430656'
    for wo's (2048, 320) bf16 shard as a CB: 2048·320·2 = 1,310,720 B."""
    shard = 2048 * 320 * 2
    assert shard == 1_310_720
    assert P100_CORE.lowest_buffer_address == 1_378_048
    assert P100_CORE.cb_region_end + shard == 1_430_656
    verdict = check_l1_fit(shard, P100_CORE, name="wo shard CB")
    assert verdict.status is la.Status.REFUTED
    assert "52,608 B over" in verdict.reason and "L1 buffers 194,816" in verdict.reason
    assert shard <= P100_CORE.max_l1  # why the old guard let it through


def test_54621_max_guard_refuted_free_guard_proved():
    bad = check_l1_guard(P100_CORE, "max")
    assert bad.status is la.Status.REFUTED
    size = bad.counterexample["cb_bytes"]
    assert P100_CORE.free < size <= P100_CORE.max_l1
    assert check_l1_guard(P100_CORE, "free").proved


def test_28835_breakdown_of_the_clash():
    """'L1 buffer allocated at 974336 and static circular buffer region ends at 1089536'
    on Wormhole (1,499,136 B L1)."""
    core = L1Budget(device="wormhole_b0", circular_buffers=[("program 77 CBs", 1_089_536)],
                    buffers=[("L1 buffers", 1_499_136 - 974_336)])
    verdict = check_l1_fit(0, core, name="nothing more")
    assert verdict.status is la.Status.REFUTED
    assert "115,200 B over" in verdict.reason  # 1,089,536 − 974,336


def _guard_sound_by_enumeration(size, reserved, cbs, buffers, guard):
    """By hand: the CB region ends at reserved + cbs; buffers start at size - buffers; the
    free guard admits s <= (size - buffers) - (reserved + cbs), the max guard s <= size -
    reserved; every admitted s (none if the limit is < 0) must end at or below the buffers."""
    limit = (size - buffers) - (reserved + cbs) if guard == "free" else size - reserved
    return all(reserved + cbs + s <= size - buffers for s in range(limit + 1))


@settings(max_examples=60, deadline=None)
@given(st.integers(128, 512), st.integers(0, 63), st.integers(0, 64), st.integers(0, 64),
       st.sampled_from(["free", "max"]))
def test_l1_guard_z3_agrees_with_enumeration(size, reserved, cbs, buffers, guard):
    budget = L1Budget(size, reserved=reserved, circular_buffers=[("cb", cbs)],
                      buffers=[("t", buffers)])
    verdict = check_l1_guard(budget, guard)
    assert verdict.status is not la.Status.UNKNOWN
    assert verdict.proved == _guard_sound_by_enumeration(size, reserved, cbs, buffers, guard)


def test_free_guard_with_no_free_l1_admits_nothing_and_is_proved():
    """128 B of L1: CBs end at 10 + 60 = 70, buffers start at 128 - 64 = 64: free = -6, so the
    free guard admits no size (proved, no map of sizes); the max guard admits 0..118, and
    0 already ends at 70 > 64 (refuted)."""
    budget = L1Budget(128, reserved=10, circular_buffers=[("cb", 60)], buffers=[("t", 64)])
    assert budget.free == -6
    assert check_l1_guard(budget, "free").proved
    assert check_l1_guard(budget, "max").refuted
    with pytest.raises(TTError, match="admits no size"):
        guard_map(budget, "free")


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 4), st.integers(0, 40_000))
def test_sharded_tensor_fit_agrees_with_arithmetic(tiles, cores, taken):
    spec = TensorSpec((32 * tiles * cores, 32), "bfloat16", memory=ShardSpec(
        "HEIGHT", (cores, 1), (32 * tiles, 32)), storage="L1", device="wormhole_b0")
    budget = L1Budget(device="wormhole_b0", reserved=100_000, buffers=[("other", taken)],
                      circular_buffers=[("cbs", 1_499_136 - 100_000 - 40_000)])
    verdict = check_l1_fit(spec, budget)
    assert verdict.proved == (tiles * 2048 <= budget.free)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 1_499_136 - 8192), min_size=4, max_size=4), st.integers(1, 4))
def test_per_core_budgets_the_least_free_core_decides(taken, tiles):
    spec = TensorSpec((32 * tiles * 4, 32), "bfloat16", memory=ShardSpec(
        "HEIGHT", (2, 2), (32 * tiles, 32)), storage="L1")
    cores = [(0, 0), (1, 0), (0, 1), (1, 1)]
    budgets = {core: L1Budget(device="wormhole_b0", buffers=[("other", t)])
               for core, t in zip(cores, taken)}
    verdict = check_l1_fit(spec, budgets)
    least = min(cores, key=lambda c: (1_499_136 - taken[cores.index(c)], c))
    assert verdict.proved == (tiles * 2048 <= 1_499_136 - max(taken))
    assert verdict.reason.split(":")[0].endswith(f"core {least}") or verdict.proved


def test_per_core_budget_must_cover_every_core_of_the_shards():
    spec = TensorSpec((128, 32), "bfloat16", memory=ShardSpec("HEIGHT", (2, 2), (32, 32)),
                      storage="L1")
    with pytest.raises(TTError, match=r"budget: core \(0, 1\) holds a shard of the tensor but "
                                      r"has no L1Budget"):
        check_l1_fit(spec, {(0, 0): L1Budget(1 << 20), (1, 0): L1Budget(1 << 20)})


# -- logical vs padded shape per shard ------------------------------------------------------


def test_shard_shapes_pinned():
    """#53110's tensor: 100 rows in shards of 64 → the second shard row holds 36; #24425's:
    the last core's shard holds 6 data columns, 32 padded columns, of a 64-wide shard."""
    shapes = shard_shapes(SPEC_53110)
    assert shapes[(0, 0)] == ((64, 128), (64, 128), (64, 128))
    assert shapes[(1, 1)].logical == (36, 128)
    spec = tensor_spec((32, 70), "bfloat16", {"memory_layout": "WIDTH_SHARDED",
                                              "buffer_type": "L1",
                                              "shard_spec": {"grid": (2, 1), "shape": (32, 64)}})
    assert shard_shapes(spec)[(1, 0)] == ((32, 70 - 64), (32, 96 - 64), (32, 64))


@settings(max_examples=40, deadline=None)
@given(sharded_specs())
def test_shard_shapes_hold_every_element_once(spec):
    shapes = shard_shapes(spec)
    assert sum(s.logical[0] * s.logical[1] for s in shapes.values()) == (
        spec.shape[0] * spec.shape[1])
    for s in shapes.values():
        assert s.logical[0] <= s.padded[0] <= s.shard[0]
        assert s.logical[1] <= s.padded[1] <= s.shard[1]


def test_shard_shapes_of_a_batched_tensor():
    """[3, 40, 50] pads each matrix to 64 × 64 (the TT-Metal docs' example): one matrix per
    HEIGHT shard of 64 rows, 40 × 50 of it data."""
    spec = tensor_spec((3, 40, 50), "bfloat16", {"memory_layout": "HEIGHT_SHARDED",
                                                 "buffer_type": "L1",
                                                 "shard_spec": {"grid": (3, 1), "shape": (64, 64)}})
    assert set(shard_shapes(spec).values()) == {((40, 50), (64, 64), (64, 64))}


# -- TTNN's printed MemoryConfig ----------------------------------------------------------------

# printed by TT-Metal, as quoted in tt-metal's own model configs and graph-capture tests
PRINTED_WIDTH = ("MemoryConfig(memory_layout=TensorMemoryLayout::WIDTH_SHARDED,"
                 "buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=7,y=3)]},"
                 "shape={32, 128},orientation=ShardOrientation::ROW_MAJOR,mode=ShardMode::PHYSICAL,"
                 "physical_shard_shape=std::nullopt))")
PRINTED_DRAM = ("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,"
                "buffer_type=BufferType::DRAM,shard_spec=std::nullopt,nd_shard_spec=std::nullopt,"
                "created_with_nd_shard_spec=0)")


def test_printed_memory_configs_are_read():
    width = MemoryConfig.of(PRINTED_WIDTH)
    assert width.memory == ShardSpec("WIDTH", (8, 4), (32, 128)) and width.storage == "L1"
    assert MemoryConfig.of(PRINTED_DRAM) == MemoryConfig()
    old = ("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED;buffer_type=BufferType::L1;"
           "shard_spec=std::nullopt)")
    assert MemoryConfig.of(old) == MemoryConfig("INTERLEAVED", "L1")
    spec = tensor_spec((32, 32 * 128), "bfloat16", PRINTED_WIDTH)
    assert set(shard_shapes(spec).values()) == {((32, 128), (32, 128), (32, 128))}


@pytest.mark.parametrize("text, message", [
    (("MemoryConfig(memory_layout=TensorMemoryLayout::WIDTH_SHARDED,buffer_type=BufferType::L1,"
     "shard_spec=std::nullopt)"), r"a WIDTH_SHARDED memory config needs a shard_spec"),
    (PRINTED_WIDTH.replace("ShardMode::PHYSICAL", "ShardMode::LOGICAL"),
     r"shard_spec.mode must be PHYSICAL \(a LOGICAL shard shape is not modelled\)"),
    ("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1",
     r"text: unbalanced brackets in 'MemoryConfig\(memory_layout="),
    ("ShardSpec(grid={[(x=0,y=0) - (x=1,y=1)]},shape={32, 32})",
     r"text must read 'MemoryConfig\(memory_layout=..., buffer_type=..., ...\)'"),
    ("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type)",
     r"text: cannot read the field 'buffer_type' of MemoryConfig"),
])
def test_bad_printed_memory_configs(text, message):
    with pytest.raises(TTError, match=message) as info:
        MemoryConfig.of(text)
    assert "\n" not in str(info.value)


@settings(max_examples=40, deadline=None)
@given(sharded_specs())
def test_padded_to_shards_every_strategy_agrees_with_arithmetic(spec):
    (height, width), (sh, sw) = spec.physical_2d, spec.memory.shard_shape
    verdict = check_padded_to_shards(spec)
    assert verdict.status is not la.Status.UNKNOWN
    assert verdict.proved == (height % sh == 0 and width % sw == 0)
    assert check_padded_to_shards(spec, shard_padded_2d(spec)).proved


# -- a spec may return a ttnn.Tensor ---------------------------------------------------------


def test_a_spec_returning_a_ttnn_tensor_is_proved_through_the_bridge(monkeypatch):
    """The runner converts a ttnn.Tensor (its class looked up in sys.modules: ttnn is never
    imported) with tt.as_layout; here a stand-in module named ttnn holds the class."""
    class Tensor:  # ttnn.Tensor's fields
        shape = (64, 64)
        dtype = _enum("BFLOAT16")
        layout = _enum("TILE")

        def memory_config(self):
            return PRINTED_DRAM

    module = types.ModuleType("ttnn")
    module.Tensor = Tensor
    monkeypatch.setitem(sys.modules, "ttnn", module)
    declared = la.spec(claims=["pages_bijective", "bijective"])(lambda: Tensor())
    built = declared.build()
    assert built == TensorSpec((64, 64), "bfloat16")
    outcomes = prove_spec(Found(Path(__file__), declared))
    assert [o.status for o in outcomes] == ["PROVED", "PROVED"]


# -- bad input to the TTNN bridge: one clear error, nothing dropped ---------------------------


@pytest.mark.parametrize("grid", [(0, 0), (True, 2), (-1, 2), SimpleNamespace(x=0, y=3)])
def test_core_grid_sizes_must_be_positive_ints(grid):
    with pytest.raises(ShardSpecError, match="grid"):
        MemoryConfig("HEIGHT_SHARDED", "L1", shard_spec={"grid": grid, "shape": (32, 32)})


def test_created_with_nd_shard_spec_without_one_is_refused():
    with pytest.raises(ShardSpecError, match="created_with_nd_shard_spec"):
        MemoryConfig.of({"memory_layout": "INTERLEAVED", "buffer_type": "L1",
                         "created_with_nd_shard_spec": True})
    with pytest.raises(TTError, match="created_with_nd_shard_spec"):
        MemoryConfig.of({"memory_layout": "INTERLEAVED", "buffer_type": "L1",
                         "created_with_nd_shard_spec": "yes"})
    # TT-Metal's print of a config built from a 2-D shard spec: the flag 0 is fine
    assert MemoryConfig.of({"memory_layout": "INTERLEAVED", "buffer_type": "L1",
                            "created_with_nd_shard_spec": 0}).memory == "INTERLEAVED"


def test_enum_prefixes_must_name_the_arguments_enum():
    assert MemoryConfig("TensorMemoryLayout::INTERLEAVED", "BufferType::L1").buffer_type == "L1"
    assert MemoryConfig("ttnn.TensorMemoryLayout.INTERLEAVED", "ttnn.BufferType.L1").storage == "L1"
    with pytest.raises(TTError, match="memory_layout must be a TensorMemoryLayout"):
        MemoryConfig("BufferType::INTERLEAVED", "L1")
    with pytest.raises(TTError, match="buffer_type"):
        parse_memory_config("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,"
                            "buffer_type=TensorMemoryLayout::L1)")


def test_l1_fit_of_a_placed_tensor_compares_bytes_with_free_bytes():
    """One 32 x 32 bf16 tile per core (2,048 B) at base address 4,096; free L1 2,047 B:
    2,048 > 2,047 refuted; free 2,048: fits exactly."""
    spec = TensorSpec((64, 32), "bfloat16", memory=ShardSpec("HEIGHT", (2, 1), (32, 32)),
                      storage="L1", base_address=4_096)
    assert check_l1_fit(spec, L1Budget(10_000, buffers=[("t", 10_000 - 2_047)])).refuted
    assert check_l1_fit(spec, L1Budget(10_000, buffers=[("t", 10_000 - 2_048)])).proved
