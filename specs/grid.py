"""Grid placement of a 2-D tensor over a PE mesh, built from core combinators.

Element (i, j) goes to PE (i // TR, j // TC) at offset (i % TR)·TC + j % TC,
with ceil-division tiles TR = ⌈M/PR⌉, TC = ⌈N/PC⌉ (trailing PEs get smaller
tiles; their extra slots are padding). The same layout, over every size at
once, is a theorem in proofs/grid.py.
"""

import layoutalg as la

WSE2_ROWS, WSE2_COLS = 994, 750  # WSE-2 usable program rectangle: 750 wide × 994 tall


def grid(m, n, pe_rows, pe_cols, name=None):
    """[i:m, j:n] → [pe_row, pe_col, offset] by ceil-division tiles."""
    tile_rows = -(-m // pe_rows)
    tile_cols = -(-n // pe_cols)
    tiles = la.split(la.split(la.Space(i=m, j=n), "i", tile_rows, names=("pe_row", "row")),
                     "j", tile_cols, names=("pe_col", "col"))
    placed = la.linearize(la.permute(tiles, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])
    if tile_rows * pe_rows - m >= tile_rows or tile_cols * pe_cols - n >= tile_cols:
        raise la.LayoutError(f"grid: {pe_rows}x{pe_cols} PEs leave a whole PE row or column "
                             f"empty for a {m}x{n} tensor")
    return la.pad(la.pad(placed, "pe_row", to=pe_rows), "pe_col", to=pe_cols).renamed(
        name or f"grid[{m}x{n} on {pe_rows}x{pe_cols}]")


@la.spec(claims=["bijective", ("fits", 4096, {"per": ("pe_row", "pe_col"), "element_bytes": 4})])
def grid_1024_on_32x32():
    """PyFlame §3.2: [1024, 1024] fp32 on Grid(32, 32): 32×32 tiles, 4 KB per PE."""
    return grid(1024, 1024, 32, 32)


@la.spec(claims=["injective", "in_bounds"])
def grid_2p20_on_wse2():
    """A 2^20 × 2^20 tensor over the whole WSE-2 rectangle (994 rows × 750 columns):
    injective and in bounds, proved without enumerating 2^40 elements."""
    return grid(2**20, 2**20, WSE2_ROWS, WSE2_COLS)


@la.spec(claims=["bijective"])
def grid_uneven():
    """[1000, 900] over 32×30 PEs: ⌈1000/32⌉ = 32-row tiles, the last PE row holds 8 rows."""
    return grid(1000, 900, 32, 30)
