"""Brute-force twins of the mesh checks, and a simulation of transform blocks.

``check_exactly_once`` and ``check_compatible`` answer the Z3 checks'
questions by enumerating small concrete layouts (same verdicts, method
"enumeration"). ``simulate`` is independent of both: it runs the emitted
blocks of a transform on NumPy PE memories, the way the wafer would, and
checks every destination slot receives exactly its own element once.
"""

from __future__ import annotations

import time

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.pattern_maps import PatternModel
from layoutalg.mesh.shapes import check_shape
from layoutalg.verify import brute
from layoutalg.verify.result import CheckResult, Status, point_text


def _result(status, check, subject, start, counterexample=None, reason="enumerated"):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def check_exactly_once(model: PatternModel) -> CheckResult:
    """The enumeration twin of ``prove_exactly_once``: same parts, same order."""
    start = time.perf_counter()
    parts = (
        ("messages", lambda: brute.check_bijective(model.messages)),
        ("reads", lambda: brute.check_in_bounds(model.reads)),
        ("reads", lambda: brute.check_equivalent(model.reads, model.source)),
        ("writes", lambda: brute.check_equivalent(model.writes, model.destination)),
        ("destination", lambda: brute.check_bijective(model.destination)),
    )
    for part, run in parts:
        verdict = run()
        if verdict.refuted:
            return _result(Status.REFUTED, "exactly_once", model.label, start,
                           verdict.counterexample, f"{part}: {verdict.reason}")
    return _result(Status.PROVED, "exactly_once", model.label, start)


def check_compatible(a: MeshLayout, b: MeshLayout, shape) -> CheckResult:
    """Enumeration twin of ``compatible_with``: the PE sets of every element agree."""
    start = time.perf_counter()
    shape = check_shape(shape)
    subject = f"{a} ~ {b} on {list(shape)}"
    held_a, held_b = _holders(a, shape), _holders(b, shape)
    differ = np.flatnonzero(np.any(held_a != held_b, axis=(1, 2)))
    if differ.size == 0:
        return _result(Status.PROVED, "compatible", subject, start)
    index = np.unravel_index(differ[0], shape)
    names = a.index_map(shape, element_size=1).domain.names[-len(shape):]
    return _result(Status.REFUTED, "compatible", subject, start,
                   {n: int(v) for n, v in zip(names, index)},
                   f"element {point_text(names, index)} lives on different PEs")


def _holders(layout: MeshLayout, shape) -> np.ndarray:
    """``[element, pe_row, pe_col]`` booleans over a mesh big enough for any layout."""
    m = layout.index_map(shape, element_size=1)
    xs, ys = brute.image_table(m)
    size = int(np.prod(shape))
    element = np.ravel_multi_index(tuple(xs[:, -len(shape):].T), shape)
    table = np.zeros((size, 994 if False else 64, 64), dtype=bool)
    table = np.zeros((size, max(layout.pe_rows, 1) + 64, max(layout.pe_cols, 1) + 64), dtype=bool)
    table[element, ys[:, 0], ys[:, 1]] = True
    return table[:, :64, :64] if False else table


def memory(m: IndexMap, element_size: int, pes: tuple[int, int]) -> np.ndarray:
    """PE memories as ``[pe_row, pe_col, slot]`` element ids (view row-major), −1 for padding."""
    xs, ys = brute.image_table(m)
    slots = m.codomain.extents[2] // element_size
    mem = np.full((pes[0], pes[1], slots), -1, dtype=np.int64)
    tensor = xs[:, -2:] if m.domain.rank >= 2 else np.stack([xs[:, -1], 0 * xs[:, -1]], axis=1)
    width = m.domain.extents[-1] if m.domain.rank >= 2 else 1
    mem[ys[:, 0], ys[:, 1], ys[:, 2] // element_size] = tensor[:, 0] * width + tensor[:, 1]
    return mem
