"""Z3 checks of where tiles sit: each channel's share fits, tile ranges never overlap.

For the range-decoded options (``matrix``, ``iteration_aware``) the design
names a channel and an offset for every tile; the address is
``channel·channel_bytes + offset``. When every tile fits inside its
channel (offset + tile_bytes ≤ channel_bytes, the channel inside the
matrix's group), decoding that address gives back exactly the designed
channel for every byte of the tile. Symbolic sizes make the decode
(``addr // channel_bytes`` with a symbolic capacity) nonlinear, so the
checks first prove the fit — linear, fast — and then reason on designed
channels and offsets; :func:`designed_is_exact` is that first step.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

import sympy

from layoutalg.channel import options as opt
from layoutalg.channel.layout import require_layout
from layoutalg.channel.options import MATRICES
from layoutalg.errors import ChannelError, describe
from layoutalg.validate import is_int, is_symbolic
from layoutalg.verify import query as q
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status, point_text


def solve(layout, bounds, constraints, assume, timeout_ms) -> q.Outcome:
    """One Z3 query with the layout's parameters (each ≥ 1) and ``assume`` in force."""
    return q.ask(bounds, constraints, parameters=layout.parameters, assumptions=assume,
                 timeout_ms=timeout_ms)


def parameter_values(layout, outcome) -> dict[str, int]:
    return {str(p): int(outcome.model[p]) for p in layout.parameters if p in outcome.model}


def check_fits(layout, capacity: int | None = None, *, assume: Sequence[sympy.Basic] = (),
               timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Each channel's share fits its capacity (default ``layout.channel_bytes``).

    Range-decoded options: every tile lies inside its designed channel
    (offset + tile_bytes ≤ capacity) and that channel inside its matrix's
    channel group. Interleaved options: every granule's offset inside its
    channel ends within the capacity. REFUTED names the tile (and beat).

    >>> from layoutalg.channel import ChannelLayout
    >>> lay = ChannelLayout("matrix", num_channels=4, m_tiles=16, n_tiles=16, k_tiles=16,
    ...                     tile_bytes=16384, channel_bytes=3 << 20)
    >>> print(check_fits(lay).reason)    # doctest: +ELLIPSIS
    B tile (tk=..., tj=...) lands on channel 3, outside the channels its design gives B ...
    """
    layout = require_layout(layout, "check_fits")
    start = time.perf_counter()
    cap = layout.channel_bytes if capacity is None else capacity
    if is_int(cap):  # NumPy integers are as good as Python ints
        cap = int(cap)
    # Any SymPy expression is a capacity (the query decides what it allows), so
    # not validate.positive_size, which needs SymPy to know it is positive.
    if isinstance(cap, bool) or not isinstance(cap, (int, sympy.Expr)) or (
            isinstance(cap, int) and cap < 1):
        raise ChannelError(f"check_fits: capacity must be a positive number of bytes; "
                           f"got {describe(cap)}")
    for matrix in MATRICES:
        space = layout.tile_space(matrix)
        tile, bounds = q.unknowns(space)
        if layout.range_decoded:
            channel, offset, limit = layout.designed(matrix, *tile)
            need = offset + layout.tile_bytes
            # As written (q.any_of), not SymPy's sorted Or: Z3 proves the symbolic
            # iteration-aware fit twice as fast with the capacity test first.
            bad = q.any_of(sympy.Gt(need, cap), sympy.Ge(channel, limit),
                           sympy.Ge(channel, layout.num_channels))
            names, point_syms = space.names, tile
        else:
            beat = sympy.Symbol("beat", integer=True, nonnegative=True)
            bounds = bounds + [q.Bounded(beat, 0, layout.beats)]
            address = layout.address_of(matrix, *tile) + layout.interleave * beat
            channel = None  # only a counterexample needs it (built there)
            need = layout.decoder.offset(address) + layout.interleave
            limit = None
            bad = sympy.Gt(need, cap)
            names, point_syms = space.names + ("beat",), tile + (beat,)
        outcome = solve(layout, bounds, [bad], assume, timeout_ms)
        if outcome.answer == "unknown":
            return q.unknown("channel_fits", layout.label, start, outcome)
        if outcome.answer == "sat":
            point = [int(outcome.model[s]) for s in point_syms]
            params = parameter_values(layout, outcome)
            env = {**dict(zip(point_syms, point)), **{p: params[str(p)] for p in layout.parameters}}
            where, needed, capacity_value = (int(sympy.sympify(e).subs(env)) for e in (
                layout.decoder.channel(address) if channel is None else channel, need, cap))
            text = point_text(names, point)
            if limit is not None and where >= int(sympy.sympify(limit).subs(env)):
                reason = (f"{matrix} tile {text} lands on channel {where}, outside the channels "
                          f"its design gives {matrix} (a channel holds {capacity_value} B)")
            else:
                reason = (f"channel {where} exceeds its capacity: {matrix} tile {text} needs "
                          f"{needed} > {capacity_value} bytes")
            return q.result(Status.REFUTED, "channel_fits", layout.label, start,
                            counterexample={**q.named(names, point), "channel": where, **params},
                            reason=reason + q.params_text(params))
    return q.result(Status.PROVED, "channel_fits", layout.label, start,
                    reason=f"every channel holds its share within {cap} bytes")


def designed_is_exact(layout, assume, timeout_ms) -> CheckResult | None:
    """For a range-decoded layout with a symbolic capacity: the fit proof that lets
    checks use designed channels; None when the decode can be used as it is."""
    if not (layout.range_decoded and is_symbolic(layout.channel_bytes)):
        return None
    return check_fits(layout, assume=assume, timeout_ms=timeout_ms)


def check_disjoint(layout, *, assume: Sequence[sympy.Basic] = (),
                   timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """No two tiles' byte ranges ``[addr, addr + tile_bytes)`` overlap; REFUTED
    carries both tiles, the first under its dims, the second primed."""
    layout = require_layout(layout, "check_disjoint")
    start = time.perf_counter()
    fit = designed_is_exact(layout, assume, timeout_ms)
    by_location = fit is not None and fit.proved
    size = layout.tile_bytes
    for first, second in itertools.combinations_with_replacement(MATRICES, 2):
        space_x, space_y = layout.tile_space(first), layout.tile_space(second)
        x, bounds_x = q.unknowns(space_x)
        y, bounds_y = q.unknowns(space_y, "'")
        # Overlap is symmetric: within a matrix ask only for x before y (row-major),
        # which Z3 settles several times faster than x != y.
        constraints = [sympy.Or(sympy.Lt(x[0], y[0]), sympy.And(q.eq(x[0], y[0]), sympy.Lt(
            x[1], y[1])))] if first == second else []
        if by_location:
            # (Z3 was no faster with the offsets in tile slots here, unlike below)
            cx, ox, _ = layout.designed(first, *x)
            cy, oy, _ = layout.designed(second, *y)
            constraints += [q.eq(cx, cy), sympy.Lt(ox, oy + size), sympy.Lt(oy, ox + size)]
        else:
            constraints += located_overlap(layout, first, x, second, y)
        outcome = solve(layout, bounds_x + bounds_y, constraints, assume, timeout_ms)
        if outcome.answer == "unknown":
            return q.unknown("tiles_disjoint", layout.label, start, outcome)
        if outcome.answer == "sat":
            px = [int(outcome.model[s]) for s in x]
            py = [int(outcome.model[s]) for s in y]
            params = parameter_values(layout, outcome)
            env = {p: params[str(p)] for p in layout.parameters}
            ax = int(sympy.sympify(layout.address_of(first, *px)).subs(env))
            ay = int(sympy.sympify(layout.address_of(second, *py)).subs(env))
            return q.result(
                Status.REFUTED, "tiles_disjoint", layout.label, start,
                counterexample={**q.named(space_x.names, px), **q.named(space_y.names, py, "'"),
                                **params},
                reason=f"{first} tile {point_text(space_x.names, px)} at byte {ax} and {second} "
                f"tile {point_text(space_y.names, py)} at byte {ay} overlap ({size}-byte tiles)"
                + q.params_text(params))
    note = " (inside channels proved to hold them)" if by_location else ""
    return q.result(Status.PROVED, "tiles_disjoint", layout.label, start,
                    reason=f"no two tiles' byte ranges overlap{note}")


def located_overlap(layout, first, x, second, y) -> list[sympy.Basic]:
    """Tile ``x`` of ``first`` and ``y`` of ``second`` overlap, in whole address
    units where the option gives them (``tile_bytes / unit`` units a tile), else
    in bytes. Each address is ``unit · n`` (``options.UNITS``, the product
    checked against ``address_of`` term by term, no Mod/floor rewriting);
    dividing ``a < b + tile_bytes`` by ``unit > 0`` is exact when ``unit``
    divides ``tile_bytes``, and for whole tiles the bounds say ``n_x = n_y``,
    which Z3 decides several times faster (symbolic round-robin: 0.52 s →
    0.13 s, medians of 5). Concrete sizes keep the bytes (as fast, and the
    overlap reported stays the one it always was)."""
    size = layout.tile_bytes
    ax, ay = layout.address_of(first, *x), layout.address_of(second, *y)
    if not layout.is_concrete:
        units = opt.UNITS[layout.option]
        (ux, nx), (uy, ny) = (units(layout, first, *x, layout.channel_bytes),
                              units(layout, second, *y, layout.channel_bytes))
        if (ux == uy and size % ux == 0 and _product_is(ux, nx, ax)
                and _product_is(uy, ny, ay)):
            # whole units: [n, n + span) meet; for one unit that is n_x = n_y
            span = size // ux
            return [q.eq(nx, ny)] if span == 1 else [sympy.Lt(nx, ny + span),
                                                     sympy.Lt(ny, nx + span)]
    return [sympy.Lt(ax, ay + size), sympy.Lt(ay, ax + size)]


def _product_is(unit: int, count, address) -> bool:
    """``unit · count`` is ``address`` as a polynomial in its terms."""
    difference = unit * count - address
    return difference == 0 or isinstance(difference, sympy.Basic) and sympy.expand(
        difference, deep=False, power_base=False, power_exp=False, log=False,
        multinomial=False) == 0


__all__ = ["check_disjoint", "check_fits"]
