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
import time

import numpy as np

from layoutalg.channel.bank_model import BankModel, check_op
from layoutalg.channel.resources import Banks, resource_of, validate
from layoutalg.core.evaluate import as_int64
from layoutalg.verify.brute import points
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
        word = addr // model.unit  # lanes sharing a word make one access if ``shares``
        per_bank.setdefault(word % model.groups, {}).setdefault(
            word if shares else (word, lane), []).append(lane)
    bank = min(per_bank, key=lambda b: (-len(per_bank[b]), b))
    lanes = sorted(group[0] for group in per_bank[bank].values())  # one lane per access
    return len(per_bank[bank]), bank * (model.unit // model.bank_bytes), lanes


# -- lanes against Banks or a channel decoder (the twin of banks.check_bank_conflict_free) --

#: The most points ``bank_conflict_degree`` enumerates.
MAX_LANE_POINTS = 1 << 24


def _lane_table(access, resource, lane: str):
    """Address, resource and broadcast unit of every point, lanes on the last axis."""
    position = validate(access, resource, lane, "bank_conflict_degree")
    grids = points(access.domain, MAX_LANE_POINTS).T.reshape(-1, *access.domain.extents)
    (address,) = access.apply(*grids)
    address = np.moveaxis(as_int64(address, f"addresses of {access.label}"), position, -1)
    used = np.asarray(resource_of(resource, address), dtype=np.int64)
    # Lanes reading one word of a bank share a broadcast; channels never do.
    if isinstance(resource, Banks):
        unit = resource.word(address)
    else:
        unit = np.broadcast_to(np.arange(address.shape[-1], dtype=np.int64), address.shape)
    return address, used, np.asarray(unit, dtype=np.int64)


def bank_conflict_degree(access, resource=None, *, lane: str = "thread") -> int:
    """The worst step's n-way conflict: the most distinct words (or lanes, for
    channels) one bank serves in one step; 1 means conflict-free (a test oracle)."""
    _, used, unit = _lane_table(access, Banks() if resource is None else resource, lane)
    step = np.arange(used.size) // used.shape[-1]
    served = np.unique(np.stack([step, used.ravel(), unit.ravel()]), axis=1)  # distinct words
    return int(np.unique(served[:2], axis=1, return_counts=True)[1].max())


def check_bank_conflict_free(access, resource=None, *, lane: str = "thread") -> CheckResult:
    start = time.perf_counter()
    resource = Banks() if resource is None else resource
    address, used, unit = _lane_table(access, resource, lane)
    *shape, lanes = used.shape
    steps = [n for n in access.domain.names if n != lane]
    address, used, unit = (v.reshape(-1, lanes) for v in (address, used, unit))
    for first, second in itertools.combinations(range(lanes), 2):
        clash = (used[:, first] == used[:, second]) & (unit[:, first] != unit[:, second])
        if clash.any():
            k = int(np.argmax(clash))
            ce = {n: int(v) for n, v in zip(steps, np.unravel_index(k, shape) if steps else ())}
            return CheckResult(
                Status.REFUTED, "bank_conflict_free", access.label,
                {**{n: ce.get(n, first) for n in access.domain.names}, f"{lane}'": second},
                f"conflict at step {point_text(steps, [ce[n] for n in steps])}: {lane} {first} "
                f"(byte {int(address[k, first])}) and {lane} {second} (byte "
                f"{int(address[k, second])}) both use bank {int(used[k, first])} of "
                f"{resource}", time.perf_counter() - start, method="enumeration")
    return CheckResult(Status.PROVED, "bank_conflict_free", access.label, None,
                       f"the lanes of every step use distinct banks of {resource}",
                       time.perf_counter() - start, method="enumeration")


__all__ = ["bank_conflict_degree", "check_bank_conflict_free", "phase_degree"]
