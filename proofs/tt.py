"""Theorems about Tenstorrent page placement, for every size at once.

Each map below is the arithmetic ``layoutalg.tt`` uses (``placement.py``)
with the sizes left symbolic; Z3 proves it a bijection onto the real slots
for all page counts, bank counts, shard and grid sizes.

The face layout inside a tile (``Tile.offset``) for symbolic face counts
and face sizes is beyond one Z3 query (in-bounds alone is UNKNOWN at the
20 s limit). It is the composition of five simple maps — cut rows and
columns into faces, put the face first, number the slots inside a face,
number the faces, lay faces out one after another — so it is proved by
parts (``bijective_by_parts``, docs: Verification) in under a second; the
composition is ``Tile.offset`` itself.
"""

from dataclasses import dataclass

import sympy

import layoutalg as la
import layoutalg.tt  # noqa: F401 - registers the family's claims
from layoutalg.tt.tiles import Tile

N, B, P = la.extents("N B P")
PH, PW, SH, SW = la.extents("PH PW SH SW")
GX, C = la.extents("GX C")


def round_robin(item: str, part: str, slot: str, parts, name: str):
    """``item`` i of N → ``part`` i mod ``parts`` at ``slot`` i // ``parts``."""
    domain = la.Space(**{item: N})
    (i,) = domain.symbols
    codomain = la.Space(**{part: parts, slot: sympy.ceiling(N / parts)})
    p, s = codomain.symbols
    return la.IndexMap(domain, codomain, [i % parts, i // parts], inverse=[s * parts + p],
                       valid=sympy.Lt(s * parts + p, N), name=name)


def interleaved():
    """Page p → bank p mod B at slot p // B."""
    return round_robin("page", "bank", "slot", B, "interleaved(N, B)")


def interleaved_bytes(stride):
    """Page p → (bank p mod B, address (p // B)·stride)."""
    domain = la.Space(page=N)
    (p,) = domain.symbols
    codomain = la.Space(bank=B, address=sympy.ceiling(N / B) * stride)
    return la.IndexMap(domain, codomain, [p % B, (p // B) * stride], name="interleaved bytes")


@la.spec(claims=["bijective"])
def interleaving_all_sizes():
    """For all N pages and B banks: every page gets its own (bank, slot), and
    the slots past the last page of each bank are the only padding."""
    return interleaved()


@la.spec(claims=[("pages_aligned", 16), ("pages_aligned", 32), ("pages_aligned", 64)])
def aligned_stride_keeps_every_page_aligned():
    """With TT-Metal's stride align_up(P, 64) — a multiple of every alignment
    in use (L1 16 B, DRAM 32 B or 64 B) — every page starts aligned, for all
    page sizes P, page counts and bank counts."""
    return interleaved_bytes(sympy.ceiling(P / 64) * 64)


@la.spec(claims=[("pages_aligned", 32)], expect="REFUTED")
def packed_pages_break_alignment():
    """Pages packed at their own size P (the seed's "stored consecutively"):
    Z3 finds a page size and a page that start unaligned."""
    return interleaved_bytes(P)


def block(*, with_padding=True):
    """BLOCK sharding of a PH × PW page grid into SH × SW shards on a grid of
    ⌈PW/SW⌉ × ⌈PH/SH⌉ cores: page (r, c) → core (c // SW, r // SH), slot
    (r mod SH)·SW + c mod SW."""
    domain = la.Space(r=PH, c=PW)
    r, c = domain.symbols
    codomain = la.Space(core_x=sympy.ceiling(PW / SW), core_y=sympy.ceiling(PH / SH), slot=SH * SW)
    x, y, s = codomain.symbols
    row, col = y * SH + s // SW, x * SW + s % SW
    valid = sympy.And(row < PH, col < PW) if with_padding else None
    return la.IndexMap(domain, codomain, [c // SW, r // SH, (r % SH) * SW + c % SW],
                       inverse=[row, col], valid=valid, name="block(PH, PW, SH, SW)")


@la.spec(claims=["bijective"])
def block_sharding_all_sizes():
    """For every page grid and shard shape: a bijection onto the non-padding
    slots (partial edge shards padded)."""
    return block()


@la.spec(claims=["bijective"], expect="REFUTED")
def block_sharding_has_padding_when_uneven():
    """Claiming every shard slot holds a page fails: Z3 picks sizes with a
    partial edge shard."""
    return block(with_padding=False)


@la.spec(claims=["bijective"])
def height_sharding_all_sizes():
    """HEIGHT sharding of N pages in shards of SH pages over cores numbered
    row-major on a GX-wide grid: shard k → core (k mod GX, k // GX)."""
    domain = la.Space(page=N)
    (p,) = domain.symbols
    rows = sympy.ceiling(sympy.ceiling(N / SH) / GX)
    codomain = la.Space(core_x=GX, core_y=rows, slot=SH)
    x, y, s = codomain.symbols
    page = (y * GX + x) * SH + s
    shard = p // SH
    return la.IndexMap(domain, codomain, [shard % GX, shard // GX, p % SH], inverse=[page],
                       valid=sympy.Lt(page, N), name="height(N, SH, GX)")


@la.spec(claims=["bijective"])
def nd_round_robin_all_sizes():
    """N-d sharding deals shards round-robin: shard s → core s mod C at shard
    slot s // C, for every shard count N and core count C."""
    return round_robin("shard", "core", "local", C, "round_robin(N, C)")


FR, FC, FH, FW = la.extents("FR FC FH FW")


@dataclass(frozen=True)
class SymbolicFaces:
    """What ``Tile.offset`` and ``Tile.position`` read of a tile, with symbolic
    sizes (a ``Tile`` itself only takes the twelve real shapes)."""

    face_shape: tuple
    faces_per_row: object


def library_faces() -> la.IndexMap:
    """``Tile.offset`` of an FR·FH × FC·FW tile of FH × FW faces, ``Tile.position`` back."""
    domain = la.Space(i=FR * FH, j=FC * FW)
    i, j = domain.symbols
    codomain = la.Space(offset=FR * FC * FH * FW)
    (o,) = codomain.symbols
    faces = SymbolicFaces((FH, FW), FC)
    return la.IndexMap(domain, codomain, [Tile.offset(faces, i, j)],
                       inverse=list(Tile.position(faces, o)), name="Tile.offset")


def faces_chain() -> la.Chain:
    """The face layout as the chain of its steps."""
    cut = la.split(la.split(la.Space(i=FR * FH, j=FC * FW), "i", FH, names=("face_row", "row")),
                   "j", FW, names=("face_col", "col"))
    face_first = la.permute(cut.codomain, ["face_row", "face_col", "row", "col"])
    inside = la.linearize(face_first.codomain, ["row", "col"], name="inside")
    face = la.linearize(inside.codomain, ["face_row", "face_col"], name="face")
    flat = la.linearize(face.codomain)
    return la.Chain((cut, face_first, inside, face, flat),
                    name="FR × FC faces of FH × FW in one tile")


@la.spec(claims=["bijective_by_parts", ("equivalent", library_faces())])
def face_layout_all_face_counts_and_sizes():
    """A tile of FR × FC faces, each FH × FW, stored face after face in
    row-major face order and row-major inside a face: a bijection onto its
    FR·FC·FH·FW slots for all four sizes (the twelve real tiles among them),
    proved by parts (one query on the whole map is beyond Z3). The chain's
    composition is ``Tile.offset``: the same offsets (the equivalent claim)
    and no padding in either (checked when the spec is built)."""
    chain = faces_chain()
    if chain.index_map().valid != library_faces().valid:
        raise ValueError("the chain's valid slots are not Tile.offset's; the theorem would be "
                         "about another map")
    return chain
