"""Enumeration twins of the linear-layout checks: evaluate every input.

Each twin tabulates the layout on all its inputs (NumPy, at most
``2**22``), straight from the definition — per in dim and bit, XOR the
basis into each out dim — without the GF(2) matrix or elimination of
:mod:`layoutalg.linear.checks`, and answers the same question by looking.
Results carry ``method="enumeration"``.
"""

from __future__ import annotations

import time

import numpy as np

from layoutalg.core.cute_layout import CuteLayout
from layoutalg.errors import VerificationError
from layoutalg.linear.algebra import check_layout
from layoutalg.linear.banks import BankModel
from layoutalg.linear.checks import label
from layoutalg.linear.layout import LinearLayout
from layoutalg.verify.result import CheckResult, Status

MAX_POINTS = 1 << 22


def inputs(layout: LinearLayout) -> dict[str, np.ndarray]:
    """Every input point, as one array per in dim (the first in dim fastest)."""
    if layout.in_size > MAX_POINTS:
        raise VerificationError(f"enumeration needs at most {MAX_POINTS} inputs; the layout has "
                                f"{layout.in_size}")
    flat = np.arange(layout.in_size, dtype=np.int64)
    point, shift = {}, 0
    for name, size in layout.in_dims:
        point[name] = (flat >> shift) & (size - 1)
        shift += size.bit_length() - 1
    return point


def table(layout: LinearLayout, point: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The outputs at ``point`` (default every input): shape ``(points, out dims)``."""
    point = inputs(layout) if point is None else point
    count = len(next(iter(point.values()))) if point else 1
    out = np.zeros((count, len(layout.out_dims)), dtype=np.int64)
    for name, vectors in layout.bases:
        for j, vector in enumerate(vectors):
            bit = (point[name] >> j) & 1
            out ^= bit[:, None] * np.asarray(vector, dtype=np.int64)[None, :]
    return out


def _result(status, check, subject, start, counterexample=None, reason=""):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def _at(point: dict[str, np.ndarray], k: int, suffix: str = "") -> dict[str, int]:
    return {f"{n}{suffix}": int(v[k]) for n, v in point.items()}


def check_injective(layout: LinearLayout) -> CheckResult:
    check_layout(layout, "check_injective: layout")
    start = time.perf_counter()
    point = inputs(layout)
    out = table(layout, point)
    _, first, counts = np.unique(out, axis=0, return_index=True, return_counts=True)
    if (counts == 1).all():
        return _result(Status.PROVED, "injective", label(layout), start,
                       reason=f"all {layout.in_size} inputs hold different elements")
    seen: dict[tuple, int] = {}
    for k, row in enumerate(tuple(int(v) for v in r) for r in out):
        if row in seen:
            return _result(Status.REFUTED, "injective", label(layout), start,
                           counterexample={**_at(point, seen[row]), **_at(point, k, "'")},
                           reason=f"inputs {seen[row]} and {k} both hold {row}")
        seen[row] = k
    raise AssertionError("unique counted a repeat that was not found")


def check_surjective(layout: LinearLayout) -> CheckResult:
    check_layout(layout, "check_surjective: layout")
    start = time.perf_counter()
    out = table(layout)
    held = np.zeros([s for _, s in layout.out_dims], dtype=bool)
    held[tuple(out.T)] = True
    if held.all():
        return _result(Status.PROVED, "surjective", label(layout), start,
                       reason=f"all {held.size} elements are held")
    missing = tuple(int(v) for v in np.argwhere(~held)[0])
    return _result(Status.REFUTED, "surjective", label(layout), start,
                   counterexample=dict(zip(layout.out_names, missing)),
                   reason=f"element {missing} is held by no input")


def check_invertible(layout: LinearLayout) -> CheckResult:
    start = time.perf_counter()
    for part in (check_injective(layout), check_surjective(layout)):
        if part.refuted:
            return _result(Status.REFUTED, "invertible", label(layout), start,
                           part.counterexample, part.reason)
    return _result(Status.PROVED, "invertible", label(layout), start,
                   reason="injective and onto, by enumeration")


def conversion_table(a: LinearLayout, b: LinearLayout) -> np.ndarray | None:
    """For every input of ``b`` (flat), the flat input of ``a`` holding its element;
    None when some element of ``b`` is in ``a`` never or more than once."""
    index = [b.out_names.index(n) for n in a.out_names]
    a_out, b_out = table(a), table(b)[:, index]
    where: dict[tuple, int] = {}
    for k, row in enumerate(map(tuple, a_out)):
        where[row] = -1 if row in where else k
    found = np.array([where.get(tuple(row), -2) for row in b_out], dtype=np.int64)
    return None if (found < 0).any() else found


def check_conversion(a: LinearLayout, b: LinearLayout) -> CheckResult:
    """``a⁻¹∘b`` exists: each element of ``b`` is held by exactly one input of ``a``."""
    start = time.perf_counter()
    found = conversion_table(a, b)
    subject = f"{label(a)}⁻¹ ∘ {label(b)}"
    if found is None:
        return _result(Status.REFUTED, "conversion", subject, start,
                       reason="some element of b is held by no input of a, or by two")
    return _result(Status.PROVED, "conversion", subject, start,
                   reason=f"each of b's {b.in_size} elements has exactly one place in a")


def check_equivalent(layout: LinearLayout, other: LinearLayout | CuteLayout) -> CheckResult:
    """Equal on every input: another linear layout (out dims by name) or a CuTe layout
    (both flattened first-dim-fastest)."""
    start = time.perf_counter()
    mine = table(layout)
    if isinstance(other, CuteLayout):
        if other.size != layout.in_size:
            return _result(Status.REFUTED, "equivalent", label(layout), start,
                           reason=f"sizes differ: {layout.in_size} vs {other.size}")
        shifts = np.cumsum([0] + [s.bit_length() - 1 for _, s in layout.out_dims])[:-1]
        flat = (mine << shifts[None, :]).sum(axis=1) if len(shifts) else np.zeros(len(mine))
        theirs = np.array([other(i) for i in range(other.size)], dtype=np.int64)
        differ = np.nonzero(flat != theirs)[0]
    else:
        index = [other.out_names.index(n) for n in layout.out_names]
        differ = np.nonzero((mine != table(other)[:, index]).any(axis=1))[0]
    if len(differ) == 0:
        return _result(Status.PROVED, "equivalent", label(layout), start,
                       reason=f"equal on all {layout.in_size} inputs")
    i = int(differ[0])
    return _result(Status.REFUTED, "equivalent", label(layout), start,
                   counterexample={**layout.unflat_in(i), "i": i},
                   reason=f"they differ at flat input {i}")


def bank_conflict_degree(registers: LinearLayout, shared: LinearLayout, *,
                         element_bytes: int = 4) -> int:
    """The most distinct words one bank serves in one phase of one instruction."""
    model = BankModel(element_bytes)
    where = conversion_table(shared, registers)
    if where is None:
        raise VerificationError("shared must hold every element of registers exactly once")
    point = inputs(registers)
    offsets = inputs(shared)["offset"][where]
    lanes = point["lane"]
    phase = lanes // model.lanes_per_phase
    others = [point[n] for n in registers.in_names if n != "lane"]
    key = np.stack(others + [phase], axis=1) if others else phase[:, None]
    worst = 1
    groups: dict[tuple, dict[int, set[int]]] = {}
    for k in range(len(offsets)):
        off = int(offsets[k])
        banks = groups.setdefault(tuple(key[k]), {})
        banks.setdefault(model.bank(off), set()).add(model.word(off))
    for banks in groups.values():
        worst = max(worst, max(len(words) for words in banks.values()))
    return worst


__all__ = ["bank_conflict_degree", "check_conversion", "check_equivalent", "check_injective",
           "check_invertible", "check_surjective", "conversion_table", "inputs", "table"]
