"""Errors of the emulated machine."""

from layoutalg.errors import LayoutError


class MachineError(LayoutError):
    """A machine was described with bad sizes, or data did not fit it.

    Cause: zero or negative memories or capacities, a layout whose memory
    dims do not match the machine, or a placement past a memory's capacity
    (the message names the memory and the bytes). Fix: as the message says.
    """


class CapacityError(MachineError):
    """Placing a layout would write past a memory's capacity.

    The message names the memory and the bytes, e.g.
    ``PE (0, 0) exceeds memory: 4194304 > 49152 bytes``.
    """


class PlacementError(MachineError):
    """A layout sends an element outside its own codomain (an in_bounds failure).

    The message names the element, the coordinate and its range. Fix the
    layout (``la.check_in_bounds`` shows the same element).
    """
