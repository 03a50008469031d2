"""Bad input to the mesh family: one clear LayoutError naming argument, rule and value."""

from __future__ import annotations

import pytest
import sympy
from seed_algorithms import seed_gather, seed_plan_layout

import layoutalg as la
from layoutalg.mesh import (
    LayoutConstraints,
    MeshError,
    MeshLayout,
    OpGraph,
    PEMemoryError,
    PlanError,
    TransformError,
    check_fits_pe,
    create_transform,
    insert_transforms,
    plan_layout,
    plan_memory,
    required_input_layout,
)

WAFER = "the WSE-2 usable program rectangle is 750 PEs wide × 994 tall"
GRID = MeshLayout.grid(2, 2)


def _custom(codomain, symbolic=False):
    n = la.extents("n")[0] if symbolic else 4
    dom = la.Space(i=n)
    (i,) = dom.symbols
    exprs = [0] * (codomain.rank - 1) + [i]
    return la.IndexMap(dom, codomain, exprs, name="c")


BAD = [
    # zero, negative, non-int PE counts
    (lambda: MeshLayout.grid(0, 4), "grid: rows must be a positive int; got 0"),
    (lambda: MeshLayout.grid(4, -1), "grid: cols must be a positive int; got -1"),
    (lambda: MeshLayout.grid(True, 4), "grid: rows must be a positive int; got True"),
    (lambda: MeshLayout.grid(2.0, 4), "grid: rows must be a positive int; got 2.0"),
    (lambda: MeshLayout.row_partition(0), "row_partition: num_pes must be a positive int; got 0"),
    (lambda: MeshLayout.col_partition(0), "col_partition: num_pes must be a positive int; got 0"),
    (lambda: MeshLayout.block_cyclic(2, 2, 0, 4),
     "block_cyclic: block_rows must be a positive int; got 0"),
    (lambda: MeshLayout.replicated(0, 1), "replicated: rows must be a positive int; got 0"),
    # the seed's swapped wafer orientation (grids beyond the wafer are layouts: see below)
    (lambda: LayoutConstraints(max_pe_cols=994),
     "LayoutConstraints: max_pe_cols must lie in [1, 750] (" + WAFER
     + "; the seed's max_pe_rows=750, max_pe_cols=994 swap width and height); got 994"),
    (lambda: seed_plan_layout((8, 64, 64)).layout(), "grid: cols must be a positive int; got 0"),
    # dimension mapping
    (lambda: MeshLayout.grid(2, 2, dim_to_pe=(0, 0)),
     "grid: dim_to_pe must be (0, 1) (tensor rows down PE rows) or (1, 0) (tensor rows "
     "across PE columns); got (0, 0)"),
    (lambda: MeshLayout.replicated(2, 2).transposed(),
     "transposed: Replicated(2, 2) has no dimension mapping to swap"),
    # wrong ranks and out-of-range coordinates
    (lambda: GRID.tile_shape((0, 0), ()), "shape: rank must be at least 1"),
    (lambda: GRID.tile_shape((0, 0), (4, 0)), "shape: dimension 1 must be a positive int; got (4, 0)"),
    (lambda: GRID.tile_shape((0, 0), "4x4"), "shape: must be a tuple of positive ints; got '4x4'"),
    (lambda: GRID.pe_for_element((1, 2, 3), (4, 4)),
     "index: must have 2 coordinates for shape (4, 4); got (1, 2, 3)"),
    (lambda: GRID.pe_for_element((4, 0), (4, 4)),
     "index: coordinate 0 must lie in [0, 4) for shape (4, 4); got (4, 0)"),
    (lambda: GRID.tile_shape((2, 0), (4, 4)),
     "pe: must lie in the 2×2 PE grid of the layout; got (2, 0)"),
    (lambda: GRID.tile_shape(3, (4, 4)), "pe: must be a (row, col) pair of ints; got 3"),
    (lambda: MeshLayout.replicated(2, 2).pe_for_element((0, 0), (4, 4)),
     "pe_for_element: Replicated(2, 2) keeps every element on all 2×2 PEs; use pes_for_element"),
    # custom maps
    (lambda: MeshLayout.custom("map"), "custom: index_map must be an IndexMap; got 'map'"),
    (lambda: MeshLayout.custom(_custom(la.Space(pe=2, offset=4))),
     "custom: index_map must map to (pe_row, pe_col, offset); got codomain [pe:2, offset:4]"),
    (lambda: MeshLayout.custom(_custom(la.Space(r=1, c=1, o=8), symbolic=True)),
     "custom: index_map must have concrete extents; got c"),
    (lambda: MeshLayout.custom(_custom(la.Space(r=1, c=1, o=4))).tile_shape((0, 0), (5,)),
     "shape: Custom(c) is defined for shape (4,); got (5,)"),
    # sizes and types
    (lambda: GRID.index_map((4, 4), element_size=0),
     "element_size: must be a positive int (bytes per element); got 0"),
    (lambda: GRID.on((4, 4), "float64"),
     "dtype: must be one of ['bfloat16', 'float16', 'float32', 'int16', 'int32']; got 'float64'"),
    (lambda: check_fits_pe(GRID.on((4, 4)), 0), "fits_pe: budget must be a positive int of bytes; got 0"),
    (lambda: check_fits_pe(GRID.index_map((4, 4))), "subject: must be a PlacedTensor"),
    (lambda: GRID.compatible_with("Grid(2, 2)", (4, 4)),
     "compatible_with: other must be a MeshLayout; got 'Grid(2, 2)'"),
    # planner
    (lambda: LayoutConstraints(data_bytes=40000),
     "LayoutConstraints: data_bytes must lie in [1, 36864] (sram 49152 − code 8192 − stack 4096); "
     "got 40000"),
    (lambda: LayoutConstraints(code_bytes=49152),
     "LayoutConstraints: code_bytes + stack_bytes must leave data room"),
    (lambda: plan_layout((1024, 1024), constraints="small"),
     "plan_layout: constraints must be LayoutConstraints; got 'small'"),
    # graphs, memory plans, transforms
    (lambda: OpGraph().input("x", (2, 3)).input("x", (2, 3)),
     "graph: tensor names must be unique; got 'x' twice"),
    (lambda: OpGraph().input("a", (2, 3)).input("b", (4, 5)).op("matmul", "a", "b", name="c"),
     "graph: matmul 'c' needs [M, K] @ [K, N]; got (2, 3) @ (4, 5)"),
    (lambda: OpGraph().input("a", (2, 3)).op("conv", "a", name="c"),
     "graph: op kind must be one of ('matmul', 'add', 'sub', 'mul', 'div', 'relu', "
     "'layout_transform'); got 'conv'"),
    (lambda: OpGraph().op("relu", "x", name="y"), "graph: no tensor named 'x'"),
    (lambda: OpGraph().input("x", (2,)).liveness("lazy"),
     "liveness: policy must be one of ('resident', 'seed'); got 'lazy'"),
    (lambda: plan_memory(OpGraph().input("x", (2, 2)), {}),
     "plan_memory: layouts must give a MeshLayout for every tensor; missing or not a layout: ['x']"),
    (lambda: plan_memory(OpGraph().input("x", (2, 2)), {"x": GRID}, strategy="best_fit"),
     "plan_memory: strategy must be one of ('linear_scan', 'bump'); got 'best_fit'"),
    (lambda: plan_memory(OpGraph().input("x", (2, 2)), {"x": GRID}, double_buffer="x"),
     "plan_memory: double_buffer must list tensor names of the graph; got 'x'"),
    (lambda: create_transform(MeshLayout.custom(_custom(la.Space(r=1, c=2, o=4))),
                              MeshLayout.single_pe(), (4,)),
     "create_transform: source Custom(c) needs an inverse to be read from"),
    (lambda: create_transform(GRID, "SinglePE", (4, 4)),
     "create_transform: target must be a MeshLayout; got 'SinglePE'"),
    (lambda: required_input_layout("matmul", 2, GRID),
     "required_input_layout: matmul has inputs 0 and 1; got 2"),
    (lambda: insert_transforms(OpGraph().input("x", (2, 2)), {}),
     "insert_transforms: layouts must give a MeshLayout for every tensor"),
    (lambda: insert_transforms(OpGraph().input("x", (2, 2)), "x"),
     "insert_transforms: layouts must map tensor names to MeshLayouts; got 'x'"),
    (lambda: insert_transforms("g", {}), "insert_transforms: graph must be an OpGraph; got 'g'"),
    (lambda: seed_gather(MeshLayout.replicated(2, 2), (4, 4)),
     "seed pattern: source must be a partitioned MeshLayout; got Replicated(2, 2)"),
]


@pytest.mark.parametrize(("call", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_input_names_argument_rule_and_value(call, message):
    with pytest.raises(la.LayoutError) as caught:
        call()
    assert str(caught.value).startswith(message), str(caught.value)
    assert isinstance(caught.value, MeshError) or "LayoutConstraints" not in message


def test_error_kinds():
    with pytest.raises(PlanError, match=r"no grid of at most 994×750 PEs holds shape "
                       r"\(1000000, 1000000\) float32 within 36864 bytes per PE"):
        plan_layout((10**6, 10**6))
    with pytest.raises(TransformError):
        create_transform(1, GRID, (4, 4))
    for kind in (PlanError, PEMemoryError, TransformError):
        assert issubclass(kind, MeshError) and issubclass(kind, la.LayoutError)
        assert kind.__doc__ and "Fix" in kind.__doc__ or kind is TransformError


def test_pe_memory_error_reads_like_the_seed():
    """A 10240-element fp32 tensor placed whole on PE (3, 7): 40960 > 36864."""
    dom = la.Space(i=10240)
    (i,) = dom.symbols
    cod = la.Space(pe_row=4, pe_col=8, offset=10240)
    r, c, o = cod.symbols
    corner = MeshLayout.custom(la.IndexMap(dom, cod, [3, 7, i], inverse=[o],
                                           valid=sympy.And(sympy.Eq(r, 3), sympy.Eq(c, 7)),
                                           name="corner"))
    small = OpGraph().input("a", (8, 8)).input("big", (10240,)).op("relu", "a", name="b")
    layouts = {"a": MeshLayout.grid(2, 2), "big": corner, "b": MeshLayout.grid(2, 2)}
    with pytest.raises(PEMemoryError) as caught:
        plan_memory(small, layouts)
    assert str(caught.value).startswith("PE (3, 7) exceeds memory: 40960 > 36864 bytes")
    plan = plan_memory(small, layouts, strict=False)
    assert not plan.fits and plan.error == str(caught.value)
    verdict = plan.prove()
    assert verdict.refuted and verdict.counterexample["pe_row"] == 3
    assert verdict.reason.startswith("PE (3, 7) exceeds memory: 40960 > 36864 bytes")


def test_claims_refuse_the_wrong_subject():
    import layoutalg.mesh  # noqa: F401 - registers the claims
    from layoutalg.runner.dsl import Spec, run_claim, spec

    made = spec(claims=["exactly_once"])(lambda: GRID.on((4, 4)))
    assert isinstance(made, Spec)
    with pytest.raises(MeshError, match="claim 'exactly_once' applies to a LayoutTransform or "
                       "PatternModel; the spec returned"):
        run_claim(made, made.claims[0], made.build())


@pytest.mark.parametrize("make, shape, outside", [
    (lambda: MeshLayout.grid(995, 1), (995, 4), "pe_row=994 not in [0, 994)"),
    (lambda: MeshLayout.grid(1, 994), (4, 994), "pe_col=750 not in [0, 750)"),
    (lambda: MeshLayout.col_partition(751), (4, 751), "pe_col=750 not in [0, 750)"),
])
def test_a_grid_beyond_the_wse2_is_a_layout_that_is_not_on_the_wafer(make, shape, outside):
    """Issue 12 item 7: a layout is not a machine. Any grid can be described
    (a WSE-3 user, a simulated fabric); ``on_wafer`` refutes it on WSE-2 with
    the element that lands off the 750-wide × 994-tall rectangle."""
    from layoutalg.mesh.checks import check_on_wafer

    layout = make()
    placed = layout.on(shape, "float32")
    verdict = check_on_wafer(placed)
    assert verdict.status is la.Status.REFUTED
    assert outside in verdict.reason
    assert check_on_wafer(placed, rows=layout.pe_rows, cols=layout.pe_cols).proved


def test_the_seed_planners_757_column_grid_is_described_and_judged_by_where_data_lands():
    """The seed's planner picks a 1 × 757 grid for a (757·8, 1024) tensor (once
    refused at construction). Ceil-division tiles of 2 columns put element
    column j on PE column j // 2 ≤ 511: every element lands on the wafer, so
    on_wafer is PROVED although the grid is wider than WSE-2."""
    from layoutalg.mesh.checks import check_on_wafer

    layout = seed_plan_layout((757 * 8, 1024)).layout()
    assert (layout.pe_rows, layout.pe_cols) == (1, 757)
    assert max(j // -(-1024 // 757) for j in range(1024)) == 511
    assert check_on_wafer(layout.on((757 * 8, 1024), "float32")).proved
