"""The reference executor: an emulated machine, place/fetch, tiled matmuls."""

from layoutalg.execute.errors import CapacityError, MachineError
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import Placement, fetch, place, required_bytes, slots_of

__all__ = ["CapacityError", "Machine", "MachineError", "Placement", "fetch", "place",
           "required_bytes", "slots_of"]
