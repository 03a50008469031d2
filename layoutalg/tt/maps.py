"""Index maps of a ``TensorSpec``: pages → slots, elements → bytes, elements → pages.

Each carries an inverse and a ``valid`` predicate, so every core check
applies, decided by Z3 quantifier-free: they are built from the core's digit
arithmetic (``layoutalg.core.tiling``), which divides only by constants.
"""

from __future__ import annotations

from functools import partial

import sympy

from layoutalg.core import tiling
from layoutalg.core.bounds import holds_throughout
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import flatten
from layoutalg.errors import TTError
from layoutalg.tt.placement import Interleaved

# SymPy's floor and Mod left unevaluated (core.tiling's lazy=True): building
# the maps of specs/tt.py 0.74 s -> 0.37 s CPU, the same values for NumPy and Z3
digits, unflatten = partial(tiling.digits, lazy=True), partial(tiling.unflatten, lazy=True)
face_position = partial(tiling.face_position, lazy=True)


def label(spec) -> str:
    """``tt[3x40x50 bfloat16 TILE INTERLEAVED DRAM wormhole_b0]``."""
    memory = spec.memory if isinstance(spec.memory, str) else (
        f"{type(spec.memory).__name__}:{getattr(spec.memory, 'strategy', 'ND')}")
    shape = "x".join(map(str, spec.shape))
    return f"tt[{shape} {spec.dtype.name} {spec.layout} {memory} {spec.storage} {spec.device.name}]"


def element_space(spec) -> Space:
    return Space(*((f"d{k}", extent) for k, extent in enumerate(spec.shape)))


def page_coords_of_element(spec, d, kind):
    """Page coordinates (2D or N-d) of element ``d`` and its offset in the page.

    TILE coordinates are peeled digit by digit (face, tile, shard), each
    quotient built on the previous one: ``(dh // 16) // 2``, not ``dh // 32``
    beside ``(dh % 32) // 16``; the same values, but Z3 sees one chain of
    quotients and proves large layouts in seconds instead of timing out.
    """
    if spec.rank >= 2:
        lead, dh, dw = tuple(d[:-2]), d[-2], d[-1]
    else:
        lead, dh, dw = (), sympy.Integer(0), d[0]
    if spec.layout == "TILE":
        (fh, fw) = spec.tile.face_shape
        across = spec.tile.faces_per_row
        row, face_r, in_row = unflatten(dh, (None, spec.tile.faces_per_column, fh))
        col, face_c, in_col = unflatten(dw, (None, across, fw))
        inside = flatten((face_r, face_c, in_row, in_col), (None, across, fh, fw))
    else:
        row = dh
        col, inside = digits(dw, spec.page_shape[1])
    if kind == "nd":
        return lead + ((row, col) if spec.rank >= 2 else (col,)), inside
    return (flatten((*lead, row), (*spec.leading, _page_rows(spec))), col), inside


def element_of_page_coords(spec, coords, i, j, kind, *, bounded: bool = False):
    """Element coordinates from page coordinates and in-page ``(i, j)``,
    with the conditions that make it a real (non-padding) element.

    ``bounded``: the caller's ``valid`` already holds ``0 <= coords[0] <
    pages_2d[0]`` (2-D page grids), as every placement's does (``Interleaved``:
    page < pages_2d[0]·pages_2d[1]; ``Sharded2D``: row < pages_2d[0]), so
    ``element_map`` passes it: the page row is ``coords[0]`` itself, not
    reduced by one matrix's page rows, and the bound on the block or first
    leading index is not repeated. The same valid slots and inverse; Z3 works
    less (rlimit, 1024×1024 interleaved: 1750k → 942k). ``element_page_map``
    may widen the page count past the tensor's, so it keeps both."""
    ph, pw = spec.page_shape
    conditions = []
    if kind == "nd":
        lead = list(coords[:-2]) if spec.rank >= 2 else []
        dh = flatten((coords[-2], i), (None, ph)) if spec.rank >= 2 else i
    elif spec.leading:
        *lead, row = unflatten(coords[0], (*spec.leading, _page_rows(spec)))
        dh = flatten((row, i), (None, ph))
        if not bounded:
            conditions.append(_below(lead[0], spec.leading[0]))
    elif bounded:
        lead, dh = [], flatten((coords[0], i), (None, ph))
    else:
        (block, row), lead = unflatten(coords[0], (None, _page_rows(spec))), []
        dh = flatten((row, i), (None, ph))
        conditions.append(sympy.Eq(block, 0, evaluate=False))
    dw = flatten((coords[-1], j), (None, pw))
    conditions += [_below(dh, spec.height), _below(dw, spec.width)]
    element = lead + ([dh, dw] if spec.rank >= 2 else [dw])
    return element, conditions


def _below(value, bound) -> sympy.Basic:
    """``value < bound`` unevaluated: SymPy's evaluation asks the assumptions of
    every floor and Mod (tenths of a second per map) and left these relations
    as they were in every shipped spec; the same condition either way."""
    return sympy.Lt(value, bound, evaluate=False)


def in_page_bytes(spec, inside):
    """Byte offset of the element at element offset ``inside`` of its page."""
    return spec.tile.exponent_bytes(spec.dtype) * (spec.layout == "TILE") + (
        inside * _element_bytes(spec))


def split_address(spec, address):
    """Inverse of ``base + slot·A + in_page_bytes(inside)``: the slot, the
    element offset inside the page, and the conditions that make ``address``
    the first byte of a page element (not padding, not an alignment gap)."""
    size, step = _element_bytes(spec), spec.aligned_page_bytes
    relative = address - spec.base_address
    start = spec.tile.exponent_bytes(spec.dtype) if spec.layout == "TILE" else 0
    if start:
        slot, byte = digits(relative, step)
        inside, rest = digits(byte - start, size)
        conditions = [sympy.Ge(byte, start)]
    else:
        unit, rest = digits(relative, size)
        slot, inside = digits(unit, step // size)
        conditions = []
    ph, pw = spec.page_shape
    conditions += [sympy.Ge(relative, 0), sympy.Eq(rest, 0), sympy.Lt(inside, ph * pw)]
    return slot, inside, conditions


def in_page_position(spec, inside):
    """``(i, j)`` of the element at element offset ``inside`` of a page."""
    if spec.layout != "TILE":
        return sympy.Integer(0), inside
    return face_position(inside, spec.tile.face_shape, spec.tile.faces_per_row)


def _element_bytes(spec) -> int:
    size = spec.dtype.element_bytes
    if size is None:
        raise TTError(
            f"index_map: {spec.dtype.name} packs two elements per byte, so elements have no "
            "byte address of their own; use page_map() for where its pages live")
    return size


def _codomain(spec) -> Space:
    placement = spec.placement
    top = spec.base_address + placement.slots * spec.aligned_page_bytes
    return Space(*placement.location, ("address", top))


def _page_rows(spec) -> int:
    """Page rows of one leading index (one ``[height, width]`` matrix) in the 2-D page grid."""
    return spec.padded_height // spec.page_shape[0]


def _page_forward(spec, page):
    """The page grid the placement numbers pages over, and page ``page``'s location and slot."""
    placement = spec.placement
    sizes = spec.pages_2d if placement.kind == "2d" else spec.pages_nd
    if isinstance(placement, Interleaved):  # numbers pages straight from their id
        return sizes, *placement.forward_id(page)
    return sizes, *placement.forward(unflatten(page, sizes), spec.pages_2d)


def page_map(spec) -> IndexMap:
    """Page id → (location, address); valid slots are exactly the real pages."""
    domain, codomain = Space(page=spec.num_pages), _codomain(spec)
    sizes, location, slot = _page_forward(spec, domain.symbols[0])
    address = spec.base_address + slot * spec.aligned_page_bytes
    *where, a = codomain.symbols
    relative = a - spec.base_address
    slot_back, rest = digits(relative, spec.aligned_page_bytes)
    coords, valid = spec.placement.inverse(tuple(where), slot_back, spec.pages_2d)
    return IndexMap(domain, codomain, [*location, address], inverse=[flatten(coords, sizes)],
                    valid=sympy.And(valid, sympy.Ge(relative, 0), sympy.Eq(rest, 0)),
                    name=f"{label(spec)} pages")


def element_map(spec) -> IndexMap:
    """Element → (location, byte address), padding and alignment gaps invalid."""
    placement = spec.placement
    domain = element_space(spec)
    coords, inside = page_coords_of_element(spec, domain.symbols, placement.kind)
    location, slot = placement.forward(coords, spec.pages_2d)
    address = spec.base_address + slot * spec.aligned_page_bytes + in_page_bytes(spec, inside)
    codomain = _codomain(spec)
    *where, a = codomain.symbols
    slot_back, inside_back, byte_ok = split_address(spec, a)
    back, page_valid = placement.inverse(tuple(where), slot_back, spec.pages_2d)
    ii, jj = in_page_position(spec, inside_back)
    element, real = element_of_page_coords(spec, back, ii, jj, placement.kind, bounded=True)
    conditions = [*sympy.And.make_args(page_valid), *byte_ok, *real]
    return IndexMap(domain, codomain, [*location, address], inverse=element,
                    valid=sympy.And(*_unless_always(conditions, codomain)), name=label(spec))


def _unless_always(conditions, codomain: Space) -> list:
    """The ``conditions`` some slot of ``codomain`` may fail: one that interval
    bounds (``layoutalg.core.bounds``, each coordinate in ``[0, extent)``) show
    true on every slot is left out of ``valid``, the same slots (``valid`` speaks
    of the codomain's slots only; the checks and ``compose`` bound them): e.g.
    ``u mod 1024 < 1024`` with no alignment gap, ``dh < height`` with no tile
    padding. Left in, Z3 re-derives each (rlimit, 1024×1024: 942k → 604k)."""
    if not all(isinstance(e, int) for e in codomain.extents):
        return list(conditions)
    ranges = {s: (0, e - 1) for s, e in zip(codomain.symbols, codomain.extents)}
    return [c for c in conditions if not holds_throughout(c, ranges)]


def element_page_map(spec, *, pages: int | None = None) -> IndexMap:
    """Element → (page, element offset in the page); ``pages`` overrides the
    page count of the codomain (to test a claimed count)."""
    domain = element_space(spec)
    coords, within = page_coords_of_element(spec, domain.symbols, "2d")
    ph, pw = spec.page_shape
    codomain = Space(page=pages or spec.num_pages, offset=ph * pw)
    page, offset = codomain.symbols
    ii, jj = in_page_position(spec, offset)
    element, real = element_of_page_coords(spec, unflatten(page, spec.pages_2d), ii, jj, "2d")
    return IndexMap(domain, codomain, [flatten(coords, spec.pages_2d), within], inverse=element,
                    valid=sympy.And(*real), name=f"{label(spec)} element→page")


def page_of_element_map(spec, *, pages: int | None = None) -> IndexMap:
    """Element → page id alone. Its inverse sends a page to the page's first
    element (top-left of a tile, start of a row), which is a real element
    exactly when the page exists, so ``surjective`` proves every page below
    ``pages`` holds data and ``in_bounds`` that no element lies past it."""
    domain = element_space(spec)
    coords, _ = page_coords_of_element(spec, domain.symbols, "2d")
    codomain = Space(page=pages or spec.num_pages)
    (page,) = codomain.symbols
    pr, pc = unflatten(page, spec.pages_2d)
    ph, pw = spec.page_shape
    row, col = pr * ph, pc * pw
    first = [col] if spec.rank == 1 else [*unflatten(row, (*spec.leading, spec.padded_height)), col]
    return IndexMap(domain, codomain, [flatten(coords, spec.pages_2d)], inverse=first,
                    name=f"{label(spec)} element→page")


def page_slot_map(spec) -> IndexMap:
    """(page, offset) → (location, slot, offset): where the memory config puts
    each page (``bank = page mod banks``, ``slot = page // banks`` when
    interleaved), the element offset carried along. The second of
    :func:`element_steps`."""
    placement = spec.placement
    ph, pw = spec.page_shape
    domain = Space(page=spec.num_pages, offset=ph * pw)
    p, inside = domain.symbols
    sizes, location, slot = _page_forward(spec, p)
    codomain = Space(*placement.location, ("slot", placement.slots), ("offset", ph * pw))
    *where, slot_back, inside_back = codomain.symbols
    coords, valid = placement.inverse(tuple(where), slot_back, spec.pages_2d)
    return IndexMap(domain, codomain, [*location, slot, inside],
                    inverse=[flatten(coords, sizes), inside_back], valid=valid,
                    name=f"{label(spec)} page→slot")


def slot_address_map(spec) -> IndexMap:
    """(location, slot, offset) → (location, byte address): ``address = base +
    slot·aligned page bytes + the element's bytes into its page``. The last of
    :func:`element_steps`; its valid slots are the first bytes of page elements."""
    placement = spec.placement
    ph, pw = spec.page_shape
    domain = Space(*placement.location, ("slot", placement.slots), ("offset", ph * pw))
    *where, slot, inside = domain.symbols
    address = spec.base_address + slot * spec.aligned_page_bytes + in_page_bytes(spec, inside)
    codomain = _codomain(spec)
    *where_back, a = codomain.symbols
    slot_back, inside_back, byte_ok = split_address(spec, a)
    return IndexMap(domain, codomain, [*where, address],
                    inverse=[*where_back, slot_back, inside_back], valid=sympy.And(*byte_ok),
                    name=f"{label(spec)} slot→address")


def element_steps(spec) -> tuple[IndexMap, IndexMap, IndexMap]:
    """``element_map`` as three steps: element → (page, offset) → (location, slot,
    offset) → (location, address); composed in order they are ``element_map(spec)``
    (``tests/tt/test_tt_steps.py`` proves it)."""
    _element_bytes(spec)  # as element_map: no byte addresses for packed dtypes
    return element_page_map(spec), page_slot_map(spec), slot_address_map(spec)


__all__ = ["element_map", "element_page_map", "element_steps", "label", "page_map",
           "page_of_element_map", "page_slot_map", "slot_address_map"]
