"""Checks of the Tenstorrent family, each asked of Z3 over a page or element map
(the Z3 question of each: ``docs/tt.md``, "Checks and claims"). Brute-force
twins with the same names live in ``tests/oracles/tt.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import TTError, describe
from layoutalg.tt.maps import page_of_element_map
from layoutalg.tt.tensor import TensorSpec
from layoutalg.validate import boolean, instance_of, int_tuple, positive_int, positive_size
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_bijective, check_in_bounds, check_surjective
from layoutalg.verify.claims import register_claim
from layoutalg.verify.memory import check_fits
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status


def page_map_of(subject: object) -> IndexMap:
    """The page map of a ``TensorSpec``, or an ``IndexMap`` given as one."""
    if isinstance(subject, IndexMap):
        return subject
    if isinstance(subject, TensorSpec):
        return subject.page_map()
    raise TTError(f"subject must be a TensorSpec or a page IndexMap; got {describe(subject)}")


def location_key(where: object, dims: int) -> tuple[int, ...]:
    """``where`` as a tuple matching the map's location dims (bank, or x and y)."""
    values = (where,) if isinstance(where, int) and not isinstance(where, bool) else where
    if not (isinstance(values, (tuple, list)) and len(values) == dims and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)):
        wanted = "a bank (an int)" if dims == 1 else "a core (x, y)"
        raise TTError(f"where must be {wanted} for this layout; got {describe(where)}")
    return tuple(int(v) for v in values)


def page_set(pages: object) -> frozenset[int]:
    if isinstance(pages, (str, bytes)) or not isinstance(pages, Iterable):
        raise TTError(f"pages must be a collection of page ids; got {describe(pages)}")
    return frozenset(int_tuple(TTError, "pages", list(pages), least=0))


def place_text(m: IndexMap, key) -> str:
    names = m.codomain.names[:-1]
    return f"{names[0]} {key[0]}" if len(names) == 1 else f"core ({key[0]}, {key[1]})"


def holds_reason(m: IndexMap, key, claimed: frozenset[int], page: int, actual) -> str:
    here = place_text(m, key)
    if page in claimed:
        return f"page {page} is claimed on {here} but lies on {place_text(m, actual)}"
    return f"{here} also holds page {page}, which the claim leaves out"


def check_holds_pages(subject: object, where: object, pages: object, *, assume=(),
                      timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The bank or core ``where`` holds exactly the pages ``pages``
    (∃p: p ∈ pages ≠ location(p) = where).

    >>> from layoutalg.tt import TensorSpec, ShardSpec
    >>> spec = TensorSpec((128, 128), "bfloat16", memory=ShardSpec("BLOCK", (2, 2), (64, 64)),
    ...                   storage="L1")
    >>> check_holds_pages(spec, (1, 0), [2, 3, 6, 7]).status
    <Status.PROVED: 'PROVED'>
    """
    m = page_map_of(subject)
    key = location_key(where, m.codomain.rank - 1)
    claimed = page_set(pages)
    start = time.perf_counter()
    subject_label = f"{m.label} @ {place_text(m, key)}"
    x, bounds = q.unknowns(m.domain)
    (p,) = x
    image = q.images(m, x)
    here = sympy.And(*(q.eq(v, k) for v, k in zip(image[:-1], key)))
    listed = sympy.Or(*(q.eq(p, k) for k in sorted(claimed))) if claimed else sympy.false
    mismatch = sympy.Or(sympy.And(listed, sympy.Not(here)), sympy.And(sympy.Not(listed), here))
    outcome = q.run(bounds, [mismatch], [m], assume=assume, timeout_ms=timeout_ms)
    if outcome.answer == "unknown":
        return q.unknown("holds_pages", subject_label, start, outcome)
    beyond = sorted(k for k in claimed if k >= m.domain.extents[0])
    if outcome.answer == "unsat" and not beyond:
        return q.result(Status.PROVED, "holds_pages", subject_label, start,
                        reason=f"{place_text(m, key)} holds exactly pages {sorted(claimed)}")
    if outcome.answer == "unsat":
        return q.result(
            Status.REFUTED, "holds_pages", subject_label, start, counterexample={"page": beyond[0]},
            reason=f"page {beyond[0]} does not exist: the tensor has {m.domain.extents[0]} pages")
    page = q.point_of(outcome, x)[0]
    actual = m(page)[:-1]
    return q.result(
        Status.REFUTED, "holds_pages", subject_label, start,
        counterexample={"page": page, **dict(zip(m.codomain.names[:-1], actual))},
        reason=holds_reason(m, key, claimed, page, actual),
    )


def check_page_count(subject: object, count: int, *, assume=(),
                     timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The tensor has exactly ``count`` pages: every element lies on a page
    below ``count`` and every such page holds an element.

    >>> from layoutalg.tt import TensorSpec
    >>> check_page_count(TensorSpec((64, 64), "bfloat16"), 4).status
    <Status.PROVED: 'PROVED'>
    """
    count = positive_int(TTError, "count", count)
    instance_of(TTError, "subject", subject, TensorSpec)
    start = time.perf_counter()
    m = page_of_element_map(subject, pages=count)
    label = f"{m.label} has {count} pages"
    for check in (check_in_bounds, check_surjective):
        verdict = check(m, assume=assume, timeout_ms=timeout_ms)
        if verdict.status is Status.UNKNOWN:
            return q.result(Status.UNKNOWN, "page_count", label, start, reason=verdict.reason)
        if verdict.refuted:
            ce = verdict.counterexample
            if check is check_in_bounds:
                page = m(*(ce[n] for n in m.domain.names))[0]
                reason = (f"more than {count} pages: element "
                          f"{_point(m.domain.names, ce)} lies on page {page}")
            else:
                reason = f"fewer than {count} pages: page {ce['page']} holds no element"
            return q.result(Status.REFUTED, "page_count", label, start,
                            counterexample=ce, reason=reason)
    return q.result(Status.PROVED, "page_count", label, start,
                    reason=f"the elements fill exactly pages 0..{count - 1}")


def check_aligned(subject: object, alignment: int | None = None, *, assume=(),
                  timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every page (every domain point of a page map) starts at a multiple of
    ``alignment`` bytes (default: the device's alignment for the storage)."""
    m = page_map_of(subject)
    if alignment is None:
        if not isinstance(subject, TensorSpec):
            raise TTError("check_aligned: give alignment= for a bare IndexMap")
        alignment = subject.alignment
    alignment = positive_size(TTError, "alignment", alignment)
    if not isinstance(alignment, int):
        # a symbolic alignment becomes a parameter of the query (positive, in the model)
        m = m.assuming(sympy.Ge(alignment, 1, evaluate=False))
    start = time.perf_counter()
    x, bounds = q.unknowns(m.domain)
    address = q.images(m, x)[-1]
    outcome = q.run(bounds, [q.ne(address % alignment, 0)], [m], assume=assume,
                    timeout_ms=timeout_ms)
    return q.verdict(outcome, "aligned", m.label, start,
                     proved=f"every page starts at a multiple of {alignment} bytes",
                     refuted=lambda: _misaligned(m, outcome, x, alignment))


def _misaligned(m, outcome, x, alignment) -> dict:
    """The page Z3 found that starts off the alignment (and the sizes it chose)."""
    params = q.parameter_values(outcome, [m])
    point = q.point_of(outcome, x)
    where = q.concrete(m, params)(*point)
    bound = int(sympy.sympify(alignment).subs(params))
    return {
        "counterexample": {**q.named(m.domain.names, point), m.codomain.names[-1]: where[-1],
                           **{str(k): int(v) for k, v in params.items()}},
        "reason": f"{_point(m.domain.names, dict(zip(m.domain.names, point)))} starts at "
        f"address {where[-1]}, not a multiple of {bound}{q.params_text(params)}",
    }


def check_fits_memory(subject: object, capacity: int | None = None, *, size_only: bool = False,
                      assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Each bank or core holds its pages within ``capacity`` bytes (default:
    the device's L1 per core, or its DRAM bank size).

    ``capacity`` is where each memory ends: pages are judged by their
    addresses (``base_address`` included). With ``size_only=True`` it is a
    size (the free L1 a tensor may take wherever the allocator puts it): pages
    are judged by their bytes from the tensor's base address. Z3 looks for a
    page whose aligned slot ends past it and names the fullest core; the
    allocator reserves whole shards on every core, so a tensor smaller than
    one shard is also judged by its reservation.
    """
    instance_of(TTError, "subject", subject, TensorSpec)
    size_only = boolean(TTError, "size_only", size_only)
    cap = subject.capacity if capacity is None else capacity
    cap = positive_int(TTError, "capacity", cap, unit="bytes")
    start = subject.base_address if size_only else 0  # addresses compared with start + cap
    m = subject.page_map()
    per = m.codomain.names[:-1]
    memory_name = "bank" if len(per) == 1 else "core"
    verdict = check_fits(m, start + cap, per=per, element_bytes=subject.aligned_page_bytes,
                         offsets_in_bytes=True, memory_name=memory_name, assume=assume,
                         timeout_ms=timeout_ms)
    reserved = subject.base_address - start + subject.bytes_per_location
    if not verdict.proved or reserved <= cap:
        return verdict
    owner = "bank 0" if memory_name == "bank" else "core (0, 0)"
    what = "bytes" if size_only else "bytes (base address + reservation)"
    return CheckResult(
        Status.REFUTED, "fits", m.label, {"bytes": reserved},
        f"{owner} exceeds memory: {reserved} > {cap} {what} (the allocator reserves "
        f"{subject.slots_per_location} page slots of {subject.aligned_page_bytes} B on every "
        f"{memory_name}, padding included)", verdict.seconds, method="arithmetic")


def _point(names, values: dict) -> str:
    if names == ("page",):
        return f"page {values['page']}"
    return "(" + ", ".join(f"{n}={values[n]}" for n in names) + ")"


def check_pages_bijective(subject: object, *, assume=(),
                          timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The page map is a bijection from page ids onto the real page slots."""
    return check_bijective(page_map_of(subject), assume=assume, timeout_ms=timeout_ms)


register_claim("pages_bijective", check_pages_bijective, index_map=False)
register_claim("holds_pages", check_holds_pages, index_map=False, arguments=(2, 2))
register_claim("page_count", check_page_count, index_map=False, arguments=(1, 1))
register_claim("pages_aligned", check_aligned, index_map=False, arguments=(0, 1))
register_claim("fits_device", check_fits_memory, index_map=False, arguments=(0, 1))

__all__ = ["check_aligned", "check_fits_memory", "check_holds_pages", "check_page_count",
           "check_pages_bijective"]
