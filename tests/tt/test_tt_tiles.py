"""Tiles and faces: offsets against a face walk, hand values, sizes, devices."""

from __future__ import annotations

import pytest
from test_tt_reference import FACES, face_table

import layoutalg as la
from layoutalg import tt


@pytest.mark.parametrize("shape", sorted(FACES))
def test_offsets_follow_the_face_walk_and_invert(shape):
    tile = tt.Tile(*shape)
    table = face_table(shape)
    assert tile.face_shape == FACES[shape]
    assert sorted(table.values()) == list(range(tile.hw))
    for (i, j), offset in table.items():
        assert tt.tile_offset(i, j, shape) == offset
        assert tile.position(offset) == (i, j)


@pytest.mark.parametrize(("row", "col", "tile", "offset"), [
    (0, 0, (32, 32), 0),
    (0, 15, (32, 32), 15),
    (0, 16, (32, 32), 256),      # second face starts after the first 16×16 face
    (1, 0, (32, 32), 16),
    (16, 0, (32, 32), 512),      # third face: bottom left
    (17, 18, (32, 32), 786),     # face 3: 768 + 1·16 + 2
    (31, 31, (32, 32), 1023),
    (15, 31, (16, 32), 511),
    (0, 16, (16, 32), 256),
    (16, 0, (32, 16), 256),      # 32×16: faces stacked
    (0, 16, (8, 32), 128),       # 8×16 faces side by side
    (7, 15, (8, 32), 127),
    (0, 16, (1, 32), 16),
    (0, 31, (1, 32), 31),
    (5, 9, (16, 16), 89),
    (3, 5, (4, 16), 53),
])
def test_hand_computed_offsets(row, col, tile, offset):
    assert tt.tile_offset(row, col, tile) == offset


def test_the_32x32_tile_is_four_row_major_faces_in_order():
    """Postconditions from TT-Metal's tile layout (tt_metal/api/tt-metalium/constants.hpp,
    FACE_HEIGHT = FACE_WIDTH = 16): four 16×16 faces stored top-left, top-right,
    bottom-left, bottom-right, each face row-major and contiguous."""
    offsets = {(i, j): tt.tile_offset(i, j) for i in range(32) for j in range(32)}
    assert sorted(offsets.values()) == list(range(1024))          # a bijection onto the tile
    corners = [(0, 0), (0, 16), (16, 0), (16, 16)]
    assert [offsets[c] for c in corners] == [0, 256, 512, 768]     # faces in this order
    for face, (r0, c0) in enumerate(corners):
        inside = [offsets[r0 + r, c0 + c] for r in range(16) for c in range(16)]
        assert inside == list(range(256 * face, 256 * (face + 1)))  # row-major, contiguous


@pytest.mark.parametrize(("tile", "dtype", "size"), [
    ((32, 32), "bfloat16", 2048),
    ((32, 32), "float32", 4096),
    ((32, 32), "uint8", 1024),
    ((32, 32), "bfloat8_b", 1024 + 64),   # TT-Metal's BFLOAT8_B_TILE_HW
    ((32, 32), "bfloat4_b", 512 + 64),    # and BFLOAT4_B_TILE_HW
    ((16, 32), "bfloat8_b", 512 + 32),    # 2 faces × 16 rows of exponents
    ((1, 32), "bfloat8_b", 32 + 16),      # 2 exponent bytes, aligned to 16
    ((16, 16), "float32", 1024),
])
def test_tile_bytes(tile, dtype, size):
    assert tt.Tile(*tile).tile_bytes(tt.DTYPES[dtype]) == size


def test_tile_offset_is_a_proved_bijection_for_every_tile_shape():
    for shape in FACES:
        tile = tt.Tile(*shape)
        domain = la.Space(i=shape[0], j=shape[1])
        i, j = domain.symbols
        codomain = la.Space(offset=tile.hw)
        (o,) = codomain.symbols
        m = la.IndexMap(domain, codomain, [tile.offset(i, j)], inverse=list(tile.position(o)),
                        name=f"faces {shape}")
        assert la.check_bijective(m).proved, shape


@pytest.mark.parametrize(("name", "banks", "l1", "grid", "dram_align"), [
    ("grayskull", 8, 1 << 20, (12, 10), 32),
    ("wormhole_b0", 12, 1_499_136, (8, 10), 32),
    ("blackhole", 8, 1_572_864, (14, 10), 64),
])
def test_device_presets(name, banks, l1, grid, dram_align):
    device = tt.get_device(name)
    assert (device.dram_banks, device.l1_bytes, device.worker_grid) == (banks, l1, grid)
    assert (device.l1_alignment, device.dram_alignment) == (16, dram_align)
    assert device.l1_banks == grid[0] * grid[1]
