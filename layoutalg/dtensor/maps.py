"""The index map of a DTensor layout, built from the core combinators.

Element ``(copies…, d0, d1, …)`` → ``(m0, m1, …, l0, l1, …)``: the mesh
coordinate of the rank holding it and its index in that rank's local tensor,
a replicated (or partial) mesh dim's copy carried in the domain as the ``m<k>``
it lands on. ``docs/dtensor.md`` ("The index map") gives the steps: ``split``
by ``⌈n/k⌉`` and ``pad`` to ``k``; ``delinearize`` for several mesh dims whose
nested pieces are one flat chunk; else a ``chunks`` step over the concrete
piece boundaries (``_pieces``: 2/1/1/1 for 5 rows on a 2×2 mesh).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import sympy

from layoutalg.core.expr import same_for_every_size
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.dtensor.chunks import ceil_div, nested_lengths
from layoutalg.dtensor.placements import Shard
from layoutalg.errors import DTensorError
from layoutalg.verify.combinators import delinearize, linearize, pad, permute, split


def names(prefix: str, count: int) -> list[str]:
    """Coordinate names ``prefix0, prefix1, …``: mesh ``m``, local ``l``, tensor ``d``."""
    return [f"{prefix}{k}" for k in range(count)]


def sharding(placements: Sequence, dim: int) -> list[int]:
    """The mesh dims that shard tensor dim ``dim``, in mesh order."""
    return [k for k, p in enumerate(placements) if isinstance(p, Shard) and p.dim == dim]


def is_flat(size, parts: Sequence) -> bool:
    """Are the nested pieces of ``size`` over ``parts`` one flat chunk by their product?"""
    total = math.prod(parts)
    if len(parts) == 1:
        return True
    if isinstance(size, int) and all(isinstance(k, int) for k in parts):
        return nested_lengths(size, parts) == nested_lengths(size, [total])
    return sympy.simplify(sympy.Mod(size, total)) == 0


def placement_map(mesh_shape: Sequence, placements: Sequence, shape: Sequence,
                  name: str) -> IndexMap:
    """Element (with its copy coordinates) → (mesh coordinate, local index)."""
    copies = [(f"m{k}", e) for k, (e, p) in enumerate(zip(mesh_shape, placements))
              if not isinstance(p, Shard)]
    space = Space(*copies, *zip(names("d", len(shape)), shape))
    uneven = {}
    for i, size in enumerate(shape):
        parts = [mesh_shape[k] for k in sharding(placements, i)]
        if not is_flat(size, parts):
            if not isinstance(size, int) or not all(isinstance(k, int) for k in parts):
                raise DTensorError(
                    f"placements: tensor dim {i} is sharded by mesh dims "
                    f"{sharding(placements, i)} whose nested pieces depend on the sizes; "
                    f"give concrete sizes (or a size the product {math.prod(parts)} divides); "
                    f"got size {size} over {parts}")
            uneven[i] = parts
    placed: Space | IndexMap = _pieces(space, uneven) if uneven else space
    for i, size in enumerate(shape):
        shards = sharding(placements, i)
        parts = {f"m{k}": mesh_shape[k] for k in shards}
        d, local = f"d{i}", f"l{i}"
        if i in uneven:
            placed = delinearize(placed, f"g{i}", **parts)
            continue
        if not shards:
            placed = linearize(placed, [d], name=local)  # a rename: d_i is l_i
            continue
        total = math.prod(parts.values())
        rank = f"m{shards[0]}" if len(shards) == 1 else f"g{i}"
        placed = split(placed, d, ceil_div(size, total), names=(rank, local))
        if not same_for_every_size(ceil_div(size, ceil_div(size, total)), total):
            placed = pad(placed, rank, to=total)  # torch.chunk: trailing ranks empty
        if len(shards) > 1:
            placed = delinearize(placed, rank, **parts)
    order = names("m", len(mesh_shape)) + names("l", len(shape))
    return permute(placed, order).renamed(name)


def _pieces(space: Space, uneven: dict[int, list[int]]) -> IndexMap:
    """Each uneven tensor dim ``d<i>`` → (flat rank ``g<i>``, local row ``l<i>``)
    over its concrete pieces (ranks row-major); other dims pass. The flat rank
    counts the constant boundaries passed, each ``[x ≥ e]`` written
    ``(x + n - e) // n`` for ``0 ≤ x < n``: a floor by a constant, which Z3
    decides (a ``Piecewise`` would cost SymPy seconds per substitution).
    """
    extents = dict(space.dims)
    pieces = {f"d{i}": nested_lengths(extents[f"d{i}"], parts) for i, parts in uneven.items()}
    dims = []
    for name, extent in space.dims:
        i, lengths = name[1:], pieces.get(name)
        dims += [(name, extent)] if lengths is None else [(f"g{i}", len(lengths)),
                                                          (f"l{i}", max(lengths))]
    codomain = Space(*dims)
    sym = dict(zip(codomain.names, codomain.symbols))
    exprs, inverse, valid = [], [], []
    for (name, extent), x in zip(space.dims, space.symbols):
        if name not in pieces:
            exprs.append(x)
            inverse.append(sym[name])
            continue
        lengths, g, row = pieces[name], sym[f"g{name[1:]}"], sym[f"l{name[1:]}"]
        start = _running(g, lengths, shift=1)
        exprs += by_pieces(x, lengths, extent)
        inverse.append(row + start)
        valid.append(sympy.Lt(row + start, _running(g, lengths, shift=0)))
    shown = ", ".join(f"{name}: {'/'.join(map(str, n))}" for name, n in pieces.items())
    return IndexMap(space, codomain, exprs, inverse=inverse, valid=sympy.And(*valid),
                    name=f"chunks({shown})")


def by_pieces(row, lengths: list[int], size: int) -> tuple:
    """Flat rank and local row of ``row`` (``0 ≤ row < size``) among pieces of these
    lengths: the rank counts the piece ends ``row`` has passed, the piece starts
    at the sum of those pieces' lengths. Both use the same ``[row ≥ end]`` terms
    (the ends ascend), not the start as a function of the rank, which would nest
    a count of counts in every floor (the delivered maps of pytorch#194457)."""
    ends = list(itertools.accumulate(lengths))[:-1]
    passed = [_at_least(row, e, size) for e in ends]
    rank = sum(passed, sympy.Integer(0))
    start = sum((n * p for n, p in zip(lengths, passed) if n), sympy.Integer(0))
    return rank, row - start


def _at_least(x, bound: int, extent: int) -> sympy.Expr:
    """``1`` if ``x ≥ bound`` else ``0``, for ``0 ≤ x < extent`` and ``0 ≤ bound ≤ extent``."""
    return (x + extent - bound) // extent


def _running(g, lengths: list[int], *, shift: int) -> sympy.Expr:
    """Rows before piece ``g`` (``shift=1``) or to its end (0): Σ lengths[j]·[g ≥ j + shift]."""
    count = len(lengths)
    terms = [n * _at_least(g, j + shift, count) for j, n in enumerate(lengths[:count - shift]) if n]
    return sum(terms, sympy.Integer(0))
