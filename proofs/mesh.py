"""Theorems: mesh layouts and their transforms are right for every size.

Built with the same code as ``MeshLayout.index_map`` and ``create_transform``
(``layoutalg.mesh.maps``, ``layoutalg.mesh.pattern_maps``), but over
symbolic tensor extents M, N and PE grids PR × PC, QR × QC, so each claim
holds for all of them at once, uneven and empty trailing tiles included.

Block-cyclic maps are beyond one Z3 query for all sizes (UNKNOWN in the
time limit, never counted as a pass): a deal in blocks multiplies unknown
sizes. Each is the chain of simple core maps — split each dimension into
(block, offset), deal the blocks one by one over the PEs (``cyclic`` with
block 1), linearize (round, offset) into the tile row and column, put the
PE first, and for the offsets linearize and count bytes — so it is proved
by parts (``bijective_by_parts``, docs: Verification). Two more claims tie
each chain to the map ``MeshLayout`` builds (``separable_map``): the
chain's composition gives the same values at every element
(``equivalent``) and calls the same slots valid (a ``*_valid_slots``
spec); the codomains are compared when the specs are built.
"""

import functools

import layoutalg as la
from layoutalg.mesh.axes import Axis, ceil_div
from layoutalg.mesh.maps import separable_map
from layoutalg.mesh.pattern_maps import pattern_from_axes
from _chains import same_codomain, valid_slots  # beside this file

M, N, PR, PC, QR, QC = la.extents("M N PR PC QR QC")


def tiles(extent, parts, pe_axis):
    return Axis(extent, ceil_div(extent, parts), parts, pe_axis)


def whole(extent, pe_axis):
    return Axis(extent, extent, 1, pe_axis)


GRID = (tiles(M, PR, 0), tiles(N, PC, 1))          # Grid(PR, PC)
OTHER_GRID = (tiles(M, QR, 0), tiles(N, QC, 1))    # Grid(QR, QC)
SINGLE = (whole(M, 0), whole(N, 1))                # SinglePE


def view_map(axes, name, *, tile_coordinates=False):
    return _view_map(tuple(axes), tile_coordinates).renamed(name)


@functools.cache
def _view_map(axes, tile_coordinates):
    """``separable_map`` of [M, N] fp32, built once per deal: Grid(PR, PC) is
    the subject or the reference of six specs (an IndexMap is immutable)."""
    return separable_map((M, N), axes, 4, "view", tile_coordinates=tile_coordinates)


@la.spec(claims=["bijective"])
def grid_all_sizes():
    """Grid(PR, PC) of [M, N] fp32: a bijection onto its valid slots for all M, N,
    PR, PC (ceil-division tiles; trailing PEs smaller or empty)."""
    return view_map(GRID, "Grid(PR, PC) of [M, N]")


@la.spec(claims=["bijective"])
def transposed_grid_all_sizes():
    """Grid(PR, PC) with dim_to_pe = (1, 0): tensor rows dealt across PE columns."""
    return view_map((tiles(M, PC, 1), tiles(N, PR, 0)), "Grid(PR, PC)ᵀ of [M, N]")


@la.spec(claims=[("equivalent", view_map(GRID, "Grid(PR, PC)"))])
def block_cyclic_with_tile_blocks_is_grid():
    """BlockCyclic(PR, PC, ⌈M/PR⌉, ⌈N/PC⌉) is Grid(PR, PC), offsets included,
    for all M, N, PR, PC: one round of dealing is a ceil-division tiling."""
    axes = (Axis(M, ceil_div(M, PR), PR, 0, cyclic=True),
            Axis(N, ceil_div(N, PC), PC, 1, cyclic=True))
    return view_map(axes, "BlockCyclic(PR, PC, ⌈M/PR⌉, ⌈N/PC⌉)")


BR, BC = la.extents("BR BC")


def block_cyclic_axes(br, bc) -> tuple[Axis, Axis]:
    """BlockCyclic(PR, PC, br, bc) of [M, N], as ``MeshLayout`` deals it."""
    return Axis(M, br, PR, 0, cyclic=True), Axis(N, bc, PC, 1, cyclic=True)


def block_cyclic_chain(br, bc, *, offsets: bool, name: str) -> la.Chain:
    """BlockCyclic(PR, PC, br, bc) of [M, N] as the chain of its steps: to tile
    coordinates (pe_row, pe_col, row, col), or with ``offsets`` on to byte
    offsets (pe_row, pe_col, offset) of fp32, as ``separable_map`` names them."""
    rows = la.split(la.Space(i=M, j=N), "i", br, names=("row_block", "row_offset"))
    cols = la.split(rows.codomain, "j", bc, names=("col_block", "col_offset"))
    deal_rows = la.cyclic(cols.codomain, "row_block", PR, names=("pe_row", "row_round"))
    deal_cols = la.cyclic(deal_rows.codomain, "col_block", PC, names=("pe_col", "col_round"))
    row = la.linearize(deal_cols.codomain, ["row_round", "row_offset"], name="row")
    col = la.linearize(row.codomain, ["col_round", "col_offset"], name="col")
    pe_first = la.permute(col.codomain, ["pe_row", "pe_col", "row", "col"])
    parts = [rows, cols, deal_rows, deal_cols, row, col, pe_first]
    if offsets:
        local = la.linearize(pe_first.codomain, ["row", "col"], name="offset")
        parts += [local, la.scale(local.codomain, "offset", 4)]
    return la.Chain(tuple(parts), name=name)


BLOCK_CYCLIC_TILES = view_map(block_cyclic_axes(4, 4), "MeshLayout BlockCyclic(PR, PC, 4, 4) tiles",
                              tile_coordinates=True)


def block_cyclic_tiles_chain() -> la.Chain:
    return block_cyclic_chain(4, 4, offsets=False,
                              name="BlockCyclic(PR, PC, 4, 4) tiles by parts")


@la.spec(claims=["bijective_by_parts", ("equivalent", BLOCK_CYCLIC_TILES)])
def block_cyclic_deal_all_sizes():
    """BlockCyclic(PR, PC, 4, 4) of [M, N] to (PE, tile row, tile column): a
    bijection onto its valid slots for all M, N, PR, PC, proved by parts.
    The chain's composition is ``MeshLayout``'s tile map: the same values
    (the equivalent claim), the same codomain (checked when the spec is
    built) and the same valid slots (``block_cyclic_deal_valid_slots``).

    History (issue 11): this was once one ``bijective`` query on the whole
    map, PROVED only because two nested ceilings shared one Z3 name, which
    silently limited M and N to small sizes. With the naming fixed that
    query was UNKNOWN (28 s), so the theorem is now proved by parts."""
    chain = block_cyclic_tiles_chain()
    same_codomain(chain, BLOCK_CYCLIC_TILES)
    return chain


@la.spec(claims=[("equivalent", valid_slots(BLOCK_CYCLIC_TILES, "MeshLayout valid slots"))])
def block_cyclic_deal_valid_slots():
    """The chain of ``block_cyclic_deal_all_sizes`` and ``MeshLayout``'s
    BlockCyclic(PR, PC, 4, 4) tile map call the same slots valid, for all
    M, N, PR, PC."""
    whole = same_codomain(block_cyclic_tiles_chain(), BLOCK_CYCLIC_TILES)
    return valid_slots(whole, "chain valid slots")


BLOCK_CYCLIC = view_map(block_cyclic_axes(BR, BC), "MeshLayout.block_cyclic")


def block_cyclic_offsets_chain() -> la.Chain:
    return block_cyclic_chain(BR, BC, offsets=True,
                              name="BlockCyclic(PR, PC, BR, BC) of [M, N] by parts")


@la.spec(claims=["bijective_by_parts", ("equivalent", BLOCK_CYCLIC)])
def block_cyclic_all_sizes_and_blocks():
    """BlockCyclic(PR, PC, BR, BC) of [M, N] fp32 with byte offsets: a bijection
    onto its valid slots for all M, N, PR, PC, BR, BC, proved by parts (one
    query on the whole map is beyond Z3). The chain's composition is the map
    MeshLayout builds: the same offsets (the equivalent claim), the same
    codomain (checked when the spec is built) and the same valid slots
    (``block_cyclic_all_sizes_and_blocks_valid_slots``)."""
    chain = block_cyclic_offsets_chain()
    same_codomain(chain, BLOCK_CYCLIC)
    return chain


@la.spec(claims=[("equivalent", valid_slots(BLOCK_CYCLIC, "MeshLayout valid slots"))])
def block_cyclic_all_sizes_and_blocks_valid_slots():
    """The chain of ``block_cyclic_all_sizes_and_blocks`` and
    ``MeshLayout.block_cyclic``'s map call the same slots valid, for all M,
    N, PR, PC, BR, BC."""
    whole = same_codomain(block_cyclic_offsets_chain(), BLOCK_CYCLIC)
    return valid_slots(whole, "chain valid slots")


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
