"""layoutalg: tensor layouts on spatial accelerators, proved with Z3.

The public facade. Everything here is re-exported from small private-ish
modules; families live in subpackages (``layoutalg.mesh`` …) loaded on
first use so that ``import layoutalg`` stays light.
"""

from __future__ import annotations

import importlib

# First: SymPy's wrong integer rules are fixed before any expression is built.
import layoutalg.core.sympy_fixes  # noqa: F401, I001 - installs the fixes on import
from layoutalg.verify.combinators import (
    compose,
    cyclic,
    delinearize,
    fuse,
    identity,
    linearize,
    offset,
    pad,
    permute,
    rename,
    scale,
    split,
)
from layoutalg.core.bits import bit_and, bit_xor, shift_left, shift_right
from layoutalg.verify import cute_api as cute
from layoutalg.verify.chain import Chain
from layoutalg.core.cute import strided
from layoutalg.core.cute_layout import CuteLayout, parse_layout
from layoutalg.verify.cute_postconditions import check_layout_equivalent
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space, extents
from layoutalg.errors import (
    CompositionError,
    LayoutError,
    MapError,
    OutputError,
    SpaceError,
    SpecError,
    UndefinedValueError,
    VerificationError,
)
from layoutalg.runner.dsl import Spec, spec
from layoutalg.verify.checks import (
    check_bijective,
    check_equivalent,
    check_images_valid,
    check_in_bounds,
    check_injective,
    check_surjective,
)
from layoutalg.verify.conflicts import check_conflict_free
from layoutalg.verify.memory import check_fits
from layoutalg.verify.padding import padding
from layoutalg.verify.parts import check_bijective_by_parts
from layoutalg.verify.result import CheckResult, Padding, Status

__version__ = "0.1.0"

_FAMILIES = ("mesh", "spyre", "tt", "channel", "dataflow", "dtensor", "execute", "linear")

__all__ = [
    "Chain",
    "CheckResult",
    "CompositionError",
    "CuteLayout",
    "IndexMap",
    "LayoutError",
    "MapError",
    "Padding",
    "Space",
    "SpaceError",
    "OutputError",
    "Spec",
    "SpecError",
    "Status",
    "UndefinedValueError",
    "VerificationError",
    "bit_and",
    "bit_xor",
    "check_bijective",
    "check_bijective_by_parts",
    "check_conflict_free",
    "check_equivalent",
    "check_fits",
    "check_images_valid",
    "check_in_bounds",
    "check_injective",
    "check_layout_equivalent",
    "check_surjective",
    "compose",
    "cute",
    "cyclic",
    "delinearize",
    "extents",
    "fuse",
    "identity",
    "linearize",
    "offset",
    "pad",
    "padding",
    "parse_layout",
    "permute",
    "rename",
    "scale",
    "shift_left",
    "shift_right",
    "spec",
    "split",
    "strided",
]


def __getattr__(name: str):
    if name in _FAMILIES:
        try:
            return importlib.import_module(f"layoutalg.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"layoutalg.{name}":
                raise AttributeError(f"layoutalg.{name} is not built yet") from None
            raise
    raise AttributeError(f"module 'layoutalg' has no attribute {name!r}")
