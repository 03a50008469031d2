"""The reference executor: an emulated machine, place/fetch, transforms, tiled matmuls.

>>> import numpy as np, layoutalg as la
>>> grid = la.split(la.Space(i=6), "i", 4, names=("pe", "offset"))
>>> m = la.execute.Machine.for_layout(grid, capacity=64, name="PE")
>>> _ = la.execute.place(np.arange(6.0), grid, m)
>>> la.execute.fetch(grid, m, np.float64).tolist()
[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
"""

from layoutalg.core.home import Home, Placeable
from layoutalg.errors import CapacityError, MachineError
from layoutalg.execute.counters import Counters, Messages
from layoutalg.execute.hierarchy import Hierarchy
from layoutalg.execute.machine import Machine
from layoutalg.execute.matmul import DATAFLOWS, matmul
from layoutalg.execute.messages import TransformCounters, execute_transform, run_transform
from layoutalg.execute.placement import Placement, fetch, place, required_bytes, slots_of
from layoutalg.execute.replay import Replay, replay, replay_channel_conflict
from layoutalg.execute.targets import Target, home_of, target_for

__all__ = [
    "DATAFLOWS",
    "CapacityError",
    "Counters",
    "Hierarchy",
    "Home",
    "Machine",
    "MachineError",
    "Messages",
    "Placeable",
    "Placement",
    "Replay",
    "Target",
    "TransformCounters",
    "execute_transform",
    "fetch",
    "home_of",
    "matmul",
    "place",
    "replay",
    "replay_channel_conflict",
    "required_bytes",
    "run_transform",
    "slots_of",
    "target_for",
]
