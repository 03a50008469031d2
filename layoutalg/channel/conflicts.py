"""Z3: do the tiles a schedule streams together sit on distinct channels?

Built on the generic :func:`layoutalg.check_conflict_free`: the iteration
space comes from :mod:`layoutalg.channel.iteration`, each concurrent matrix
is an access map from it to a byte address, and the layout's decoder is the
resource map. REFUTED carries the iteration ``ti, tj, tk`` (and the beat).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sympy

from layoutalg.channel.capacity import designed_is_exact
from layoutalg.channel.iteration import (
    byte_address,
    check_grain,
    concurrent,
    describe_dataflow,
    iteration_space,
    tile_of,
)
from layoutalg.channel.layout import ChannelLayout, require_layout
from layoutalg.channel.options import MATRICES
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_equivalent
from layoutalg.verify.conflicts import check_conflict_free as generic_conflict_free
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status


def check_conflict_free(layout: ChannelLayout, *, dataflow: str | Sequence[str] = "os",
                        grain: str = "tile", assume: Sequence[sympy.Basic] = (),
                        timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """In no iteration do two concurrently streamed tiles use one channel.

    ``dataflow``: ``"os"`` (A and B together), ``"ws"`` (A and C), ``"is"`` (B
    and C) or a tuple of matrix names; ``grain``: ``"tile"``, ``"beat"`` or
    ``"footprint"`` (:mod:`layoutalg.channel.iteration`); ``assume``: conditions
    on the symbolic sizes. REFUTED carries ``ti, tj, tk`` (plus the beats at
    the finer grains, and the sizes Z3 chose). A range-decoded layout with a
    symbolic capacity is first proved to fit its channels, so that designed
    channels can stand for decoded ones (see capacity.py). The package docstring
    shows a refuted round-robin layout."""
    layout = require_layout(layout, "check_conflict_free")
    matrices, grain = concurrent(dataflow), check_grain(grain)
    start = time.perf_counter()
    space = iteration_space(layout, dataflow, grain)
    label = dataflow if isinstance(dataflow, str) else "+".join(matrices)
    subject = f"{layout.label} [{label}, {grain} grain]"
    fit = designed_is_exact(layout, assume, timeout_ms)
    by_design = fit is not None and fit.proved
    # By design: every byte of every tile decodes to its designed channel
    # (capacity.py). Else each access goes straight to the channel its address
    # decodes to, the decoder applied as built (lazy Mod): the address map
    # followed by the decoder's channel map, without SymPy re-evaluating the
    # substituted address or testing the memory size's positivity (issue 17).
    accesses = {x: IndexMap(space, Space(channel=layout.num_channels), [
        layout.designed(x, *tile_of(x, space))[0] if by_design
        else layout.decoder.channel(byte_address(layout, x, space, grain))], name=x)
        for x in matrices}
    verdict = generic_conflict_free(space, accesses, None, subject=subject, assume=assume,
                                    timeout_ms=timeout_ms)
    note = "; tiles proved to fit their channels" if by_design else ""
    if fit is not None and not fit.proved and verdict.status is Status.UNKNOWN:
        note = (f"; with a symbolic capacity Z3 needs the tiles proved to fit their "
                f"channels first, and that is {fit.status}: {fit.reason}")
    return CheckResult(verdict.status, "channel_conflict_free", subject, verdict.counterexample,
                       f"{describe_dataflow(dataflow)}, {grain} grain: {verdict.reason}{note}",
                       time.perf_counter() - start)


def check_single_channel(layout: ChannelLayout, *, assume: Sequence[sympy.Basic] = (),
                         timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every byte of every tile is on the channel of the tile's base address (what makes
    the ``"tile"`` grain sound); REFUTED carries the tile, the beat whose channel
    differs, ``channel`` and ``base_channel``."""
    layout = require_layout(layout, "check_single_channel")
    start = time.perf_counter()
    fit = designed_is_exact(layout, assume, timeout_ms)
    if fit is not None and fit.proved:
        return q.result(Status.PROVED, "single_channel", layout.label, start,
                        reason="every tile lies inside its channel (proved to fit), so all "
                        "its bytes decode to the tile's channel")
    dec = layout.decoder
    for matrix in MATRICES:
        tiles = layout.tile_space(matrix)
        space = Space(*tiles.dims, ("beat", layout.beats))
        *tile, beat = space.symbols
        base = layout.address_of(matrix, *tile)
        channels = Space(channel=layout.num_channels)
        each = IndexMap(space, channels, [dec.channel(base + layout.interleave * beat)],
                        name=f"{matrix} beat channel")
        first = IndexMap(space, channels, [dec.channel(base)], name=f"{matrix} base channel")
        verdict = check_equivalent(each, first, assume=assume, timeout_ms=timeout_ms)
        if verdict.status is Status.UNKNOWN:
            return q.result(Status.UNKNOWN, "single_channel", layout.label, start,
                            reason=verdict.reason)
        if verdict.refuted:
            ce = verdict.counterexample
            env = {**{s: ce[n] for s, n in zip(space.symbols, space.names)},
                   **{p: ce[str(p)] for p in layout.parameters if str(p) in ce}}
            got, want = (int(sympy.sympify(m.exprs[0]).subs(env)) for m in (each, first))
            rows = ", ".join(f"{n}={ce[n]}" for n in tiles.names)
            return q.result(
                Status.REFUTED, "single_channel", layout.label, start,
                counterexample={**ce, "channel": got, "base_channel": want},
                reason=f"{matrix} tile ({rows}) is not on one channel: its beat {ce['beat']} "
                f"({layout.interleave} B granules) is on channel {got}, its base on channel "
                f"{want}")
    return q.result(Status.PROVED, "single_channel", layout.label, start,
                    reason="every byte of every tile is on the tile's base channel")


__all__ = ["check_conflict_free", "check_single_channel"]
