"""``check_fits``: every memory holds its share of the layout."""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent
from layoutalg.errors import MapError, describe
from layoutalg.validate import boolean, is_int, positive_int
from layoutalg.verify import query as q
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS, checked_timeout
from layoutalg.verify.result import CheckResult, Status, point_text


def memory_dims(m: IndexMap, per: Sequence[str] | None) -> tuple[list[int], list[int]]:
    """Positions of the dims naming a memory and of those addressing inside it.

    Default ``per``: every codomain dim but the last (the offset).
    """
    names = m.codomain.names
    if per is None:
        per = names[:-1]
    if isinstance(per, str):
        per = (per,)
    if not isinstance(per, Sequence):
        raise MapError(f"check_fits: per must name codomain dims of {m.codomain}; "
                       f"got {describe(per)}")
    unknown = [p for p in per if p not in names]
    if unknown:
        raise MapError(f"check_fits: per must name codomain dims of {m.codomain}; got {unknown}")
    memory = [names.index(p) for p in per]
    inside = [k for k in range(len(names)) if k not in memory]
    if not inside:
        raise MapError(f"check_fits: per={tuple(per)} leaves no offset dim in {m.codomain}")
    return memory, inside


def byte_end(flat, element_bytes: int, offsets_in_bytes: bool):
    """Bytes a memory needs to hold an element at in-memory offset ``flat``:
    ``(flat + 1)·element_bytes`` for element offsets, ``flat + element_bytes``
    for byte offsets. Works on SymPy expressions and NumPy arrays alike."""
    return flat + element_bytes if offsets_in_bytes else (flat + 1) * element_bytes


def flat_offset(m: IndexMap, image: Sequence, inside: list[int]):
    """The in-memory dims of ``image`` taken row-major."""
    return functools.reduce(lambda flat, k: flat * m.codomain.extents[k] + image[k], inside, 0)


def check_fits(
    m: IndexMap,
    capacity: Extent,
    *,
    per: Sequence[str] | None = None,
    element_bytes: int = 1,
    offsets_in_bytes: bool = False,
    memory_name: str = "memory",
    assume: Sequence[sympy.Basic] = (),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> CheckResult:
    """Every element's bytes end within ``capacity`` of its memory.

    Args:
        m: the layout; ``per`` names the codomain dims that pick a memory
            (default all but the last), the rest address inside it.
        capacity: bytes per memory (int or symbol).
        element_bytes: bytes per element.
        offsets_in_bytes: the offsets already count bytes (a ``scale``d map),
            so an element at offset ``o`` ends at ``o + element_bytes``.
        memory_name: how messages name a memory ("PE", "core", "bank").

    A REFUTED result names the fullest memory and its bytes, e.g.
    ``PE (0, 0) exceeds memory: 4194304 > 36864 bytes``.
    """
    if not isinstance(m, IndexMap):
        raise MapError(f"check_fits: m must be an IndexMap; got {describe(m)}")
    element_bytes = positive_int(MapError, "element_bytes", element_bytes, where="check_fits")
    if is_int(capacity):
        capacity = int(capacity)
    if isinstance(capacity, bool) or not isinstance(capacity, (int, sympy.Expr)):
        raise MapError(f"check_fits: capacity must be a number of bytes; got {describe(capacity)}")
    if capacity < 0 if isinstance(capacity, int) else capacity.is_negative:
        raise MapError(f"check_fits: capacity must be at least 0 bytes; got {describe(capacity)}")
    offsets_in_bytes = boolean(MapError, "offsets_in_bytes", offsets_in_bytes, where="check_fits")
    timeout_ms = checked_timeout(timeout_ms)
    memory, inside = memory_dims(m, per)
    start = time.perf_counter()
    x, bounds = q.unknowns(m.domain)
    image = q.images(m, x, bounds)
    need = sympy.sympify(byte_end(flat_offset(m, image, inside), element_bytes, offsets_in_bytes))
    sizes = _capacity_parameters(capacity)
    outcome = q.run(bounds, [sympy.Gt(need, capacity, evaluate=False)], [m], assume=assume,
                    timeout_ms=timeout_ms, parameters=sizes)
    if outcome.answer == "unsat":
        return q.result(Status.PROVED, "fits", m.label, start,
                        reason=f"every {memory_name} holds its share within {capacity} bytes")
    if outcome.answer == "unknown":
        return q.unknown("fits", m.label, start, outcome)
    params = {**q.parameter_values(outcome, [m]), **{p: outcome.model[p] for p in sizes}}
    point = q.point_of(outcome, x)
    if not params:
        worst = q.maximum(need, bounds, timeout_ms=timeout_ms)
        if worst is not None:
            point = tuple(worst[1][s] for s in x)
    bound = q.concrete(m, {p: v for p, v in params.items() if p in m.parameters})
    slot = bound(*point)
    # All at once and as SymPy Integers: a bare-symbol need must become a number too.
    values = {**dict(zip(x, point)), **params}
    bytes_needed = int(need.xreplace({s: sympy.Integer(v) for s, v in values.items()}))
    where = tuple(slot[k] for k in memory)
    label = where[0] if len(where) == 1 else where
    owner = f"{memory_name} {label}" if where else "the layout"
    cap = int(sympy.sympify(capacity).subs(params))
    return q.result(
        Status.REFUTED, "fits", m.label, start,
        counterexample={
            **q.named(m.domain.names, point),
            **{m.codomain.names[k]: int(slot[k]) for k in memory
               if m.codomain.names[k] not in m.domain.names},
            "bytes": bytes_needed,
            **{str(k): int(v) for k, v in params.items()},
        },
        reason=f"{owner} exceeds memory: {bytes_needed} > {cap} bytes "
        f"(element {point_text(m.domain.names, point)}){q.params_text(params)}",
    )


def _capacity_parameters(capacity) -> list[sympy.Symbol]:
    """The sizes a symbolic capacity mentions: positive integer symbols only."""
    symbols = sorted(sympy.sympify(capacity).free_symbols, key=str)
    for symbol in symbols:
        if not (symbol.is_integer and symbol.is_positive):
            raise MapError(f"check_fits: capacity may mention only positive integer sizes "
                           f"(declare them with layoutalg.extents); got {symbol} in {capacity}")
    return symbols
