"""Triton linear layouts: maps over GF(2) from bases per input dimension.

    >>> import layoutalg as la
    >>> mma = la.linear.distributed(reg=[[0, 1], [8, 0]],
    ...                             lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])
    >>> la.linear.check_invertible(mma).status
    <Status.PROVED: 'PROVED'>

Checks decide by GF(2) rank (a complete proof for fixed power-of-two sizes);
enumeration twins are in ``tests/oracles/linear.py``. Importing this package
registers its spec claims (:mod:`layoutalg.linear.claims`); docs/linear.md
explains the model.
"""

from __future__ import annotations

from layoutalg.errors import ConversionError, LinearLayoutError
from layoutalg.linear import claims as _claims  # noqa: F401 - registers the spec claims
from layoutalg.linear.algebra import compose, convert, free_variable_masks
from layoutalg.linear.banks import (
    BankConflicts,
    bank_conflicts,
    check_bank_conflict_free,
    conversion_bank_conflicts,
)
from layoutalg.linear.checks import (
    check_conversion,
    check_injective,
    check_invertible,
    check_surjective,
)
from layoutalg.linear.encodings import blocked, swizzled_shared
from layoutalg.linear.equivalence import check_equivalent
from layoutalg.linear.layout import LinearLayout, distributed
from layoutalg.linear.text import parse_linear_layout

__all__ = [
    "BankConflicts",
    "ConversionError",
    "LinearLayout",
    "LinearLayoutError",
    "bank_conflicts",
    "blocked",
    "check_bank_conflict_free",
    "check_conversion",
    "check_equivalent",
    "check_injective",
    "check_invertible",
    "check_surjective",
    "compose",
    "conversion_bank_conflicts",
    "convert",
    "distributed",
    "free_variable_masks",
    "parse_linear_layout",
    "swizzled_shared",
]
