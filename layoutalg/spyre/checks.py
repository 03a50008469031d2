"""Spyre checks beyond the core ones (brute-force twins in ``tests/oracles/spyre.py``),
registered as claims ``("spyre_padding", count)`` and ``"spyre_stride_map"`` (or
``("spyre_stride_map", stride_map)``)."""

from __future__ import annotations

import time
from dataclasses import replace

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import SpyreError, describe
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.validate import instance_of
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_bijective, check_equivalent
from layoutalg.verify.claims import register_claim
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status


def check_padding(subject, expected, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS
                  ) -> CheckResult:
    """The layout has exactly ``expected`` padding slots.

    ``subject`` is a ``SpyreLayout`` or a host → device ``IndexMap`` (symbolic
    sizes allowed: ``expected`` is then a formula). Z3 first proves the map a
    bijection onto its valid slots, which makes ``|device| − |host|`` the exact
    count; a map that is not a bijection is REFUTED with the element lost or
    doubled.

    >>> from layoutalg.spyre import default_layout
    >>> check_padding(default_layout([100, 200], "float32"), 100 * 7 * 32 - 100 * 200).status
    <Status.PROVED: 'PROVED'>
    """
    m = _host_map(subject)
    start = time.perf_counter()
    shape = check_bijective(m, assume=assume, timeout_ms=timeout_ms)
    if not shape.proved:
        return q.result(shape.status, "spyre_padding", m.label, start,
                        counterexample=shape.counterexample,
                        reason=f"padding is not |device| − |host|: {shape.reason}")
    count = sympy.sympify(m.codomain.size) - sympy.sympify(m.domain.size)
    want = sympy.sympify(expected)
    # expand, not simplify (0.26 s over the shipped specs, the same answers): a
    # difference it cannot show 0 is decided by Z3 below
    if sympy.expand(count - want) == 0:
        return q.result(Status.PROVED, "spyre_padding", m.label, start,
                        reason=f"exactly {_text(count)} of {_text(m.codomain.size)} device "
                        f"slots are padding")
    if count.is_Integer and want.is_Integer:
        return q.result(Status.REFUTED, "spyre_padding", m.label, start,
                        counterexample={"padding": int(count)},
                        reason=f"{int(count)} of {m.codomain.size} device slots are padding, "
                        f"not {int(want)}")
    outcome = q.run([], [sympy.Ne(count, want)], [m], assume=assume, timeout_ms=timeout_ms)
    return q.verdict(outcome, "spyre_padding", m.label, start,
                     proved=f"exactly {_text(want)} device slots are padding",
                     refuted=lambda: _other_count(m, outcome, want))


def _other_count(m, outcome, want):
    """The sizes Z3 found at which the padding is not ``want``."""
    params = q.parameter_values(outcome, [m])
    bound = q.concrete(m, params)
    real = bound.codomain.size - bound.domain.size
    return {
        "counterexample": {**{str(k): int(v) for k, v in params.items()}, "padding": int(real)},
        "reason": f"{real} device slots are padding, not {_text(want.subs(params))}"
        f"{q.params_text(params)}",
    }


def check_stride_map(layout: SpyreLayout, stride_map=None, *, assume=(),
                     timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """``dot(device coordinate, stride_map)`` is the PyTorch offset of every
    host element (``layout.stride_map`` unless another is given).

    REFUTED names the host element whose offset comes out wrong.

    >>> from layoutalg.spyre import default_layout
    >>> s = default_layout([512, 256])
    >>> check_stride_map(s).status, check_stride_map(s, [64, 256, 2]).counterexample
    (<Status.PROVED: 'PROVED'>, {'h0': 0, 'h1': 1})
    """
    instance_of(SpyreError, "layout", layout, SpyreLayout, where="check_stride_map")
    via = layout.host_offset_map(stride_map)
    verdict = check_equivalent(via, layout.torch_layout.index_map(), assume=assume,
                               timeout_ms=timeout_ms)
    return replace(verdict, check="spyre_stride_map", subject=via.label)


def _host_map(subject) -> IndexMap:
    if isinstance(subject, SpyreLayout):
        return subject.index_map()
    if isinstance(subject, IndexMap):
        return subject
    raise SpyreError(f"check_padding: subject must be a SpyreLayout or an IndexMap; got "
                     f"{describe(subject)}")


def _text(value) -> str:
    value = sympy.sympify(value)
    return f"{int(value):,}" if value.is_Integer else str(value)


register_claim("spyre_padding", check_padding, index_map=False, arguments=(1, 1))
register_claim("spyre_stride_map", check_stride_map, index_map=False, arguments=(0, 1))

__all__ = ["check_padding", "check_stride_map"]
