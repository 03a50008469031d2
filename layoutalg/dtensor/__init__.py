"""PyTorch DTensor layouts and redistributions, proved (issue 16, item 1).

``DTensorLayout`` reads a mesh shape (or a ``DeviceMesh``), one placement per
mesh dim (``Shard(d)``: ``torch.chunk``'s rule; ``Replicate()``; ``Partial()``;
torch's objects, their printed forms or dicts) and a global shape (ints or
symbols), and builds the map element → (mesh coordinate, local index) from
the core combinators. ``check_exactly_once`` and ``check_local_shapes`` prove
it is torch's layout; ``check_redistribution`` proves a ``Redistribution``
delivers every element exactly once to the right local index, or names the
rank and element it loses (pytorch#194457: ``specs/dtensor.py``). torch is
never imported.

Importing this package registers the spec claims ``torch_local_shapes`` (a
DTensorLayout) and ``delivers`` (a Redistribution); ``bijective`` on a
DTensorLayout is its exactly-once claim.
"""

from __future__ import annotations

from layoutalg.core.laid_out import bridge
from layoutalg.dtensor import brute
from layoutalg.dtensor.checks import check_exactly_once, check_local_shapes, torch_rule_map
from layoutalg.dtensor.chunks import chunk, nested_chunk
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.placements import Partial, Placement, Replicate, Shard, placement, placements
from layoutalg.dtensor.plan import Redistribution, check_redistribution
from layoutalg.dtensor.planner import plan_redistribution
from layoutalg.dtensor.steps import AllGather, AllToAll, LocalChunk
from layoutalg.errors import DTensorError, describe
from layoutalg.verify.claims import register_claim

__all__ = [
    "AllGather", "AllToAll", "DTensorError", "DTensorLayout", "LocalChunk", "Partial",
    "Placement", "Redistribution", "Replicate", "Shard", "brute", "check_exactly_once",
    "check_local_shapes", "check_redistribution", "chunk", "nested_chunk", "placement",
    "placements", "plan_redistribution", "torch_rule_map",
]


def _claim(name: str, kind: type, check):
    """The claim ``name``: ``check`` on a spec's subject of type ``kind``."""

    def run(subject, *, assume=(), timeout_ms=None):
        if not isinstance(subject, kind):
            raise DTensorError(f"claim {name!r} applies to a {kind.__name__}; the spec returned "
                               f"{describe(subject)}")
        options = {} if timeout_ms is None else {"timeout_ms": timeout_ms}
        return check(subject, assume=assume, **options)
    return run


#: A spec may return a torch DTensor itself: its layout is read with DTensorLayout.of.
bridge("torch DTensor", "torch.distributed.tensor", "DTensor", DTensorLayout.of)
register_claim("torch_local_shapes", _claim("torch_local_shapes", DTensorLayout, check_local_shapes),
               index_map=False)
register_claim("delivers", _claim("delivers", Redistribution, check_redistribution),
               index_map=False)
