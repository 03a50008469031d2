"""Spec claims of the channel family, registered when ``layoutalg.channel`` is imported.

``channel_conflict_free`` (dataflow = "os", grain = "tile": :func:`check_conflict_free`),
``tiles_disjoint`` (:func:`check_disjoint`), ``channels_fit`` (capacity:
:func:`check_fits`), ``single_channel_tiles`` (:func:`check_single_channel`),
``channel_totals`` (totals, matrices: :func:`check_channel_totals`), ``load_balance``
(max_ratio, matrices: :func:`check_load_balance`) on a ``ChannelLayout``;
``bank_conflict_free`` (resource = Banks(), lane, method:
:func:`check_bank_conflict_free`) on an access map. ``bank_conflicts`` is defined
in ``channel/banks.py``.
"""

from __future__ import annotations

from layoutalg.channel.banks import Banks, check_bank_conflict_free
from layoutalg.channel.capacity import check_disjoint, check_fits
from layoutalg.channel.conflicts import check_conflict_free, check_single_channel
from layoutalg.channel.load import check_channel_totals, check_load_balance
from layoutalg.verify.claims import register_claim


def _conflict_free(layout, dataflow="os", grain="tile", **options):
    return check_conflict_free(layout, dataflow=dataflow, grain=grain, **options)


def _totals(layout, totals, matrices=("A", "B", "C"), **_solver_options):
    return check_channel_totals(layout, totals, matrices=matrices)


def _balance(layout, max_ratio, matrices=("A", "B", "C"), **_solver_options):
    return check_load_balance(layout, max_ratio, matrices=matrices)


def _banks(access, resource=None, lane="thread", method="auto", **options):
    return check_bank_conflict_free(access, Banks() if resource is None else resource,
                                    lane=lane, method=method, **options)


def register() -> None:
    register_claim("channel_conflict_free", _conflict_free, index_map=False, arguments=(0, 2))
    register_claim("tiles_disjoint", check_disjoint, index_map=False)
    register_claim("channels_fit", check_fits, index_map=False, arguments=(0, 1))
    register_claim("single_channel_tiles", check_single_channel, index_map=False)
    register_claim("channel_totals", _totals, index_map=False, arguments=(1, 2))
    register_claim("load_balance", _balance, index_map=False, arguments=(1, 2))
    register_claim("bank_conflict_free", _banks, index_map=True, arguments=(0, 3))


register()
