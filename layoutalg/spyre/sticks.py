"""Sticks: Spyre moves and stores data in 128-byte sticks.

The last device dim of every Spyre layout is the stick dim; its size is the
number of elements of the dtype that fill one stick, ``128 // itemsize``.
"""

from __future__ import annotations

from layoutalg.errors import SpyreError, describe

STICK_BYTES = 128

# Bytes per element of the dtypes Spyre stores; elements per stick follow.
ITEMSIZE = {
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int32": 4,
    "int64": 8,
}

ALIASES = {
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "float": "float32",
    "fp8": "float8_e4m3fn",
}


def dtype_name(dtype: object) -> str:
    """The canonical name of a dtype given as a name, alias, ``torch.<name>`` or NumPy dtype.

    >>> dtype_name("fp16"), dtype_name("torch.bfloat16")
    ('float16', 'bfloat16')
    """
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    if not isinstance(name, str) and type(dtype).__module__.startswith("torch"):
        name = str(dtype)
    if isinstance(name, str):
        name = name.removeprefix("torch.")
        name = ALIASES.get(name, name)
        if name in ITEMSIZE:
            return name
    raise SpyreError(
        f"dtype must be one of {sorted(ITEMSIZE)} (or an alias {sorted(ALIASES)}); "
        f"got {describe(dtype)}"
    )


def itemsize(dtype: object) -> int:
    """Bytes per element.

    >>> itemsize("float32")
    4
    """
    return ITEMSIZE[dtype_name(dtype)]


def elems_per_stick(dtype: object) -> int:
    """Elements of ``dtype`` in one 128-byte stick.

    >>> [elems_per_stick(d) for d in ("float16", "bfloat16", "float32", "int8")]
    [64, 64, 32, 128]
    """
    return STICK_BYTES // itemsize(dtype)


__all__ = ["ALIASES", "ITEMSIZE", "STICK_BYTES", "dtype_name", "elems_per_stick", "itemsize"]
