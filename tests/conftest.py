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

# The 500-example guarantee is for the core differential suite (Z3 against
# enumeration on random compositions of combinators). Family property tests
# check the same engine through thinner front ends; in CI they run
# FAMILY_EXAMPLES examples each so that the whole suite fits CI's time.
CORE_DIFFERENTIAL = "test_differential.py"
FAMILY_EXAMPLES = 100


def pytest_collection_modifyitems(config, items):
    active = settings.default
    if active.max_examples <= FAMILY_EXAMPLES:
        return
    for item in items:
        function = getattr(item, "obj", None)
        own = getattr(function, "_hypothesis_internal_use_settings", None)
        if own is None or item.path.name == CORE_DIFFERENTIAL:
            continue
        if own.max_examples > FAMILY_EXAMPLES:
            function._hypothesis_internal_use_settings = settings(own, max_examples=FAMILY_EXAMPLES)
