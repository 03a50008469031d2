"""The iteration space of a tiled matmul schedule, and which tiles it reads together.

One iteration ``(ti, tj, tk)`` of ``C += A × B`` touches ``A[ti, tk]``,
``B[tk, tj]`` and ``C[ti, tj]``. Every schedule visits the same
``m × n × k`` box; the loop order only decides which operand stays resident
in the PEs, and so which two tiles stream from memory *at the same time*:

| dataflow | loop order (outer → inner) | resident | streamed together |
|---|---|---|---|
| ``"os"`` output-stationary | ti → tj → tk | C | A, B |
| ``"ws"`` weight-stationary | tk → tj → ti | B | A, C (partial sums) |
| ``"is"`` input-stationary | tk → ti → tj | A | B, C (partial sums) |

A tuple of matrix names (``("A", "B", "C")``) names the concurrent set
directly. Loads that overlap *across* iterations (prefetching the next
tiles, draining C) are outside this model.

Two grains of concurrency:

- ``"tile"``: a tile is one access, on the channel of its base address (the
  seed's model). Sound only where every tile sits on one channel — see
  :func:`layoutalg.channel.check_single_channel`.
- ``"beat"``: the tiles stream in lockstep, one ``interleave``-byte granule
  per beat; iteration ``(ti, tj, tk, beat)`` reads granule ``beat`` of each.

and a third for whole-tile transfers in no particular beat order:
``"footprint"``: two tiles conflict if any granule of one shares a channel
with any granule of the other (dims ``beat_A``, ``beat_B``, …).
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
    order = LOOP_ORDERS.get(dataflow, ("ti", "tj", "tk")) if isinstance(dataflow, str) else (
        "ti", "tj", "tk")
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
    symbols = dict(zip(space.names, space.symbols))
    return tuple(symbols[d] for d in TILE_DIMS[matrix])


def byte_address(layout, matrix: str, space: Space, grain: str):
    """Address of the granule ``matrix`` reads at a point of ``space``."""
    row, col = tile_of(matrix, space)
    base = layout.address_of(matrix, row, col)
    beat = beat_dim(matrix, grain)
    if beat is None:
        return base
    symbols = dict(zip(space.names, space.symbols))
    return base + layout.interleave * symbols[beat]


__all__ = ["DATAFLOWS", "GRAINS", "LOOP_ORDERS", "RESIDENT", "concurrent", "iteration_space"]
