"""``check_conflict_free``: accesses issued together never hit one resource."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence

import sympy

from layoutalg.core.index_map import IndexMap, substitute_exprs
from layoutalg.core.space import Space
from layoutalg.errors import MapError, describe
from layoutalg.validate import instance_of
from layoutalg.verify import query as q
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, point_text


def resource_exprs(space: Space, access: IndexMap, resource: IndexMap | None) -> tuple:
    """The resource an access uses, as expressions over the iteration symbols."""
    exprs = substitute_exprs(access.exprs, access.domain.symbols, space.symbols)
    if resource is None:
        return exprs
    return substitute_exprs(resource.exprs, resource.domain.symbols, exprs)


def validate(space, accesses, resource) -> dict[str, IndexMap]:
    instance_of(MapError, "space", space, Space, where="check_conflict_free")
    if resource is not None and not isinstance(resource, IndexMap):
        raise MapError(f"check_conflict_free: resource must be an IndexMap or None; "
                       f"got {describe(resource)}")
    if not isinstance(accesses, Mapping) or len(accesses) < 2:
        raise MapError(
            "check_conflict_free: accesses must map at least two names to IndexMaps; "
            f"got {describe(accesses)}"
        )
    for label, access in accesses.items():
        if not isinstance(access, IndexMap):
            raise MapError(f"check_conflict_free: access {label!r} must be an IndexMap; "
                           f"got {describe(access)}")
        if access.domain.rank != space.rank:
            raise MapError(f"check_conflict_free: access {label!r} must have the iteration "
                           f"space {space} as domain; got {access.domain}")
        if resource is not None and access.codomain.rank != resource.domain.rank:
            raise MapError(f"check_conflict_free: access {label!r} feeds resource map "
                           f"{resource.label}; ranks differ ({access.codomain.rank} vs "
                           f"{resource.domain.rank})")
    ranks = {label: access.codomain.rank for label, access in accesses.items()}
    if resource is None and len(set(ranks.values())) > 1:
        raise MapError("check_conflict_free: without a resource map the accesses' codomains "
                       "are the resources and must have one rank, compared coordinate by "
                       f"coordinate; got ranks {ranks}")
    return dict(accesses)


def check_conflict_free(
    space: Space,
    accesses: Mapping[str, IndexMap],
    resource: IndexMap | None = None,
    *,
    subject: str = "accesses",
    assume: Sequence[sympy.Basic] = (),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> CheckResult:
    """At no point of ``space`` do two accesses use the same resource.

    Args:
        space: the iteration space (e.g. ``Space(ti=…, tj=…, tk=…)``); its
            points are the groups of accesses issued together.
        accesses: name → map from ``space`` to an address (or directly to a
            resource when ``resource`` is None).
        resource: address → resource (channel, bank), applied to each access.

    REFUTED carries the iteration point (the space's names).
    """
    named = validate(space, accesses, resource)
    start = time.perf_counter()
    maps = list(named.values()) + ([resource] if resource is not None else [])
    used = {label: resource_exprs(space, access, resource) for label, access in named.items()}
    clashes = [
        q.all_of(*(q.eq(a, b) for a, b in zip(used[x], used[y])))
        for x, y in itertools.combinations(used, 2)
    ]
    _, bounds = q.unknowns(space)
    params = set().union(*(m.parameters for m in maps)) | space.parameters
    carrier = IndexMap(space, space, space.symbols, name=subject)
    outcome = q.run(bounds, [q.any_of(*clashes)], maps + [carrier], assume=assume,
                    timeout_ms=timeout_ms)
    return q.verdict(outcome, "conflict_free", subject, start,
                     proved=f"the {len(named)} accesses of every step use distinct resources",
                     refuted=lambda: _conflict(outcome, space, named, resource, used, params))


def _conflict(outcome, space, named, resource, used, params):
    """The step Z3 found, and the first two accesses that use one resource there."""
    values = {p: outcome.model[p] for p in params if p in outcome.model}
    point = q.point_of(outcome, space.symbols)
    env = {**dict(zip(space.symbols, point)), **values}
    resolved = {label: tuple(int(sympy.sympify(e).subs(env)) for e in exprs)
                for label, exprs in used.items()}
    first, second = next(
        (x, y) for x, y in itertools.combinations(resolved, 2) if resolved[x] == resolved[y]
    )
    names = resource.codomain.names if resource is not None else named[first].codomain.names
    return {
        "counterexample": {**q.named(space.names, point), **{str(k): v for k, v in values.items()}},
        "reason": f"conflict at {point_text(space.names, point)}: {first} and {second} both use "
        f"{point_text(names, resolved[first])}{q.params_text(values)}",
    }
