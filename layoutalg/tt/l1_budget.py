"""L1 per core: what is taken, what is free, and whether a tensor or a circular buffer fits.

A Tensix core's L1 (TT-Metal's allocator, ``tt_metal/impl/allocator``) holds,
from the bottom, a reserved region up to the base allocator address, then the
static circular buffers growing up; L1 buffers are allocated from the top
down. A program fails when the CB region ends above the lowest L1 buffer
("Statically allocated circular buffers ... clash with L1 buffers",
tt_metal/impl/program/program.cpp). The room a new CB or tensor has is the
*free* L1, lowest buffer address minus CB region end (``get_max_l1_space``);
TTNN's ``to_memory_config`` compared against the *max* L1
(``l1_size_per_core() - get_base_allocator_addr(L1)`` in
``ttnn/cpp/ttnn/operations/core/to_memory_config/to_memory_config_op.cpp``, the
lines the open PR tt-metal#54991 replaces) and ran into the clash
(tt-metal#54621, with no breakdown: tt-metal#28835; ``docs/real-bugs.md``).
Here ``max_l1`` is ``l1_bytes - reserved``: TTNN's guard exactly when
``reserved`` is the base address alone, else a smaller limit (a guard that
admits less), so a refutation of it holds for TTNN's guard too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import TTError, describe
from layoutalg.tt.checks import check_fits_memory
from layoutalg.tt.devices import get_device
from layoutalg.tt.sharded import cores_in_order
from layoutalg.tt.tensor import TensorSpec
from layoutalg.validate import is_int, nonnegative_int, one_of, positive_int
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_in_bounds
from layoutalg.verify.claims import register_claim
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status

GUARDS = ("free", "max")


@dataclass(frozen=True, init=False)
class L1Budget:
    """What one core's L1 already holds.

    Args:
        l1_bytes: L1 per core (or ``device=`` a preset name: its ``l1_bytes``).
        reserved: bytes below the base allocator address.
        circular_buffers: ``(name, bytes)`` pairs: the static CBs of the program.
        buffers: ``(name, bytes)`` pairs: L1 buffers already allocated (top down).

    >>> b = L1Budget(device="blackhole", reserved=119_936, buffers=[("other tensors", 194_816)])
    >>> b.max_l1, b.free, b.lowest_buffer_address
    (1452928, 1258112, 1378048)
    """

    l1_bytes: int
    reserved: int
    circular_buffers: tuple[tuple[str, int], ...]
    buffers: tuple[tuple[str, int], ...]

    def __init__(self, l1_bytes=None, *, device=None, reserved=0, circular_buffers=(),
                 buffers=()) -> None:
        if (l1_bytes is None) == (device is None):
            raise TTError(f"L1Budget: give l1_bytes or device=, one of them; got "
                          f"l1_bytes={describe(l1_bytes)}, device={describe(device)}")
        size = get_device(device).l1_bytes if device is not None else positive_int(
            TTError, "l1_bytes", l1_bytes, unit="bytes")
        object.__setattr__(self, "l1_bytes", size)
        object.__setattr__(self, "reserved", nonnegative_int(TTError, "reserved", reserved))
        object.__setattr__(self, "circular_buffers", _entries("circular_buffers", circular_buffers))
        object.__setattr__(self, "buffers", _entries("buffers", buffers))
        if self.reserved >= self.l1_bytes:
            raise TTError(f"reserved must be below l1_bytes={self.l1_bytes}; got {self.reserved}")
        taken = sum(b for _, b in self.buffers)
        if taken > self.l1_bytes - self.reserved:
            raise TTError(
                f"buffers must fit in L1 above the reserved region (L1 buffers are allocated "
                f"top down from l1_bytes={self.l1_bytes:,} and never below reserved="
                f"{self.reserved:,}, so at most {self.l1_bytes - self.reserved:,} B); got "
                f"{taken:,} B of buffers {describe(list(self.buffers))}")

    @property
    def cb_region_end(self) -> int:
        return self.reserved + sum(b for _, b in self.circular_buffers)

    @property
    def lowest_buffer_address(self) -> int:
        return self.l1_bytes - sum(b for _, b in self.buffers)

    @property
    def max_l1(self) -> int:
        """L1 size minus the base address: what the old guard compared against."""
        return self.l1_bytes - self.reserved

    @property
    def free(self) -> int:
        """Bytes between the CB region end and the lowest L1 buffer (may be < 0)."""
        return self.lowest_buffer_address - self.cb_region_end

    def limit(self, guard: str) -> int:
        """The largest size ``guard`` ("free" or "max") admits."""
        return self.free if one_of(TTError, "guard", guard, GUARDS) == "free" else self.max_l1

    def index_map(self) -> IndexMap:
        """The sizes a new CB may take under the free-L1 guard ↦ where the CB region
        then ends; in bounds exactly when the budget holds (with no free L1, the
        one size 0 already lands past the lowest buffer)."""
        limit = max(self.free, 0)
        return _cb_map(self, limit, f"CB sizes that fit the free L1 (≤ {limit:,} B)")

    def breakdown(self, name: str, size: int, *, where: str = "each core") -> str:
        """One line: every part of L1 with ``size`` bytes of ``name`` added."""
        parts = [("reserved", self.reserved), *self.circular_buffers, *self.buffers, (name, size)]
        total = sum(b for _, b in parts)
        shown = " + ".join(f"{n} {b:,}" for n, b in parts)
        verdict = (f"{total - self.l1_bytes:,} B over" if total > self.l1_bytes
                   else f"{self.l1_bytes - total:,} B to spare")
        return (f"{where}: {shown} = {total:,} of {self.l1_bytes:,} B L1 ({verdict}; free L1 "
                f"{self.free:,} B, max L1 {self.max_l1:,} B)")


def check_l1_fit(subject, budget, *, name: str = "this tensor",
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, assume=()) -> CheckResult:
    """``subject`` fits the free L1 of every core: a TensorSpec in L1 (its
    pages, by Z3, on every core it uses) or bytes per core (a circular buffer).
    ``budget``: one ``L1Budget`` for every core, or ``{(x, y): L1Budget}`` (a
    sharded tensor reserves the same bytes on each of its cores, so the core
    with the least free L1 decides). REFUTED gives that core's breakdown.

    >>> b = L1Budget(device="blackhole", reserved=119_936, buffers=[("other tensors", 194_816)])
    >>> print(check_l1_fit(1_310_720, b, name="wo shard CB").reason)
    each core: reserved 119,936 + other tensors 194,816 + wo shard CB 1,310,720 = 1,625,472 \
of 1,572,864 B L1 (52,608 B over; free L1 1,258,112 B, max L1 1,452,928 B)
    """
    start = time.perf_counter()
    core, budget = _tightest(subject, budget)
    where = "each core" if core is None else f"core {core}"
    if isinstance(subject, TensorSpec):
        if subject.storage != "L1":
            raise TTError(f"subject must be a tensor in L1; got storage {subject.storage}")
        size = subject.bytes_per_location
        if budget.free < 1:
            return _arith(False, str(subject.shape), budget.breakdown(name, size, where=where),
                          start, {"bytes": size}, assume=assume, timeout_ms=timeout_ms,
                          maps=[subject.page_map()])
        # the free L1 is a size, not an address: the tensor is judged by its bytes from its
        # own base address (the allocator places it), never by base_address + bytes
        verdict = check_fits_memory(subject, budget.free, size_only=True, assume=assume,
                                    timeout_ms=timeout_ms)
        where = where if core is not None else _core_text(verdict.counterexample)
        text = budget.breakdown(name, size, where=where)
        if verdict.proved:
            text = (f"{name} takes {size:,} B per core of the {budget.free:,} B free L1; "
                    f"{text}")
        return CheckResult(verdict.status, "fits_free_l1", verdict.subject,
                           verdict.counterexample, text, verdict.seconds, method=verdict.method)
    size = nonnegative_int(TTError, "subject", subject)
    fits = size <= budget.free
    return _arith(fits, f"{name} of {size:,} B", budget.breakdown(name, size, where=where), start,
                  None if fits else {"bytes": size}, assume=assume, timeout_ms=timeout_ms)


def _tightest(subject, budget) -> tuple[tuple[int, int] | None, L1Budget]:
    """The budget that decides: the one given, or the least free of the cores used."""
    if isinstance(budget, L1Budget):
        return None, budget
    if not isinstance(budget, dict) or not budget:
        raise TTError(f"budget must be an L1Budget or a dict {{(x, y): L1Budget}}; got "
                      f"{describe(budget)}")
    for core, each in budget.items():
        if not (isinstance(core, tuple) and len(core) == 2
                and all(is_int(c) and c >= 0 for c in core)):
            raise TTError(f"budget keys must be cores (x, y) of two ints >= 0; got key "
                          f"{describe(core)}")
        if not isinstance(each, L1Budget):
            raise TTError(f"budget[{core!r}] must be an L1Budget; got {describe(each)}")
    if isinstance(subject, TensorSpec) and subject.is_sharded:
        used = cores_in_order(subject.memory.grid, subject.memory.orientation)
        missing = [core for core in used if core not in budget]
        if missing:
            raise TTError(f"budget: core {missing[0]} holds a shard of the tensor but has no "
                          f"L1Budget; give one for each of its {len(used)} cores")
        cores = used
    else:
        cores = list(budget)
    core = min(cores, key=lambda c: (budget[c].free, c))
    return core, budget[core]


def guard_map(budget: L1Budget, guard: str = "free") -> IndexMap:
    """Every circular buffer size ``cb_bytes`` the guard admits (0 to its limit) ↦ the
    end of the CB region with it: inside ``[0, lowest buffer address]`` when it fits.
    A guard with a limit below 0 admits no size and has no map (``TTError``)."""
    _budget(budget, "guard_map")
    limit = budget.limit(guard)
    if limit < 0:
        raise TTError(f"guard_map: the {guard}-L1 guard of this budget admits no size (its "
                      f"limit is {limit:,} B), so there is no map of admitted sizes; got "
                      f"{budget.breakdown('nothing', 0)}")
    return _cb_map(budget, limit, f"CB sizes admitted by the {guard}-L1 guard (≤ {limit:,} B)")


def _cb_map(budget: L1Budget, limit: int, name: str) -> IndexMap:
    domain = Space(cb_bytes=limit + 1)
    return IndexMap(domain, Space(cb_region_end=budget.lowest_buffer_address + 1),
                    [budget.cb_region_end + domain.symbols[0]], name=name)


def check_l1_guard(budget: L1Budget, guard: str = "free", *, assume=(),
                   timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every size the guard admits fits (Z3 over all sizes): the "free" guard
    is sound, the "max" guard (tt-metal#54621) is REFUTED with a size it admits
    that clashes, and its breakdown. A guard admitting no size (limit below 0:
    no free L1) is PROVED without asking Z3."""
    _budget(budget, "check_l1_guard")
    limit = budget.limit(guard)
    if limit < 0:
        start = time.perf_counter()
        return _arith(True, f"CB sizes admitted by the {guard}-L1 guard (none)",
                      f"the {guard}-L1 guard admits no circular buffer at all (limit "
                      f"{limit:,} B < 0), so every size it admits fits: "
                      f"{budget.breakdown('nothing', 0)}", start, None,
                      check="l1_guard_sound", assume=assume, timeout_ms=timeout_ms)
    m = guard_map(budget, guard)
    verdict = check_in_bounds(m, assume=assume, timeout_ms=timeout_ms)
    reason = verdict.reason
    if verdict.refuted and verdict.counterexample:
        size = verdict.counterexample["cb_bytes"]
        reason = (f"the {guard}-L1 guard admits a {size:,} B circular buffer, whose region ends "
                  f"at {budget.cb_region_end + size:,}, above the lowest L1 buffer at "
                  f"{budget.lowest_buffer_address:,}: " + budget.breakdown("this CB", size))
    return CheckResult(verdict.status, "l1_guard_sound", m.label, verdict.counterexample,
                       reason, verdict.seconds, method=verdict.method)


def _arith(fits: bool, label: str, text: str, start: float, counterexample, *,
           check: str = "fits_free_l1", assume=(), timeout_ms: int, maps=()) -> CheckResult:
    """The verdict of plain arithmetic, once the door has said the assumptions
    can hold (under assumptions no size meets it is UNKNOWN)."""
    q.checked_assumptions(assume, set().union(*(m.parameters for m in maps)))  # MapError
    if assume:  # none given: no query, so the shipped budgets cost nothing more
        possible = q.assumptions_met(maps, assume=assume, timeout_ms=timeout_ms)
        if possible.answer == "unknown":
            return q.unknown(check, label, start, possible)
    return CheckResult(Status.PROVED if fits else Status.REFUTED, check, label,
                       counterexample, text, time.perf_counter() - start, method="arithmetic")


def _budget(value: object, where: str) -> L1Budget:
    if not isinstance(value, L1Budget):
        raise TTError(f"{where}: budget must be an L1Budget; got {describe(value)}")
    return value


def _core_text(counterexample) -> str:
    if counterexample and "core_x" in counterexample:
        return f"core ({counterexample['core_x']}, {counterexample['core_y']})"
    if counterexample and "bank" in counterexample:
        return f"L1 bank {counterexample['bank']}"
    return "each core"


def _entries(name: str, value) -> tuple[tuple[str, int], ...]:
    if isinstance(value, dict):
        value = list(value.items())
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TTError(f"{name} must be (name, bytes) pairs; got {describe(value)}")
    out = []
    for k, item in enumerate(value):
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)):
            raise TTError(f"{name}[{k}] must be a (name, bytes) pair; got {describe(item)}")
        out.append((item[0], nonnegative_int(TTError, f"{name}[{k}] bytes", item[1])))
    return tuple(out)


def _bytes_claim(budget, size, *, assume=(), timeout_ms=DEFAULT_TIMEOUT_MS):
    return check_l1_fit(size, budget, name="this buffer", assume=assume, timeout_ms=timeout_ms)


register_claim("fits_free_l1", check_l1_fit, index_map=False, arguments=(1, 1))
register_claim("l1_holds", _bytes_claim, index_map=False, arguments=(1, 1))
register_claim("l1_guard_sound", check_l1_guard, index_map=False, arguments=(0, 1))

__all__ = ["GUARDS", "L1Budget", "check_l1_fit", "check_l1_guard", "guard_map"]

