"""Data types a TT-Metal tensor may hold, and their sizes.

Block-float ``bfloat8_b`` and ``bfloat4_b`` are TILE only: each face row shares
one exponent byte (``Tile.tile_bytes``); a bfloat4_b element is half a byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.errors import TTError, describe


@dataclass(frozen=True)
class DType:
    """A TT data type: its name, bits per element, whether it is block-float."""

    name: str
    bits: int
    block_float: bool = False

    @property
    def element_bytes(self) -> int | None:
        """Bytes per element, or None when elements are smaller than a byte."""
        return self.bits // 8 if self.bits % 8 == 0 else None


DTYPES = {d.name: d for d in (
    DType("bfloat16", 16), DType("float32", 32), DType("uint32", 32), DType("int32", 32),
    DType("uint16", 16), DType("uint8", 8),
    DType("bfloat8_b", 8, block_float=True), DType("bfloat4_b", 4, block_float=True),
)}


ALIASES = {"bf16": "bfloat16", "fp32": "float32", "bfp8": "bfloat8_b", "bfp4": "bfloat4_b"}


def get_dtype(dtype: str | DType) -> DType:
    """A dtype by name (``"bfloat16"``, or ``"bf16"``), or the ``DType`` itself.

    >>> get_dtype("float32").element_bytes
    4
    """
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        name = ALIASES.get(dtype.lower(), dtype.lower())
        if name in DTYPES:
            return DTYPES[name]
    raise TTError(f"dtype must be one of {sorted(DTYPES)}; got {describe(dtype)}")


__all__ = ["DTYPES", "DType", "get_dtype"]
