"""The iteration space of a tiled matmul schedule, and which tiles it reads together.

One iteration ``(ti, tj, tk)`` touches ``A[ti, tk]``, ``B[tk, tj]`` and
``C[ti, tj]``; the loop order (``LOOP_ORDERS``) decides which operand stays
resident (``RESIDENT``) and so which tiles stream together (``DATAFLOWS``;
a tuple of matrix names names the set directly). Grains (``GRAINS``):
``"tile"`` (one access on the base address's channel, sound where
:func:`layoutalg.channel.check_single_channel` holds), ``"beat"`` (granules
in lockstep, dim ``beat``) and ``"footprint"`` (any granule against any,
dims ``beat_A``…). ``docs/channel.md`` has the tables; loads that overlap
across iterations are outside the model.
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutalg.channel.options import MATRICES, TILE_DIMS
from layoutalg.core.space import Space
from layoutalg.errors import ChannelError, describe
from layoutalg.validate import one_of

DATAFLOWS = {"os": ("A", "B"), "ws": ("A", "C"), "is": ("B", "C")}
LOOP_ORDERS = {"os": ("ti", "tj", "tk"), "ws": ("tk", "tj", "ti"), "is": ("tk", "ti", "tj")}
RESIDENT = {"os": "C", "ws": "B", "is": "A"}
GRAINS = ("tile", "beat", "footprint")


def concurrent(dataflow: str | Sequence[str]) -> tuple[str, ...]:
    """The matrices streamed together under ``dataflow``.

    >>> concurrent("ws")
    ('A', 'C')
    """
    if isinstance(dataflow, str):
        if dataflow not in DATAFLOWS:
            raise ChannelError(f"dataflow must be one of {tuple(DATAFLOWS)} or a tuple of "
                               f"matrix names; got {dataflow!r}")
        return DATAFLOWS[dataflow]
    names = tuple(dataflow) if isinstance(dataflow, (tuple, list)) else None
    if (names is None or len(names) < 2 or len(set(names)) != len(names)
            or any(n not in MATRICES for n in names)):
        raise ChannelError(f"dataflow must be one of {tuple(DATAFLOWS)} or a tuple of at least "
                           f"two distinct names from {MATRICES}; got {describe(dataflow)}")
    return names


def check_grain(grain: object) -> str:
    return one_of(ChannelError, "grain", grain, GRAINS)


def describe_dataflow(dataflow) -> str:
    if isinstance(dataflow, str):
        order = " → ".join(LOOP_ORDERS[dataflow])
        return f"{dataflow} (loop order {order}, {RESIDENT[dataflow]} resident)"
    return "concurrent " + ", ".join(concurrent(dataflow))


def iteration_space(layout, dataflow, grain: str) -> Space:
    """``(ti, tj, tk)`` in the dataflow's loop order, plus the beat dims of the grain."""
    matrices = concurrent(dataflow)
    order = LOOP_ORDERS[dataflow] if isinstance(dataflow, str) else ("ti", "tj", "tk")
    sizes = {"ti": layout.m_tiles, "tj": layout.n_tiles, "tk": layout.k_tiles}
    dims = [(d, sizes[d]) for d in order]
    if grain == "beat":
        dims.append(("beat", layout.beats))
    elif grain == "footprint":
        dims.extend((f"beat_{x}", layout.beats) for x in matrices)
    return Space(*dims)


def beat_dim(matrix: str, grain: str) -> str | None:
    return {"tile": None, "beat": "beat", "footprint": f"beat_{matrix}"}[grain]


def tile_of(matrix: str, space: Space):
    """The ``(row, col)`` symbols of ``matrix``'s tile at an iteration of ``space``."""
    return tuple(space.symbols[space.index(d)] for d in TILE_DIMS[matrix])


def byte_address(layout, matrix: str, space: Space, grain: str):
    """Address of the granule ``matrix`` reads at a point of ``space``."""
    base, beat = layout.address_of(matrix, *tile_of(matrix, space)), beat_dim(matrix, grain)
    return base if beat is None else base + layout.interleave * space.symbols[space.index(beat)]


__all__ = ["DATAFLOWS", "GRAINS", "LOOP_ORDERS", "RESIDENT", "concurrent", "iteration_space"]
