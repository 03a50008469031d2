"""Claims: named checks a spec can ask for, defined beside what they check.

A claim is a frozen :class:`ClaimKind` made by :func:`claim` in the module
that owns its check (the core claims below; ``fits_pe`` in ``layoutalg.mesh``
…), known once that module is imported; the spec runner imports every family
before it calls a name unknown, so which claims exist never depends on
import order. Under the families, so they need not reach up to the runner.

>>> kind = claim_kind("bijective")
>>> kind.name, kind.index_map, kind.arguments
('bijective', True, (0, 0))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.laid_out import index_map_of, is_layout
from layoutalg.errors import SpecError, describe
from layoutalg.validate import is_bool, is_int
from layoutalg.verify import checks
from layoutalg.verify.cute_postconditions import check_layout_equivalent
from layoutalg.verify.memory import check_fits
from layoutalg.verify.parts import check_bijective_by_parts
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS


@dataclass(frozen=True)
class ClaimKind:
    """A named claim: its check, whether it wants an IndexMap, its arity.

    ``check(subject, *args, assume=..., timeout_ms=...)`` returns a
    CheckResult. With ``index_map=True`` a family object is converted with
    ``.index_map()`` first; else the object itself is passed. ``arguments``
    is the (least, most) number of arguments after the name;
    ``validate(args)`` raises SpecError where the spec is declared.
    """

    name: str
    check: Callable[..., Any]
    index_map: bool = True
    arguments: tuple[int, int] = (0, 0)
    validate: Callable[[tuple], None] | None = None

    def checked_arguments(self, args: tuple, written: object) -> None:
        """Raise SpecError unless ``args`` suit this claim (``written`` is shown)."""
        least, most = self.arguments
        if not least <= len(args) <= most:
            wanted = str(least) if least == most else f"{least} to {most}"
            raise SpecError(f"claim {self.name!r} takes {wanted} argument(s) after its name; "
                            f"got {describe(written)}")
        if self.validate is not None:
            self.validate(args)


_REGISTRY: dict[str, ClaimKind] = {}


def claim(
    name: str, check: Callable[..., Any], *, index_map: bool = True,
    arguments: tuple[int, int] = (0, 0),
    validate: Callable[[tuple], None] | None = None,
) -> ClaimKind:
    """Define the claim ``name`` (usable in ``claims=`` from now on) and return it."""
    if not isinstance(name, str) or not name.isidentifier():
        raise SpecError(f"a claim name must be an identifier; got {describe(name)}")
    _REGISTRY[name] = kind = ClaimKind(name, check, index_map, tuple(arguments), validate)
    return kind


#: The older name of :func:`claim` (families and users' code call it).
register_claim = claim


def claim_kind(name: str) -> ClaimKind | None:
    """The claim called ``name``, or None when no imported module defines it."""
    return _REGISTRY.get(name)


def claim_names() -> list[str]:
    """Names of the claims defined so far, sorted."""
    return sorted(_REGISTRY)


def forget_claim(name: str) -> None:
    """Remove a claim (tests that define throwaway claims clean up with this)."""
    _REGISTRY.pop(name, None)


# --- the core claims ---------------------------------------------------------

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
    for option, default, fits in (("element_bytes", 1, lambda v: is_int(v) and v >= 1),
                                  ("offsets_in_bytes", False, is_bool)):
        value = options.get(option, default)
        if not fits(value):
            raise SpecError(f"claim 'fits': option {option} must be "
                            f"{FITS_OPTIONS[option]}; got {describe(value)}")


def _fits(m, capacity, options=None, **kwargs):
    return check_fits(m, capacity, **(options or {}), **kwargs)


def _valid_equivalent(args: tuple) -> None:
    """``("equivalent", other)``: other an IndexMap, an object with
    ``.index_map()``, or a function of no arguments returning one."""
    other = args[0]
    if is_layout(other) or callable(other) and _takes_no_arguments(other):
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
    if callable(other) and not isinstance(other, IndexMap):
        other = other()
    other = index_map_of(other) or other
    return checks.check_equivalent(m, other, **kwargs)


claim("injective", checks.check_injective)
claim("in_bounds", checks.check_in_bounds)
claim("bijective", checks.check_bijective)
claim("surjective", checks.check_surjective)
claim("fits", _fits, arguments=(1, 2), validate=_valid_fits)
claim("equivalent", _equivalent, arguments=(1, 1), validate=_valid_equivalent)
claim("bijective_by_parts", check_bijective_by_parts, index_map=False)


def _cute_equivalent(subject, other, *, assume=(), timeout_ms=DEFAULT_TIMEOUT_MS):
    """Both CuTe layouts send every index to the same offset; layouts of different
    sizes are REFUTED ("sizes differ: 288 vs 384"), not an error. The spec's
    assumptions go with the question (contradictory ones: UNKNOWN)."""
    return check_layout_equivalent(subject, other, assume=assume, timeout_ms=timeout_ms)


claim("cute_equivalent", _cute_equivalent, index_map=False, arguments=(1, 1))
