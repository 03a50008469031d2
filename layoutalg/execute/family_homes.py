"""The homes of the families that give no ``home()`` themselves yet.

Each is what ``layoutalg run`` has always used for the family: a mesh
``PlacedTensor`` on 48 KB WSE PEs, a Tenstorrent ``TensorSpec`` on its
device's DRAM banks or L1 cores, a ``SpyreLayout`` in one device memory, a
``ChannelLayout`` on its channels. When a family gives its classes a
``home()`` method (:class:`~.homes.Placeable`), its entry here goes.
Each entry takes the subject and its index map.
"""

from __future__ import annotations

from layoutalg.channel.layout import ChannelLayout
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MachineError
from layoutalg.execute.homes import Home
from layoutalg.execute.machine import WSE_SRAM_BYTES
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.placed import PlacedTensor
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.tt.tensor import TensorSpec


def _mesh(subject: PlacedTensor, m: IndexMap) -> Home:
    return Home("mesh", element_size(subject.dtype), True, 2, "WSE, 48 KB per PE",
                WSE_SRAM_BYTES, "PE")


def _tt(subject: TensorSpec, m: IndexMap) -> Home:
    size = subject.dtype.element_bytes
    if size is None:
        raise MachineError(f"run: block-float dtype {subject.dtype.name} packs elements "
                           f"below a byte; the executor moves whole bytes")
    memory_dims = m.codomain.rank - 1
    memory = "bank" if memory_dims == 1 else "core"
    return Home("tt", size, True, memory_dims,
                f"{subject.device.name} {subject.storage}, {subject.capacity} B per {memory}",
                subject.capacity, memory)


def _spyre(subject: SpyreLayout, m: IndexMap) -> Home:
    return Home("spyre", subject.itemsize, False, 0,
                f"one device memory of {subject.device_bytes} B", subject.device_bytes, "device")


def _channel(subject: ChannelLayout, m: IndexMap) -> Home:
    if not subject.is_concrete:
        raise MachineError(f"run: channel layout {subject.label} has symbolic sizes; a run "
                           f"needs numbers (bind them in the spec)")
    return Home("channel", 1, True, 1,
                f"{subject.num_channels} channels of {subject.channel_bytes} B "
                f"(each tile placed as its first byte)", int(subject.channel_bytes), "channel")


#: class → its home, for the classes that do not say it with ``home()``
FAMILY_HOMES = {PlacedTensor: _mesh, TensorSpec: _tt, SpyreLayout: _spyre, ChannelLayout: _channel}
