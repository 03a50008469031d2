"""Replay a refuted check's counterexample on the emulated machine.

A REFUTED verdict names a witness; a replay runs it on a machine and shows
what it does there (for each check: the table in docs/execute.md):
``bijective`` replays whichever of its parts was refuted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from layoutalg.channel.iteration import concurrent
from layoutalg.channel.layout import ChannelLayout
from layoutalg.channel.options import TILE_DIMS
from layoutalg.core.index_map import IndexMap
from layoutalg.core.laid_out import index_map_of
from layoutalg.errors import CapacityError, MachineError, describe
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import enough_bytes, fetch, place
from layoutalg.verify.result import CheckResult, Status, point_text

FILL = -1


@dataclass(frozen=True)
class Replay:
    """What a counterexample did on the machine: ``happened`` when the machine
    showed the failure (a lost value, a refused placement, a channel
    conflict), a one-sentence ``summary``, the steps (``lines``) and the
    numbers involved (``values``)."""

    check: str
    subject: str
    happened: bool
    summary: str
    lines: tuple[str, ...] = ()
    values: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return "\n".join((self.summary, *("  " + line for line in self.lines)))


def replay(result: CheckResult, subject, *, dataflow: str = "os", element_bytes: int = 4,
           offsets_in_bytes: bool = False, memory_dims: int | None = None,
           capacity: int | None = None) -> Replay:
    """Run ``result``'s counterexample on a machine built for ``subject``.

    ``result`` is a REFUTED CheckResult of a core check on ``subject`` (an
    IndexMap, or an object with ``.index_map()``), or of
    ``la.channel.check_conflict_free`` on a ChannelLayout (with its
    ``dataflow``). ``element_bytes``, ``offsets_in_bytes``: how elements sit
    in memory (as for ``check_fits``); ``memory_dims``: codomain dims that pick
    a memory (default all but the last); ``capacity``: bytes per memory for
    ``fits`` (default: read from the result's reason).

    >>> import layoutalg as la
    >>> bad = la.strided((16, 8), (1, 8))          # rows overlap
    >>> r = replay(la.check_injective(bad), bad)
    >>> r.happened, r.values["lost"] > 0
    (True, True)
    """
    if not isinstance(result, CheckResult) or result.status is not Status.REFUTED:
        given = result.status if isinstance(result, CheckResult) else describe(result)
        raise MachineError(f"replay: result must be a REFUTED CheckResult; got {given}")
    if result.check in ("conflict_free", "channel_conflict_free"):
        return replay_channel_conflict(result, subject, dataflow=dataflow)
    layout = index_map_of(subject)
    if not isinstance(layout, IndexMap):
        raise MachineError(f"replay: subject must be an IndexMap or have .index_map(); "
                           f"got {describe(subject)}")
    kind = _part(result)
    point = {k: int(v) for k, v in (result.counterexample or {}).items()}
    replays = {"injective": _collision, "in_bounds": _out_of_bounds,
               "images_valid": _on_padding, "surjective": _hole, "fits": _overflow}
    if kind not in replays:
        raise MachineError(f"replay: no replay for check {result.check!r}; replays exist for "
                           "injective, in_bounds, images_valid, surjective, bijective, fits and "
                           "conflict_free")
    return replays[kind](_Run(result, layout, point, element_bytes, offsets_in_bytes,
                              memory_dims, capacity))


def _part(result: CheckResult) -> str:
    if result.check != "bijective":
        return result.check
    if any(k.endswith("'") for k in result.counterexample or {}):
        return "injective"
    if result.reason.startswith("out of bounds"):
        return "in_bounds"
    if result.reason.startswith("element"):
        return "images_valid"
    return "surjective"


@dataclass(frozen=True)
class _Run:
    """A refuted result's counterexample ``point`` to replay on ``layout``,
    with how the elements sit in memory (``capacity``: for ``fits``)."""

    result: CheckResult
    layout: IndexMap
    point: dict[str, int]
    element_bytes: int
    offsets_in_bytes: bool
    memory_dims: int | None
    capacity: int | None

    def element(self, suffix: str = "") -> tuple[int, ...]:
        """The witness's domain point (``suffix="'"``: the second one)."""
        return tuple(self.point[n + suffix] for n in self.layout.domain.names)

    def machine(self, capacity: int | None = None) -> Machine:
        """A machine of the layout's memories, ``capacity`` bytes each (default:
        just large enough, or 64 bytes when the layout cannot be measured)."""
        if capacity is None:
            try:
                capacity = enough_bytes(self.layout, self.element_bytes, self.offsets_in_bytes,
                                        self.memory_dims)
            except MachineError:
                capacity = 64
        return Machine.for_layout(self.layout, capacity=capacity, memory_dims=self.memory_dims)

    def values(self) -> np.ndarray:
        """Element values 1, 2, … in row-major order (0 and −1 stay free for fills)."""
        e, extents = self.element_bytes, self.layout.domain.extents
        dtype = np.dtype(f"int{8 * e}") if e in (1, 2, 4, 8) else np.dtype(f"V{e}")
        size = int(np.prod(extents))
        return (np.arange(1, size + 1) % np.iinfo(dtype).max).astype(dtype).reshape(extents)

    def place(self, machine: Machine, fill=0) -> np.ndarray:
        """Place every element's value on ``machine``; returns the values."""
        values = self.values()
        place(values, self.layout, machine, fill=fill, offsets_in_bytes=self.offsets_in_bytes)
        return values

    def place_and_read(self, slot) -> tuple[np.ndarray, int]:
        """Place every element (other slots hold FILL) on a fresh machine; return
        the element values and what ``slot`` holds afterwards."""
        machine = self.machine()
        values = self.place(machine, FILL)
        rank, dtype = machine.rank, values.dtype
        extents = [int(e) for e in self.layout.codomain.extents]
        memory = int(np.ravel_multi_index(slot[:rank], extents[:rank])) if rank else 0
        offset = int(np.ravel_multi_index(slot[rank:], extents[rank:]))
        start = offset if self.offsets_in_bytes else offset * dtype.itemsize
        raw = machine.read(memory, start, dtype.itemsize)
        return values, int(np.frombuffer(raw, dtype=dtype)[0])


def _collision(run: _Run) -> Replay:
    layout, x, y = run.layout, run.element(), run.element("'")
    machine = run.machine()
    values = run.place(machine, FILL)
    back = fetch(layout, machine, values.dtype, offsets_in_bytes=run.offsets_in_bytes)
    slot = layout(*x)
    vx, vy, bx, by = (int(v) for v in (values[x], values[y], back[x], back[y]))
    lost = int(np.count_nonzero(back != values))
    names = layout.domain.names
    px, py = point_text(names, x), point_text(names, y)
    winner, loser, lost_value = (py, px, vx) if bx == vy else (px, py, vy)
    summary = (f"collision on {machine}: {px} and {py} both write slot "
               f"{point_text(layout.codomain.names, slot)}; it holds {bx}, the value of {winner}, "
               f"so {loser} reads back {bx} instead of {lost_value} — its value was overwritten")
    lines = ((f"placed {values.size} elements with values 1…{values.size} (value = row-major "
              f"position + 1)"),
             f"{px} = {vx} and {py} = {vy} land on the same slot; read back: {bx} and {by}",
             f"{lost} of {values.size} elements read back a value that is not theirs")
    return Replay("injective", layout.label, bx != vx or by != vy, summary, lines,
                  {"slot": slot, "written": (vx, vy), "read": (bx, by), "lost": lost})


def _out_of_bounds(run: _Run) -> Replay:
    layout, x = run.layout, run.element()
    image = layout(*x)
    bad = [f"{n}={v} not in [0, {e})" for n, v, e in
           zip(layout.codomain.names, image, layout.codomain.extents) if not 0 <= v < e]
    machine = run.machine(1 << 40)
    try:
        run.place(machine)
        message, refused = "the machine accepted every element (the slot is on the machine)", False
    except MachineError as exc:
        message, refused = str(exc), True
    summary = (f"{point_text(layout.domain.names, x)} maps to "
               f"{point_text(layout.codomain.names, image)}, which is not on the machine "
               f"({', '.join(bad)}): placing stops")
    return Replay("in_bounds", layout.label, refused, summary, (f"place: {message}",),
                  {"element": x, "slot": image})


def _on_padding(run: _Run) -> Replay:
    layout, x = run.layout, run.element()
    slot = layout(*x)
    values, held = run.place_and_read(slot)
    summary = (f"{point_text(layout.domain.names, x)} (value {int(values[x])}) is written to "
               f"slot {point_text(layout.codomain.names, slot)}, which the layout calls "
               f"padding; the slot now holds {held}")
    return Replay("images_valid", layout.label, held == int(values[x]), summary, (),
                  {"element": x, "slot": slot, "held": held})


def _hole(run: _Run) -> Replay:
    layout = run.layout
    slot = tuple(int(run.result.counterexample[n]) for n in layout.codomain.names)
    values, held = run.place_and_read(slot)
    summary = (f"after placing all {values.size} elements, valid slot "
               f"{point_text(layout.codomain.names, slot)} still holds the fill value {held}: "
               f"no element lands there")
    return Replay("surjective", layout.label, held == FILL, summary, (),
                  {"slot": slot, "held": held})


def _overflow(run: _Run) -> Replay:
    capacity = run.capacity
    if capacity is None:
        found = re.search(r"> (\d+) bytes", run.result.reason)
        if found is None:
            raise MachineError("replay: pass capacity=… (bytes per memory) for a fits result")
        capacity = int(found.group(1))
    try:
        run.place(run.machine(capacity))
        happened, summary = False, "every element fitted its memory"
    except CapacityError as exc:
        happened, summary = True, f"placing stops: {exc}"
    return Replay("fits", run.layout.label, happened, summary, (), {"capacity": capacity})


def replay_channel_conflict(result: CheckResult, layout, *, dataflow: str = "os") -> Replay:
    """Stream one step's concurrent tiles beat by beat and show the conflict:
    each tile issues its ``beats`` granules in order, one per cycle from cycle
    0; a channel serves one granule per cycle, first come first served (A
    before B before C within a cycle)."""
    if not isinstance(layout, ChannelLayout):
        raise MachineError(f"replay: a conflict_free result replays on the ChannelLayout it "
                           f"checked; got {describe(layout)}")
    example = result.counterexample or {}
    if any(k not in example for k in ("ti", "tj", "tk")):
        raise MachineError(f"replay: the counterexample must name ti, tj, tk; got {example}")
    step = {k: int(example[k]) for k in ("ti", "tj", "tk")}
    beats = layout.beats
    channel_of, lines = {}, []
    for x in concurrent(dataflow):
        base = layout.address(x, step["ti"], step["tj"], step["tk"])
        channels = np.asarray(layout.decoder.channel(base + layout.interleave * np.arange(beats)))
        channel_of[x] = channels
        lines.append(f"{x} tile {tuple(step[d] for d in TILE_DIMS[x])} at address {base}: "
                     f"beats on channels {_runs(channels)}")
    finish, waits, first = _stream(channel_of, beats, layout.num_channels)
    point = point_text(("ti", "tj", "tk"), tuple(step.values()))
    if first is None:
        summary = f"step {point}: no two beats meet on one channel in one cycle"
    else:
        cycle, channel, who = first
        summary = (f"step {point}: at cycle {cycle} {' and '.join(who)} both request channel "
                   f"{channel}; the channel serves one beat per cycle, so the step takes "
                   f"{finish} cycles instead of {beats} ({waits} beat(s) wait)")
    return Replay(result.check, layout.label, first is not None, summary, tuple(lines),
                  {"step": step, "cycles": finish, "ideal": beats, "waits": waits})


def _runs(channels: np.ndarray) -> str:
    """``0, 1, 2, 3, 0, …`` shortened: the first few channels then the count."""
    shown = ", ".join(str(int(c)) for c in channels[:8])
    return shown + (f", … ({len(channels)} beats)" if len(channels) > 8 else "")


def _stream(channel_of: dict[str, np.ndarray], beats: int, num_channels: int):
    """FIFO service per channel; returns (cycles, waiting beats, first clash)."""
    free = np.zeros(int(num_channels), dtype=np.int64)   # next free cycle per channel
    finish, waits, first = 0, 0, None
    for beat in range(beats):   # one loop step per beat of a single step's tiles
        asking: dict[int, list[str]] = {}
        for name, channels in channel_of.items():
            asking.setdefault(int(channels[beat]), []).append(f"{name} beat {beat}")
        for channel, who in asking.items():
            if len(who) > 1 and first is None:
                first = (beat, channel, who)
            for _ in who:
                start = max(free[channel], beat)
                waits += start > beat
                free[channel] = start + 1
                finish = max(finish, start + 1)
    return finish, waits, first
