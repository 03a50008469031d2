"""Bank conflicts by enumeration: every step, every phase, plain Python ints.

``check_bank_conflict_free``'s labelled enumeration (``method="enumeration"``,
or ``"auto"`` after a Z3 UNKNOWN) and the degree of one phase that REFUTED
results report. The addresses come from the access map's evaluator; the
banks, words and phases are computed here with Python's own ``//`` and
``%``, never the SymPy expressions Z3 sees. The enumeration twin of
``check_bank_conflicts`` is a test oracle (``tests/channel/bank_twins.py``).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from layoutalg.channel.bank_model import BankModel, check_op
from layoutalg.channel.resources import Banks, resource_of, validate
from layoutalg.core.evaluate import as_int64
from layoutalg.errors import VerificationError
from layoutalg.verify.result import CheckResult, Status, point_text


def phase_degree(addresses: list[int], model: BankModel, op: str = "read") -> tuple[int, int, list]:
    """``(degree, bank, lanes)`` of one phase's addresses (lane k reads ``addresses[k]``):
    the most accesses one bank must serve, the first bank needing them, and one lane
    per access it serves.

    >>> phase_degree([0, 128, 256, 384], BankModel())   # one column of 32-bit words
    (4, 0, [0, 1, 2, 3])
    >>> phase_degree([0, 0, 4, 4], BankModel())          # broadcasts: no conflict
    (1, 0, [0])
    """
    shares = model.shares(check_op(op))
    per_bank: dict[int, dict[int, list[int]]] = {}
    for lane, addr in enumerate(addresses):
        word = addr // model.unit
        bank = word % model.groups
        key = word if shares else (word, lane)
        per_bank.setdefault(bank, {}).setdefault(key, []).append(lane)
    bank = min(per_bank, key=lambda b: (-len(per_bank[b]), b))
    lanes = sorted(group[0] for group in per_bank[bank].values())  # one lane per access
    return len(per_bank[bank]), bank * (model.unit // model.bank_bytes), lanes


# -- lanes against Banks or a channel decoder (the twin of banks.check_bank_conflict_free) --

#: The most points ``bank_conflict_degree`` enumerates.
MAX_LANE_POINTS = 1 << 24


def _grids(space) -> dict[str, np.ndarray]:
    size = math.prod(space.extents)
    if size > MAX_LANE_POINTS:
        raise VerificationError(f"enumeration of {space} ({size} points) exceeds "
                                f"{MAX_LANE_POINTS}")
    return dict(zip(space.names, np.indices(space.extents, dtype=np.int64)))


def _lane_table(access, resource, lane: str):
    """Resource and broadcast unit of every point, lanes moved to the last axis."""
    position = validate(access, resource, lane, "bank_conflict_degree")
    grids = _grids(access.domain)
    (address,) = access.apply(*grids.values())
    address = np.moveaxis(as_int64(address, f"addresses of {access.label}"), position, -1)
    used = np.asarray(resource_of(resource, address), dtype=np.int64)
    # Lanes reading one word of a bank share a broadcast; channels never do.
    if isinstance(resource, Banks):
        unit = resource.word(address)
    else:
        unit = np.broadcast_to(np.arange(address.shape[-1], dtype=np.int64), address.shape)
    return position, address, used, np.asarray(unit, dtype=np.int64)


def bank_conflict_degree(access, resource=None, *, lane: str = "thread") -> int:
    """The worst step's n-way conflict: the most distinct words (or lanes, for
    channels) one bank serves in one step; 1 means conflict-free.

    >>> import layoutalg as la
    >>> from layoutalg.channel import Banks
    >>> space = la.Space(col=8, thread=8)
    >>> col, thread = space.symbols
    >>> plain = la.IndexMap(space, la.Space(addr=1024), [thread * 128 + col * 16])
    >>> bank_conflict_degree(plain, Banks(8, 16))
    8
    """
    _, _, used, unit = _lane_table(access, Banks() if resource is None else resource, lane)
    lanes = used.shape[-1]
    worst = 1
    for row_used, row_unit in zip(used.reshape(-1, lanes).tolist(),
                                  unit.reshape(-1, lanes).tolist()):
        per_bank: dict[int, set[int]] = {}
        for bank, word in zip(row_used, row_unit):
            per_bank.setdefault(bank, set()).add(word)
        worst = max(worst, max(len(words) for words in per_bank.values()))
    return worst


def check_bank_conflict_free(access, resource=None, *, lane: str = "thread") -> CheckResult:
    start = time.perf_counter()
    resource = Banks() if resource is None else resource
    _, address, used, unit = _lane_table(access, resource, lane)
    lanes = used.shape[-1]
    steps = [n for n in access.domain.names if n != lane]
    flat_used, flat_unit = used.reshape(-1, lanes), unit.reshape(-1, lanes)
    for first, second in itertools.combinations(range(lanes), 2):
        clash = (flat_used[:, first] == flat_used[:, second]) & (
            flat_unit[:, first] != flat_unit[:, second])
        if clash.any():
            k = int(np.argmax(clash))
            step = np.unravel_index(k, used.shape[:-1]) if steps else ()
            ce = {n: int(v) for n, v in zip(steps, step)}
            ce[lane] = first
            point = {n: ce[n] for n in access.domain.names}
            flat_address = address.reshape(-1, lanes)
            return CheckResult(
                Status.REFUTED, "bank_conflict_free", access.label,
                {**point, f"{lane}'": second},
                f"conflict at step {point_text(steps, [ce[n] for n in steps])}: {lane} {first} "
                f"(byte {int(flat_address[k, first])}) and {lane} {second} (byte "
                f"{int(flat_address[k, second])}) both use bank {int(flat_used[k, first])} of "
                f"{resource}", time.perf_counter() - start, method="enumeration")
    return CheckResult(Status.PROVED, "bank_conflict_free", access.label, None,
                       f"the lanes of every step use distinct banks of {resource}",
                       time.perf_counter() - start, method="enumeration")


__all__ = ["bank_conflict_degree", "check_bank_conflict_free", "phase_degree"]
