"""Core digit arithmetic (``core.tiling``) and the family maps built from it (issue 12 item 1).

The families' index maps used to carry their own ``//`` and ``%``; they are
now compositions of ``core.tiling`` and the combinators. Each old formula is
written here again, independently, in plain Python ints (``old_*``), and the
new code is compared with it on sampled points — as ints, as NumPy arrays
where the family evaluates arrays, and through SymPy (built on symbols, then
substituted), since SymPy rewrites ``floor``/``Mod`` wrongly sometimes.
"""

from __future__ import annotations

import ast
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.channel.interleave import ByRange, Interleave
from layoutalg.core import tiling as t
from layoutalg.mesh.axes import Axis
from layoutalg.mesh.maps import replicated_map
from layoutalg.spyre import mapping
from layoutalg.tt.placement import Interleaved, Sharded2D, ShardedNd
from layoutalg.tt.tiles import Tile
from layoutalg.verify import brute

EXAMPLES = settings(max_examples=150, deadline=None)
sizes_st = st.lists(st.integers(1, 6), min_size=1, max_size=4)


def old_strides(sizes):
    """Row-major strides, written out (the five copies issue 12 found did this)."""
    return [math.prod(sizes[k + 1:]) for k in range(len(sizes))]


def old_unflatten(x, sizes):
    """``x // stride_k % e_k``, the outermost unreduced (core delinearize before issue 12)."""
    return [x // s if k == 0 else x // s % e
            for k, (s, e) in enumerate(zip(old_strides(sizes), sizes))]


def by_sympy(build, *values):
    """``build`` on fresh integer symbols, then the values substituted: SymPy's path."""
    symbols = sympy.symbols(f"v0:{len(values)}", integer=True, nonnegative=True)
    out = build(*symbols)
    subs = dict(zip(symbols, values))
    return [int(sympy.sympify(e).xreplace(subs)) for e in out]


# -- core.tiling against the old formulas ------------------------------------------------


@EXAMPLES
@given(sizes_st, st.data())
def test_unflatten_is_the_old_formula_and_flatten_undoes_it(sizes, data):
    x = data.draw(st.integers(0, 3 * math.prod(sizes)))  # past the end: first coord too
    assert t.unflatten(x, sizes) == old_unflatten(x, sizes)
    assert by_sympy(lambda v: t.unflatten(v, sizes), x) == old_unflatten(x, sizes)
    assert t.flatten(t.unflatten(x, sizes), sizes) == x
    assert t.row_major_strides(sizes) == old_strides(sizes)
    colex = t.unflatten_colex(x, sizes)
    assert colex == old_unflatten(x, sizes[::-1])[::-1]
    assert t.flatten_colex(colex, sizes) == x


def test_unflatten_by_hand():
    # 23 = 1·12 + 2·4 + 3 in a 2 × 3 × 4 grid; colex: 9 = 1 + 2·4 in 4 × 3
    assert t.unflatten(23, (2, 3, 4)) == [1, 2, 3]
    assert t.flatten_colex((1, 2), (4, 3)) == 9
    assert t.colex_strides((2, 3, 4)) == [1, 2, 6]


@EXAMPLES
@given(st.integers(0, 500), st.integers(1, 7), st.integers(1, 5))
def test_deal_is_the_old_formula_and_undeal_undoes_it(x, parts, block):
    old = ((x // block) % parts, (x // (block * parts)) * block + x % block)
    assert t.deal(x, parts, block) == old
    assert tuple(by_sympy(lambda v: t.deal(v, parts, block), x)) == old
    assert tuple(by_sympy(lambda v: t.deal(v, parts, block, lazy=True), x)) == old
    assert t.undeal(*old, parts, block) == x
    assert by_sympy(lambda p, q: [t.undeal(p, q, parts, block)], *old) == [x]


def test_deal_by_hand():
    # blocks of 2 over 3 parts: 0 1 | 2 3 | 4 5 | 6 7 → parts 0, 1, 2, 0
    assert [t.deal(x, 3, 2) for x in (6, 7)] == [(0, 2), (0, 3)]
    assert t.deal(np.arange(8), 3, 2)[0].tolist() == [0, 0, 1, 1, 2, 2, 0, 0]


@EXAMPLES
@given(st.integers(0, 10 ** 6), st.integers(1, 1000))
def test_ceil_div_is_exact(a, b):
    assert t.ceil_div(a, b) == math.ceil(Fraction(a, b))
    assert t.ceil_div(sympy.Integer(a), b) == math.ceil(Fraction(a, b))


@pytest.mark.parametrize("shape", [(32, 32), (16, 32), (32, 16), (16, 16), (4, 32), (1, 32)])
def test_tile_faces_are_the_old_formula(shape):
    tile = Tile(*shape)
    fh, fw = tile.face_shape
    across = tile.width // fw
    for row in range(tile.height):
        for col in range(tile.width):
            face = (row // fh) * across + col // fw
            old = face * (fh * fw) + (row % fh) * fw + col % fw
            assert tile.offset(row, col) == old
            assert tile.position(old) == (row, col)


def test_tile_faces_by_hand():
    # TT-Metal 32 × 32 tiles: four 16 × 16 faces, face 1 is the top right
    assert [la.tt.tile_offset(r, c) for r, c in ((0, 16), (16, 0), (17, 18))] == [256, 512, 786]


# -- the combinators ------------------------------------------------------------------------


@pytest.mark.parametrize("sizes", [(2, 3, 4), (3, 1, 5), (2, 2, 2, 3)])
def test_delinearize_and_linearize_are_the_old_formulas(sizes):
    names = [f"a{k}" for k in range(len(sizes))]
    m = la.delinearize(la.Space(x=math.prod(sizes)), "x", **dict(zip(names, sizes)))
    flat = la.linearize(la.Space(*zip(names, sizes)))
    for x in range(math.prod(sizes)):
        assert list(m(x)) == old_unflatten(x, sizes)
        assert list(flat.preimage(x)) == old_unflatten(x, sizes)
        assert m.preimage(*old_unflatten(x, sizes)) == (x,)


def test_symbolic_delinearize_bound_is_the_old_formula():
    A, B, C = la.extents("A B C")
    m = la.delinearize(la.Space(x=A * B * C), "x", a=A, b=B, c=C).bind(A=2, B=3, C=5)
    assert [list(m(x)) for x in range(30)] == [old_unflatten(x, (2, 3, 5)) for x in range(30)]


def test_symbolic_delinearize_proves_bijective_and_enumeration_agrees():
    B, C = la.extents("B C")
    m = la.delinearize(la.Space(x=4 * B * C), "x", a=4, b=B, c=C)
    assert la.check_bijective(m).proved
    bound = m.bind(B=3, C=2)
    assert la.check_bijective(bound).proved and brute.check_bijective(bound).proved


@pytest.mark.parametrize("extent, parts, block", [(10, 3, 2), (12, 4, 3), (7, 2, 1)])
def test_cyclic_is_the_old_formula(extent, parts, block):
    m = la.cyclic(la.Space(n=extent), "n", parts, block=block)
    for x in range(extent):
        slot = ((x // block) % parts, (x // (block * parts)) * block + x % block)
        assert m(x) == slot and m.preimage(*slot) == (x,)


# -- the families -----------------------------------------------------------------------


@EXAMPLES
@given(st.integers(1, 40), st.integers(1, 12), st.data())
def test_tt_interleaved_is_the_old_formula(pages, banks, data):
    placement = Interleaved(pages, banks)
    p = data.draw(st.integers(0, pages - 1))
    (bank,), slot = placement.forward_id(p)
    assert (bank, slot) == (p % banks, p // banks)
    coords, valid = placement.inverse((bank,), slot, (1, pages))
    assert list(coords) == [0, p] and bool(valid)


def old_core(k, grid, orientation):
    gx, gy = grid
    return (k % gx, k // gx) if orientation == "ROW_MAJOR" else (k // gy, k % gy)


@EXAMPLES
@given(st.sampled_from(["HEIGHT", "WIDTH", "BLOCK"]), st.sampled_from(["ROW_MAJOR", "COL_MAJOR"]),
       st.integers(1, 9), st.integers(1, 9), st.integers(1, 4), st.integers(1, 4))
def test_tt_sharded_2d_is_the_old_formula(strategy, orientation, ph, pw, sph, spw):
    shard_grid = (-(-ph // sph), -(-pw // spw))
    cores = shard_grid[0] * shard_grid[1]
    grid = (shard_grid[1], shard_grid[0]) if orientation == "ROW_MAJOR" else shard_grid
    if strategy != "BLOCK":
        grid = (cores, 1) if orientation == "ROW_MAJOR" else (1, cores)
    placement = Sharded2D(strategy, grid, orientation, (ph, pw), (sph, spw))
    for pr in range(ph):
        for pc in range(pw):
            sr, sc = pr // sph, pc // spw
            if strategy == "BLOCK":
                core = (sc, sr) if orientation == "ROW_MAJOR" else (sr, sc)
            else:
                core = old_core(sr * shard_grid[1] + sc, grid, orientation)
            old = (tuple(core), (pr % sph) * spw + pc % spw)
            new_core, slot = placement.forward((pr, pc), (ph, pw))
            assert (tuple(new_core), slot) == old
            coords, valid = placement.inverse(old[0], old[1], (ph, pw))
            assert tuple(coords) == (pr, pc) and bool(valid)


@EXAMPLES
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.data())
def test_tt_sharded_nd_is_the_old_formula(pages, data):
    shard = [data.draw(st.integers(1, p)) for p in pages]
    grid = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    orientation = data.draw(st.sampled_from(["ROW_MAJOR", "COL_MAJOR"]))
    placement = ShardedNd(grid, orientation, tuple(pages), tuple(shard))
    shard_grid = [-(-p // s) for p, s in zip(pages, shard)]
    cores, volume = grid[0] * grid[1], math.prod(shard)
    coords = [data.draw(st.integers(0, p - 1)) for p in pages]
    index = sum(c * s for c, s in zip([q // s for q, s in zip(coords, shard)],
                                       old_strides(shard_grid)))
    inside = sum(c * s for c, s in zip([q % s for q, s in zip(coords, shard)], old_strides(shard)))
    old = (old_core(index % cores, grid, orientation), (index // cores) * volume + inside)
    core, slot = placement.forward(coords, None)
    assert (tuple(core), slot) == old
    back, valid = placement.inverse(old[0], old[1], None)
    assert list(back) == coords and bool(valid)


def old_spyre_device(host, device_size, dim_map):
    """``c_k = (h_d // s_k) mod device_size[k]``, no mod for the outermost dim of ``d``."""
    out, seen = [], set()
    for k, d in enumerate(dim_map):
        if d == -1:
            out.append(0)
            continue
        step = math.prod(device_size[j] for j in range(k + 1, len(dim_map)) if dim_map[j] == d)
        value = host[d] // step
        out.append(value % device_size[k] if d in seen else value)
        seen.add(d)
    return out


@pytest.mark.parametrize("size, device_size, dim_map", [
    ((128, 256, 512), (256, 8, 128, 64), (1, 2, 0, 2)),   # torch-spyre's 3-d default
    ((100, 200), (4, 100, 64), (1, 0, 1)),                 # padded stick dim
    ((6, 10), (2, 3, 2, 8), (1, 0, 0, 1)),                 # both dims tiled twice
])
def test_spyre_device_coordinates_are_the_old_formula(size, device_size, dim_map):
    m = mapping.host_to_device_map(size, device_size, dim_map, name="t")
    assert mapping.tile_strides(device_size, dim_map) == tuple(
        math.prod(device_size[j] for j in range(k + 1, len(dim_map)) if dim_map[j] == d)
        if d != -1 else 1 for k, d in enumerate(dim_map))
    offsets = mapping.device_offset_map(size, device_size, dim_map, 2, name="b")
    rng = np.random.default_rng(12)
    for _ in range(60):
        host = tuple(int(rng.integers(0, n)) for n in size)
        device = old_spyre_device(host, device_size, dim_map)
        assert list(m(*host)) == device
        assert m.preimage(*device) == host
        outer = device_size[:-1]
        stick = sum(c * s for c, s in zip(device[:-1], old_strides(list(outer))))
        assert offsets(*host) == (128 * stick + 2 * device[-1],)


@EXAMPLES
@given(st.integers(1, 6), st.sampled_from([1, 4, 64]), st.integers(0, 5000))
def test_channel_decoders_are_the_old_formulas(channels, granule, addr):
    dec = Interleave(channels, granule)
    old = ((addr // granule) % channels,
           (addr // (granule * channels)) * granule + addr % granule)
    assert (dec.channel(addr), dec.offset(addr)) == old
    m = dec.index_map(5001)
    assert m(addr) == old and m.preimage(*old) == (addr,)
    arrays = np.array([addr, addr + 1])
    assert dec.channel(arrays).tolist() == [old[0], ((addr + 1) // granule) % channels]
    ranges = ByRange(channels, 1000)
    if addr < channels * 1000:
        assert ranges.index_map()(addr) == (addr // 1000, addr % 1000)
        assert ranges.index_map().preimage(addr // 1000, addr % 1000) == (addr,)


@EXAMPLES
@given(st.integers(1, 50), st.integers(1, 7), st.integers(1, 5))
def test_mesh_axis_is_the_old_formula(extent, block, parts):
    axis = Axis(extent, block, parts, 0)
    x = np.arange(extent)
    assert axis.part(x).tolist() == ((x // block) % parts).tolist()
    assert axis.local(x).tolist() == ((x // (block * parts)) * block + x % block).tolist()


def test_mesh_replicated_map_is_the_old_formula():
    m = replicated_map((3, 5), (2, 2), 4, "copies")
    assert m.codomain.names == ("pe_row", "pe_col", "offset")
    for copy in ((0, 0), (1, 0), (1, 1)):
        for i in range(3):
            for j in range(5):
                old = (*copy, (i * 5 + j) * 4)
                assert m(*copy, i, j) == old and m.preimage(*old) == (*copy, i, j)
    assert la.check_bijective(m).proved


# -- no family divides on its own --------------------------------------------------------

INDEX_MAP_MODULES = ["tt/maps.py", "tt/placement.py", "tt/tiles.py", "spyre/mapping.py",
                     "channel/interleave.py", "mesh/axes.py", "mesh/maps.py",
                     "mesh/pattern_maps.py"]
# Divisions of sizes (numbers of pages, elements per page), not of coordinates.
SIZE_DIVISIONS = {("tt/maps.py", "split_address", "step // size"),
                  ("tt/maps.py", "_page_rows", "spec.padded_height // spec.page_shape[0]"),
                  ("tt/tiles.py", "faces_per_row", "self.width // self.face_shape[1]"),
                  ("tt/tiles.py", "faces_per_column", "self.height // self.face_shape[0]"),
                  ("tt/tiles.py", "tile_bytes", "self.hw * dtype.bits // 8")}


def divisions(path):
    """``(function, source)`` of every ``//`` and ``%`` in a module."""
    found, stack = [], []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node):
            stack.append(node.name)
            self.generic_visit(node)
            stack.pop()

        def visit_BinOp(self, node):
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                found.append((stack[-1] if stack else "<module>", ast.unparse(node)))
            self.generic_visit(node)

    Visitor().visit(ast.parse(path.read_text()))
    return found


@pytest.mark.parametrize("module", INDEX_MAP_MODULES)
def test_family_index_maps_divide_only_through_the_core(module):
    root = Path(la.__file__).parent
    own = [(module, *d) for d in divisions(root / module)]
    assert [d for d in own if d not in SIZE_DIVISIONS] == []


def test_the_division_scan_sees_divisions():
    assert ("deal_local", "x // parts") in divisions(Path(t.__file__))

