"""Hypothesis profiles, and the core suite's larger example count.

Profiles: ``ci`` (chosen when ``CI`` is set: 100 examples per property test,
derandomized) and ``dev`` (50, the default; ``HYPOTHESIS_PROFILE`` picks
another). The core differential suite (Z3 against enumeration on random
compositions of combinators, ``test_differential.py``) is the guarantee
behind every check, so in CI it runs ``CORE_EXAMPLES`` per check through
``core_settings``; the family suites test the same engine through thinner
front ends at the profile's count, which keeps CI within its time.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FAMILY_EXAMPLES = 100
CORE_EXAMPLES = 500
# test_soundness.py in CI: random written maps, each judged on SOUNDNESS_CHECKS of the
# checks in turn (every check sees ~1/5 of them); the full run is by hand, every map
# through every check (see its docstring).
SOUNDNESS_EXAMPLES = 2000
SOUNDNESS_CHECKS = 3
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]


def load() -> None:
    settings.register_profile("ci", max_examples=FAMILY_EXAMPLES, deadline=None,
                              derandomize=True, print_blob=True,
                              suppress_health_check=_SLOW_DATA)
    settings.register_profile("dev", max_examples=50, deadline=None,
                              suppress_health_check=_SLOW_DATA)
    settings.load_profile("ci" if IN_CI else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def core_settings(test):
    """``@core_settings`` above ``@given``: CORE_EXAMPLES in CI, the profile's count elsewhere."""
    return settings(max_examples=CORE_EXAMPLES)(test) if IN_CI else test
