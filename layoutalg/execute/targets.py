"""What to run a spec's subject on: its index map, element size and machine.

Each family knows how its elements sit in memory; :func:`target_for` asks
the subject (a mesh ``PlacedTensor``, a Tenstorrent ``TensorSpec``, a
``SpyreLayout``, a ``ChannelLayout`` or a bare ``IndexMap``) and picks a
machine: the family's preset where there is one (48 KB WSE PEs, a TT
device's DRAM banks or L1, the Spyre layout's device bytes), else one just
large enough.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.channel.layout import ChannelLayout
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MachineError, describe
from layoutalg.execute.machine import WSE_SRAM_BYTES, Machine
from layoutalg.execute.placement import required_bytes
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.placed import PlacedTensor
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.tt.tensor import TensorSpec

#: Layouts larger than this are refused by ``layoutalg run`` (256 MiB of fp32).
MAX_ELEMENTS = 1 << 26


@dataclass(frozen=True, eq=False)
class Target:
    """A layout ready to run: the map, how elements sit, the machine."""

    index_map: IndexMap
    itemsize: int
    offsets_in_bytes: bool
    machine: Machine
    family: str
    preset: str

    @property
    def dtype(self) -> np.dtype:
        """The dtype random data is drawn in (floats where the size allows)."""
        return np.dtype({1: "uint8", 2: "float16", 4: "float32", 8: "float64"}[self.itemsize])


def target_for(subject, *, capacity: int | None = None, element_bytes: int | None = None,
               offsets_in_bytes: bool | None = None, source: str = "") -> Target:
    """The :class:`Target` of a spec's subject; keyword overrides win
    (``source`` says where an overriding capacity came from).

    >>> import layoutalg as la
    >>> t = target_for(la.strided((4, 4), (1, 4)))
    >>> t.family, t.itemsize, t.machine.memories
    ('core', 4, 1)
    """
    family, m, size, in_bytes, memory_dims, preset, cap = _describe(subject)
    size = size if element_bytes is None else element_bytes
    in_bytes = in_bytes if offsets_in_bytes is None else offsets_in_bytes
    if size not in (1, 2, 4, 8):
        raise MachineError(f"run: element size must be 1, 2, 4 or 8 bytes; got {size}")
    if not m.is_concrete:
        raise MachineError(f"run: layout {m.label} has symbolic extents "
                           f"{sorted(map(str, m.parameters))}; a run needs numbers "
                           f"(bind them in the spec)")
    if m.domain.size > MAX_ELEMENTS:
        raise MachineError(f"run: layout {m.label} has {m.domain.size} elements; the executor "
                           f"runs layouts of at most {MAX_ELEMENTS}")
    if capacity is not None:
        cap, preset = capacity, f"{capacity} B per memory ({source or 'given'})"
    if cap is None:
        probe = Machine.for_layout(m, capacity=1 << 62, memory_dims=memory_dims)
        need = int(required_bytes(m, probe, size, in_bytes).max(initial=0))
        cap, preset = max(64, -(-need // 64) * 64), "just large enough"
    name = {"mesh": "PE", "tt": "bank" if memory_dims == 1 else "core", "spyre": "device",
            "channel": "channel"}.get(family) or _memory_name(m, memory_dims)
    machine = Machine.for_layout(m, capacity=cap, memory_dims=memory_dims, name=name)
    return Target(m, size, in_bytes, machine, family, preset)


def _describe(subject):
    """(family, map, element bytes, offsets in bytes, memory dims, preset, capacity)."""
    if isinstance(subject, PlacedTensor):
        m = subject.index_map()
        return ("mesh", m, element_size(subject.dtype), True, 2, "WSE, 48 KB per PE",
                WSE_SRAM_BYTES)
    if isinstance(subject, TensorSpec):
        size = subject.dtype.element_bytes
        if size is None:
            raise MachineError(f"run: block-float dtype {subject.dtype.name} packs elements "
                               f"below a byte; the executor moves whole bytes")
        m = subject.index_map()
        preset = f"{subject.device.name} {subject.storage}, {subject.capacity} B per " + (
            "bank" if m.codomain.rank == 2 else "core")
        return "tt", m, size, True, m.codomain.rank - 1, preset, subject.capacity
    if isinstance(subject, SpyreLayout):
        m = subject.index_map()
        return ("spyre", m, subject.itemsize, False, 0,
                f"one device memory of {subject.device_bytes} B", subject.device_bytes)
    if isinstance(subject, ChannelLayout):
        if not subject.is_concrete:
            raise MachineError(f"run: channel layout {subject.label} has symbolic sizes; a run "
                               f"needs numbers (bind them in the spec)")
        m = subject.index_map()
        return ("channel", m, 1, True, 1,
                f"{subject.num_channels} channels of {subject.channel_bytes} B (each tile "
                f"placed as its first byte)", int(subject.channel_bytes))
    if isinstance(subject, IndexMap):
        return "core", subject, 4, False, subject.codomain.rank - 1, None, None
    if hasattr(subject, "index_map"):
        m = subject.index_map()
        if isinstance(m, IndexMap):
            return "core", m, 4, False, m.codomain.rank - 1, None, None
    raise MachineError(f"run: the spec must build an IndexMap or a family layout; "
                       f"got {describe(subject)}")


def _memory_name(m: IndexMap, memory_dims: int) -> str:
    """"PE" for ``pe_…`` dims, "bank", "core", "channel" likewise, else "memory"."""
    first = m.codomain.names[0] if memory_dims else ""
    for prefix, name in (("pe", "PE"), ("bank", "bank"), ("core", "core"),
                         ("channel", "channel")):
        if first.startswith(prefix):
            return name
    return "memory"
