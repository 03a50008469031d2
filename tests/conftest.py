"""Test configuration: the shared helper modules' path (tests are grouped in
folders like the package; the helpers stay in tests/) and the Hypothesis profiles
(``profiles.py``: ``ci`` when ``CI`` is set, else ``dev``)."""

from __future__ import annotations

import sys
from pathlib import Path

# pytest runs with --import-mode=importlib, which does not put tests/ on the
# path; test modules import their strategies and profiles as sibling modules.
HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
# a few test modules import a sibling test module's tables (e.g. the TT faces)
sys.path[1:1] = [str(group) for group in sorted(HERE.iterdir())
                 if group.is_dir() and any(group.glob("test_*.py"))]

import profiles  # noqa: E402 - needs the path above

profiles.load()


# tests/architecture/toy_family holds a family module and a spec file that the prover
# loads (tests/architecture/test_toy_family.py); they are data, not test modules.
collect_ignore = ["architecture/toy_family"]
