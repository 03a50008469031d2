"""Test configuration: the sibling-module path and the Hypothesis profiles
(``profiles.py``: ``ci`` when ``CI`` is set, else ``dev``)."""

from __future__ import annotations

import sys
from pathlib import Path

# pytest runs with --import-mode=importlib, which does not put tests/ on the
# path; test modules import their strategies and profiles as sibling modules.
sys.path.insert(0, str(Path(__file__).parent))

import profiles  # noqa: E402 - needs the path above

profiles.load()


# tests/toy_family holds a family module and a spec file that the prover
# loads (tests/test_toy_family.py); they are data, not test modules.
collect_ignore = ["toy_family"]
