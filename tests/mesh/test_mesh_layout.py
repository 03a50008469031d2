"""MeshLayout: the seed's figures, uneven and empty tiles, views, index maps.

Expected values come from the seed's text (§3.2, §8) and from a plain-Python
reference written here from the definitions (ceil-division tiles; blocks
dealt round-robin, local order = order of arrival), never from the code
under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import layoutalg as la
from layoutalg.mesh import MeshLayout, PlacedTensor, memory_usage
from layoutalg.verify import brute


def ceil(a, b):
    return -(-a // b)


def reference(layout: MeshLayout, shape):
    """{view element: (pe, (local row, local col))} by counting, from the definitions."""
    m = shape[0]
    n = math.prod(shape[1:])
    parts = (layout.pe_rows, layout.pe_cols)
    a, b = layout.dim_to_pe

    def deal(extent, count, block):
        owner = [(x // block) % count for x in range(extent)]
        local, seen = [], {}
        for x in range(extent):  # local index = how many indices reached that part before
            local.append(seen.get(owner[x], 0))
            seen[owner[x]] = local[-1] + 1
        return owner, local

    if layout.kind.name == "BLOCK_CYCLIC":
        rows = deal(m, parts[a], layout.block_rows)
        cols = deal(n, parts[b], layout.block_cols)
    else:
        rows = deal(m, parts[a], ceil(m, parts[a]))
        cols = deal(n, parts[b], ceil(n, parts[b]))
    table = {}
    for i in range(m):
        for j in range(n):
            pe = [0, 0]
            pe[a], pe[b] = rows[0][i], cols[0][j]
            table[(i, j)] = (tuple(pe), (rows[1][i], cols[1][j]))
    return table


def holders(layout: MeshLayout, shape) -> dict:
    """{view element (i, j): PEs holding it}, from the definitions; a replicated
    layout holds every element on every PE of its grid."""
    if layout.is_replicated:
        every = frozenset((r, c) for r in range(layout.pe_rows) for c in range(layout.pe_cols))
        return {(i, j): every for i in range(shape[0]) for j in range(math.prod(shape[1:]))}
    return {view: frozenset([pe]) for view, (pe, _) in reference(layout, shape).items()}


def view_index(index, shape):
    """The 2-D view element of a tensor element: rows, then every other dim flattened."""
    j = 0
    for k, n in zip(index[1:], shape[1:]):
        j = j * n + k
    return (index[0], j)


def tensor_index(view_index, shape):
    i, j = view_index
    if len(shape) == 1:
        return (i,)
    return (i, *np.unravel_index(j, shape[1:]))


LAYOUTS = [
    (MeshLayout.single_pe(), (5, 3)),
    (MeshLayout.row_partition(4), (10, 4)),          # tiles 3, 3, 3, 1 rows
    (MeshLayout.row_partition(4), (5, 3)),           # tiles 2, 2, 1, 0: an empty PE
    (MeshLayout.col_partition(3), (2, 7)),
    (MeshLayout.grid(3, 3), (10, 10)),
    (MeshLayout.grid(3, 2, dim_to_pe=(1, 0)), (7, 9)),
    (MeshLayout.grid(2, 3), (4, 3, 2)),              # rank 3, view [4, 6]
    (MeshLayout.grid(3, 2), (7,)),                   # rank 1, view [7, 1]
    (MeshLayout.block_cyclic(2, 3, 2, 3), (9, 11)),
    (MeshLayout.block_cyclic(3, 2, 1, 4, dim_to_pe=(1, 0)), (10, 5)),
]


@pytest.mark.parametrize(("layout", "shape"), LAYOUTS, ids=lambda v: str(v))
def test_placement_matches_the_definitions(layout, shape):
    table = reference(layout, shape)
    tiles = np.zeros((layout.pe_rows, layout.pe_cols), dtype=int)
    for view_index, (pe, local) in table.items():
        index = tensor_index(view_index, shape)
        assert layout.pe_for_element(index, shape) == pe
        assert layout.local_indices(index, shape) == (local[:1] if len(shape) == 1 else local)
        tiles[pe] += 1
    assert layout.tile_elements(shape).tolist() == tiles.tolist()
    for r in range(layout.pe_rows):
        for c in range(layout.pe_cols):
            assert math.prod(layout.tile_shape((r, c), shape)) == tiles[r, c]
    assert layout.memory_per_pe(shape, 2) == tiles.max() * 2


@pytest.mark.parametrize(("layout", "shape"), LAYOUTS, ids=lambda v: str(v))
def test_index_map_is_the_placement_and_a_bijection(layout, shape):
    table = reference(layout, shape)
    m = layout.index_map(shape, element_size=4)
    xs, ys = brute.image_table(m)
    width = m.codomain.extents[2] // 4 // max(1, _slot_rows(layout, shape))
    for x, y in zip(xs, ys):
        i = x[0]
        j = int(np.ravel_multi_index(tuple(x[1:]), shape[1:])) if len(shape) > 1 else 0
        pe, (lr, lc) = table[(i, j)]
        assert (y[0], y[1]) == pe
        assert y[2] == (lr * width + lc) * 4
        assert m.preimage(*(int(v) for v in y)) == tuple(int(v) for v in x)
    assert la.check_bijective(m).proved
    assert brute.check_bijective(m).proved


def _slot_rows(layout, shape):
    """Rows of every PE's slot block: the largest tile height (whole blocks if cyclic)."""
    m = shape[0]
    parts = (layout.pe_rows, layout.pe_cols)[layout.dim_to_pe[0]]
    if layout.kind.name == "BLOCK_CYCLIC":
        return ceil(ceil(m, layout.block_rows), parts) * layout.block_rows
    return ceil(m, parts)


# -- the seed's figures (§3.2) -------------------------------------------------------------


def test_single_pe_holds_4_mb():
    layout = MeshLayout.single_pe()
    assert layout.tile_shape((0, 0), (1024, 1024)) == (1024, 1024)
    assert layout.memory_per_pe((1024, 1024), 4) == 4 * 1024 * 1024


def test_row_partition_4_figure():
    layout = MeshLayout.row_partition(4)
    shape = (1024, 1024)
    rows = {0: (0, 255), 1: (256, 511), 2: (512, 767), 3: (768, 1023)}  # "PE(k,0): rows a-b"
    for k, (first, last) in rows.items():
        assert layout.pe_for_element((first, 7), shape) == (k, 0)
        assert layout.pe_for_element((last, 1023), shape) == (k, 0)
        assert layout.tile_shape((k, 0), shape) == (256, 1024)
    assert layout.memory_per_pe(shape, 4) == 1024 * 1024  # "= 1 MB per PE"


def test_grid_32x32_figure():
    layout = MeshLayout.grid(32, 32)
    shape = (1024, 1024)
    assert layout.total_pes == 1024
    assert layout.tile_shape((31, 31), shape) == (32, 32)
    assert layout.memory_per_pe(shape, 4) == 4096            # "[32, 32] tile = 4 KB"
    assert memory_usage(layout, shape).total == 4 * 1024 * 1024  # "1024 PEs × 4 KB = 4 MB"


def test_uneven_and_empty_tiles():
    grid = MeshLayout.grid(3, 3)
    assert [grid.tile_shape((2, c), (10, 10)) for c in range(3)] == [(2, 4), (2, 4), (2, 2)]
    rows = MeshLayout.row_partition(4)
    assert [rows.tile_shape((k, 0), (5, 3)) for k in range(4)] == [(2, 3), (2, 3), (1, 3), (0, 3)]
    assert rows.memory_per_pe((5, 3), 4) == 24
    assert rows.reserved_bytes((5, 3), 4) == 24
    assert rows.reservations((5, 3), 4).ravel().tolist() == [24, 24, 24, 0]


def test_memory_usage_matches_the_seeds_loop():
    layout, shape = MeshLayout.grid(3, 3), (10, 10)
    usages = [math.prod(layout.tile_shape((r, c), shape)) * 2 for r in range(3) for c in range(3)]
    usage = layout.memory_usage(shape, "float16")
    assert usage == layout.on(shape, "float16").memory_usage()
    assert (usage.min, usage.max, usage.total) == (min(usages), max(usages), sum(usages))
    assert usage.average == pytest.approx(sum(usages) / 9)
    assert usage["max"] == 16 * 2  # the [4, 4] tile of PE (0, 0)


def test_block_cyclic_reserves_whole_blocks():
    # [10, 1] over 2 PE rows in blocks of 4: PE 0 gets rows 0-3 and 8-9 (6), PE 1 rows 4-7.
    layout = MeshLayout.block_cyclic(2, 1, 4, 1)
    assert layout.tile_elements((10, 1)).ravel().tolist() == [6, 4]
    assert layout.memory_per_pe((10, 1), 4) == 24
    assert layout.reserved_bytes((10, 1), 4) == 32          # two whole blocks of 4 rows


def test_replicated_layout_holds_copies():
    layout = MeshLayout.replicated(2, 2)
    assert layout.pes_for_element((1, 2), (3, 4)) == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert layout.tile_shape((1, 1), (3, 4)) == (3, 4)
    m = layout.index_map((3, 4))
    assert m.domain.names == ("copy_row", "copy_col", "i", "j")
    assert m(1, 0, 2, 3) == (1, 0, (2 * 4 + 3) * 4)
    assert la.check_bijective(m).proved


def test_custom_layout():
    dom = la.Space(i=4, j=4)
    i, j = dom.symbols
    cod = la.Space(pe_row=2, pe_col=2, offset=4)
    r, c, o = cod.symbols
    swapped = la.IndexMap(dom, cod, [j // 2, i // 2, (i % 2) * 2 + j % 2],
                          inverse=[c * 2 + o // 2, r * 2 + o % 2], name="tiles_swapped")
    layout = MeshLayout.custom(swapped)
    assert (layout.pe_rows, layout.pe_cols) == (2, 2)
    assert layout.pe_for_element((0, 3), (4, 4)) == (1, 0)
    assert layout.local_indices((1, 3), (4, 4)) == (3,)
    assert layout.tile_shape((1, 0), (4, 4)) == (4,)
    assert layout.index_map((4, 4), element_size=2)(1, 3) == (1, 0, 6)
    assert str(layout) == "Custom(tiles_swapped)"


def test_transposed_deals_rows_across_columns():
    layout = MeshLayout.grid(2, 3).transposed()
    assert layout.dim_to_pe == (1, 0)
    # rows of [9, 4] in 3 tiles of 3 across PE columns; columns in 2 tiles of 2 down PE rows
    assert layout.pe_for_element((4, 3), (9, 4)) == (1, 1)
    assert layout.tile_shape((0, 2), (9, 4)) == (3, 2)
    assert str(layout) == "Grid(2, 3)ᵀ"


def test_text_forms():
    assert [str(x) for x in (MeshLayout.single_pe(), MeshLayout.row_partition(4),
                             MeshLayout.col_partition(2), MeshLayout.grid(32, 32),
                             MeshLayout.block_cyclic(4, 4, 16, 8), MeshLayout.replicated(2, 3))] == [
        "SinglePE", "RowPartition(4)", "ColPartition(2)", "Grid(32, 32)",
        "BlockCyclic(4, 4, 16, 8)", "Replicated(2, 3)"]
    assert str(MeshLayout.grid(2, 2).on((4, 4), "bfloat16")) == "Grid(2, 2) of [4, 4] bfloat16"


def test_layouts_are_values():
    assert MeshLayout.grid(2, 3) == MeshLayout.grid(2, 3)
    assert len({MeshLayout.grid(2, 3), MeshLayout.grid(2, 3), MeshLayout.row_partition(2)}) == 2
    assert MeshLayout.row_partition(4) != MeshLayout.grid(4, 1)  # fields differ, meaning does not
    assert isinstance(MeshLayout.grid(2, 2).on((2, 2)), PlacedTensor)


def test_public_names():
    import layoutalg.mesh as mesh

    public = {n for n in dir(mesh) if not n.startswith(("_", "@"))} - {
        "annotations", "register_claim", "describe", "brute", "checks", "compat", "dtypes",
        "errors", "graph", "graph_pass", "kinds", "layout", "maps", "axes", "memory_plan",
        "memory_proof", "pattern_maps", "placed", "planner", "shapes", "transforms"}
    assert public == set(mesh.__all__)
    assert la.mesh is mesh
