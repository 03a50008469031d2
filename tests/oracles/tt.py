"""Brute-force twins of the Tenstorrent checks: enumerate every page or element.

Same names, arguments and verdict meanings as ``layoutalg.tt.checks``; they
exist to be compared with Z3 in differential tests. They refuse layouts too
large to enumerate with ``VerificationError``.
"""

from __future__ import annotations

import time

import numpy as np

from layoutalg.errors import describe
from layoutalg.validate import is_int
from layoutalg.verify.brute import image_table
from layoutalg.verify.result import CheckResult, Status
from layoutalg.tt.checks import holds_reason, location_key, page_map_of, page_set, place_text
from layoutalg.errors import TTError


def _result(status, check, subject, start, counterexample=None, reason=""):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def check_holds_pages(subject: object, where: object, pages: object) -> CheckResult:
    m = page_map_of(subject)
    key = location_key(where, m.codomain.rank - 1)
    claimed = page_set(pages)
    start = time.perf_counter()
    label = f"{m.label} @ {place_text(m, key)}"
    xs, ys = image_table(m)
    here = np.all(ys[:, :-1] == np.asarray(key), axis=1)
    listed = np.isin(xs[:, 0], sorted(claimed))
    wrong = np.flatnonzero(here != listed)
    if wrong.size:
        page = int(xs[wrong[0], 0])
        actual = tuple(int(v) for v in ys[wrong[0], :-1])
        return _result(Status.REFUTED, "holds_pages", label, start,
                       {"page": page, **dict(zip(m.codomain.names[:-1], actual))},
                       holds_reason(m, key, claimed, page, actual))
    beyond = sorted(k for k in claimed if k >= len(xs))
    if beyond:
        return _result(Status.REFUTED, "holds_pages", label, start, {"page": beyond[0]},
                       f"page {beyond[0]} does not exist: the tensor has {len(xs)} pages")
    return _result(Status.PROVED, "holds_pages", label, start, reason="enumerated")


def check_page_count(subject: object, count: int) -> CheckResult:
    if not is_int(count) or count < 1:
        raise TTError(f"count must be a positive int; got {describe(count)}")
    count = int(count)
    from layoutalg.tt.maps import page_of_element_map

    start = time.perf_counter()
    m = page_of_element_map(subject, pages=count)
    label = f"{m.label} has {count} pages"
    xs, ys = image_table(m)
    past = np.flatnonzero(ys[:, 0] >= count)
    if past.size:
        point = dict(zip(m.domain.names, (int(v) for v in xs[past[0]])))
        return _result(Status.REFUTED, "page_count", label, start, point,
                       f"more than {count} pages: element lies on page {int(ys[past[0], 0])}")
    empty = sorted(set(range(count)) - set(ys[:, 0].tolist()))
    if empty:
        return _result(Status.REFUTED, "page_count", label, start, {"page": empty[0]},
                       f"fewer than {count} pages: page {empty[0]} holds no element")
    return _result(Status.PROVED, "page_count", label, start, reason="enumerated")


def check_aligned(subject: object, alignment: int | None = None) -> CheckResult:
    m = page_map_of(subject)
    if alignment is None:
        alignment = subject.alignment
    start = time.perf_counter()
    xs, ys = image_table(m)
    bad = np.flatnonzero(ys[:, -1] % alignment)
    if bad.size:
        point = dict(zip(m.domain.names, (int(v) for v in xs[bad[0]])))
        return _result(Status.REFUTED, "aligned", m.label, start,
                       {**point, m.codomain.names[-1]: int(ys[bad[0], -1])},
                       f"starts at address {int(ys[bad[0], -1])}, not a multiple of {alignment}")
    return _result(Status.PROVED, "aligned", m.label, start, reason="enumerated")


def check_fits_memory(subject: object, capacity: int | None = None) -> CheckResult:
    cap = subject.capacity if capacity is None else capacity
    m = subject.page_map()
    start = time.perf_counter()
    _, ys = image_table(m)
    ends = ys[:, -1] + subject.aligned_page_bytes
    reserved = subject.base_address + subject.bytes_per_location
    worst = int(ends.max())
    if worst > cap:
        k = int(np.argmax(ends))
        key = tuple(int(v) for v in ys[k, :-1])
        return _result(Status.REFUTED, "fits", m.label, start, {"bytes": worst},
                       f"{place_text(m, key)} exceeds memory: {worst} > {cap} bytes")
    if reserved > cap:
        return _result(Status.REFUTED, "fits", m.label, start, {"bytes": reserved},
                       f"every location reserves {reserved} > {cap} bytes")
    return _result(Status.PROVED, "fits", m.label, start, reason="enumerated")


__all__ = ["check_aligned", "check_fits_memory", "check_holds_pages", "check_page_count"]
