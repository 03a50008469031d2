"""Errors of the Spyre family: each names the rule of a Spyre layout that was broken.

All subclass :class:`layoutalg.errors.LayoutError`, so callers catching the
toolkit's base error catch these too.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class SpyreError(LayoutError):
    """Bad input to a Spyre function: a size, stride, dtype or coordinate.

    Cause: an argument of the wrong type, length or range (a size of 0, a
    coordinate past the tensor, an unknown dtype). Fix: change the argument
    the message names.
    """


class StickSizeError(SpyreError):
    """The stick dim (the last device dim) does not hold one 128-byte stick.

    Cause: ``device_size[-1]`` differs from ``128 // itemsize`` (64 for
    float16/bfloat16, 32 for float32, 128 for int8). Fix: set the last
    device size to the elements per stick of the dtype.
    """


class DimMapError(SpyreError):
    """``dim_map`` breaks a rule: an entry outside ``range(-1, rank)``, a torch
    dim missing, or the synthetic dim ``-1`` repeated or not in the last place.

    Fix: list every torch dim of size > 1 at least once; use ``-1`` at most
    once, and only as the last (stick) entry of a sparse layout.
    """


class CoverageError(SpyreError):
    """The device dims of one torch dim hold fewer coordinates than its size.

    Cause: the product of ``device_size[k]`` over the ``k`` with
    ``dim_map[k] == d`` is less than ``size[d]``; some host element would
    have no device slot (the message names the first one). Fix: enlarge the
    outermost device dim of that torch dim (round up, padding is allowed).
    """


class StrideMapError(SpyreError):
    """A ``stride_map`` has no ``dim_map`` equivalent (or is malformed).

    Cause: a stride that is not a step of any torch dim, strides of one
    torch dim that do not grow right to left in mixed radix, or a ``-1``
    that can be neither the synthetic dim nor a size-1 torch dim. Fix: use
    the stride_map of a dim_map layout (``SpyreLayout.stride_map``).
    """


class TorchSpyreError(SpyreError):
    """A torch-spyre ``SpyreTensorLayout`` that torch-spyre's runtime cannot use.

    Cause: a field outside torch-spyre's contract (an unknown ``device_dtype``,
    a non-standard ``element_arrangement``, a malformed repr), or a layout
    whose device dims torch-spyre's DMA reads differently from what the
    ``stride_map`` says, so that it divides by zero (SIGFPE, torch-spyre#3401).
    Fix: as the message says; ``to_torch_spyre(default_layout(...))`` gives
    a layout the runtime reads as written.
    """


__all__ = ["CoverageError", "DimMapError", "SpyreError", "StickSizeError", "StrideMapError",
           "TorchSpyreError"]
