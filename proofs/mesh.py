"""Theorems: mesh layouts and their transforms are right for every size.

Built with the same code as ``MeshLayout.index_map`` and ``create_transform``
(``layoutalg.mesh.maps``, ``layoutalg.mesh.pattern_maps``), but over
symbolic tensor extents M, N and PE grids PR × PC, QR × QC, so each claim
holds for all of them at once, uneven and empty trailing tiles included.

The block-cyclic map with its byte offsets, and with symbolic block sizes,
is beyond one Z3 query (UNKNOWN in the time limit, never counted as a pass).
It is the composition of five simple maps — deal the rows, deal the
columns, put the PE first, linearize the local slot, count bytes — so it is
proved by parts (``bijective_by_parts``, docs: Verification), for all M, N,
PR, PC and blocks BR, BC; the composition is the very map MeshLayout builds.
"""

import layoutalg as la
from layoutalg.mesh.axes import Axis, ceil_div
from layoutalg.mesh.maps import separable_map
from layoutalg.mesh.pattern_maps import pattern_from_axes

M, N, PR, PC, QR, QC = la.extents("M N PR PC QR QC")


def tiles(extent, parts, pe_axis):
    return Axis(extent, ceil_div(extent, parts), parts, pe_axis)


def whole(extent, pe_axis):
    return Axis(extent, extent, 1, pe_axis)


GRID = (tiles(M, PR, 0), tiles(N, PC, 1))          # Grid(PR, PC)
OTHER_GRID = (tiles(M, QR, 0), tiles(N, QC, 1))    # Grid(QR, QC)
SINGLE = (whole(M, 0), whole(N, 1))                # SinglePE


def view_map(axes, name, **options):
    return separable_map((M, N), axes, 4, name, **options)


@la.spec(claims=["bijective"])
def grid_all_sizes():
    """Grid(PR, PC) of [M, N] fp32: a bijection onto its valid slots for all M, N,
    PR, PC (ceil-division tiles; trailing PEs smaller or empty)."""
    return view_map(GRID, "Grid(PR, PC) of [M, N]")


@la.spec(claims=["bijective"])
def transposed_grid_all_sizes():
    """Grid(PR, PC) with dim_to_pe = (1, 0): tensor rows dealt across PE columns."""
    return view_map((tiles(M, PC, 1), tiles(N, PR, 0)), "Grid(PR, PC)ᵀ of [M, N]")


@la.spec(claims=["bijective"])
def block_cyclic_deal_all_sizes():
    """BlockCyclic(PR, PC, 4, 4) of [M, N] to (PE, tile row, tile column): a
    bijection onto its valid slots for all M, N, PR, PC."""
    axes = (Axis(M, 4, PR, 0, cyclic=True), Axis(N, 4, PC, 1, cyclic=True))
    return view_map(axes, "BlockCyclic(PR, PC, 4, 4) tiles", tile_coordinates=True)


@la.spec(claims=[("equivalent", view_map(GRID, "Grid(PR, PC)"))])
def block_cyclic_with_tile_blocks_is_grid():
    """BlockCyclic(PR, PC, ⌈M/PR⌉, ⌈N/PC⌉) is Grid(PR, PC), offsets included,
    for all M, N, PR, PC: one round of dealing is a ceil-division tiling."""
    axes = (Axis(M, ceil_div(M, PR), PR, 0, cyclic=True),
            Axis(N, ceil_div(N, PC), PC, 1, cyclic=True))
    return view_map(axes, "BlockCyclic(PR, PC, ⌈M/PR⌉, ⌈N/PC⌉)")


BR, BC = la.extents("BR BC")
BLOCK_CYCLIC = (Axis(M, BR, PR, 0, cyclic=True), Axis(N, BC, PC, 1, cyclic=True))


def block_cyclic_chain() -> la.Chain:
    """BlockCyclic(PR, PC, BR, BC) of [M, N] fp32, as the chain of its steps."""
    rows = la.cyclic(la.Space(i=M, j=N), "i", PR, block=BR, names=("pe_row", "row"))
    cols = la.cyclic(rows.codomain, "j", PC, block=BC, names=("pe_col", "col"))
    pe_first = la.permute(cols.codomain, ["pe_row", "pe_col", "row", "col"])
    local = la.linearize(pe_first.codomain, ["row", "col"])
    in_bytes = la.scale(local.codomain, "offset", 4)
    return la.Chain((rows, cols, pe_first, local, in_bytes),
                    name="BlockCyclic(PR, PC, BR, BC) of [M, N]")


@la.spec(claims=["bijective_by_parts",
                 ("equivalent", view_map(BLOCK_CYCLIC, "MeshLayout.block_cyclic"))])
def block_cyclic_all_sizes_and_blocks():
    """BlockCyclic(PR, PC, BR, BC) of [M, N] fp32 with byte offsets: a bijection
    onto its valid slots for all M, N, PR, PC, BR, BC, proved by parts (one
    query on the whole map is beyond Z3). The chain's composition is the map
    MeshLayout builds: the same offsets (the equivalent claim) and the same
    valid slots (checked when the spec is built)."""
    chain = block_cyclic_chain()
    library = view_map(BLOCK_CYCLIC, "MeshLayout.block_cyclic")
    same = dict(zip(library.codomain.symbols, chain.index_map().codomain.symbols))
    if library.valid.xreplace(same) != chain.index_map().valid:
        raise ValueError("the chain's valid slots are not MeshLayout's; the theorem would be "
                         "about another map")
    return chain


def pattern(src, dst, label):
    return pattern_from_axes(src, dst, view_map(src, "source"), view_map(dst, "target"), 4,
                             label).model


@la.spec(claims=["exactly_once"])
def reshard_all_grids():
    """RESHARD Grid(PR, PC) → Grid(QR, QC) delivers every element of [M, N] exactly
    once to its slot, for all M, N, PR, PC, QR, QC: the overlap pattern the
    seed leaves unimplemented, proved for every size at once."""
    return pattern(GRID, OTHER_GRID, "RESHARD Grid(PR, PC) → Grid(QR, QC)")


@la.spec(claims=["exactly_once"])
def gather_all_grids():
    """GATHER Grid(PR, PC) → SinglePE is exactly-once for all sizes."""
    return pattern(GRID, SINGLE, "GATHER Grid(PR, PC) → SinglePE")


@la.spec(claims=["exactly_once"])
def scatter_all_grids():
    """SCATTER SinglePE → Grid(PR, PC) is exactly-once for all sizes."""
    return pattern(SINGLE, GRID, "SCATTER SinglePE → Grid(PR, PC)")


def _pe_map(m, name):
    return la.IndexMap(m.domain, la.Space(pe_row=PR, pe_col=PC), m.exprs[:2], name=name)


@la.spec(claims=[("equivalent", _pe_map(view_map(GRID, "g"), "Grid(PR, PC)"))],
         expect="REFUTED")
def row_tiles_differ_from_grid():
    """RowPartition(PR) and Grid(PR, PC) place some element differently whenever
    PC > 1: Z3 picks the sizes and the element (compatible_with's question)."""
    rows = (tiles(M, PR, 0), Axis(N, N, PC, 1))
    return _pe_map(view_map(rows, "r"), "RowPartition(PR) on PR × PC")
