"""Errors raised for bad input: one base class, a few specific kinds.

Every message names the argument, states the rule and ends with the value
that was given, e.g. ``extent i must be a positive integer or a positive
integer symbol; got -3``.
"""

from __future__ import annotations


class LayoutError(ValueError):
    """Bad input to a layoutalg function.

    Cause: an argument breaks a stated rule (a negative extent, a rank
    mismatch, an unknown claim name). Fix: change the argument the message
    names; nothing is ever silently corrected.
    """


class SpaceError(LayoutError):
    """A ``Space`` was given a bad dimension name or extent.

    Fix: use identifier names and extents that are positive ints or
    positive integer SymPy symbols.
    """


class MapError(LayoutError):
    """An ``IndexMap`` or combinator was given inconsistent parts.

    Cause: an expression count that differs from the codomain rank, a
    symbol that belongs to neither the domain nor the extents, or a
    dimension name that does not exist. Fix: as the message says.
    """


class CompositionError(MapError):
    """``compose(first, then)`` was given maps that do not chain.

    Cause: ranks differ; some image of ``first`` lies outside its own
    codomain or outside the domain of ``then`` (the message shows one);
    Z3 did not decide whether it does (compose never assumes it); or
    ``then`` has padding to pull back, symbolic sizes and no inverse proved
    right, so compose cannot say which slots are real. Fix: pad or split
    ``then``'s domain, restrict ``first``, state assumptions or bind sizes,
    or give ``then`` a right inverse.
    """


class SpecError(LayoutError):
    """A spec is malformed: an unknown claim, a bad expectation, or a spec
    function that does not return a layout.

    Fix: claims are "injective", "in_bounds", "bijective", ("fits", bytes)
    or ("equivalent", other_map); expect is "PROVED" or "REFUTED".
    """


class OutputError(LayoutError):
    """A report, page or site cannot be written where it was asked for: the
    folder is not writable, is a file, or holds files layoutalg did not make.

    Fix: choose another path, or empty the folder yourself.
    """


class VerificationError(LayoutError):
    """A check cannot be asked of this layout (e.g. enumeration of a
    symbolic or too large layout by the brute-force twins).

    Fix: bind symbolic extents to numbers, or use the Z3 check.
    """


def describe(value: object) -> str:
    """Render a user value for an error message (``repr`` but short)."""
    text = repr(value)
    if len(text) > 120:
        text = text[:117] + "..."
    return text
