"""The reference executor: an emulated machine, place/fetch, tiled matmuls."""

from layoutalg.execute.errors import CapacityError, MachineError
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import fetch, place, required_bytes

__all__ = ["CapacityError", "Machine", "MachineError", "fetch", "place", "required_bytes"]
