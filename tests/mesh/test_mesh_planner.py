"""The layout planner: every grid searched, the seed's score, a proof that it fits.

The optimum is checked against a plain exhaustive loop over every (rows, cols)
written here; the seed's planner against hand computation from §3.4. The Z3
checks are compared with their enumeration twins *and* with the truth from
the definitions (``test_mesh_layout.reference``: ceil-division tiles, blocks
dealt round-robin, local order = order of arrival; a replicated layout holds
every element on every PE), since both sides read the same index map.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import mesh as mesh_brute
from seed_algorithms import seed_plan_layout
from test_mesh_layout import holders, reference

from layoutalg.mesh import (
    LayoutConstraints,
    MeshLayout,
    check_compatible,
    plan_layout,
    validate_layout,
)
from layoutalg.mesh.seed import seed_linear_layer_layout
from layoutalg.verify.result import Status

# Generous: the slowest query here takes well under a second on a quiet machine; a
# timeout turns PROVED into UNKNOWN (a failure), so leave room for a loaded one.
Z3_MS = 60_000


def ceil(a, b):
    return -(-a // b)


def exhaustive(shape, size, limits):
    """(best score, fewest PEs at that score) over every grid, by plain loops."""
    m, n = shape[0], math.prod(shape[1:])
    best = (math.inf, math.inf)
    for rows in range(1, min(m, limits.max_pe_rows) + 1):
        for cols in range(1, min(n, limits.max_pe_cols) + 1):
            tr, tc = ceil(m, rows), ceil(n, cols)
            if tr * tc * size > limits.data_bytes or tr * tc < min(limits.min_tile_elements, m * n):
                continue
            score = abs(math.log(tr / tc)) + 1 - tr * tc * size / limits.data_bytes
            pes = ceil(m, tr) * ceil(n, tc)  # the grid without empty PEs has these tiles
            best = min(best, (round(score, 12), pes))
    return best


@pytest.mark.parametrize("shape", [(1000, 1000), (300, 77), (96, 1024), (10, 10, 30)])
def test_plan_is_the_best_fitting_grid(shape):
    limits = LayoutConstraints(data_bytes=4096, max_pe_rows=120, max_pe_cols=150)
    plan = plan_layout(shape, "float32", limits)
    score, pes = exhaustive(shape, 4, limits)
    assert round(plan.score, 12) == score
    assert plan.layout.total_pes == pes
    assert plan.proved and plan.fits.proved and plan.on_wafer.proved
    assert plan.layout.memory_per_pe(shape, 4) <= 4096


def test_small_tensors_go_to_one_pe_and_vectors_to_rows():
    assert plan_layout((32, 256)).layout == MeshLayout.single_pe()  # 32 KB ≤ 36 KB
    vector = plan_layout((2**20,))
    assert vector.layout.kind.name == "ROW_PARTITION"
    rows = vector.layout.pe_rows
    assert ceil(2**20, rows) * 4 <= 36864 < ceil(2**20, rows - 1) * 4  # the fewest PEs


def test_budget_is_explicit():
    assert LayoutConstraints().data_bytes == 48 * 1024 - 8 * 1024 - 4 * 1024
    assert LayoutConstraints.seed().data_bytes == 32 * 1024
    assert (LayoutConstraints().max_pe_rows, LayoutConstraints().max_pe_cols) == (994, 750)
    big = plan_layout((1000, 1000)).layout.memory_per_pe((1000, 1000), 4)
    seed = plan_layout((1000, 1000), constraints=LayoutConstraints.seed()).layout
    assert 32768 < big <= 36864 and seed.memory_per_pe((1000, 1000), 4) <= 32768


# -- the seed's planner (§3.4) --------------------------------------------------------------


def test_seed_planner_returns_a_grid_that_does_not_fit():
    """[1000, 1000] fp32: min_pes = ceil(4e6 / 32768) = 123 = 3 · 41; rows up to
    sqrt(123) + 1 divide 123 only as 1 and 3. Grid(3, 41) scores better than
    Grid(1, 123) and its tile [334, 25] needs 33 400 bytes."""
    choice = seed_plan_layout((1000, 1000))
    assert (choice.pe_rows, choice.pe_cols) == (3, 41)
    placed = choice.layout().on((1000, 1000))
    assert placed.layout.memory_per_pe((1000, 1000), 4) == 334 * 25 * 4 == 33400
    reason = validate_layout(choice.layout(), (1000, 1000),
                             constraints=LayoutConstraints.seed()).reason
    assert re.match(r"fits: PE \([01], \d+\) exceeds memory: 33400 > 32768 bytes", reason), reason


def test_seed_planner_edge_cases():
    # a prime PE count leaves only Grid(1, p): 757 columns, wider than the wafer
    assert str(seed_plan_layout((757 * 8, 1024))) == "Grid(1, 757)"
    # rank 3: Grid(min(8, 750), 4 // 8) has no columns at all
    assert (seed_plan_layout((8, 64, 64)).pe_rows, seed_plan_layout((8, 64, 64)).pe_cols) == (8, 0)
    assert str(plan_layout((8, 64, 64)).layout).startswith("Grid(")


def test_seed_linear_layers():
    """§9: 16 KB target tiles: 1024·512/4096 = 128 tiles → int(sqrt(128)) = 11 rows,
    ceil(128/11) = 12 columns; 512·256/4096 = 32 → 5 × 7; 256·10·4 ≤ 32 KB → one PE."""
    assert seed_linear_layer_layout(1024, 512) == MeshLayout.grid(11, 12)
    assert seed_linear_layer_layout(512, 256) == MeshLayout.grid(5, 7)
    assert seed_linear_layer_layout(256, 10) == MeshLayout.single_pe()


def test_validate_layout_gives_verdicts_and_reason():
    good = validate_layout(MeshLayout.grid(32, 32), (1024, 1024))
    assert good.ok and set(good.verdicts) == {"on_wafer", "bijective", "fits"}
    tall = validate_layout(MeshLayout.row_partition(994), (994, 8),
                           constraints=LayoutConstraints(max_pe_rows=750))
    assert not tall.ok
    assert tall.reason.startswith("on_wafer: out of bounds:") and "pe_row=" in tall.reason


# -- compatible_with: Z3 against enumeration ---------------------------------------------------


def slot_cols(layout, shape) -> int:
    """Columns of every PE's slot block: the widest tile (whole blocks if cyclic)."""
    n = math.prod(shape[1:])
    parts = (layout.pe_rows, layout.pe_cols)[layout.dim_to_pe[1]]
    if layout.kind.name == "BLOCK_CYCLIC":
        return ceil(ceil(n, layout.block_cols), parts) * layout.block_cols
    return ceil(n, parts)


def bytes_needed(layout, shape, size) -> int:
    """The end of the last slot any PE fills: slots row-major in the slot block."""
    if layout.is_replicated:  # every PE holds the whole view, row-major
        return shape[0] * math.prod(shape[1:]) * size
    width = slot_cols(layout, shape)
    return max((row * width + col + 1) * size
               for _, (row, col) in reference(layout, shape).values())


@st.composite
def layouts(draw):
    kind = draw(st.sampled_from(["rows", "cols", "grid", "cyclic", "replicated", "single"]))
    small = st.integers(1, 3)
    if kind == "rows":
        return MeshLayout.row_partition(draw(st.integers(1, 4)))
    if kind == "cols":
        return MeshLayout.col_partition(draw(st.integers(1, 4)))
    if kind == "grid":
        return MeshLayout.grid(draw(small), draw(small),
                               dim_to_pe=draw(st.sampled_from([(0, 1), (1, 0)])))
    if kind == "cyclic":
        return MeshLayout.block_cyclic(draw(small), draw(small), draw(small), draw(small))
    if kind == "replicated":
        return MeshLayout.replicated(draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    return MeshLayout.single_pe()


@given(layouts(), layouts(), st.lists(st.integers(1, 6), min_size=1, max_size=3))
def test_compatible_with_agrees_with_enumeration(a, b, shape):
    proved = check_compatible(a, b, tuple(shape), timeout_ms=Z3_MS)
    assert proved.status is not Status.UNKNOWN
    assert proved.status is mesh_brute.check_compatible(a, b, tuple(shape)).status
    assert proved.proved is (holders(a, tuple(shape)) == holders(b, tuple(shape))), proved
    if proved.refuted:  # the counterexample element really sits on different PEs
        names = a.index_map(tuple(shape)).domain.names[-len(shape):]
        index = tuple(proved.counterexample[n] for n in names)
        assert set(a.pes_for_element(index, tuple(shape))) != set(
            b.pes_for_element(index, tuple(shape)))


def test_compatible_is_semantic_not_by_fields():
    assert check_compatible(MeshLayout.row_partition(4), MeshLayout.grid(4, 1), (1024, 512)).proved
    assert check_compatible(MeshLayout.single_pe(), MeshLayout.replicated(1, 1), (4, 4)).proved
    # block-cyclic with one round of blocks is the grid
    assert check_compatible(MeshLayout.grid(4, 4), MeshLayout.block_cyclic(4, 4, 3, 3), (10, 10)).proved
    # [4, 4] in 2-row tiles on 2 or on 3 PE rows: PE row 2 stays empty, same placement
    assert check_compatible(MeshLayout.row_partition(2), MeshLayout.row_partition(3), (4, 4)).proved
    # [6, 4]: 3-row tiles against 2-row tiles
    assert check_compatible(MeshLayout.grid(2, 1), MeshLayout.grid(3, 1), (6, 4)).refuted
    refuted = check_compatible(MeshLayout.grid(2, 8), MeshLayout.row_partition(4), (1024, 512))
    assert refuted.refuted and "lives on PE" in refuted.reason


# -- fits_pe and on_wafer: Z3 against enumeration ---------------------------------------------


@given(layouts(), st.lists(st.integers(1, 8), min_size=1, max_size=3),
       st.sampled_from(["float32", "float16"]), st.integers(1, 300), st.integers(1, 4),
       st.integers(1, 4))
def test_fits_and_on_wafer_agree_with_enumeration(layout, shape, dtype, budget, rows, cols):
    from layoutalg.mesh import check_fits_pe, check_on_wafer

    placed = layout.on(tuple(shape), dtype)
    size = {"float32": 4, "float16": 2}[dtype]
    pes = set().union(*holders(layout, tuple(shape)).values())
    truth = {"fits": bytes_needed(layout, tuple(shape), size) <= budget,
             "on_wafer": all(r < rows and c < cols for r, c in pes)}
    for name, proved, enumerated in (
            ("fits", check_fits_pe(placed, budget, timeout_ms=Z3_MS),
             mesh_brute.check_fits_pe(placed, budget)),
            ("on_wafer", check_on_wafer(placed, rows, cols, timeout_ms=Z3_MS),
             mesh_brute.check_on_wafer(placed, rows, cols))):
        assert proved.status is not Status.UNKNOWN
        assert proved.status is enumerated.status, (proved, enumerated)
        assert proved.proved is truth[name], proved
    # The bytes a PE needs are its slot block's used part: at most the reservation.
    fits = check_fits_pe(placed, placed.layout.reserved_bytes(tuple(shape), placed.element_size))
    assert fits.proved
