"""Shared-memory bank conflicts of a layout conversion, decided over GF(2).

A conversion through shared memory stores each register (layout ``src``) at
offset ``shared⁻¹(src(x))`` and loads it back at ``shared⁻¹(dst(x))``; the lanes
of a warp issue each ``(register, warp, block)`` together.

The bank model is NVIDIA's (CUDA C++ Programming Guide, "Shared Memory",
compute capability 5.x and later,
https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#shared-memory-5-x):
32 banks of 32-bit words, byte ``a`` in bank ``(a // 4) mod 32``; lanes on one
word do not conflict. Wider accesses are served in phases (8-byte: half-warps;
16-byte: quarter-warps), as :mod:`layoutalg.channel.banks` models them.

With ``C`` the lane columns of the conversion, ``P`` the bank bits and ``W``
the word bits of an offset, lanes ``l, l ⊕ d`` of one instruction hit one bank
iff ``P·C·d = 0`` (the register, warp and block parts XOR out) at different
words iff ``W·C·d ≠ 0``: every bank serves exactly ``2 ** (rank(W·C) −
rank(P·C))`` words, for all instructions at once. Enumeration twin:
``bank_conflict_degree`` in ``tests/oracles/linear.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from layoutalg.errors import LinearLayoutError, describe
from layoutalg.linear import gf2
from layoutalg.linear.algebra import check_layout, conversion_obstacle, convert
from layoutalg.linear.checks import label
from layoutalg.linear.layout import LinearLayout
from layoutalg.validate import is_int
from layoutalg.verify.result import CheckResult, Status, point_text

ELEMENT_BYTES = (1, 2, 4, 8, 16)
NUM_BANKS, BANK_BYTES = 32, 4


@dataclass(frozen=True)
class BankModel:
    """Where an element offset lands for accesses of ``element_bytes`` bytes."""

    element_bytes: int

    def __post_init__(self) -> None:
        if not is_int(self.element_bytes) or self.element_bytes not in ELEMENT_BYTES:
            kind = type(self.element_bytes).__name__
            kind = f" (a {kind}, not an int)" if not is_int(self.element_bytes) else ""
            raise LinearLayoutError(f"element_bytes must be one of {ELEMENT_BYTES}; got "
                                    f"{describe(self.element_bytes)}{kind}")
        object.__setattr__(self, "element_bytes", int(self.element_bytes))

    @property
    def unit(self) -> int:
        """Bytes per bank of the phase model: 4, or the access width when wider."""
        return max(BANK_BYTES, self.element_bytes)

    @property
    def banks(self) -> int:
        return NUM_BANKS * BANK_BYTES // self.unit

    @property
    def shift(self) -> int:
        """Offset bits below the word: elements per 4-byte word, as a power of two."""
        return (self.unit // self.element_bytes).bit_length() - 1


@dataclass(frozen=True)
class BankConflicts:
    """The conflict degree of one side of a conversion (1 = conflict-free); when it is
    more, ``witness`` names an instruction and two lanes (``lane``, ``lane'``) on one
    bank at different words."""

    degree: int
    element_bytes: int
    lanes_per_phase: int
    witness: dict[str, int] | None
    reason: str
    method: str = "gf2-rank"


def bank_conflicts(registers: LinearLayout, shared: LinearLayout, *,
                   element_bytes: int = 4) -> BankConflicts:
    """The bank conflict degree of storing ``registers`` into ``shared`` (or loading back).

    >>> regs = LinearLayout({"register": [], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]})
    >>> col = LinearLayout({"offset": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1], [0, 2],
    ...                                [0, 4], [0, 8], [0, 16]]})      # column-major 32 × 32
    >>> bank_conflicts(regs, col).degree            # a row's 32 lanes: one bank, 32 words
    32
    """
    return _conflicts(registers, shared, element_bytes, "bank_conflicts", "registers")


def _conflicts(registers: LinearLayout, shared: LinearLayout, element_bytes: object, who: str,
               name: str) -> BankConflicts:
    """:func:`bank_conflicts`, its errors naming the caller ``who`` and its argument ``name``."""
    check_layout(registers, f"{who}: {name}")
    check_layout(shared, f"{who}: shared")
    try:
        model = BankModel(element_bytes)
    except LinearLayoutError as error:
        raise LinearLayoutError(f"{who}: {error}") from None
    element_bytes = model.element_bytes       # a plain int from here on
    if "lane" not in registers.in_names:
        raise LinearLayoutError(f"{who}: {name} must have an in dim 'lane'; got in dims "
                                f"{registers.in_names}")
    if "offset" not in shared.in_names:
        raise LinearLayoutError(f"{who}: shared must have an in dim 'offset' (a "
                                f"shared-memory layout (offset, block) → tensor); got in dims "
                                f"{shared.in_names}")
    where = shared.in_names.index("offset")
    obstacle = conversion_obstacle(shared, registers, who, "shared", name)
    if obstacle is not None:
        raise LinearLayoutError(f"{who}: shared must hold every element of {name} exactly "
                                f"once: {obstacle.text}")
    conversion = convert(shared, registers)
    offset_size = shared.in_dims[where][1]
    lane_bits = dict(registers.in_dims)["lane"].bit_length() - 1
    phase_bits = min(lane_bits, model.banks.bit_length() - 1)  # a phase: one lane per bank
    offsets = [conversion.basis("lane", j)[where] for j in range(phase_bits)]
    word_mask = (offset_size - 1) >> model.shift
    words = [(o >> model.shift) & word_mask for o in offsets]
    banks = [w & (model.banks - 1) for w in words]
    degree = 1 << (gf2.rank(words) - gf2.rank(banks))
    witness, reason = None, (f"every bank serves one word per phase of {1 << phase_bits} lanes "
                             f"({element_bytes}-byte elements): rank(W·C) = rank(P·C) = "
                             f"{gf2.rank(banks)} over GF(2)")
    if degree > 1:
        lane = next(k for k in gf2.kernel(banks) if gf2.apply(words, k))
        point = {n: 0 for n in registers.in_names}
        other_offset = conversion(**{**point, "lane": lane})[where]
        witness = {**point, "lane'": lane}
        reason = (f"{degree}-way bank conflict: at {point_text(point, point.values())} lane 0 "
                  f"(byte 0) and lane {lane} (byte {other_offset * element_bytes}) both use "
                  f"bank 0 at different words (rank(W·C) − rank(P·C) = "
                  f"{gf2.rank(words) - gf2.rank(banks)})")
    return BankConflicts(degree, element_bytes, 1 << phase_bits, witness, reason)


def check_bank_conflict_free(registers: LinearLayout, shared: LinearLayout, *,
                             element_bytes: int = 4) -> CheckResult:
    """Storing ``registers`` into ``shared`` (or loading back) hits no bank twice per phase."""
    start = time.perf_counter()
    found = _conflicts(registers, shared, element_bytes, "check_bank_conflict_free", "registers")
    status = Status.PROVED if found.degree == 1 else Status.REFUTED
    return CheckResult(status, "bank_conflict_free", f"{label(registers)} ↔ {label(shared)}",
                       found.witness, found.reason, time.perf_counter() - start,
                       method=found.method)


def conversion_bank_conflicts(src: LinearLayout, dst: LinearLayout, shared: LinearLayout, *,
                              element_bytes: int = 4) -> tuple[BankConflicts, BankConflicts]:
    """``(store, load)``: the conflicts of storing ``src`` into ``shared`` and loading ``dst``."""
    who = "conversion_bank_conflicts"
    return (_conflicts(src, shared, element_bytes, who, "src"),
            _conflicts(dst, shared, element_bytes, who, "dst"))


__all__ = ["BankConflicts", "BankModel", "bank_conflicts", "check_bank_conflict_free",
           "conversion_bank_conflicts"]
