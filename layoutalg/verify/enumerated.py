"""Small concrete maps decided by enumeration, where ``query.shortcuts`` allows it.

Inside ``layoutalg prove`` a core check of a concrete map whose domain
(and, where the check reads it, codomain) has at most
``query.enumeration_limit()`` points lists every point with the exact
evaluator (``verify.exhaustive``, beside the test oracle ``verify.brute``).
Anywhere, one Z3 leaves UNKNOWN on such a map of at most ``FALLBACK_UP_TO``
points is then enumerated (:func:`falls_back`; docs/verification.md).

A map is left to Z3 (and its guards) when anything is not plainly concrete:
a parameter, an assumption not literally true (false ones are UNKNOWN there,
never a vacuous pass), a ``valid`` over other symbols, rank 0, a divisor not
known positive, or an expression the evaluator refuses.
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
    plain = (not m.parameters and m.domain.is_concrete and m.codomain.is_concrete
             and m.domain.rank and m.codomain.rank and all(a is sympy.true for a in m.assumptions)
             and (m.valid is None or m.valid.free_symbols <= set(m.codomain.symbols)))
    if not plain:
        return False
    # The rule of the Z3 translation: a divisor not known positive (Mod(i, j) at
    # j = 0 has no value) is left to Z3, which answers UNKNOWN for it.
    exprs = (*m.exprs, m.valid) if m.valid is not None else m.exprs
    if not all(d.is_integer and d.is_positive for e in exprs for d in divisors(e)):
        return False
    listed = (m.domain, m.codomain) if lists_codomain else (m.domain,)
    return max(math.prod(space.extents) for space in listed) <= limit
