"""The rules a Spyre layout must meet, one function per rule.

Each raises the error of the rule it checks, naming the argument, the rule
and the value; ``SpyreLayout`` runs them in order (types, lengths, stick
size, dim_map entries, torch dims present, coverage).
"""

from __future__ import annotations

from layoutalg.errors import CoverageError, DimMapError, SpyreError, StickSizeError
from layoutalg.spyre.mapping import SYNTHETIC, coverage
from layoutalg.spyre.sticks import STICK_BYTES, elems_per_stick, itemsize
from layoutalg.validate import listed


def check_lengths(device_size: tuple[int, ...], dim_map: tuple[int, ...]) -> None:
    if not device_size:
        raise SpyreError("device_size must have at least one dim (the stick dim); got []")
    if len(device_size) != len(dim_map):
        raise DimMapError(
            f"device_size and dim_map must have the same length (the device rank); got "
            f"{len(device_size)} and {len(dim_map)} (device_size={listed(device_size)}, "
            f"dim_map={listed(dim_map)})"
        )


def check_stick(device_size: tuple[int, ...], dtype: str) -> None:
    """The last device dim holds exactly one 128-byte stick of the dtype."""
    wanted = elems_per_stick(dtype)
    if device_size[-1] != wanted:
        raise StickSizeError(
            f"device_size[-1] is the stick dim and must hold one {STICK_BYTES}-byte stick: "
            f"{STICK_BYTES} // {itemsize(dtype)} = {wanted} elements of {dtype}; got "
            f"{device_size[-1]} in device_size={listed(device_size)}"
        )


def check_entries_in_range(dim_map: tuple[int, ...], rank: int) -> None:
    """Entries in ``range(-1, rank)``."""
    for k, d in enumerate(dim_map):
        if not SYNTHETIC <= d < rank:
            raise DimMapError(
                f"dim_map[{k}] must be in range(-1, {rank}) (a torch dim of the rank-{rank} "
                f"tensor, or -1 for the synthetic dim); got {d} in dim_map={listed(dim_map)}"
            )


def check_entries(dim_map: tuple[int, ...], rank: int) -> None:
    """Entries in ``range(-1, rank)``; ``-1`` at most once and only last."""
    check_entries_in_range(dim_map, rank)
    synthetic = [k for k, d in enumerate(dim_map) if d == SYNTHETIC]
    if len(synthetic) > 1:
        raise DimMapError(
            f"dim_map may hold -1 (the synthetic dim of a sparse layout) at most once; got it "
            f"at positions {synthetic} in dim_map={listed(dim_map)}"
        )
    if synthetic and synthetic[0] != len(dim_map) - 1:
        raise DimMapError(
            f"dim_map may hold -1 only as its last entry (the synthetic dim is the stick dim of "
            f"a sparse layout: one element per stick); got -1 at position {synthetic[0]} of "
            f"{len(dim_map)} in dim_map={listed(dim_map)}"
        )


def check_present(size: tuple[int, ...], dim_map: tuple[int, ...]) -> None:
    """Every torch dim of size > 1 appears in dim_map (size-1 dims may be left
    out: the canonical form drops them)."""
    for d, extent in enumerate(size):
        if extent > 1 and d not in dim_map:
            raise DimMapError(
                f"dim_map must contain every torch dim of size > 1 at least once; torch dim {d} "
                f"(size {extent}) is missing from dim_map={listed(dim_map)} for "
                f"size={listed(size)}"
            )


def check_coverage(size: tuple[int, ...], device_size: tuple[int, ...],
                   dim_map: tuple[int, ...]) -> None:
    """The device dims of each torch dim hold at least its size coordinates."""
    for d, extent in enumerate(size):
        held = coverage(device_size, dim_map, d)
        if held >= extent:
            continue
        dims = [k for k, m in enumerate(dim_map) if m == d]
        product = " × ".join(str(device_size[k]) for k in dims) or "1"
        lost = tuple(held if j == d else 0 for j in range(len(size)))
        raise CoverageError(
            f"the device dims of torch dim {d} (device dims {dims}: {product} = {held} "
            f"coordinates) must cover its size {extent}; host element {lost} and "
            f"{extent - held} coordinate(s) of dim {d} after it have no device slot "
            f"(device_size={listed(device_size)}, dim_map={listed(dim_map)}, size={listed(size)})"
        )


def check_all(size, dtype, device_size, dim_map) -> None:
    """Every rule, in order."""
    check_lengths(device_size, dim_map)
    check_stick(device_size, dtype)
    check_entries(dim_map, len(size))
    check_present(size, dim_map)
    check_coverage(size, device_size, dim_map)


__all__ = ["check_all", "check_coverage", "check_entries", "check_entries_in_range",
           "check_lengths", "check_present", "check_stick"]
