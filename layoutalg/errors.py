"""Errors raised for bad input: one base class, a few specific kinds.

Every message names the argument, states the rule and ends with the value
that was given, e.g. ``extent i must be a positive integer or a positive
integer symbol; got -3``.
"""

from __future__ import annotations


class LayoutError(ValueError):
    """Bad input: an argument breaks a stated rule (a negative extent, a rank
    mismatch, an unknown claim). Fix the argument the message names; nothing
    is ever silently corrected."""


class SpaceError(LayoutError):
    """A ``Space`` was given a bad dimension name or extent (names are
    identifiers, extents positive ints or positive integer symbols).
    Fix: rename the dimension or change the extent the message names."""


class MapError(LayoutError):
    """An ``IndexMap`` or combinator was given inconsistent parts: an
    expression count that differs from the codomain rank, a symbol of neither
    the domain nor the extents, or a dimension name that does not exist.
    Fix: as the message says."""


class UndefinedValueError(MapError):
    """An index expression was evaluated at a point where it has no value.

    Cause: a divisor is 0 there; ``x mod 0`` and ``x // 0`` have no value
    (Python raises ``ZeroDivisionError``; NumPy's rule would invent 0, which
    layoutalg never does). The message names the divisor, the first such
    point and the rule. Fix: keep the divisor nonzero on the domain (sizes
    that keep it positive, or a ``Piecewise`` branch that excludes 0).
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
    """A spec is malformed: an unknown claim (``layoutalg.runner.dsl.known_claims()``
    lists them), a bad expectation (``"PROVED"`` or ``"REFUTED"``), or a spec
    function that does not return a layout. Fix: as the message says."""


class OutputError(LayoutError):
    """A report, page or site cannot be written where asked: the folder is not
    writable, is a file, or holds files layoutalg did not make. Fix: choose
    another path, or empty the folder yourself."""


class VerificationError(LayoutError):
    """A check cannot be asked of this layout, e.g. enumeration of a symbolic
    or too large layout. Fix: bind the sizes to numbers, or use the Z3 check."""


def describe(value: object) -> str:
    """Render a user value for an error message (``repr`` but short)."""
    text = repr(value)
    if len(text) > 120:
        text = text[:117] + "..."
    return text


# -- the reference executor (execute) -----------------------------------------


class MachineError(LayoutError):
    """A machine was described with bad sizes (zero or negative memories or
    capacities, memory dims that do not match the layout), or data did not
    fit it. Fix: as the message says (it names the memory and the bytes)."""


class CapacityError(MachineError):
    """Placing a layout would write past a memory's capacity, e.g.
    ``PE (0, 0) exceeds memory: 4194304 > 49152 bytes``.
    Fix: spread the data over more memories, or use a smaller dtype."""


class PlacementError(MachineError):
    """A layout sends an element outside its own codomain (an in_bounds
    failure; ``la.check_in_bounds`` shows the same element). Fix: the layout
    (or its extents) so that every image lies in its codomain."""


# -- Cerebras PE mesh (mesh) --------------------------------------------------


class MeshError(LayoutError):
    """A mesh layout, shape, index, PE or wafer was given a bad value: a PE
    count that is not a positive int, a shape of rank 0, an index of the wrong
    rank or out of range. (A grid larger than a wafer is a layout; the
    ``on_wafer`` claim judges whether it fits one.) Fix: change the argument the message names."""


class PlanError(MeshError):
    """No layout within the constraints holds the tensor: it needs more PEs
    than the wafer allows at the data budget per PE. Fix: raise
    ``LayoutConstraints.data_bytes`` (up to SRAM minus code and stack), allow
    more PEs, or use a smaller dtype."""


class PEMemoryError(MeshError, CapacityError):
    """A PE's memory plan exceeds its data budget (the executor's
    :class:`CapacityError`, found by the planner before anything runs).

    The message reads like the seed's: ``PE (3, 7) exceeds memory: 40960 >
    36864 bytes``, followed by what is live at the peak. Fix: spread the
    tensors over more PEs, enable reuse (``strategy="linear_scan"``) or drop
    double buffering.
    """


class TransformError(MeshError):
    """A layout transform cannot be built for these layouts and shape
    (different PE-count limits for one tensor, or a custom layout too large
    to enumerate). Fix: as the message says."""


# -- memory channels and swizzles (channel) -----------------------------------


class ChannelError(LayoutError):
    """Bad input to a channel layout, decoder or channel check: an unknown
    option, matrix or dataflow name, a size that is not a positive integer,
    an odd channel count where the option pairs channels, a tile that is not a
    whole number of interleave beats, or a tile coordinate off the grid.
    Fix: change the argument the message names."""


class SwizzleError(ChannelError):
    """A CuTe ``Swizzle<B, M, S>`` or bank map with impossible parameters: a
    negative bit count or base, ``|S| < B`` (the XOR would read bits it also
    writes, which CuTe rejects with a static_assert), or a bank count or
    width that is not a positive int. Fix: as the message says."""


# -- PyTorch DTensor (dtensor) ------------------------------------------------


class DTensorError(LayoutError):
    """A DTensor layout or redistribution plan was given a bad value: an
    extent that is not a positive int (or positive integer symbol), a
    placement layoutalg does not read (strided sharding, an unknown string),
    a placement count other than the mesh's rank, a Shard dim outside the
    tensor, a plan step that does not match its placement, or a question that
    needs concrete sizes (nested sharding of one dim, an index to look up).
    Fix: change the argument the message names."""


# -- Triton linear layouts (linear) -------------------------------------------


class LinearLayoutError(LayoutError):
    """Bad input to a Triton linear layout or one of its checks: a dimension
    name that is not an identifier, a basis with the wrong number of values,
    a value negative or past its out dim's size, an out dim size that is not
    a power of two, dimension names that do not match, or an input point
    outside the layout. Fix: change the argument the message names."""


class ConversionError(LinearLayoutError):
    """``convert(a, b)`` (the layout ``a⁻¹∘b``) does not exist.

    Cause: ``a`` is not injective, so an element of ``b``'s image has two
    places in ``a`` (the message shows the two inputs of ``a``), or some
    element ``b`` holds is nowhere in ``a`` (the message shows the input of
    ``b``). Fix: choose an ``a`` that holds every element of ``b`` exactly
    once, or ask :func:`~layoutalg.linear.check_conversion` for the verdict.
    """


# -- matmul dataflows (dataflow) ----------------------------------------------


class DataflowError(LayoutError):
    """A dataflow model was given a bad argument: an unknown dataflow name, a
    non-positive size or tile, a tile larger than its dimension, a negative
    access cost, a capacity that is not a number of bytes, or a symbolic
    schedule where a concrete one is needed (enumeration, energy). Fix: as the message says."""


# -- Tenstorrent (tt) ---------------------------------------------------------


class TTError(LayoutError):
    """Bad input to a Tenstorrent layout: a tile shape the hardware has no
    faces for, an unknown dtype or device, a page that does not exist.
    Fix: change the argument the message names."""


class ShardSpecError(TTError):
    """A shard specification that does not fit the tensor or the device.

    Cause: the shard shape breaks the rule of its strategy (HEIGHT shards
    span the full width, WIDTH shards the full height), more shards than
    cores, a shard that is not tile sized, a grid larger than the device,
    or ``create_sharded_memory_config`` given a grid that does not divide
    the tensor. Fix: as the message says; it quotes TT-Metal's own check.
    """


# -- IBM Spyre (spyre) --------------------------------------------------------


class SpyreError(LayoutError):
    """Bad input to a Spyre function: a size, stride, dtype or coordinate of
    the wrong type, length or range (a size of 0, a coordinate past the
    tensor, an unknown dtype). Fix: change the argument the message names."""


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
    for which torch-spyre's copy computes a zero divisor from the
    ``stride_map`` (SIGFPE, torch-spyre#3401) or fails its own checks.
    Fix: as the message says; ``to_torch_spyre(default_layout(...))`` gives
    a layout torch-spyre's copy runs without dividing by zero.
    """
