"""Bank conflicts of lanes that access memory together (shared memory, channels).

An access map sends ``(step…, lane)`` to a byte address; the lanes (threads
of a warp, DMA streams) of one step issue together. Two lanes of a step
conflict when they hit one bank, ``(addr // bank_bytes) % num_banks``, at
different words (one word is a broadcast). An
:class:`~layoutalg.channel.interleave.Interleave` channel decoder (optionally
swizzled) can stand in for the banks; channels do not broadcast. 16-byte
vector accesses (``ld.shared.v4``, ``ldmatrix``) are served 8 lanes per
phase, each covering 4 consecutive banks: exactly ``Banks(8, 16)``.
:func:`check_bank_conflicts` states phases, access width, reads and writes
with a :class:`~layoutalg.channel.bank_model.BankModel` and reports degrees.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Sequence

import sympy

from layoutalg.channel import bank_brute
from layoutalg.channel.bank_brute import phase_degree
from layoutalg.channel.bank_model import BankModel, check_op
from layoutalg.channel.interleave import Interleave
from layoutalg.channel.resources import Banks, lane_of, resource_of, validate
from layoutalg.core.index_map import IndexMap, substitute_exprs
from layoutalg.core.tiling import remainder as mod
from layoutalg.errors import MapError, SwizzleError, describe
from layoutalg.validate import instance_of, is_int, one_of
from layoutalg.verify import query as q
from layoutalg.verify.claims import claim
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status, point_text

METHODS = ("auto", "z3", "enumeration")
ENUMERATION_LIMIT = 1 << 22


def check_bank_conflict_free(access: IndexMap, resource: Banks | Interleave = Banks(), *,
                             lane: str = "thread", method: str = "auto",
                             assume: Sequence[sympy.Basic] = (),
                             timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """No two lanes of one step use the same bank (at different words).

    ``access`` maps ``(step…, lane) → [byte address]``; ``resource`` is
    ``Banks(...)`` or an ``Interleave`` decoder; ``lane`` the dim whose points
    issue together. ``method``: ``"z3"`` asks Z3 only (UNKNOWN possible on a
    timeout), ``"enumeration"`` checks every point of a concrete map (at most
    2**22), ``"auto"`` asks Z3 and settles an UNKNOWN by enumeration; the
    result's ``method`` says which decided, the verdict is exact either way.
    REFUTED carries the step's dims, ``lane`` and the other lane (primed).

    >>> import layoutalg as la
    >>> space = la.Space(col=8, thread=8)           # 8 threads read column col
    >>> col, thread = space.symbols
    >>> plain = la.IndexMap(space, la.Space(addr=1024), [thread * 128 + col * 16])
    >>> check_bank_conflict_free(plain, Banks(8, 16)).counterexample
    {'col': 0, 'thread': 0, "thread'": 1}
    """
    position = validate(access, resource, lane, "check_bank_conflict_free")
    one_of(SwizzleError, "method", method, METHODS, where="check_bank_conflict_free")
    q.checked_assumptions(assume, access.parameters)  # MapError naming assume[k], any method
    start = time.perf_counter()
    subject = f"{access.label} on {resource}"
    if method == "enumeration":
        return _enumerated(access, resource, lane, subject, start, "", assume, timeout_ms)
    x, bounds = q.unknowns(access.domain)
    (a,) = q.images(access, x)
    (other,), (b,), more = _other_lanes(access, x, position, 1)
    # a == a, b == b: the addresses themselves go through the translation (only
    # their banks and words would otherwise), so a fractional address is UNKNOWN
    constraints = [sympy.Lt(x[position], other), q.eq(a, a), q.eq(b, b),
                   q.eq(resource_of(resource, a), resource_of(resource, b))]
    if isinstance(resource, Banks):
        constraints.append(q.ne(resource.word(a), resource.word(b)))
    outcome = q.run(bounds + more, constraints, [access], assume=assume, timeout_ms=timeout_ms)
    if (outcome.answer == "unknown" and method == "auto" and access.is_concrete
            and access.domain.size <= ENUMERATION_LIMIT):
        with contextlib.suppress(MapError):  # a map no evaluator takes: Z3's UNKNOWN stands
            return _enumerated(access, resource, lane, subject, start,
                               f"Z3: {outcome.reason}; ", assume, timeout_ms)

    def refuted():  # the two lanes' bytes and their bank, at the sizes Z3 chose
        point, second = q.point_of(outcome, x), int(outcome.model[other])
        params = q.parameter_values(outcome, [access])
        bound = q.concrete(access, params)
        first_addr = bound(*point)[0]
        second_addr = bound(*(point[:position] + (second,) + point[position + 1:]))[0]
        return {"counterexample": {**q.named(access.domain.names, point), f"{lane}'": second,
                                   **_sizes(params)},
                "reason": f"conflict at step {_step_text(access, lane, point)}: {lane} "
                f"{point[position]} (byte {first_addr}) and {lane} {second} (byte {second_addr}) "
                f"both use bank {int(resource_of(resource, first_addr))} of {resource}"
                f"{q.params_text(params)}"}

    return q.verdict(outcome, "bank_conflict_free", subject, start, refuted=refuted,
                     proved=f"the lanes of every step use distinct banks of {resource}")


def _enumerated(access, resource, lane, subject, start, note, assume, timeout_ms
                ) -> CheckResult:
    if not access.is_concrete or access.domain.size > ENUMERATION_LIMIT:
        raise SwizzleError(f"check_bank_conflict_free: enumeration needs a concrete access map "
                           f"of at most {ENUMERATION_LIMIT} points; got {access.domain}")
    if assume or access.assumptions:  # under assumptions no size meets: nothing proved
        possible = q.assumptions_met([access], assume=assume, timeout_ms=timeout_ms)
        if possible.answer == "unknown":
            return q.unknown("bank_conflict_free", subject, start, possible)
    exact = bank_brute.check_bank_conflict_free(access, resource, lane=lane)
    return CheckResult(exact.status, "bank_conflict_free", subject, exact.counterexample,
                       f"{note}decided by enumerating all {access.domain.size} points: "
                       f"{exact.reason}", time.perf_counter() - start, method="enumeration")


# -- the bank model: phases, access width, reads and writes --------------------------


def check_bank_conflicts(access: IndexMap, model: BankModel = BankModel(), *,
                         lane: str = "thread", op: str = "read", max_degree: int = 1,
                         assume: Sequence[sympy.Basic] = (),
                         timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """No bank serves more than ``max_degree`` accesses in one phase (1: conflict-free).

    ``access`` maps ``(step…, lane) → [byte address]``, sizes possibly symbolic;
    ``model`` gives banks, access width and phases; for ``op`` "read" or
    "write", whether lanes sharing a word make one access follows
    ``model.broadcast`` or ``model.merge_writes``. Decided by Z3, never by
    enumeration: unsat for ``max_degree + 1`` lanes of one phase on one bank at
    distinct words proves it for every size the assumptions allow. Every
    address must be a multiple of ``model.access_bytes`` (aligned, as the
    hardware requires); a misaligned one is REFUTED first. REFUTED carries the
    step, ``lane`` and ``lane'``, the ``bank``, the ``degree`` of the witness's
    phase (evaluated over its lanes) and the sizes Z3 chose.

    >>> import layoutalg as la
    >>> space = la.Space(col=8, row=32)           # 32 lanes read column col, 16 B each
    >>> col, row = space.symbols
    >>> plain = la.IndexMap(space, la.Space(addr=4096), [row * 128 + col * 16])
    >>> r = check_bank_conflicts(plain, BankModel(access_bytes=16), lane="row")
    >>> r.counterexample["degree"], r.counterexample["bank"]
    (8, 0)
    """
    position = lane_of(access, lane, "check_bank_conflicts")
    instance_of(SwizzleError, "model", model, BankModel, where="check_bank_conflicts")
    check_op(op)
    if not is_int(max_degree) or not 1 <= max_degree <= 32:
        raise SwizzleError(f"check_bank_conflicts: max_degree must be an int in [1, 32]; got "
                           f"{describe(max_degree)}")
    start = time.perf_counter()
    subject = f"{access.label} on {model} ({op})"
    x, bounds = q.unknowns(access.domain)
    (a,) = q.images(access, x)
    if model.access_bytes > 1:
        aligned = q.run(bounds, [q.ne(mod(a, model.access_bytes), 0)], [access],
                        assume=assume, timeout_ms=timeout_ms)
        if aligned.answer == "unknown":
            return q.unknown("bank_conflicts", subject, start, aligned)
        if aligned.answer == "sat":
            point, params = q.point_of(aligned, x), q.parameter_values(aligned, [access])
            where = q.concrete(access, params)(*point)[0]
            return q.result(Status.REFUTED, "bank_conflicts", subject, start,
                            counterexample={**q.named(access.domain.names, point),
                                            "address": int(where), **_sizes(params)},
                            reason=f"{lane} {point[position]} accesses byte {where}, not a "
                            f"multiple of the {model.access_bytes}-byte access"
                            f"{q.params_text(params)}")
    others, other_images, more = _other_lanes(access, x, position, max_degree)
    lanes, images, bounds = [x[position], *others], [a, *other_images], bounds + more
    constraints = [sympy.Lt(p, r) for p, r in itertools.pairwise(lanes)]
    constraints.append(q.eq(model.phase(lanes[0]), model.phase(lanes[-1])))
    constraints += [q.eq(model.bank(images[0]), model.bank(b)) for b in images[1:]]
    if model.shares(op):
        constraints += [q.ne(model.word(b), model.word(c))
                        for k, b in enumerate(images) for c in images[k + 1:]]
    outcome = q.run(bounds, constraints, [access], assume=assume, timeout_ms=timeout_ms)
    return q.verdict(outcome, "bank_conflicts", subject, start,
                     proved=f"in every phase each bank serves at most {max_degree} access(es)"
                     + (" (conflict-free)" if max_degree == 1 else ""),
                     refuted=lambda: _refuted(access, model, lane, op, outcome, x, lanes))


def worst_bank_conflict(access: IndexMap, model: BankModel = BankModel(), *,
                        lane: str = "thread", op: str = "read", assume: Sequence[sympy.Basic] = (),
                        timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The exact worst conflict degree over every step and phase (and every size):
    proves "at most d" for d = 1, then the degree of each witness found, until
    PROVED with ``counterexample["degree"] = d`` and a d-way witness (none for
    d = 1), or UNKNOWN.

    >>> import layoutalg as la
    >>> space = la.Space(thread=32)
    >>> (t,) = space.symbols
    >>> stride_2 = la.IndexMap(space, la.Space(addr=256), [8 * t])   # every other word
    >>> worst_bank_conflict(stride_2).counterexample["degree"]
    2
    """
    start = time.perf_counter()
    degree, witness, witness_text = 1, None, ""
    while True:
        result = check_bank_conflicts(access, model, lane=lane, op=op, max_degree=degree,
                                      assume=assume, timeout_ms=timeout_ms)
        if result.status is Status.UNKNOWN or (result.refuted and "degree" not in
                                               (result.counterexample or {})):
            return result  # undecided, or misaligned (no degree to speak of)
        if result.proved:
            found = {**(witness or {}), "degree": degree}
            reason = (f"the worst phase is {degree}-way (at most {degree} proved; "
                      f"{witness_text})" if witness else
                      "conflict-free: every bank serves one access per phase (proved)")
            return q.result(Status.PROVED, "worst_bank_conflict", result.subject, start,
                            counterexample=found, reason=reason)
        witness, witness_text = result.counterexample, result.reason
        degree = max(result.counterexample["degree"], degree + 1)


def _refuted(access, model, lane, op, outcome, x, lanes) -> dict:
    """The witness's lanes, bank and its phase's degree (evaluated)."""
    position = access.domain.index(lane)
    point = q.point_of(outcome, x)
    params = q.parameter_values(outcome, [access])
    bound = q.concrete(access, params)
    first, second = point[position], int(outcome.model[lanes[1]])
    extent = bound.domain.extents[position]
    low = model.phase(first) * model.lanes_per_phase
    phase_lanes = range(low, min(low + model.lanes_per_phase, extent))
    addresses = [int(bound(*(point[:position] + (k,) + point[position + 1:]))[0])
                 for k in phase_lanes]
    degree, _, _ = phase_degree(addresses, model, op)
    byte_a, byte_b = addresses[first - low], addresses[second - low]
    bank = int(model.bank(byte_a)) * (model.unit // model.bank_bytes)
    return {"counterexample": {**q.named(access.domain.names, point), f"{lane}'": second,
                               "bank": bank, "degree": degree, **_sizes(params)},
            "reason": f"{degree}-way conflict at step {_step_text(access, lane, point)}: {lane} "
            f"{first} (byte {byte_a}) and {lane} {second} (byte {byte_b}) both use bank {bank} "
            f"in phase {model.phase(first)}{q.params_text(params)}"}


def _other_lanes(access, x, position: int, count: int):
    """``count`` more lanes ``lane'``, ``lane''``… of the step of point ``x``: their
    symbols, the access map's address at each, and their bounds."""
    lane = access.domain.names[position]
    symbols = [sympy.Symbol(lane + "'" * k, integer=True, nonnegative=True)
               for k in range(1, count + 1)]
    images = [substitute_exprs(access.exprs, access.domain.symbols,
                               x[:position] + (s,) + x[position + 1:])[0] for s in symbols]
    extent = access.domain.extents[position]
    return symbols, images, [q.Bounded(s, 0, extent) for s in symbols]


def _sizes(params) -> dict[str, int]:
    return {str(k): int(v) for k, v in params.items()}


def _step_text(access, lane: str, point) -> str:
    steps = [n for n in access.domain.names if n != lane]
    return point_text(steps, [point[access.domain.index(n)] for n in steps])


def _bank_conflicts(access, model=None, lane="thread", op="read", max_degree=1, **options):
    return check_bank_conflicts(access, BankModel() if model is None else model, lane=lane,
                                op=op, max_degree=max_degree, **options)


claim("bank_conflicts", _bank_conflicts, index_map=True, arguments=(0, 4))

__all__ = ["Banks", "check_bank_conflict_free", "check_bank_conflicts", "worst_bank_conflict"]
