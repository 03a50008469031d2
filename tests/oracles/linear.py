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
    """Equal on every input: another linear layout (out dims by name; in and out dim
    sizes must be equal, as Triton's ``==`` asks) or a CuTe layout (both flattened
    first-dim-fastest). A counterexample holds the linear layout's in dims only."""
    start = time.perf_counter()
    mine = table(layout)
    if isinstance(other, LinearLayout) and (
            layout.in_dims != other.in_dims or dict(layout.out_dims) != dict(other.out_dims)):
        return _result(Status.REFUTED, "equivalent", label(layout), start,
                       reason=f"sizes differ: {layout.in_dims} → {dict(layout.out_dims)} vs "
                       f"{other.in_dims} → {dict(other.out_dims)}")
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
                   counterexample=layout.unflat_in(i),
                   reason=f"they differ at flat input {i}")


# The phase model, written here from the vendor's description rather than imported from
# layoutalg.linear.banks: NVIDIA shared memory has 32 banks, successive 32-bit words in
# successive banks, and lanes reading one 32-bit word do not conflict (CUDA C++ Programming
# Guide, "Shared Memory", compute capability 5.x and later,
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#shared-memory-5-x). A warp's
# 8-byte accesses are served in two phases of 16 lanes and its 16-byte accesses in four of 8
# lanes, each phase moving the banks' 128 bytes once (worked through for float4 stores at
# https://github.com/xlite-dev/LeetCUDA/issues/399): only lanes of one phase can conflict.
WARP_LANES, BANKS, WORD_BYTES = 32, 32, 4


def bank_conflict_degree(registers: LinearLayout, shared: LinearLayout, *,
                         element_bytes: int = 4) -> int:
    """The most distinct 32-bit words one bank serves in one phase of one instruction.

    Each lane's access of ``element_bytes`` bytes at byte ``offset · element_bytes``
    touches every 32-bit word it overlaps (one word, or ``element_bytes / 4`` of them).
    """
    if element_bytes not in (1, 2, 4, 8, 16) or isinstance(element_bytes, bool):
        raise VerificationError(f"element_bytes must be 1, 2, 4, 8 or 16; got {element_bytes}")
    phases = max(1, element_bytes // WORD_BYTES)        # 1, 1, 1, 2, 4
    lanes_per_phase = WARP_LANES // phases
    where = conversion_table(shared, registers)
    if where is None:
        raise VerificationError("shared must hold every element of registers exactly once")
    point = inputs(registers)
    offsets = inputs(shared)["offset"][where]
    others = [n for n in registers.in_names if n != "lane"]
    # (instruction, phase) -> bank -> the words it serves
    served: dict[tuple, dict[int, set[int]]] = {}
    for k in range(len(offsets)):
        lane = int(point["lane"][k])
        key = tuple(int(point[n][k]) for n in others) + (lane // lanes_per_phase,)
        first = int(offsets[k]) * element_bytes
        for word in range(first // WORD_BYTES, (first + element_bytes - 1) // WORD_BYTES + 1):
            served.setdefault(key, {}).setdefault(word % BANKS, set()).add(word)
    return max((len(words) for banks in served.values() for words in banks.values()),
               default=1)


__all__ = ["bank_conflict_degree", "check_conversion", "check_equivalent", "check_injective",
           "check_invertible", "check_surjective", "conversion_table", "inputs", "table"]
