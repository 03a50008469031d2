"""The enumeration twin of ``check_bank_conflicts`` (the bank model: phases, access
width, reads and writes): every step and phase of a concrete access map, plain ints.

A test oracle (issue 12 item 5): the package keeps only the enumeration that
``check_bank_conflict_free`` uses as its labelled fallback and the degree of one
phase (``layoutalg.channel.bank_brute.phase_degree``), which this twin builds on.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from layoutalg.channel.bank_brute import phase_degree
from layoutalg.channel.bank_model import BankModel
from layoutalg.core.evaluate import as_int64
from layoutalg.errors import VerificationError
from layoutalg.verify.result import CheckResult, Status, point_text

MAX_POINTS = 1 << 22


@dataclass(frozen=True)
class PhaseConflict:
    """The worst bank of one phase: its degree, the bank, two lanes that share it."""

    degree: int
    step: tuple[int, ...]
    bank: int
    lanes: tuple[int, ...]
    addresses: tuple[int, ...]


def address_table(access, lane: str) -> tuple[np.ndarray, list[str]]:
    """Every address of a concrete access map, lanes on the last axis, steps flattened."""
    if lane not in access.domain.names:
        raise VerificationError(f"lane must name a dim of {access.domain}; got {lane!r}")
    if not access.is_concrete or math.prod(access.domain.extents) > MAX_POINTS:
        raise VerificationError(f"enumeration needs a concrete access map of at most "
                                f"{MAX_POINTS} points; got {access.domain}")
    grids = np.indices(access.domain.extents, dtype=np.int64)
    (address,) = access.apply(*grids)
    address = as_int64(address, f"addresses of {access.label}")
    position = access.domain.index(lane)
    steps = [n for n in access.domain.names if n != lane]
    moved = np.moveaxis(np.broadcast_to(address, access.domain.extents), position, -1)
    return moved.reshape(-1, moved.shape[-1]), steps


def worst_conflict(table: np.ndarray, step_shape: tuple[int, ...], model: BankModel,
                   op: str = "read") -> PhaseConflict:
    """The worst phase of every step of an address table (rows: steps; columns: lanes)."""
    worst = None
    per_phase = model.lanes_per_phase
    for row_index, row in enumerate(table.tolist()):
        for first in range(0, len(row), per_phase):
            chunk = row[first:first + per_phase]
            degree, bank, lanes = phase_degree(chunk, model, op)
            if worst is None or degree > worst.degree:
                step = tuple(int(v) for v in np.unravel_index(row_index, step_shape)) \
                    if step_shape else ()
                picked = tuple(first + k for k in lanes)
                worst = PhaseConflict(degree, step, bank, picked,
                                      tuple(row[k] for k in picked))
    return worst


def check_bank_conflicts(access, model: BankModel = BankModel(), *, lane: str = "thread",
                         op: str = "read", max_degree: int = 1) -> CheckResult:
    """Enumerate every step and phase: PROVED when no bank serves more than
    ``max_degree`` accesses in a phase and every address is aligned; REFUTED
    with the worst phase's lanes, bank and degree otherwise."""
    start = time.perf_counter()
    table, steps = address_table(access, lane)
    step_shape = tuple(access.domain.extents[access.domain.index(n)] for n in steps)
    subject = f"{access.label} on {model} ({op})"
    misaligned = np.nonzero(table % model.access_bytes)
    if len(misaligned[0]):
        row, column = int(misaligned[0][0]), int(misaligned[1][0])
        step = np.unravel_index(row, step_shape) if step_shape else ()
        ce = {**{n: int(v) for n, v in zip(steps, step)}, lane: column,
              "address": int(table[row, column])}
        return CheckResult(Status.REFUTED, "bank_conflicts", subject, ce,
                           f"{lane} {column} accesses byte {int(table[row, column])}, not a "
                           f"multiple of the {model.access_bytes}-byte access",
                           time.perf_counter() - start, method="enumeration")
    worst = worst_conflict(table, step_shape, model, op)
    if worst.degree <= max_degree:
        return CheckResult(Status.PROVED, "bank_conflicts", subject, None,
                           f"every phase: at most {worst.degree} access(es) per bank",
                           time.perf_counter() - start, method="enumeration")
    ce = {**dict(zip(steps, worst.step)), lane: worst.lanes[0], f"{lane}'": worst.lanes[1],
          "bank": worst.bank, "degree": worst.degree}
    return CheckResult(
        Status.REFUTED, "bank_conflicts", subject, ce,
        f"{worst.degree}-way conflict at step {point_text(steps, worst.step)}: {lane} "
        f"{worst.lanes[0]} (byte {worst.addresses[0]}) and {lane} {worst.lanes[1]} (byte "
        f"{worst.addresses[1]}) both use bank {worst.bank}",
        time.perf_counter() - start, method="enumeration")
