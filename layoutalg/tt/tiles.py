"""Tiles and faces: where an element sits inside one tile page.

A tile is stored face by face (faces at most 16×16, in row-major face order,
row-major inside), as ``docs/tt.md`` tabulates. The tile shapes and their
faces are TT-Metal's (``TILE_FACE_HW_CHOICES``).
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.core.tiling import ceil_div, face_offset, face_position
from layoutalg.errors import TTError, describe
from layoutalg.tt.dtypes import DType
from layoutalg.validate import is_int

FACE_SHAPES: dict[tuple[int, int], tuple[int, int]] = {
    (32, 32): (16, 16), (16, 32): (16, 16), (32, 16): (16, 16), (16, 16): (16, 16),  # 16×16
    (8, 32): (8, 16), (4, 32): (4, 16), (2, 32): (2, 16), (1, 32): (1, 16),  # 2 faces abreast
    (8, 16): (8, 16), (4, 16): (4, 16), (2, 16): (2, 16), (1, 16): (1, 16),  # a single face
}

EXPONENT_ALIGNMENT = 16  # the exponent section of a block-float tile is L1-aligned


@dataclass(frozen=True)
class Tile:
    """A tile shape ``(height, width)`` and the faces it is stored as.

    >>> t = Tile(16, 32)
    >>> t.face_shape, t.num_faces, t.offset(3, 20)
    ((16, 16), 2, 308)
    """

    height: int = 32
    width: int = 32

    def __post_init__(self) -> None:
        if self.shape not in FACE_SHAPES:
            raise TTError(
                f"tile: Tile size is not valid for TT hardware; the tile shapes are "
                f"{sorted(FACE_SHAPES, reverse=True)}; got {describe(self.shape)}")

    @classmethod
    def of(cls, tile: object) -> Tile:
        """A ``Tile`` from a ``(height, width)`` pair (or a ``Tile``)."""
        if isinstance(tile, Tile):
            return tile
        if isinstance(tile, (tuple, list)) and len(tile) == 2 and all(is_int(v) for v in tile):
            return cls(int(tile[0]), int(tile[1]))
        raise TTError(f"tile must be a (height, width) pair of ints; got {describe(tile)}")

    @property
    def shape(self) -> tuple[int, int]:
        return (self.height, self.width)

    @property
    def face_shape(self) -> tuple[int, int]:
        return FACE_SHAPES[self.shape]

    @property
    def faces_per_row(self) -> int:
        return self.width // self.face_shape[1]

    @property
    def faces_per_column(self) -> int:
        return self.height // self.face_shape[0]

    @property
    def num_faces(self) -> int:
        return self.faces_per_column * self.faces_per_row

    @property
    def hw(self) -> int:
        """Elements per tile."""
        return self.height * self.width

    def offset(self, row, col):
        """Element offset of ``(row, col)`` inside the tile (ints or SymPy)."""
        return face_offset(row, col, self.face_shape, self.faces_per_row)

    def position(self, offset):
        """Inverse of :meth:`offset`: ``(row, col)`` stored at ``offset``."""
        return face_position(offset, self.face_shape, self.faces_per_row)

    def exponent_bytes(self, dtype: DType) -> int:
        """Bytes of the shared-exponent section that leads a block-float tile (else 0)."""
        rows = self.face_shape[0] * self.num_faces if dtype.block_float else 0
        return ceil_div(rows, EXPONENT_ALIGNMENT) * EXPONENT_ALIGNMENT

    def tile_bytes(self, dtype: DType) -> int:
        """Bytes of one tile page, as TT-Metal's ``Tile::get_tile_size``.

        >>> from layoutalg.tt.dtypes import get_dtype
        >>> Tile().tile_bytes(get_dtype("bfloat16")), Tile().tile_bytes(get_dtype("bfloat8_b"))
        (2048, 1088)
        """
        return self.hw * dtype.bits // 8 + self.exponent_bytes(dtype)


def tile_offset(row: int, col: int, tile: object = (32, 32)) -> int:
    """Element offset of ``(row, col)`` inside a tile: face by face, row-major.

    >>> tile_offset(0, 16), tile_offset(16, 0), tile_offset(17, 18)
    (256, 512, 786)
    """
    shape = Tile.of(tile)
    for name, value, extent in (("row", row, shape.height), ("col", col, shape.width)):
        if not is_int(value) or not 0 <= value < extent:
            raise TTError(f"{name} must be an int in [0, {extent}) for a "
                          f"{shape.height}x{shape.width} tile; got {describe(value)}")
    return shape.offset(int(row), int(col))


__all__ = ["FACE_SHAPES", "Tile", "tile_offset"]
