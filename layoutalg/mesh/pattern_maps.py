"""A communication pattern as index maps, and the proof that it delivers exactly once.

A pattern is three maps over the elements (with their replica coordinate
when the destination is replicated): ``messages`` μ: element → (message,
position in it), a message being a strided block between one source PE and
one destination PE; ``reads`` ρ: element → the source slot (PE, byte offset)
its message reads; ``writes`` δ: element → the destination slot it writes.

``prove_exactly_once`` asks Z3 for four facts: μ is a bijection onto the
message positions sent; ρ is the source layout; δ is the destination layout;
the destination layout is a bijection onto its valid slots. Together: every
destination slot receives exactly one element, its own.

For separable layouts an element's message along one view dimension is the
pair (source block, destination block) it lies in: closed forms keep every
query small (no table of messages reaches Z3).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import deal_local, deal_part, digits, flatten
from layoutalg.mesh.axes import Axis
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.shapes import view
from layoutalg.verify.checks import (
    check_bijective,
    check_equivalent,
    check_images_valid,
    check_in_bounds,
    check_injective,
    check_surjective,
)
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS, all_of
from layoutalg.verify.result import CheckResult, Status


@dataclass(frozen=True)
class PatternModel:
    """The maps of a pattern and the layouts' maps they must agree with: ``source``
    places μ's domain as the source layout does (a replicated source: the copy ρ
    reads); ``destination`` is the destination layout's map, over μ's domain."""

    label: str
    messages: IndexMap
    reads: IndexMap
    writes: IndexMap
    source: IndexMap
    destination: IndexMap

    def index_map(self) -> IndexMap:
        """The writes map: element → destination slot as delivered."""
        return self.writes

    def prove(self, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
        return prove_exactly_once(self, assume=assume, timeout_ms=timeout_ms)


#: The check each obligation names (an explicit table, not a lookup by name).
OBLIGATION_CHECKS = {
    "in_bounds": check_in_bounds, "injective": check_injective, "images_valid": check_images_valid,
    "surjective": check_surjective, "equivalent": check_equivalent, "bijective": check_bijective,
}


def obligations(model: PatternModel) -> list[tuple[str, str, tuple[IndexMap, ...]]]:
    """What exactly-once delivery needs, in order: (what fails if refuted, check, maps)."""
    m = model.messages
    return [
        ("an element belongs to no message (it is lost)", "in_bounds", (m,)),
        ("two elements share one message position", "injective", (m,)),
        ("an element lies past the bytes its message sends (it is lost)", "images_valid", (m,)),
        ("a message position carries no element (padding or garbage is sent)", "surjective", (m,)),
        ("a message reads outside the source PEs", "in_bounds", (model.reads,)),
        ("a message reads a slot not holding its element", "equivalent",
         (model.reads, model.source)),
        ("an element is written where the destination layout does not put it", "equivalent",
         (model.writes, model.destination)),
        ("the destination layout is not a bijection onto its slots", "bijective",
         (model.destination,)),
    ]


def prove_exactly_once(model: PatternModel, *, assume=(),
                       timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Z3: every element reaches its destination slot exactly once; REFUTED says
    which obligation fails (``obligations``), with its counterexample."""
    start = time.perf_counter()
    for part, check, maps in obligations(model):
        verdict = OBLIGATION_CHECKS[check](*maps, assume=assume, timeout_ms=timeout_ms)
        if not verdict.proved:
            return CheckResult(verdict.status, "exactly_once", model.label,
                               verdict.counterexample, f"{part}: {verdict.reason}",
                               time.perf_counter() - start)
    return CheckResult(
        Status.PROVED, "exactly_once", model.label, None,
        "every element reaches its destination slot exactly once: the messages partition "
        "the elements, each reads the source slot of its element and writes the slot the "
        "destination layout gives it, a bijection onto the destination's valid slots",
        time.perf_counter() - start)


@dataclass(frozen=True)
class DimMessages:
    """Message coordinates of one view dimension: source block, destination block,
    position (offset inside the source block)."""

    source_block: sympy.Symbol
    target_block: sympy.Symbol
    position: sympy.Symbol
    source: Axis
    target: Axis

    def index(self):
        """The view index a message position carries."""
        return self.source.block * self.source_block + self.position

    def valid(self):
        """The overlap is sent: the position lies in both blocks and in the tensor."""
        x, t = self.index(), self.target
        return all_of(sympy.Le(t.block * self.target_block, x, evaluate=False),
                      sympy.Lt(x, t.block * (self.target_block + 1), evaluate=False),
                      sympy.Lt(x, t.extent, evaluate=False))

    def _side(self, side: str):
        """(axis, block index, position inside the block) on one side."""
        if side == "source":
            return self.source, self.source_block, self.position
        t = self.target
        return t, self.target_block, self.index() - t.block * self.target_block

    def part(self, side: str):
        axis, block, _ = self._side(side)
        return block if one_round(axis) else deal_part(block, axis.parts)

    def local(self, side: str):
        """Blocks dealt over the parts (``core.tiling.deal``), then the position inside
        the block; in one round, the position alone."""
        axis, block, position = self._side(side)
        if one_round(axis):
            return position
        return flatten((deal_local(block, axis.parts), position), (None, axis.block))


def one_round(axis: Axis) -> bool:
    """A ``split`` axis (not ``cyclic``): ``separable_map`` puts block ``b`` on part
    ``b``, so the deal's part is ``b``, its round 0, and a part reserves one block.
    Written so, a symbolic pattern has no ``Mod`` by the PE count nor nested ceiling
    for Z3 (``proofs/mesh.py``: the reshard claim in half the time). Nothing is
    assumed: the obligations still prove the reads and writes are the layouts'
    slots, and a block past the parts would fail them."""
    return not axis.cyclic


def reserved(axis: Axis):
    """Local indices each part reserves along ``axis`` (the layout's tile extent)."""
    return axis.block if one_round(axis) else axis.local_extent


def block_digits(x, axis: Axis):
    """``(x // block, x % block)``; ``(0, x)`` when one block spans the axis
    (``0 <= x < extent = block``), so no division by a size is left to Z3."""
    if sympy.sympify(axis.block) == sympy.sympify(axis.extent):
        return sympy.Integer(0), x
    return digits(x, axis.block)


@dataclass(frozen=True)
class SeparablePattern:
    """The pattern between two separable layouts, over message coordinates."""

    model: PatternModel
    dims: tuple[DimMessages, DimMessages]
    copies: tuple[sympy.Symbol, ...]
    read_slot: tuple[sympy.Expr, ...]    # (pe_row, pe_col, byte offset) over message symbols
    write_slot: tuple[sympy.Expr, ...]


def _slot(dims, side: str, element_size: int, pe=None) -> tuple[sympy.Expr, ...]:
    """``(pe_row, pe_col, byte offset)`` of a message position on one side."""
    axes = [d.source if side == "source" else d.target for d in dims]
    where = [0, 0]
    for axis, dim in zip(axes, dims):
        where[axis.pe_axis] = dim.part(side)
    if pe is not None:
        where = list(pe)
    offset = (dims[0].local(side) * reserved(axes[1]) + dims[1].local(side)) * element_size
    return tuple(sympy.sympify(e) for e in (*where, offset))


def pattern_from_axes(src_axes, dst_axes, src_map: IndexMap, dst_map: IndexMap,
                      element_size: int, label: str, *, source_copies=None,
                      target_replicated: bool = False) -> SeparablePattern:
    """Messages = overlaps of source and destination blocks, per view dimension.

    ``src_map``/``dst_map`` map the 2-D view; extents may be symbols
    (``proofs/mesh.py``). ``source_copies`` is a replicated source's ``(rows,
    cols)``; a replicated target's copies lead ``dst_map``'s domain.
    """
    domain = dst_map.domain
    lead = domain.rank - 2
    i, j = domain.symbols[lead:]
    blocks = [(f"{tag}_{side}_block", axis.blocks)
              for tag, *pair in zip(("row", "col"), src_axes, dst_axes)
              for side, axis in zip(("src", "dst"), pair)]
    codomain = Space(*zip(domain.names[:lead], domain.extents[:lead]), *blocks,
                     ("row_pos", src_axes[0].block), ("col_pos", src_axes[1].block))
    sym = codomain.symbols
    copies = sym[:lead]
    dims = (DimMessages(sym[lead], sym[lead + 1], sym[lead + 4], src_axes[0], dst_axes[0]),
            DimMessages(sym[lead + 2], sym[lead + 3], sym[lead + 5], src_axes[1], dst_axes[1]))
    forward = dict(zip(copies, domain.symbols[:lead]))
    for dim, x in zip(dims, (i, j)):
        forward[dim.source_block], forward[dim.position] = block_digits(x, dim.source)
        forward[dim.target_block] = block_digits(x, dim.target)[0]
    messages = IndexMap(domain, codomain, [forward[s] for s in sym],
                        inverse=[*copies, dims[0].index(), dims[1].index()],
                        valid=all_of(dims[0].valid(), dims[1].valid()), name=f"messages of {label}")
    write_slot = _slot(dims, "target", element_size, pe=copies if target_replicated else None)
    read_pe = None
    if source_copies is not None:  # read the nearest copy: the one on the writer's PE if any
        read_pe = (sympy.Min(write_slot[0], source_copies[0] - 1),
                   sympy.Min(write_slot[1], source_copies[1] - 1))
    read_slot = _slot(dims, "source", element_size, pe=read_pe)
    reads = IndexMap(domain, src_map.codomain, [e.xreplace(forward) for e in read_slot],
                     name=f"reads of {label}")
    writes = IndexMap(domain, dst_map.codomain, [e.xreplace(forward) for e in write_slot],
                      name=f"writes of {label}")
    model = PatternModel(label, messages, reads, writes,
                         expected_source(src_map, reads, source_copies is not None, domain),
                         dst_map)
    return SeparablePattern(model, dims, copies, read_slot, write_slot)


def separable_pattern(source: MeshLayout, target: MeshLayout, shape, element_size: int,
                      label: str) -> SeparablePattern:
    """The pattern between two separable layouts of a tensor (through its view)."""
    v = view(shape)
    copies = (source.pe_rows, source.pe_cols) if source.is_replicated else None
    return pattern_from_axes(source.axes(shape), target.axes(shape),
                             source.index_map(v, element_size=element_size),
                             target.index_map(v, element_size=element_size), element_size,
                             label, source_copies=copies, target_replicated=target.is_replicated)


def expected_source(src_map: IndexMap, reads: IndexMap, replicated: bool, domain) -> IndexMap:
    """The source layout's slot of each element, of the copy ``reads`` picks."""
    rank = src_map.domain.rank - (2 if replicated else 0)
    subs = dict(zip(src_map.domain.symbols[-rank:], domain.symbols[-rank:]))
    if replicated:
        subs.update(zip(src_map.domain.symbols[:2], reads.exprs[:2]))
    return IndexMap(domain, src_map.codomain, [e.xreplace(subs) for e in src_map.exprs],
                    name=f"{src_map.label} holds")


def generic_pattern(source: MeshLayout, target: MeshLayout, shape, element_size: int,
                    label: str) -> PatternModel:
    """Any layouts (custom ones): one message per (source PE, destination PE), its
    positions the source offsets. Needs the source map's inverse."""
    src_map = source.index_map(shape, element_size=element_size)
    dst_map = target.index_map(shape, element_size=element_size)
    domain = dst_map.domain
    rank = len(shape)
    to_pe = list(dst_map.exprs[:2])
    tensor_subs = dict(zip(src_map.domain.symbols[-rank:], domain.symbols[-rank:]))
    if source.is_replicated:
        from_pe = [sympy.Min(to_pe[0], source.pe_rows - 1), sympy.Min(to_pe[1], source.pe_cols - 1)]
        tensor_subs.update(zip(src_map.domain.symbols[:2], from_pe))
    else:
        from_pe = [e.xreplace(tensor_subs) for e in src_map.exprs[:2]]
    from_offset = src_map.exprs[2].xreplace(tensor_subs)
    codomain = Space(src_row=source.pe_rows, src_col=source.pe_cols, dst_row=target.pe_rows,
                     dst_col=target.pe_cols,
                     position=digits(src_map.codomain.extents[2], element_size)[0])
    sr, sc, dr, dc, pos = codomain.symbols
    slot = dict(zip(src_map.codomain.symbols, (sr, sc, pos * element_size)))
    element = [e.xreplace(slot) for e in src_map.inverse][-rank:]
    inverse = ([dr, dc] if target.is_replicated else []) + element
    conditions = [] if src_map.valid is None else [src_map.valid.xreplace(slot)]
    if source.is_replicated:
        conditions += [sympy.Eq(sr, sympy.Min(dr, source.pe_rows - 1)),
                       sympy.Eq(sc, sympy.Min(dc, source.pe_cols - 1))]
    if not target.is_replicated:
        lands = dict(zip(domain.symbols, element))
        conditions += [sympy.Eq(to_pe[0].xreplace(lands), dr),
                       sympy.Eq(to_pe[1].xreplace(lands), dc)]
    position = digits(from_offset, element_size)[0]
    messages = IndexMap(domain, codomain, [*from_pe, *to_pe, position],
                        inverse=inverse, valid=sympy.And(*conditions), name=f"messages of {label}")
    reads = IndexMap(domain, src_map.codomain, [*from_pe, from_offset], name=f"reads of {label}")
    writes = IndexMap(domain, dst_map.codomain, dst_map.exprs, name=f"writes of {label}")
    return PatternModel(label, messages, reads, writes,
                        expected_source(src_map, reads, source.is_replicated, domain), dst_map)
