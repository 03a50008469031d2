"""Brute-force twins of the Spyre checks: plain enumeration of small layouts.

They walk the layout through ``host_to_device`` / ``device_to_host`` (the
Python coordinate methods), not through the SymPy maps the Z3 checks use,
so the two sides share no code past the layout's fields.
"""

from __future__ import annotations

import itertools
import math
import time

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import VerificationError
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.verify import brute
from layoutalg.verify.result import CheckResult, Status, point_text

LIMIT = 1 << 16


def check_padding(subject, expected) -> CheckResult:
    """Enumerate: every host element on its own valid slot, every valid slot
    filled, and exactly ``expected`` slots left as padding."""
    start = time.perf_counter()
    if isinstance(subject, IndexMap):
        shape = brute.check_bijective(subject)
        if shape.refuted:
            return _result(Status.REFUTED, subject.label, start, shape.counterexample,
                           f"padding is not |device| − |host|: {shape.reason}")
        count = brute.padding(subject).count
        return _compare(subject.label, count, expected, start)
    layout = subject
    _small(layout)
    names = [f"h{k}" for k in range(layout.rank)]
    owner: dict[tuple[int, ...], tuple[int, ...]] = {}
    for host in itertools.product(*(range(n) for n in layout.size)):
        slot = layout.host_to_device(host) if _inside(layout, host) else None
        if slot is None or layout.device_to_host(slot) != host:
            return _result(Status.REFUTED, layout.label, start, dict(zip(names, host)),
                           f"padding is not |device| − |host|: host element "
                           f"{point_text(names, host)} has no slot of its own")
        if slot in owner:
            return _result(Status.REFUTED, layout.label, start, dict(zip(names, host)),
                           f"padding is not |device| − |host|: {point_text(names, owner[slot])} "
                           f"and {point_text(names, host)} share slot {slot}")
        owner[slot] = host
    empty = sum(1 for slot in itertools.product(*(range(n) for n in layout.device_size))
                if layout.device_to_host(slot) is None)
    return _compare(layout.label, empty, expected, start)


def check_stride_map(layout: SpyreLayout, stride_map=None) -> CheckResult:
    """Enumerate host elements: ``dot(host_to_device(h), stride_map)`` equals
    ``dot(h, stride)`` for each."""
    start = time.perf_counter()
    _small(layout)
    strides = layout.stride_map if stride_map is None else tuple(stride_map)
    names = [f"h{k}" for k in range(layout.rank)]
    for host in itertools.product(*(range(n) for n in layout.size)):
        device = layout.host_to_device(host)
        via = sum(c * s for c, s in zip(device, strides) if s != -1)
        torch = sum(h * s for h, s in zip(host, layout.stride))
        if via != torch:
            return _result(Status.REFUTED, layout.label, start, dict(zip(names, host)),
                           f"they differ at {point_text(names, host)}: stride_map gives "
                           f"{via}, torch strides give {torch}", check="spyre_stride_map")
    return _result(Status.PROVED, layout.label, start, None, "enumerated",
                   check="spyre_stride_map")


def _inside(layout: SpyreLayout, host) -> bool:
    """The device dims can hold this host element (a broken layout's cannot)."""
    slot = layout.host_to_device(host)
    return all(0 <= c < n for c, n in zip(slot, layout.device_size))


def _compare(label, count, expected, start) -> CheckResult:
    if count == expected:
        return _result(Status.PROVED, label, start, None, "enumerated")
    return _result(Status.REFUTED, label, start, {"padding": int(count)},
                   f"{count} device slots are padding, not {expected}")


def _small(layout: SpyreLayout) -> None:
    slots = math.prod(layout.device_size)
    if slots > LIMIT or layout.numel > LIMIT:
        raise VerificationError(f"enumeration of {layout.label} ({slots} device slots) exceeds "
                                f"the limit {LIMIT}")


def _result(status, subject, start, counterexample, reason, check="spyre_padding"):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


__all__ = ["check_padding", "check_stride_map"]
