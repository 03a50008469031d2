"""The spec DSL: a layout, the claims it must meet and the verdict expected.

    @la.spec(claims=["bijective", ("fits", 36864)], expect="PROVED")
    def grid_1024_on_32x32():
        \"\"\"PyFlame §3.2: [1024, 1024] fp32 on Grid(32, 32).\"\"\"
        return la.mesh.MeshLayout.grid(32, 32).index_map((1024, 1024))

A spec documenting a known-bad design expects "REFUTED". Families register
their claims with :func:`layoutalg.verify.claims.claim`.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from layoutalg.core.expr import as_condition
from layoutalg.core.laid_out import LaidOut, bridges, from_framework, is_layout
from layoutalg.errors import MapError, SpecError, describe
from layoutalg.validate import is_int
from layoutalg.verify import query
from layoutalg.verify.claims import ClaimKind, claim, claim_kind, claim_names, register_claim

EXPECTATIONS = ("PROVED", "REFUTED")

#: The families whose modules register claims; loaded before a claim name is
#: called unknown, so which claims exist never depends on import order
#: (``la.spec(claims=["fits_pe"])`` works before anything touched ``la.mesh``).
CLAIM_FAMILIES = ("layoutalg.mesh", "layoutalg.spyre", "layoutalg.tt", "layoutalg.channel",
                  "layoutalg.dataflow", "layoutalg.dtensor", "layoutalg.linear")


def known_claims() -> list[str]:
    """Every claim name a spec may use (the core's and every family's)."""
    _register_families()
    return claim_names()


def _register_families() -> None:
    for family in CLAIM_FAMILIES:
        importlib.import_module(family)


@dataclass(frozen=True)
class Claim:
    """One claim of a spec: a check name, its arguments, the expected verdict."""

    name: str
    args: tuple = ()
    expect: str = "PROVED"

    @property
    def label(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({', '.join(_short(a) for a in self.args)})"


@dataclass(frozen=True, eq=False)
class Spec:
    """A decorated spec function with its claims (see :func:`spec`)."""

    name: str
    function: Callable[[], Any]
    claims: tuple[Claim, ...]
    doc: str
    assume: tuple = ()
    timeout_ms: int | None = None
    source: str = field(default="", repr=False)

    def __call__(self) -> Any:
        return self.function()

    def build(self) -> Any:
        """Call the spec function; it must return an IndexMap, a family layout, or a
        framework object a family bridges (a torch ``DTensor``, a ``pycute.Layout``)."""
        value = self.function()
        if is_layout(value):
            return value
        _register_families()
        bridged = from_framework(value)
        if bridged is not None:
            return bridged
        known = ", ".join(f"{b.framework} ({b.module}.{b.class_name})" for b in bridges())
        raise SpecError(
            f"spec {self.name} must return an IndexMap, an object with .index_map() or a "
            f"framework layout ({known}); got {describe(value)}"
        )

    @property
    def fingerprint(self) -> str:
        """Hash of the spec's source and claims (a cache key for proofs)."""
        text = self.source + repr([(c.name, c.args, c.expect) for c in self.claims])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def spec(
    *,
    claims: Sequence[object],
    expect: str | Sequence[str] = "PROVED",
    assume: Sequence[object] = (),
    name: str | None = None,
    timeout_ms: int | None = None,
) -> Callable[[Callable[[], Any]], Spec]:
    """Declare a spec: ``claims`` checked on what the function returns.

    Args:
        claims: names ("injective", "in_bounds", "bijective", family claims)
            or tuples ``(name, *args)`` such as ``("fits", 36864)`` or
            ``("equivalent", other_map)``.
        expect: "PROVED" or "REFUTED" for every claim, or one per claim.
        assume: SymPy conditions on the extent parameters.
        name: defaults to the function's name.
    """
    if timeout_ms is not None:
        if not is_int(timeout_ms) or timeout_ms < 1:
            raise SpecError(f"timeout_ms must be a positive whole number of milliseconds or "
                            f"None; got {describe(timeout_ms)}")
        timeout_ms = int(timeout_ms)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise SpecError(f"name must be a non-empty string; got {describe(name)}")
    if isinstance(claims, (str, bytes)) or not isinstance(claims, Sequence) or not claims:
        raise SpecError(f"claims must be a non-empty list of claims; got {describe(claims)}")
    if isinstance(expect, str):
        expects = [expect] * len(claims)
    elif isinstance(expect, (list, tuple)):
        expects = list(expect)
    else:
        raise SpecError(
            f"expect must be 'PROVED', 'REFUTED' or a list of them; got {describe(expect)}"
        )
    if len(expects) != len(claims):
        raise SpecError(
            f"expect must be one verdict or one per claim ({len(claims)}); got {describe(expect)}"
        )
    parsed = tuple(_parse_claim(c, e) for c, e in zip(claims, expects))
    assume = _checked_assume(assume)

    def decorate(function: Callable[[], Any]) -> Spec:
        if not callable(function):
            raise SpecError(f"@spec decorates a function; got {describe(function)}")
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            source = function.__qualname__
        return Spec(name or function.__name__, function, parsed,
                    inspect.cleandoc(function.__doc__ or ""), assume, timeout_ms, source)

    return decorate


def _checked_assume(assume: object) -> tuple:
    """``assume`` as a tuple of SymPy booleans, checked where the spec is declared."""
    if isinstance(assume, (str, bytes)) or not isinstance(assume, Sequence):
        raise SpecError(f"assume must be a sequence of SymPy booleans; got {describe(assume)}")
    for k, value in enumerate(assume):
        try:
            as_condition(value, f"assume[{k}]")
        except MapError as exc:
            raise SpecError(str(exc)) from None
    return tuple(assume)


def _parse_claim(claim: object, expect: object) -> Claim:
    if expect not in EXPECTATIONS:
        raise SpecError(f"expect must be one of {EXPECTATIONS}; got {describe(expect)}")
    if isinstance(claim, str):
        name, args = claim, ()
    elif isinstance(claim, tuple) and claim and isinstance(claim[0], str):
        name, args = claim[0], tuple(claim[1:])
    else:
        raise SpecError(f"a claim must be a name or a (name, *args) tuple; got {describe(claim)}")
    kind = claim_kind(name)
    if kind is None:
        _register_families()
        kind = claim_kind(name)
    if kind is None:
        raise SpecError(f"unknown claim {name!r}; known claims are {known_claims()}")
    kind.checked_arguments(args, claim)
    return Claim(name, args, expect)


def run_claim(spec_: Spec, claim: Claim, subject: Any, maps: dict | None = None):
    """Check one claim on a built subject; returns a CheckResult. ``maps``: a dict kept
    across the claims of one spec, holding the subject's ``index_map()`` once made, so
    its claims check one map (and what is learnt of it)."""
    kind = claim_kind(claim.name)
    maps = {} if maps is None else maps
    if spec_.assume:  # contradictory assumptions prove nothing, whatever the check reads
        if "assumptions" not in maps:
            symbols = set().union(*(sympy.sympify(a).free_symbols for a in spec_.assume))
            maps["assumptions"] = query.assumptions_met(
                assume=spec_.assume, parameters=symbols,
                timeout_ms=spec_.timeout_ms or query.DEFAULT_TIMEOUT_MS)
        if maps["assumptions"].answer == "unknown":
            return query.unknown(claim.name, _short(subject), time.perf_counter(),
                                 maps["assumptions"])
    if kind.index_map and isinstance(subject, LaidOut):
        if "index_map" not in maps:
            maps["index_map"] = subject.index_map()
        subject = maps["index_map"]
    options = {"assume": spec_.assume}
    if spec_.timeout_ms is not None:
        options["timeout_ms"] = spec_.timeout_ms
    return kind.check(subject, *claim.args, **options)


def _short(value: object) -> str:
    label = getattr(value, "label", None) or getattr(value, "name", None)
    if isinstance(label, str):
        return label
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


__all__ = ["EXPECTATIONS", "Claim", "ClaimKind", "Spec", "claim", "known_claims", "register_claim",
           "run_claim", "spec"]
