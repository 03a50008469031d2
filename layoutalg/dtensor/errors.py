"""The error of the DTensor bridge: a bad mesh, placement, shape or plan.

Every message names the argument, states the rule and ends with the value
given, e.g. ``placements[1]: Shard dim must lie in [-2, 2) for a rank-2
tensor; got Shard(dim=2)``.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class DTensorError(LayoutError):
    """A DTensor layout or redistribution plan was given a bad value.

    Cause: a mesh extent or tensor extent that is not a positive int (or a
    positive integer symbol), a placement layoutalg does not read (strided
    sharding, an unknown string), a placement count that differs from the
    mesh's rank, a Shard dim outside the tensor, a plan step that does not
    match the placement it transforms, or a question that needs concrete
    sizes (nested sharding of one tensor dim, an index to look up).
    Fix: change the argument the message names.
    """
