"""The Spyre mapping as SymPy expressions, for concrete or symbolic sizes.

A device coordinate ``c`` (one entry per device dim) holds the host element
whose coordinate along torch dim ``d`` is

    h_d = Σ_{k : dim_map[k] = d} c_k · s_k,   s_k = Π_{j > k, dim_map[j] = d} device_size[j]

— the device dims of one torch dim combine with strides growing right to
left, like the row-major strides of the whole device layout. A slot is
padding when some ``h_d ≥ size[d]`` or the synthetic dim (``-1``) has a
coordinate other than 0. Read backwards, ``c_k = (h_d // s_k) mod
device_size[k]``, without the ``mod`` for the outermost device dim of
``d`` — so a host element that the device dims cannot hold lands out of
bounds (and a check names it) instead of wrapping onto another element.
Both directions are the core's row-major (un)flattening
(``layoutalg.core.tiling``) of ``h_d`` over the device dims of ``d``.

These builders take the parts of a layout unvalidated: ``SpyreLayout``
validates, the proofs pass symbolic sizes, and the known-bad specs pass
broken parts on purpose.
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
    for d in sorted(set(dim_map) - {SYNTHETIC}):
        ks = _device_dims(dim_map, d)
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
    for d in sorted(set(dim_map) - {SYNTHETIC}):
        ks = _device_dims(dim_map, d)
        for k, c in zip(ks, unflatten(host_symbols[d], [device_size[k] for k in ks])):
            exprs[k] = c
    return exprs


def to_host_exprs(device_symbols, rank, device_size, dim_map) -> list:
    """``h_d`` as expressions of the device coordinates (0 for a torch dim that
    no device dim holds: it has size 1)."""
    host = [sympy.Integer(0)] * rank
    for d in sorted(set(dim_map) - {SYNTHETIC}):
        ks = _device_dims(dim_map, d)
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
    """Device coordinate ↦ host coordinate over the whole device grid.

    Padding slots map past the torch size, so the codomain extents are the
    coverages; this direction exists to compare formulas (the seed's
    ``(a, b, c, d) ↦ (c, a, 64·b + d)``), not to be bijective.
    """
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
    """Host coordinate ↦ byte offset in device memory.

    Sticks are 128 bytes apart whatever ``device_size[-1]`` says (that is
    the hardware), and inside a stick element ``c_last`` sits at
    ``element_bytes · c_last``: a stick dim longer than one stick makes two
    host elements share bytes, and the injectivity check names them.
    """
    domain = host_space(size)
    coords = to_device_exprs(domain.symbols, device_size, dim_map)
    outer = device_size[:-1]
    stick = flatten(coords[:-1], outer)
    exprs = [dot((stick, coords[-1]), (STICK_BYTES, element_bytes))]
    codomain = Space(byte=device_bytes(device_size))
    (b,) = codomain.symbols
    stick_index, in_stick = digits(b, STICK_BYTES)
    within = digits(in_stick, element_bytes)[0]
    unflat = unflatten(stick_index, outer) + [within]
    inverse = to_host_exprs(unflat, len(size), device_size, dim_map)
    device = device_space(device_size)
    slot_valid = valid_expr(device.symbols, size, device_size, dim_map)
    valid = sympy.And(sympy.Eq(digits(b, element_bytes)[1], 0),
                      *_within_stick_dim(within, device_size[-1], element_bytes),
                      slot_valid.xreplace(dict(zip(device.symbols, unflat))))
    return IndexMap(domain, codomain, exprs, inverse=inverse, valid=valid, name=name)


def _within_stick_dim(within, stick_dim, element_bytes) -> list:
    """``[within < stick_dim]``, the condition that an element's place in its stick lies
    inside the stick dim; ``[]`` when every byte of a stick meets it (``within`` is below
    ``STICK_BYTES / element_bytes``, so a stick dim of at least that many elements holds
    every place). The same set of valid bytes either way; left out, Z3 no longer re-derives
    the bound (the seed layout's device bytes: 0.50 s → 0.13 s for the inverse query, CPU)."""
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
    used = [(c, s) for c, s in zip(coords, stride_map) if not _is_none(s)]
    flat = dot([c for c, _ in used], [s for _, s in used])
    return IndexMap(domain, Space(offset=span), [flat], name=name)


def _device_dims(dim_map, d) -> list[int]:
    """The device dims that index torch dim ``d``, outermost first."""
    return [k for k, mapped in enumerate(dim_map) if mapped == d]


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
