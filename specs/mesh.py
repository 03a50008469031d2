"""PyFlame mesh layouts (seed 000): every example of the seed, proved or refuted.

Layouts from §3.2, the MLP of §9 (its weight layouts and its memory plan),
the matmul layout mismatch of §5.1 and §7.1, the planner of §3.4, and the
GATHER / SCATTER / RESHARD patterns of §5.3. Where the seed is wrong the
spec expects REFUTED and the counterexample shows the PE, the bytes or the
element.
"""

from _seed_algorithms import seed_gather, seed_plan_layout, seed_scatter  # beside this file

import layoutalg as la
from layoutalg.mesh import (
    WSE3,
    LayoutConstraints,
    MeshLayout,
    create_transform,
    insert_transforms,
    plan_layout,
    plan_memory,
)
from layoutalg.mesh.seed import seed_mlp

SEED_PLANNER_BYTES = 32 * 1024   # the seed's LayoutConstraints::max_memory_per_pe
SQUARE = (1024, 1024)

# -- §3.2 layout examples ------------------------------------------------------------


@la.spec(claims=["bijective", "fits_pe"], expect=["PROVED", "REFUTED"])
def single_pe_4mb():
    """§3.2: [1024, 1024] fp32 on SinglePE is 4 MB on PE (0, 0): far over the
    36 864 data bytes a PE has (REFUTED, 4194304 bytes on PE (0, 0))."""
    return MeshLayout.single_pe().on(SQUARE)


@la.spec(claims=["bijective", "fits_pe"], expect=["PROVED", "REFUTED"])
def row_partition_4():
    """§3.2: RowPartition(4) puts 256 rows, 1 MB, on each PE: "still too large"."""
    return MeshLayout.row_partition(4).on(SQUARE)


@la.spec(claims=["bijective", ("fits_pe", 4096), "on_wafer"])
def grid_32x32():
    """§3.2: Grid(32, 32): a [32, 32] tile of 4 KB on each of 1024 PEs."""
    return MeshLayout.grid(32, 32).on(SQUARE)


@la.spec(claims=["bijective", ("fits_pe", 4095)], expect=["PROVED", "REFUTED"])
def grid_32x32_not_one_byte_less():
    """The 4 KB per PE of Grid(32, 32) is exact: 4095 bytes are refuted."""
    return MeshLayout.grid(32, 32).on(SQUARE)


# -- §9 MLP -----------------------------------------------------------------------------


@la.spec(claims=["bijective", "fits_pe"])
def mlp_w1_grid_11x12():
    """create_linear_layer(1024, 512): Grid(11, 12) with ceil tiles [94, 43]
    (16 168 bytes); the last PE row holds 84 rows and the last column 39."""
    return seed_mlp()[1]["w1"].on((1024, 512))


@la.spec(claims=["bijective", "fits_pe"])
def mlp_w2_grid_5x7():
    """create_linear_layer(512, 256): Grid(5, 7), tiles [103, 37] (15 244 bytes)."""
    return seed_mlp()[1]["w2"].on((512, 256))


@la.spec(claims=["bijective", "fits_pe"])
def mlp_w3_single_pe():
    """create_linear_layer(256, 10): 10 KB ≤ 32 KB, so SinglePE."""
    return seed_mlp()[1]["w3"].on((256, 10))


def _mlp_plan(strategy, activation_bytes):
    graph, layouts = seed_mlp(activation_bytes=activation_bytes)
    return plan_memory(graph, layouts, strategy=strategy, liveness="seed", strict=False)


@la.spec(claims=["memory_safe"], expect="REFUTED")
def mlp_bump_allocator():
    """§4.3's bump allocator on the MLP (activations tiled at ≤ 4 KB per PE):
    PE (0, 0) needs 77 276 bytes > 36 864."""
    return _mlp_plan("bump", 4096)


@la.spec(claims=["memory_safe"])
def mlp_linear_scan():
    """Linear-scan reuse (§7.2) on the same layouts needs 24 360 bytes on PE (0, 0):
    no two live regions overlap and every PE fits."""
    return _mlp_plan("linear_scan", 4096)


@la.spec(claims=["memory_safe"], expect="REFUTED")
def mlp_seed_activation_layouts():
    """With activations planned at the seed's 32 KB, mm2 and z2 are 32 KB each on
    PE (0, 0) and live together: no allocator can fit them."""
    return _mlp_plan("linear_scan", SEED_PLANNER_BYTES)


# -- §5.1 / §7.1 matmul layouts -----------------------------------------------------------


@la.spec(claims=[("compatible_with", MeshLayout.grid(4, 1))])
def matmul_a_row_partition():
    """§5.1: A [1024, 512] on RowPartition(4) is what Grid(4, 4)'s matmul wants
    (Grid(4, 1)): same element, same PE, so no transform (the seed compares
    the layout types and would insert one)."""
    return MeshLayout.row_partition(4).on((1024, 512))


@la.spec(claims=[("compatible_with", MeshLayout.grid(1, 4))])
def matmul_b_col_partition():
    """§5.1: B [512, 256] on ColPartition(4) ≡ Grid(1, 4): no transform."""
    return MeshLayout.col_partition(4).on((512, 256))


@la.spec(claims=[("compatible_with", MeshLayout.grid(4, 1))], expect="REFUTED")
def matmul_a_grid_2x8():
    """§7.1: "if a was Grid(2, 8), insert transformation": refuted with an
    element that lives on another PE."""
    return MeshLayout.grid(2, 8).on((1024, 512))


@la.spec(claims=["exactly_once"])
def matmul_a_reshard():
    """The transform the pass inserts for §7.1: a RESHARD Grid(2, 8) → Grid(4, 1)."""
    graph = (la.mesh.OpGraph().input("a", (1024, 512)).input("b", (512, 256))
             .op("matmul", "a", "b", name="c"))
    done = insert_transforms(graph, {"a": MeshLayout.grid(2, 8), "b": MeshLayout.col_partition(4),
                                     "c": MeshLayout.grid(4, 4)})
    (inserted,) = done.inserted
    return inserted.transform


# -- §3.4 planner -------------------------------------------------------------------------


@la.spec(claims=[("fits_pe", SEED_PLANNER_BYTES)], expect="REFUTED")
def seed_planner_1000x1000():
    """The seed's planner for [1000, 1000] fp32 tries only divisors of 123 PEs and
    returns Grid(3, 41), whose [334, 25] tiles need 33 400 > 32 768 bytes."""
    return seed_plan_layout((1000, 1000)).layout().on((1000, 1000))


@la.spec(claims=[("fits_pe", SEED_PLANNER_BYTES), ("on_wafer", 994, 750)])
def planner_1000x1000_seed_budget():
    """Searching every grid under the seed's 32 KB finds one that fits (proved)."""
    return plan_layout((1000, 1000), constraints=LayoutConstraints.seed()).layout.on((1000, 1000))


@la.spec(claims=["on_wafer", ("on_wafer", 750, 994)], expect=["PROVED", "REFUTED"])
def tall_row_partition():
    """994 PEs down one column fit the WSE-2 rectangle (994 tall × 750 wide); the
    seed's max_pe_rows=750 (width and height swapped) would refuse PE row 750."""
    return MeshLayout.row_partition(994).on((994 * 4, 64))


@la.spec(claims=[("on_wafer", WSE3), "on_wafer", ("fits_pe",)], expect=["PROVED", "REFUTED", "PROVED"])
def wse3_planned_vector():
    """Planned for WSE-3 (755 wide × 1174 tall): 10,137,600 fp32 need 1100 PEs of
    36 KB, one PE row each. It lies on WSE-3 (proved) but not on WSE-2, whose
    994 rows end before PE row 994 (REFUTED): a layout is not a machine."""
    vector = (1100 * 9216,)
    return plan_layout(vector, "float32", LayoutConstraints(wafer=WSE3)).layout.on(vector)


# -- §5.3 transforms ----------------------------------------------------------------------


@la.spec(claims=["exactly_once"], expect="REFUTED")
def seed_gather_uneven():
    """The seed's GATHER of [10, 10] from Grid(3, 3): every PE sends tile_size =
    400 / 9 = 44 bytes, but tiles hold 64, 32 or 16: elements are lost."""
    return seed_gather(MeshLayout.grid(3, 3), (10, 10))


@la.spec(claims=["exactly_once"])
def gather_uneven():
    """The exact GATHER for the same layout: one block per tile, proved."""
    return create_transform(MeshLayout.grid(3, 3), MeshLayout.single_pe(), (10, 10))


@la.spec(claims=["exactly_once"], expect="REFUTED")
def seed_scatter_uneven_rows():
    """The seed's SCATTER of [10, 4] to RowPartition(4): 10-element chunks, but the
    tiles are 3, 3, 3 and 1 rows (12, 12, 12, 4 elements)."""
    return seed_scatter(MeshLayout.row_partition(4), (10, 4))


@la.spec(claims=["exactly_once"], expect="REFUTED")
def seed_scatter_even_grid():
    """Even tiles do not save the seed's SCATTER on a 2-D grid: a row-major chunk
    of [4, 4] is not a [2, 2] tile."""
    return seed_scatter(MeshLayout.grid(2, 2), (4, 4))


@la.spec(claims=["exactly_once"])
def seed_scatter_even_rows():
    """The one case the seed's SCATTER gets right: equal row tiles."""
    return seed_scatter(MeshLayout.row_partition(4), (8, 4))


@la.spec(claims=["exactly_once"])
def scatter_uneven():
    """The exact SCATTER for [10, 4] onto RowPartition(4)."""
    return create_transform(MeshLayout.single_pe(), MeshLayout.row_partition(4), (10, 4))


@la.spec(claims=["exactly_once"])
def reshard_uneven_grids():
    """RESHARD, which the seed leaves unimplemented: [1000, 900] from Grid(32, 30)
    to Grid(7, 5) (tiles 143 × 180, the last PE row holding 142 rows)."""
    return create_transform(MeshLayout.grid(32, 30), MeshLayout.grid(7, 5), (1000, 900))


@la.spec(claims=["exactly_once"])
def reshard_to_block_cyclic():
    """RESHARD [100, 90] from Grid(6, 7) to BlockCyclic(3, 4, 8, 5), both uneven."""
    return create_transform(MeshLayout.grid(6, 7), MeshLayout.block_cyclic(3, 4, 8, 5), (100, 90))


@la.spec(claims=["exactly_once"])
def transpose_mapping():
    """TRANSPOSE: Grid(4, 2) dealing rows down PE rows → dealing them across columns."""
    return create_transform(MeshLayout.grid(4, 2), MeshLayout.grid(4, 2).transposed(), (10, 7))


@la.spec(claims=["exactly_once"])
def replicate_bias():
    """REPLICATE: a [512] bias from one PE to every PE of a 2 × 16 grid."""
    return create_transform(MeshLayout.single_pe(), MeshLayout.replicated(2, 16), (512,))
