"""Element types of PyFlame tensors and their sizes in bytes."""

from __future__ import annotations

from layoutalg.errors import MeshError, describe
from layoutalg.validate import is_int

#: The seed's table (``memory_usage_per_pe``), bytes per element.
DTYPE_BYTES: dict[str, int] = {
    "float32": 4, "float16": 2, "bfloat16": 2, "int32": 4, "int16": 2,
}

#: Wavelets, the fabric's messages, carry 32 bits.
WAVELET_BYTES = 4


def element_size(dtype: str) -> int:
    """Bytes per element of ``dtype``.

    >>> element_size("bfloat16")
    2
    """
    if not isinstance(dtype, str) or dtype not in DTYPE_BYTES:
        raise MeshError(f"dtype: must be one of {sorted(DTYPE_BYTES)}; got {describe(dtype)}")
    return DTYPE_BYTES[dtype]


def check_element_size(value: object, argument: str = "element_size") -> int:
    """``value`` as a positive number of bytes per element."""
    if not is_int(value) or value < 1:
        raise MeshError(f"{argument}: must be a positive int (bytes per element); "
                        f"got {describe(value)}")
    return int(value)
