"""CuTe in one namespace, as pycute offers it: ``la.cute.composition(a, b)``.

Re-exports the layout value (:mod:`~layoutalg.core.cute_layout`), the
algebra (:mod:`~layoutalg.core.cute_algebra`), the divides and products
(:mod:`~layoutalg.core.cute_tiling`) and the proofs of their
postconditions (:mod:`~layoutalg.verify.cute_postconditions`); it lives in
``verify`` because of those proofs.

>>> from layoutalg.verify import cute_api as cute
>>> r = cute.composition("(6,2):(8,2)", "(4,3):(3,1)")
>>> str(r), cute.prove_composition("(6,2):(8,2)", "(4,3):(3,1)", r).status.value
('((2,2),3):((24,2),8)', 'PROVED')
"""

from layoutalg.core.cute_algebra import (
    coalesce,
    complement,
    composition,
    cosize,
    filter_layout,
    left_inverse,
    make_layout,
    right_inverse,
    size,
)
from layoutalg.core.cute_layout import CuteLayout, parse_layout
from layoutalg.core.cute_tiling import (
    blocked_product,
    logical_divide,
    logical_product,
    raked_product,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)
from layoutalg.verify.cute_postconditions import (
    check_layout_equivalent,
    prove_blocked_product,
    prove_coalesce,
    prove_complement,
    prove_composition,
    prove_left_inverse,
    prove_logical_divide,
    prove_logical_product,
    prove_raked_product,
    prove_right_inverse,
    prove_tiled_divide,
    prove_zipped_divide,
)

__all__ = [
    "CuteLayout", "blocked_product", "check_layout_equivalent", "coalesce", "complement",
    "composition", "cosize", "filter_layout", "left_inverse", "logical_divide",
    "logical_product", "make_layout", "parse_layout", "prove_blocked_product", "prove_coalesce",
    "prove_complement", "prove_composition", "prove_left_inverse", "prove_logical_divide",
    "prove_logical_product", "prove_raked_product", "prove_right_inverse", "prove_tiled_divide",
    "prove_zipped_divide", "raked_product", "right_inverse", "size", "tiled_divide",
    "tiled_product", "zipped_divide", "zipped_product",
]
