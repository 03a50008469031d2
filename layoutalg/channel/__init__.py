"""Memory-channel interleaving for tiled matmul (seed 003), and XOR swizzles.

    >>> import layoutalg as la
    >>> lay = la.channel.ChannelLayout("iteration_aware", num_channels=4, m_tiles=16,
    ...                                n_tiles=16, k_tiles=16, tile_bytes=64 * 64 * 4)
    >>> la.channel.check_conflict_free(lay, dataflow="os").status
    <Status.PROVED: 'PROVED'>
    >>> rr = la.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=16,
    ...                               n_tiles=16, k_tiles=16, tile_bytes=64 * 64 * 4)
    >>> la.channel.check_conflict_free(rr).reason
    'os (loop order ti → tj → tk, C resident), tile grain: conflict at (ti=0, tj=0, tk=0): A and B both use (channel=0)'

Importing it registers the spec claims (:mod:`layoutalg.channel.claims`);
``docs/channel.md`` explains the model.
"""

from __future__ import annotations

from layoutalg.channel import claims as _claims  # noqa: F401 - registers the spec claims
from layoutalg.channel.bank_model import NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT, BankModel
from layoutalg.channel.banks import (
    Banks,
    check_bank_conflict_free,
    check_bank_conflicts,
    worst_bank_conflict,
)
from layoutalg.channel.capacity import check_disjoint, check_fits
from layoutalg.channel.conflicts import check_conflict_free, check_single_channel
from layoutalg.channel.interleave import ByRange, Interleave
from layoutalg.channel.iteration import DATAFLOWS, GRAINS, LOOP_ORDERS, concurrent
from layoutalg.channel.layout import OPTIONS, ChannelLayout
from layoutalg.channel.load import (
    ChannelLoad,
    channel_load,
    check_channel_totals,
    check_load_balance,
)
from layoutalg.channel.smem_tiles import column_read, row_read, swizzled_tile
from layoutalg.channel.swizzle import Swizzle
from layoutalg.errors import ChannelError, SwizzleError

__all__ = [
    "DATAFLOWS", "GRAINS", "LOOP_ORDERS", "NVIDIA_32BIT", "NVIDIA_64BIT", "NVIDIA_128BIT",
    "OPTIONS", "BankModel", "Banks", "ByRange", "ChannelError", "ChannelLayout", "ChannelLoad",
    "Interleave", "Swizzle", "SwizzleError", "channel_load", "check_bank_conflict_free",
    "check_bank_conflicts", "check_channel_totals", "check_conflict_free", "check_disjoint",
    "check_fits", "check_load_balance", "check_single_channel", "column_read", "concurrent",
    "row_read", "swizzled_tile", "worst_bank_conflict"
]
