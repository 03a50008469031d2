"""How long each spec took last time: ``prove -j`` hands out the longest first.

The estimate is the spec's CPU seconds in the last run that proved it (kept in
``timing/specs.json`` of the cache folder, even under ``--no-cache``: it orders the
work, it never decides a verdict), else its number of claims times the typical
seconds per claim of the specs known. Best-effort: an unreadable file is skipped.
"""

from __future__ import annotations

import functools
import json
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from layoutalg.runner.proof_cache import write_atomically
from layoutalg.runner.prover import Found, Outcome

FOLDER = "timing"
FILE = "specs.json"
KEEP = 20000  # entries kept (the most recently proved): the file stays small
PER_CLAIM = 0.05  # seconds per claim when no spec is known yet


class SpecTimes:
    """Seconds per spec (``path::name``) from earlier runs, and this run's."""

    def __init__(self, directory: Path | str | None) -> None:
        self.path = Path(directory) / FOLDER / FILE if directory is not None else None
        self.seconds: dict[str, float] = self._read()
        self.recorded: dict[str, float] = {}  # this run's

    def _read(self) -> dict[str, float]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text())
            return {str(k): float(v) for k, v in data["seconds"].items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return {}

    def estimate(self, found: Sequence[Found]) -> list[float]:
        """The expected seconds of each spec of ``found``."""
        rates = [self.seconds[key(item)] / len(item.spec.claims) for item in found
                 if key(item) in self.seconds and item.spec.claims]
        per_claim = statistics.median(rates) if rates else PER_CLAIM
        return [self.seconds.get(key(item), len(item.spec.claims) * per_claim) for item in found]

    def record(self, item: Found, outcomes: Iterable[Outcome]) -> None:
        """Note what ``item``'s claims took (CPU seconds; wall where no CPU was measured)."""
        self.recorded[key(item)] = round(sum(o.cpu_seconds or o.seconds for o in outcomes), 6)

    def save(self) -> None:
        """Write this run's times over those on file now (another run may have
        written since this one read them); best-effort: skipped when the
        folder cannot be written."""
        if self.path is None or not self.recorded:
            return
        merged = self._read()
        for name, seconds in self.recorded.items():
            merged.pop(name, None)  # to the end: the most recent
            merged[name] = seconds
        write_atomically(self.path, json.dumps({"seconds": dict(list(merged.items())[-KEEP:])}))

    def shares(self, files: Sequence[Path], jobs: int) -> list[list[Path]]:
        """``files`` dealt to ``jobs`` workers, about equal in expected seconds
        (the most costly module first, each to the least loaded worker): the
        modules each worker imports while the specs are found, and proves
        first. A module not known yet counts by its size in bytes, scaled by
        the seconds per byte of the known ones."""
        known: Counter[str] = Counter()
        for name, seconds in self.seconds.items():
            known[name.rsplit("::", 1)[0]] += seconds
        paths = []
        for file in files:
            try:
                paths.append((str(file.resolve()), file.stat().st_size))
            except OSError:
                paths.append((str(file), 0))
        rates = [known[p] / size for p, size in paths if p in known and size]
        rate = statistics.median(rates) if rates else 1.0
        costs = [known.get(p, size * rate) for p, size in paths]
        loads = [0.0] * jobs
        dealt: list[list[Path]] = [[] for _ in range(jobs)]
        for index in sorted(range(len(files)), key=lambda k: -costs[k]):
            least = loads.index(min(loads))
            dealt[least].append(files[index])
            loads[least] += costs[index]
        return [sorted(share, key=files.index) for share in dealt]


def key(item: Found) -> str:
    return f"{_resolved(item.path)}::{item.spec.name}"


#: ``path.resolve()`` once per spec file (a run asks it for every spec several times)
_resolved = functools.lru_cache(maxsize=1024)(Path.resolve)
