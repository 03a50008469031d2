"""What to run a spec's subject on: its index map, element size and machine.

:func:`target_for` asks the subject for its layout (``index_map()``, the
:class:`~layoutalg.core.laid_out.LaidOut` protocol) and where it runs
(``home()``, the :class:`~layoutalg.core.home.Placeable` protocol), and picks
the home's preset machine where there is one (48 KB WSE PEs, a TT device's
DRAM banks or L1, the Spyre layout's device bytes), else one just large
enough. Nothing here names a family: a bare map (``index_map()`` alone) runs
with 4-byte elements at element offsets, one memory per value of every
codomain dim but the last.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.core.home import Home, Placeable
from layoutalg.core.index_map import IndexMap
from layoutalg.core.laid_out import index_map_of
from layoutalg.errors import MachineError, describe
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import enough_bytes

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
    (``source`` says where an overriding capacity came from)."""
    m, home = home_of(subject)
    size = home.element_bytes if element_bytes is None else element_bytes
    in_bytes = home.offsets_in_bytes if offsets_in_bytes is None else offsets_in_bytes
    memory_dims, preset, cap = home.memory_dims, home.preset, home.capacity
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
    elif cap is None:
        cap, preset = enough_bytes(m, size, in_bytes, memory_dims), "just large enough"
    name = home.memory_name or _memory_name(m, memory_dims)
    machine = Machine.for_layout(m, capacity=cap, memory_dims=memory_dims, name=name)
    return Target(m, size, in_bytes, machine, home.family, preset)


def home_of(subject: object) -> tuple[IndexMap, Home]:
    """The index map of ``subject`` and its :class:`~layoutalg.core.home.Home`: the
    subject's own ``home()``, else a bare map's."""
    m = index_map_of(subject)
    if not isinstance(m, IndexMap):
        raise MachineError(f"run: the spec must build an IndexMap or a family layout; "
                           f"got {describe(subject)}")
    home = (subject.home() if isinstance(subject, Placeable)
            else Home("core", 4, False, m.codomain.rank - 1))   # a bare map
    if not isinstance(home, Home):
        raise MachineError(f"run: home() of {describe(subject)} must return a "
                           f"layoutalg.execute.Home; got {describe(home)}")
    return m, home


def _memory_name(m: IndexMap, memory_dims: int) -> str:
    """"PE" for ``pe_…`` dims, "bank", "core", "channel" likewise, else "memory"."""
    first = m.codomain.names[0] if memory_dims else ""
    names = {"pe": "PE", "bank": "bank", "core": "core", "channel": "channel"}
    return next((name for prefix, name in names.items() if first.startswith(prefix)), "memory")
