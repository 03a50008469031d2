"""Small concrete maps decided by enumeration, where ``query.shortcuts`` allows it.

Inside ``layoutalg prove`` a core check of a map with concrete sizes whose
domain (and, where the check reads it, codomain) has at most
``query.enumeration_limit()`` points is decided by listing every point with
the exact evaluator (``layoutalg.verify.exhaustive``, a second implementation
beside the test oracle ``layoutalg.verify.brute``): a complete answer, often
faster than one Z3 query. Elsewhere the limit is 0 and every check asks Z3.

Anywhere, a check that Z3 leaves UNKNOWN (a timeout, an operator outside
its vocabulary) on such a map of at most ``FALLBACK_UP_TO`` points is then
decided by enumeration (:func:`falls_back`), and its reason says so: a
verdict on six points must not depend on how fast Z3 is today.

A map is left to Z3 (which then keeps its guards) when anything is not
plainly concrete: a parameter, an assumption that is not literally true
(false assumptions are UNKNOWN there, never a vacuous pass), a ``valid``
over other symbols, rank 0, a divisor not known positive, or an expression
the evaluator refuses (``UndefinedValueError`` where a divisor is 0).
"""

from __future__ import annotations

import contextvars
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import sympy

from layoutalg.core.expr import Unsupported, divisors
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import LayoutError
from layoutalg.verify import exhaustive
from layoutalg.verify import query as q
from layoutalg.verify.result import CheckResult, Status

# check name -> (its twin, whether it lists the codomain too)
TWINS: dict[str, tuple[Callable[..., CheckResult | None], bool]] = {
    "in_bounds": (exhaustive.in_bounds, False),
    "injective": (exhaustive.injective, False),
    "images_valid": (exhaustive.images_valid, False),
    "surjective": (exhaustive.surjective, True),
    "bijective": (exhaustive.bijective, True),
    "equivalent": (exhaustive.equivalent, False),
}


FALLBACK_UP_TO = q.ENUMERATE_UP_TO
_OUTERMOST: contextvars.ContextVar[bool] = contextvars.ContextVar("outermost", default=True)


def falls_back(check: str) -> Callable:
    """Decorate the core check ``check``: where Z3 leaves it UNKNOWN on
    concrete maps small enough (as :func:`decide` judges, up to
    ``FALLBACK_UP_TO`` points), the enumerated verdict instead, labelled.
    Only the outermost check falls back (a check's parts keep Z3's answer),
    so a verdict is decided whole by one method."""

    def decorate(function: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        @functools.wraps(function)
        def checked(*maps, assume: Sequence[object] = (), **options) -> CheckResult:
            token = _OUTERMOST.set(False)
            try:
                result = function(*maps, assume=assume, **options)
            finally:
                _OUTERMOST.reset(token)
            if result.status is not Status.UNKNOWN or not _OUTERMOST.get():
                return result
            enumerated = decide(check, maps, assume, limit=FALLBACK_UP_TO,
                                proved=f"{check.replace('_', ' ')} at every point")
            if enumerated is None:
                return result
            return replace(enumerated, reason=f"{enumerated.reason}; decided by enumeration "
                                              f"after Z3 said unknown ({result.reason})")
        return checked
    return decorate


def decide(check: str, maps: Sequence[IndexMap], assume: Sequence[object], *,
           proved: str, limit: int | None = None) -> CheckResult | None:
    """The verdict of ``check`` on ``maps`` by enumeration, or None when the
    check must ask Z3 (not allowed here, not small, not plainly concrete).
    A PROVED verdict's reason is ``proved`` and says it was enumerated.
    ``limit``: the most points (default ``query.enumeration_limit()``)."""
    twin, lists_codomain = TWINS[check]
    limit = q.enumeration_limit() if limit is None else limit
    if not limit or not all(_small(m, limit, lists_codomain) for m in maps):
        return None
    if not all(a is sympy.true for a in q.checked_assumptions(assume, ())):
        return None
    try:
        verdict = twin(*maps)
    except (LayoutError, Unsupported, ArithmeticError, KeyError, TypeError, ValueError):
        return None  # the evaluator refuses it: Z3 decides (or says why not)
    if verdict is None:
        return None  # it declined (images too spread for one code): Z3 decides
    if verdict.proved:
        points = math.prod(maps[0].domain.extents)
        verdict = replace(verdict, reason=f"{proved} (enumeration: all {points} points)")
    return verdict


def _small(m: IndexMap, limit: int, lists_codomain: bool) -> bool:
    if m.parameters or not (m.domain.is_concrete and m.codomain.is_concrete):
        return False
    if m.domain.rank == 0 or m.codomain.rank == 0:
        return False
    if any(a is not sympy.true for a in m.assumptions):
        return False
    if m.valid is not None and not m.valid.free_symbols <= set(m.codomain.symbols):
        return False
    # The rule of the Z3 translation: a divisor not known positive (Mod(i, j) at
    # j = 0 has no value) is left to Z3, which answers UNKNOWN for it.
    exprs = (*m.exprs, m.valid) if m.valid is not None else m.exprs
    if not all(d.is_integer and d.is_positive for e in exprs for d in divisors(e)):
        return False
    size = math.prod(m.domain.extents)
    if lists_codomain:
        size = max(size, math.prod(m.codomain.extents))
    return size <= limit
