"""Known-bad layouts: each must be REFUTED, with the counterexample shown.

These are the bugs layoutalg exists to catch before run time: a tile size
computed with floor division, a stride that makes two elements share a slot,
a layout that leaves holes, a tile that overflows its memory.
"""

import sympy

import layoutalg as la


@la.spec(claims=["in_bounds"], expect="REFUTED")
def floor_division_tiles():
    """[1000, 1000] on 32×32 PEs with TR = 1000 // 32 = 31 (floor, not ceil):
    rows 992..999 land on PE row 32, which does not exist."""
    dom = la.Space(i=1000, j=1000)
    i, j = dom.symbols
    tile = 1000 // 32
    cod = la.Space(pe_row=32, pe_col=32, offset=tile * tile)
    return la.IndexMap(dom, cod, [i // tile, j // tile, (i % tile) * tile + j % tile],
                       name="floor_tiles")


@la.spec(claims=["injective"], expect="REFUTED")
def overlapping_rows():
    """Row-major [8, 16] with the row stride mistyped as 8: rows overlap."""
    return la.strided((16, 8), (1, 8))


@la.spec(claims=["bijective"], expect="REFUTED")
def strided_with_holes():
    """(4,4):(1,8) is injective but leaves half of [0, 28) empty."""
    return la.strided((4, 4), (1, 8))


@la.spec(claims=[("fits", 1024, {"element_bytes": 4, "offsets_in_bytes": True})],
         expect="REFUTED")
def tile_overflows_memory():
    """A [64, 64] fp32 tile is 16 KB: it does not fit a 1 KB scratchpad."""
    return la.scale(la.linearize(la.Space(i=64, j=64)), "offset", 4)


@la.spec(claims=["bijective"], expect="REFUTED")
def wrong_inverse_and_lost_row():
    """A transposing map whose codomain was sized for the wrong shape: [3, 5] → [5, 2]."""
    dom = la.Space(i=3, j=5)
    i, j = dom.symbols
    cod = la.Space(a=5, b=2)
    return la.IndexMap(dom, cod, [j, i], inverse=[cod.symbols[1], cod.symbols[0]],
                       name="transpose_short")


@la.spec(claims=["surjective"], expect="REFUTED")
def padding_claimed_as_data():
    """pad() without a valid predicate: the two pad slots are claimed to hold data."""
    padded = la.pad(la.Space(i=10), "i", 4)
    return la.IndexMap(padded.domain, padded.codomain, padded.exprs, inverse=padded.inverse,
                       valid=sympy.true, name="pad_without_valid")


@la.spec(claims=["bijective_by_parts"], expect="REFUTED")
def floor_tiles_flattened():
    """The floor-division tiles above, flattened into one buffer: proving by
    parts stops at the first part, and the whole map is refuted directly."""
    tiles = floor_division_tiles.build()
    return la.Chain((tiles, la.linearize(tiles.codomain)), name="flat_floor_tiles")
