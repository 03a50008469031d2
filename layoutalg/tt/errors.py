"""Errors of the Tenstorrent family.

Messages name the argument, state the rule and end with the value given.
Where TT-Metal/TTNN rejects the same input, the message quotes the real
system's words too (``Invalid sharding core_grid``, ``Shard width 32 must
match physical width 64 for height sharded``), so users recognise it.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class TTError(LayoutError):
    """Bad input to a Tenstorrent layout: a tile shape the hardware has no
    faces for, an unknown dtype or device, a page that does not exist.

    Fix: change the argument the message names.
    """


class ShardSpecError(TTError):
    """A shard specification that does not fit the tensor or the device.

    Cause: the shard shape breaks the rule of its strategy (HEIGHT shards
    span the full width, WIDTH shards the full height), more shards than
    cores, a shard that is not tile sized, a grid larger than the device,
    or ``create_sharded_memory_config`` given a grid that does not divide
    the tensor. Fix: as the message says; it quotes TT-Metal's own check.
    """


__all__ = ["ShardSpecError", "TTError"]
