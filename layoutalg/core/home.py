"""Where a layout runs: the small protocol a family's layout object answers.

A spec's subject is anything with a layout (:class:`~.laid_out.LaidOut`:
``index_map()``). To run it, the executor also needs how its elements sit
(bytes per element, offsets in bytes or in elements), which leading codomain
dims name memories, and the machine it belongs on. A family says so by
giving its layout objects a ``home()`` method returning a :class:`Home`
(the :class:`Placeable` protocol). It lives in the core so that families
(mesh, Tenstorrent, Spyre, channels) can answer it without knowing the
executor; nothing in the executor names a family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MachineError, describe
from layoutalg.validate import boolean, is_int, positive_int


@dataclass(frozen=True)
class Home:
    """How a layout's elements sit on the machine it belongs on.

    Attributes:
        family: a short name for reports ("mesh", "tt", …; "core" for a bare map).
        element_bytes: bytes per element (1, 2, 4 or 8 to run).
        offsets_in_bytes: the map's offsets count bytes (else elements).
        memory_dims: how many leading codomain dims name a memory.
        preset: words for the machine (e.g. "WSE, 48 KB per PE"); None
            when there is none (the machine is made just large enough).
        capacity: bytes per memory of that machine; None with no preset.
        memory_name: what one memory is called ("PE", "bank", …); None:
            from the name of the first codomain dim.
    """

    family: str
    element_bytes: int
    offsets_in_bytes: bool
    memory_dims: int
    preset: str | None = None
    capacity: int | None = None
    memory_name: str | None = None

    def __post_init__(self) -> None:
        positive_int(MachineError, "element_bytes", self.element_bytes, where="Home")
        if not is_int(self.memory_dims) or self.memory_dims < 0:
            raise MachineError(f"Home: memory_dims must be a non-negative int; "
                               f"got {describe(self.memory_dims)}")
        boolean(MachineError, "offsets_in_bytes", self.offsets_in_bytes, where="Home")
        if self.capacity is not None and (not is_int(self.capacity) or self.capacity < 1):
            raise MachineError(f"Home: capacity must be a positive int or None; "
                               f"got {describe(self.capacity)}")


@runtime_checkable
class Placeable(Protocol):
    """A layout that says where it runs: ``index_map()`` and ``home()``."""

    def index_map(self) -> IndexMap: ...

    def home(self) -> Home: ...
