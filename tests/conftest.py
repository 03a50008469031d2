"""Test configuration: Hypothesis profiles and the sibling-module path.

Profiles: ``ci`` (500 examples, derandomized, chosen when ``CI`` is set) and
``dev`` (50 examples, the default; ``HYPOTHESIS_PROFILE`` picks another).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# pytest runs with --import-mode=importlib, which does not put tests/ on the
# path; the differential tests import their strategies as a sibling module.
sys.path.insert(0, str(Path(__file__).parent))

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    max_examples=500,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=_SLOW_DATA,
)
settings.register_profile(
    "dev",
    max_examples=50,
    deadline=None,
    suppress_health_check=_SLOW_DATA,
)

if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
    settings.load_profile("ci")
else:
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
