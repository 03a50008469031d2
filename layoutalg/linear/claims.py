"""Spec claims of the linear-layout family, registered when ``layoutalg.linear`` is imported.

| claim | arguments | check |
|---|---|---|
| ``linear_injective`` | — | :func:`~layoutalg.linear.check_injective` |
| ``linear_surjective`` | — | :func:`~layoutalg.linear.check_surjective` |
| ``linear_invertible`` | — | :func:`~layoutalg.linear.check_invertible` |
| ``linear_conversion`` | a (the layout converted into) | :func:`~layoutalg.linear.check_conversion` ``(a, subject)`` |
| ``linear_equivalent`` | other (LinearLayout, CuteLayout, IndexMap) | :func:`~layoutalg.linear.check_equivalent` |
| ``linear_bank_conflict_free`` | shared, element_bytes = 4 | :func:`~layoutalg.linear.check_bank_conflict_free` |

The subject is a :class:`~layoutalg.linear.LinearLayout`; the generic claims
(``"bijective"`` …) apply to it too, through its ``index_map()`` and Z3.
"""

from __future__ import annotations

from layoutalg.errors import SpecError, describe
from layoutalg.linear.banks import check_bank_conflict_free
from layoutalg.linear.checks import (
    check_conversion,
    check_injective,
    check_invertible,
    check_surjective,
)
from layoutalg.linear.equivalence import check_equivalent
from layoutalg.linear.layout import LinearLayout
from layoutalg.verify.claims import register_claim


def _plain(check):
    return lambda layout, *args, **_solver_options: check(layout, *args)


def _conversion(layout, a, **_solver_options):
    return check_conversion(a, layout)


def _banks(layout, shared, element_bytes=4, **_solver_options):
    return check_bank_conflict_free(layout, shared, element_bytes=element_bytes)


def _valid_layout(args: tuple) -> None:
    if not isinstance(args[0], LinearLayout):
        raise SpecError(f"this claim needs a LinearLayout argument; got {describe(args[0])}")


register_claim("linear_injective", _plain(check_injective), index_map=False)
register_claim("linear_surjective", _plain(check_surjective), index_map=False)
register_claim("linear_invertible", _plain(check_invertible), index_map=False)
register_claim("linear_conversion", _conversion, index_map=False, arguments=(1, 1),
               validate=_valid_layout)
register_claim("linear_equivalent", lambda layout, other, **_: check_equivalent(layout, other),
               index_map=False, arguments=(1, 1))
register_claim("linear_bank_conflict_free", _banks, index_map=False, arguments=(1, 2),
               validate=_valid_layout)
