"""The spec DSL: a layout, the claims it must meet and the verdict expected.

    @la.spec(claims=["bijective", ("fits", 36864)], expect="PROVED")
    def grid_1024_on_32x32():
        \"\"\"PyFlame §3.2: [1024, 1024] fp32 on Grid(32, 32).\"\"\"
        return la.mesh.MeshLayout.grid(32, 32).index_map((1024, 1024))

A spec documenting a known-bad design expects "REFUTED". Families register
claims of their own with :func:`register_claim`.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from layoutalg.errors import SpecError, describe
from layoutalg.validate import is_bool, is_int

EXPECTATIONS = ("PROVED", "REFUTED")

@dataclass(frozen=True)
class ClaimKind:
    """A registered claim: its check, whether it wants an IndexMap, its arity."""

    check: Callable[..., Any]
    index_map: bool
    arguments: tuple[int, int]
    validate: Callable[[tuple], None] | None = None


_CLAIMS: dict[str, ClaimKind] = {}


def register_claim(
    name: str, check: Callable[..., Any], *, index_map: bool = True,
    arguments: tuple[int, int] = (0, 0),
    validate: Callable[[tuple], None] | None = None,
) -> None:
    """Make ``name`` usable in ``claims=``.

    ``check(subject, *args, assume=...)`` returns a CheckResult; with
    ``index_map=True`` the spec's value is converted with ``.index_map()``
    first, else the family object itself is passed. ``arguments`` is the
    (least, most) number of arguments the claim takes after its name;
    ``validate(args)`` raises SpecError for arguments of the wrong type or
    value, so the mistake is reported where the spec is declared.
    """
    _CLAIMS[name] = ClaimKind(check, index_map, arguments, validate)


#: The families whose modules register claims; loaded before a claim name is
#: called unknown, so which claims exist never depends on import order
#: (``la.spec(claims=["fits_pe"])`` works before anything touched ``la.mesh``).
CLAIM_FAMILIES = ("layoutalg.mesh", "layoutalg.spyre", "layoutalg.tt", "layoutalg.channel",
                  "layoutalg.dataflow", "layoutalg.dtensor")


def known_claims() -> list[str]:
    _register_core()
    _register_families()
    return sorted(_CLAIMS)


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
        shown = ", ".join(_short(a) for a in self.args)
        return f"{self.name}({shown})"


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
        """Call the spec function; it must return an IndexMap or a family object."""
        from layoutalg.core.index_map import IndexMap

        value = self.function()
        if isinstance(value, IndexMap) or hasattr(value, "index_map"):
            return value
        raise SpecError(
            f"spec {self.name} must return an IndexMap or an object with .index_map(); "
            f"got {describe(value)}"
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
    _register_core()
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
        return Spec(
            name=name or function.__name__,
            function=function,
            claims=parsed,
            doc=inspect.cleandoc(function.__doc__ or ""),
            assume=assume,
            timeout_ms=timeout_ms,
            source=source,
        )

    return decorate


def _checked_assume(assume: object) -> tuple:
    """``assume`` as a tuple of SymPy booleans, checked where the spec is declared."""
    from layoutalg.core.expr import as_condition
    from layoutalg.errors import MapError

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
    if name not in _CLAIMS:
        _register_families()
    if name not in _CLAIMS:
        raise SpecError(f"unknown claim {name!r}; known claims are {known_claims()}")
    least, most = _CLAIMS[name].arguments
    if not least <= len(args) <= most:
        wanted = str(least) if least == most else f"{least} to {most}"
        raise SpecError(
            f"claim {name!r} takes {wanted} argument(s) after its name; got {describe(claim)}"
        )
    if _CLAIMS[name].validate is not None:
        _CLAIMS[name].validate(args)
    return Claim(name, args, expect)


def run_claim(spec_: Spec, claim: Claim, subject: Any):
    """Check one claim on a built subject; returns a CheckResult."""
    kind = _CLAIMS[claim.name]
    target = subject.index_map() if kind.index_map and hasattr(subject, "index_map") else subject
    options = {"assume": spec_.assume}
    if spec_.timeout_ms is not None:
        options["timeout_ms"] = spec_.timeout_ms
    return kind.check(target, *claim.args, **options)


def _short(value: object) -> str:
    label = getattr(value, "label", None) or getattr(value, "name", None)
    if isinstance(label, str):
        return label
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


FITS_OPTIONS = {"per": "a tuple of dimension names", "element_bytes": "a positive int",
                "offsets_in_bytes": "True or False", "memory_name": "a string"}


def _valid_fits(args: tuple) -> None:
    """``("fits", capacity[, options])``: capacity a whole number of bytes
    (or a size expression), options a dict of check_fits's keywords."""
    capacity = args[0]
    if isinstance(capacity, bool) or not (is_int(capacity) or isinstance(capacity, sympy.Expr)):
        raise SpecError(f"claim 'fits': capacity must be a whole number of bytes; "
                        f"got {describe(capacity)}")
    if is_int(capacity) and capacity < 0:
        raise SpecError(f"claim 'fits': capacity must be at least 0 bytes; got {capacity}")
    options = args[1] if len(args) > 1 else {}
    if not isinstance(options, dict):
        raise SpecError(f"claim 'fits': options must be a dict such as "
                        f"{{'element_bytes': 2}}; got {describe(options)}")
    unknown = sorted(set(map(str, options)) - set(FITS_OPTIONS))
    if unknown:
        raise SpecError(f"claim 'fits': unknown option {unknown[0]!r}; the options are "
                        f"{', '.join(FITS_OPTIONS)}")
    size = options.get("element_bytes", 1)
    if not is_int(size) or size < 1:
        raise SpecError(f"claim 'fits': option element_bytes must be {FITS_OPTIONS['element_bytes']}; "
                        f"got {describe(size)}")
    flag = options.get("offsets_in_bytes", False)
    if not is_bool(flag):
        raise SpecError(f"claim 'fits': option offsets_in_bytes must be "
                        f"{FITS_OPTIONS['offsets_in_bytes']}; got {describe(flag)}")


def _fits(m, capacity, options=None, **kwargs):
    from layoutalg.verify.memory import check_fits

    return check_fits(m, capacity, **(options or {}), **kwargs)


def _valid_equivalent(args: tuple) -> None:
    """``("equivalent", other)``: other an IndexMap, an object with
    ``.index_map()``, or a function of no arguments returning one."""
    from layoutalg.core.index_map import IndexMap

    other = args[0]
    if isinstance(other, IndexMap) or hasattr(other, "index_map"):
        return
    if callable(other) and _takes_no_arguments(other):
        return
    raise SpecError(f"claim 'equivalent': the other layout must be an IndexMap, an object with "
                    f".index_map() or a function of no arguments returning one; "
                    f"got {describe(other)}")


def _takes_no_arguments(function: Callable) -> bool:
    try:
        inspect.signature(function).bind()
    except TypeError:
        return False
    except ValueError:  # no signature to read (some builtins): let the call decide
        return True
    return True


def _equivalent(m, other, **kwargs):
    from layoutalg.core.index_map import IndexMap
    from layoutalg.verify.checks import check_equivalent

    if callable(other) and not isinstance(other, IndexMap):
        other = other()
    if hasattr(other, "index_map") and not isinstance(other, IndexMap):
        other = other.index_map()
    return check_equivalent(m, other, **kwargs)


def _by_parts(chain, **kwargs):
    from layoutalg.verify.parts import check_bijective_by_parts

    return check_bijective_by_parts(chain, **kwargs)


def _register_core() -> None:
    if "bijective" in _CLAIMS:
        return
    from layoutalg.verify import checks

    register_claim("injective", checks.check_injective)
    register_claim("in_bounds", checks.check_in_bounds)
    register_claim("bijective", checks.check_bijective)
    register_claim("surjective", checks.check_surjective)
    register_claim("fits", _fits, arguments=(1, 2), validate=_valid_fits)
    register_claim("equivalent", _equivalent, arguments=(1, 1), validate=_valid_equivalent)
    register_claim("bijective_by_parts", _by_parts, index_map=False)
