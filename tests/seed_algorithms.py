"""The seed's flawed algorithms for the tests: they live in specs/_seed_algorithms.py
(not in the library, issue 12), the things the specs refute. Loaded by path once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

NAME = "_seed_algorithms"
PATH = Path(__file__).resolve().parents[1] / "specs" / f"{NAME}.py"


def _load():
    if NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(NAME, PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[NAME]


_seed = _load()
SeedChoice = _seed.SeedChoice
seed_plan_layout = _seed.seed_plan_layout
seed_estimated_cost = _seed.seed_estimated_cost
seed_gather = _seed.seed_gather
seed_scatter = _seed.seed_scatter
