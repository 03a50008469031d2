"""Brute-force twins of the mesh checks, and a simulation of transform blocks.

``check_exactly_once``, ``check_compatible``, ``check_memory_safe``,
``check_fits_pe`` and ``check_on_wafer`` answer the Z3 checks' questions by
enumerating small concrete cases (same verdicts, method "enumeration"). ``simulate`` is independent of both: it runs the emitted
blocks of a transform on NumPy PE memories, the way the wafer would, and
checks every destination slot receives exactly its own element once.
"""

from __future__ import annotations

import time

import numpy as np

from layoutalg.core.evaluate import as_int64
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.pattern_maps import PatternModel, obligations
from layoutalg.mesh.shapes import check_shape
from layoutalg.verify import brute
from layoutalg.verify.result import CheckResult, Status, point_text


def _result(status, check, subject, start, counterexample=None, reason="enumerated"):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def check_exactly_once(model: PatternModel) -> CheckResult:
    """The enumeration twin of ``prove_exactly_once``: same parts, same order."""
    start = time.perf_counter()
    for part, check, maps in obligations(model):
        verdict = getattr(brute, f"check_{check}")(*maps)
        if verdict.refuted:
            return _result(Status.REFUTED, "exactly_once", model.label, start,
                           verdict.counterexample, f"{part}: {verdict.reason}")
    return _result(Status.PROVED, "exactly_once", model.label, start)


def check_compatible(a: MeshLayout, b: MeshLayout, shape) -> CheckResult:
    """Enumeration twin of ``compatible_with``: the PE sets of every element agree."""
    start = time.perf_counter()
    shape = check_shape(shape)
    subject = f"{a} ~ {b} on {list(shape)}"
    pes = (max(a.pe_rows, b.pe_rows), max(a.pe_cols, b.pe_cols))
    differ = np.flatnonzero(np.any(_holders(a, shape, pes) != _holders(b, shape, pes), axis=1))
    if differ.size == 0:
        return _result(Status.PROVED, "compatible", subject, start)
    index = np.unravel_index(differ[0], shape)
    names = a.index_map(shape, element_size=1).domain.names[-len(shape):]
    return _result(Status.REFUTED, "compatible", subject, start,
                   {n: int(v) for n, v in zip(names, index)},
                   f"element {point_text(names, index)} lives on different PEs")


def _holders(layout: MeshLayout, shape, pes: tuple[int, int]) -> np.ndarray:
    """``[element, pe]`` booleans: which PEs hold each element (row-major ids)."""
    m = layout.index_map(shape, element_size=1)
    xs, ys = brute.image_table(m)
    ys = as_int64(ys, f"images of {m.label}")  # they index the PE table
    element = np.ravel_multi_index(tuple(xs[:, -len(shape):].T), shape)
    table = np.zeros((int(np.prod(shape)), pes[0] * pes[1]), dtype=bool)
    table[element, ys[:, 0] * pes[1] + ys[:, 1]] = True
    return table


def memory(layout: MeshLayout, shape, element_size: int) -> np.ndarray:
    """PE memories as ``[pe_row, pe_col, slot]`` element ids (row-major), −1 for padding."""
    m = layout.index_map(shape, element_size=element_size)
    xs, ys = brute.image_table(m)
    ys = as_int64(ys, f"images of {m.label}")  # they index the PE memories
    mem = np.full((layout.pe_rows, layout.pe_cols, m.codomain.extents[2] // element_size), -1,
                  dtype=np.int64)
    mem[ys[:, 0], ys[:, 1], ys[:, 2] // element_size] = np.ravel_multi_index(
        tuple(xs[:, -len(shape):].T), shape)
    return mem


def simulate(transform) -> CheckResult:
    """Run the transform's blocks on PE memories: every destination slot must receive
    its own element exactly once, and no block may read or write a non-slot."""
    start = time.perf_counter()
    t, b = transform, transform.blocks
    size = b.element_size
    source = memory(t.source, t.shape, size)
    expected = memory(t.target, t.shape, size)
    counts = (b.rows * b.cols).astype(np.int64)
    block = np.repeat(np.arange(len(b)), counts)
    k = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    r, c = k // b.cols[block], k % b.cols[block]
    src = b.src_offset[block] + r * b.src_stride[block] + c * size
    dst = b.dst_offset[block] + r * b.dst_stride[block] + c * size
    label = str(t)

    def refute(reason, where):
        return _result(Status.REFUTED, "exactly_once", label, start, where, reason)

    for side, mem, rows, cols, addr in (("reads", source, b.src_row, b.src_col, src),
                                        ("writes", expected, b.dst_row, b.dst_col, dst)):
        bad = ((rows[block] < 0) | (rows[block] >= mem.shape[0]) | (cols[block] < 0)
               | (cols[block] >= mem.shape[1]) | (addr < 0) | (addr >= mem.shape[2] * size)
               | (addr % size != 0))
        if bad.any():
            e = int(np.flatnonzero(bad)[0])
            return refute(f"block {int(block[e])} {side} outside the PE slots (byte {int(addr[e])})",
                          {"block": int(block[e]), "byte": int(addr[e])})
    moved = source[b.src_row[block], b.src_col[block], src // size]
    if (moved < 0).any():
        e = int(np.flatnonzero(moved < 0)[0])
        return refute(f"block {int(block[e])} reads padding: PE ({int(b.src_row[block[e]])}, "
                      f"{int(b.src_col[block[e]])}) byte {int(src[e])}", {"block": int(block[e])})
    slot = (b.dst_row[block] * expected.shape[1] + b.dst_col[block]) * expected.shape[2] + dst // size
    received = np.bincount(slot, minlength=expected.size)
    wanted = expected.reshape(-1)
    for problem, mask in (("receives more than one element", received > 1),
                          ("receives nothing", (received == 0) & (wanted >= 0)),
                          ("is padding but is written", (received > 0) & (wanted < 0))):
        if mask.any():
            return refute(f"destination {_slot_text(int(np.flatnonzero(mask)[0]), expected, size)} "
                          f"{problem}", {"slot": int(np.flatnonzero(mask)[0])})
    wrong = wanted[slot] != moved
    if wrong.any():
        e = int(np.flatnonzero(wrong)[0])
        return refute(f"destination {_slot_text(int(slot[e]), expected, size)} receives element "
                      f"{int(moved[e])}; the layout puts element {int(wanted[slot[e]])} there",
                      {"slot": int(slot[e])})
    return _result(Status.PROVED, "exactly_once", label, start,
                   reason=f"simulated {len(b)} blocks, {int(counts.sum())} element moves")


def _slot_text(flat: int, mem: np.ndarray, size: int) -> str:
    row, col, slot = np.unravel_index(flat, mem.shape)
    return f"PE ({int(row)}, {int(col)}) byte {int(slot) * size}"


def check_memory_safe(plan) -> CheckResult:
    """Enumeration twin: paint every region over its steps and bytes, count layers."""
    start = time.perf_counter()
    subject = f"memory plan ({plan.strategy}, {plan.budget} bytes per PE)"
    for group in plan.groups:
        painted = np.zeros((plan.steps, max(group.used, 1)), dtype=np.int64)
        for r in group.regions:
            painted[r.start:r.end + 1, r.offset:r.stop] += 1
        if (painted > 1).any():
            step, byte = (int(v) for v in np.argwhere(painted > 1)[0])
            return CheckResult(Status.REFUTED, "memory_safe", subject,
                               {"pe_row": group.pes[0][0], "pe_col": group.pes[0][1], "step": step, "byte": byte},
                               f"regions overlap at step {step}, byte {byte}",
                               time.perf_counter() - start, method="enumeration")
        if group.used > plan.budget:
            pe = group.pes[0]
            return CheckResult(Status.REFUTED, "memory_safe", subject,
                               {"pe_row": group.pes[0][0], "pe_col": group.pes[0][1], "bytes": group.used},
                               f"PE ({pe[0]}, {pe[1]}) exceeds memory: {group.used} > "
                               f"{plan.budget} bytes", time.perf_counter() - start,
                               method="enumeration")
    return CheckResult(Status.PROVED, "memory_safe", subject, None, "enumerated",
                       time.perf_counter() - start, method="enumeration")


def check_fits_pe(placed, budget: int) -> CheckResult:
    """Twin of ``checks.check_fits_pe``: the index map's slots, enumerated."""
    return brute.check_fits(placed.index_map(), budget, per=("pe_row", "pe_col"),
                            element_bytes=placed.element_size, offsets_in_bytes=True,
                            memory_name="PE")


def check_on_wafer(placed, rows: int, cols: int) -> CheckResult:
    """Twin of ``checks.check_on_wafer``, from the layout's tile counts alone."""
    start = time.perf_counter()
    held = np.argwhere(placed.layout.tile_elements(placed.shape) > 0)
    outside = held[(held[:, 0] >= rows) | (held[:, 1] >= cols)]
    if len(outside):
        pe = tuple(int(v) for v in outside[0])
        return _result(Status.REFUTED, "on_wafer", str(placed), start,
                       {"pe_row": pe[0], "pe_col": pe[1]},
                       f"PE {pe} holds data outside {cols} wide × {rows} tall PEs")
    return _result(Status.PROVED, "on_wafer", str(placed), start)
