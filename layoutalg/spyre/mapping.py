"""The Spyre mapping as SymPy expressions, for concrete or symbolic sizes.

A device coordinate ``c`` (one entry per device dim) holds the host element
whose coordinate along torch dim ``d`` is

    h_d = Σ_{k : dim_map[k] = d} c_k · s_k,   s_k = Π_{j > k, dim_map[j] = d} device_size[j]

A slot is padding when some ``h_d ≥ size[d]`` or the synthetic dim (``-1``) has a
coordinate other than 0. Read backwards, ``c_k = (h_d // s_k) mod device_size[k]``,
without the ``mod`` for the outermost device dim of ``d``: a host element the device
dims cannot hold lands out of bounds (a check names it) instead of wrapping onto
another. Both directions are the core's row-major (un)flattening (``core.tiling``).

These builders take the parts of a layout unvalidated (``SpyreLayout`` validates; the
proofs pass symbolic sizes, the known-bad specs broken parts).
"""

from __future__ import annotations

import math

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import digits, dot, flatten, row_major_strides, unflatten
from layoutalg.spyre.sticks import STICK_BYTES
from layoutalg.spyre.torch_layout import host_space
from layoutalg.validate import is_symbolic

SYNTHETIC = -1


def device_space(device_size) -> Space:
    """The device coordinates ``dev0, dev1, …``; the last is the stick dim."""
    return Space(*((f"dev{k}", extent) for k, extent in enumerate(device_size)))


def tile_strides(device_size, dim_map) -> tuple:
    """``s_k``: the step of device dim ``k`` along its torch dim (1 for ``-1``).

    >>> tile_strides((256, 8, 128, 64), (1, 2, 0, 2))
    (1, 64, 1, 1)
    """
    strides = [1] * len(dim_map)
    for _, ks in _groups(dim_map):
        for k, step in zip(ks, row_major_strides([device_size[k] for k in ks])):
            strides[k] = step
    return tuple(strides)


def coverage(device_size, dim_map, d):
    """Coordinates the device dims of torch dim ``d`` can hold (their product)."""
    return math.prod(extent for extent, mapped in zip(device_size, dim_map) if mapped == d)


def to_device_exprs(host_symbols, device_size, dim_map) -> list:
    """``c_k`` as expressions of the host coordinates: each torch dim unflattened
    row-major into its device dims (the outermost never wraps)."""
    exprs = [sympy.Integer(0)] * len(dim_map)
    for d, ks in _groups(dim_map):
        for k, c in zip(ks, unflatten(host_symbols[d], [device_size[k] for k in ks])):
            exprs[k] = c
    return exprs


def to_host_exprs(device_symbols, rank, device_size, dim_map) -> list:
    """``h_d`` as expressions of the device coordinates (0 for a torch dim that
    no device dim holds: it has size 1)."""
    host = [sympy.Integer(0)] * rank
    for d, ks in _groups(dim_map):
        host[d] = flatten([device_symbols[k] for k in ks], [device_size[k] for k in ks])
    return host


def valid_expr(device_symbols, size, device_size, dim_map):
    """True where a device slot holds a host element."""
    host = to_host_exprs(device_symbols, len(size), device_size, dim_map)
    conditions = [sympy.Eq(c, 0) for c, d in zip(device_symbols, dim_map) if d == SYNTHETIC]
    for d, extent in enumerate(size):
        if _differ(coverage(device_size, dim_map, d), extent):
            conditions.append(sympy.Lt(host[d], extent))
    return sympy.And(*conditions)


def host_to_device_map(size, device_size, dim_map, *, name: str) -> IndexMap:
    """Host coordinate ↦ device coordinate, with its inverse and the padding
    predicate: the map every check of a Spyre layout runs on."""
    domain, codomain = host_space(size), device_space(device_size)
    return IndexMap(
        domain, codomain, to_device_exprs(domain.symbols, device_size, dim_map),
        inverse=to_host_exprs(codomain.symbols, len(size), device_size, dim_map),
        valid=valid_expr(codomain.symbols, size, device_size, dim_map), name=name,
    )


def device_to_host_map(size, device_size, dim_map, *, name: str) -> IndexMap:
    """Device coordinate ↦ host coordinate over the whole device grid, to compare formulas
    (the seed's ``(a, b, c, d) ↦ (c, a, 64·b + d)``): padding slots map past the torch
    size, so the codomain extents are the coverages."""
    domain = device_space(device_size)
    reach = [coverage(device_size, dim_map, d) for d in range(len(size))]
    reach = [max(int(r), int(n)) if not is_symbolic(r, n) else r for r, n in zip(reach, size)]
    return IndexMap(domain, host_space(reach),
                    to_host_exprs(domain.symbols, len(size), device_size, dim_map), name=name)


def device_bytes(device_size) -> int:
    """Bytes the layout occupies: one 128-byte stick per device coordinate of
    all dims but the stick dim."""
    return STICK_BYTES * math.prod(device_size[:-1])


def device_offset_map(size, device_size, dim_map, element_bytes: int, *, name: str) -> IndexMap:
    """Host coordinate ↦ byte offset in device memory. Sticks are 128 bytes apart
    whatever ``device_size[-1]`` says (the hardware); inside one, element ``c_last`` sits
    at ``element_bytes · c_last``: a stick dim longer than one stick makes two host
    elements share bytes, and the injectivity check names them."""
    domain, codomain = host_space(size), Space(byte=device_bytes(device_size))
    coords = to_device_exprs(domain.symbols, device_size, dim_map)
    stick = flatten(coords[:-1], device_size[:-1])
    (b,) = codomain.symbols
    stick_index, in_stick = digits(b, STICK_BYTES)
    within = digits(in_stick, element_bytes)[0]
    unflat = unflatten(stick_index, device_size[:-1]) + [within]
    device = device_space(device_size).symbols
    valid = sympy.And(sympy.Eq(digits(b, element_bytes)[1], 0),
                      *_within_stick_dim(within, device_size[-1], element_bytes),
                      valid_expr(device, size, device_size, dim_map).xreplace(
                          dict(zip(device, unflat))))
    return IndexMap(domain, codomain, [dot((stick, coords[-1]), (STICK_BYTES, element_bytes))],
                    inverse=to_host_exprs(unflat, len(size), device_size, dim_map), valid=valid,
                    name=name)


def _within_stick_dim(within, stick_dim, element_bytes) -> list:
    """``[within < stick_dim]`` (an element's place in its stick lies inside the stick
    dim); ``[]`` when every place meets it (``within < STICK_BYTES / element_bytes <=
    stick_dim``): the same valid bytes, and Z3 no longer re-derives the bound (the seed
    layout's device bytes: 0.50 s → 0.13 s for the inverse query, CPU)."""
    if not is_symbolic(stick_dim, element_bytes) and (
            STICK_BYTES <= int(stick_dim) * int(element_bytes)):
        return []
    return [sympy.Lt(within, stick_dim)]


def stride_map_offset_map(size, device_size, dim_map, stride_map, span, *, name: str) -> IndexMap:
    """Host coordinate ↦ ``dot(device coordinate, stride_map)`` (``-1`` entries
    contribute nothing): the host offset the stride_map form computes.
    ``span`` is the codomain extent (the host tensor's span of offsets)."""
    domain = host_space(size)
    coords = to_device_exprs(domain.symbols, device_size, dim_map)
    flat = dot(coords, [0 if _is_none(s) else s for s in stride_map])
    return IndexMap(domain, Space(offset=span), [flat], name=name)


def _groups(dim_map) -> list[tuple[int, list[int]]]:
    """Each torch dim in ``dim_map`` with the device dims that index it, outermost first."""
    return [(d, [k for k, mapped in enumerate(dim_map) if mapped == d])
            for d in sorted(set(dim_map) - {SYNTHETIC})]


def _is_none(stride) -> bool:
    return isinstance(stride, int) and stride == -1


def _differ(a, b) -> bool:
    """False when ``a`` and ``b`` are shown equal (then a torch dim's coverage needs no
    bound in ``valid``). Symbolic sizes are compared by ``expand``, not ``simplify``: a
    pair it cannot show equal only keeps a bound that holds anyway (``h < extent`` with
    ``h`` below the coverage), and on every shipped spec the two agree (``simplify``
    took 0.38 s of the 0.6 s of building the symbolic Spyre maps of proofs/spyre.py)."""
    if not is_symbolic(a, b):
        return int(a) != int(b)
    return sympy.expand(sympy.sympify(a) - b) != 0


__all__ = [
    "SYNTHETIC", "coverage", "device_bytes", "device_offset_map", "device_space",
    "device_to_host_map", "host_to_device_map", "stride_map_offset_map", "tile_strides",
    "to_device_exprs", "to_host_exprs", "valid_expr",
]
