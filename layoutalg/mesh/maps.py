"""Index maps of mesh layouts, built from the core combinators.

A separable layout is ``split`` (ceil-division tiles) or ``cyclic`` per view
dimension, ``permute`` to ``(pe_row, pe_col, row, col)``, ``linearize`` into
the PE-local offset and ``scale`` to bytes. Every PE reserves the same slot
block, as a fixed-size CSL array does; a smaller tile's extra slots are padding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy

from layoutalg.core.evaluate import as_int64
from layoutalg.core.expr import same_for_every_size
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import MeshError
from layoutalg.mesh.axes import Axis
from layoutalg.mesh.shapes import domain_names
from layoutalg.verify.combinators import (compose, cyclic, linearize, pad, permute, rename,
                                          scale, split)

VIEW_NAMES = ("i", "j")
PE_NAMES = ("pe_row", "pe_col")
COPY_NAMES = ("copy_row", "copy_col")
ENUMERATION_LIMIT = 1 << 22


def separable_map(view: tuple[int, int], axes: Sequence[Axis], element_size: int,
                  name: str, *, tile_coordinates: bool = False) -> IndexMap:
    """Element ``(i, j)`` of the view → ``(pe_row, pe_col, byte offset)``; extents may be
    symbols (``proofs/mesh.py``); ``tile_coordinates`` stops at ``(pe_row, pe_col, row, col)``."""
    placed: Space | IndexMap = Space(i=view[0], j=view[1])
    for dim, local, axis in zip(VIEW_NAMES, ("row", "col"), axes):
        pe = PE_NAMES[axis.pe_axis]
        if axis.cyclic:
            placed = cyclic(placed, dim, axis.parts, block=axis.block, names=(pe, local))
        else:
            placed = split(placed, dim, axis.block, names=(pe, local))
            if not same_for_every_size(axis.parts, axis.blocks):  # trailing PEs get empty tiles
                placed = pad(placed, pe, to=axis.parts)
    placed = permute(placed, [*PE_NAMES, "row", "col"])
    if tile_coordinates:
        return placed.renamed(name)
    placed = linearize(placed, ["row", "col"], name="offset")
    return scale(placed, "offset", element_size).renamed(name)


def replicated_map(view: tuple[int, int], copies: tuple[int, int], element_size: int,
                   name: str) -> IndexMap:
    """Copy ``(copy_row, copy_col)`` of element ``(i, j)`` → that PE, row-major offset."""
    domain = Space(*zip(COPY_NAMES, copies), *zip(VIEW_NAMES, view))
    placed = linearize(domain, list(VIEW_NAMES), name="offset")
    placed = rename(placed, **dict(zip(COPY_NAMES, PE_NAMES)))
    return scale(placed, "offset", element_size).renamed(name)


def custom_map(mapping: IndexMap, element_size: int, name: str) -> IndexMap:
    """A user map ``element → (pe_row, pe_col, element offset)``, codomain renamed, in bytes."""
    rows, cols, slots = mapping.codomain.extents
    codomain = Space(pe_row=rows, pe_col=cols, offset=slots)
    rename = dict(zip(mapping.codomain.symbols, codomain.symbols))
    inverse = None if mapping.inverse is None else [e.xreplace(rename) for e in mapping.inverse]
    valid = None if mapping.valid is None else mapping.valid.xreplace(rename)
    standard = IndexMap(mapping.domain, codomain, mapping.exprs, inverse=inverse, valid=valid,
                        name=name, assumptions=mapping.assumptions)
    return scale(standard, "offset", element_size).renamed(name)


def on_tensor(view_map: IndexMap, shape: tuple[int, ...], leading: int = 0) -> IndexMap:
    """The view map from the tensor's own coordinates (rank ≠ 2); ``leading`` dims of
    its domain (replica coordinates) pass through."""
    if len(shape) == 2:
        return view_map
    lead = list(view_map.domain.dims[:leading])
    if len(shape) == 1:
        domain = Space(*lead, i=shape[0])
        codomain = Space(*lead, i=shape[0], j=1)
        syms, cod = domain.symbols, codomain.symbols
        embed = IndexMap(domain, codomain, [*syms, sympy.Integer(0)], inverse=list(cod[:-1]),
                         name="column")
    else:
        names = domain_names(len(shape))
        domain = Space(*lead, *zip(names, shape))
        embed = linearize(domain, list(names[1:]), name="j")
    return compose(embed, view_map, name=view_map.name)


def enumerate_images(mapping: IndexMap) -> tuple[np.ndarray, ...]:
    size = math.prod(mapping.domain.extents)
    if size > ENUMERATION_LIMIT:
        raise MeshError(f"custom layout {mapping.label} has {size} elements; at most "
                        f"{ENUMERATION_LIMIT} can be enumerated")
    points = np.indices(mapping.domain.extents, dtype=np.int64).reshape(mapping.domain.rank, -1)
    return tuple(as_int64(np.broadcast_to(v, points.shape[1:]), f"images of {mapping.label}")
                 for v in mapping.apply(*points))
