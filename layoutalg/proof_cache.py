"""A cache of proof outcomes keyed by content, so unchanged proofs are not redone.

The key hashes the spec module's path and text, the spec's name and the source of the
layoutalg package itself: editing a spec, a helper in its module, or the
library (a fixed bug may change a verdict) invalidates the entry. UNKNOWN
and ERROR outcomes are never cached: they may depend on time limits.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from layoutalg.prover import Found, Outcome

DEFAULT_DIR = Path(".layoutalg-cache")
CACHEABLE = ("PROVED", "REFUTED")


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """Hash of every source file of the installed layoutalg package."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class ProofCache:
    """Outcomes on disk, one JSON file per (library, module text, spec)."""

    def __init__(self, directory: Path = DEFAULT_DIR) -> None:
        self.directory = Path(directory)
        self.hits = 0

    def key(self, found: Found) -> str:
        digest = hashlib.sha256()
        digest.update(library_fingerprint().encode())
        digest.update(str(found.path.resolve()).encode())
        digest.update(found.path.read_bytes())
        digest.update(found.spec.name.encode())
        digest.update(found.spec.fingerprint.encode())
        return digest.hexdigest()[:32]

    def get(self, found: Found) -> list[Outcome] | None:
        path = self.directory / f"{self.key(found)}.json"
        if not path.is_file():
            return None
        try:
            rows = json.loads(path.read_text())
            outcomes = [Outcome(**row) for row in rows]
        except (ValueError, TypeError):
            return None  # a corrupt entry is recomputed, never trusted
        self.hits += 1
        return outcomes

    def put(self, found: Found, outcomes: list[Outcome]) -> None:
        if not outcomes or any(o.status not in CACHEABLE for o in outcomes):
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{self.key(found)}.json"
        path.write_text(json.dumps([asdict(o) for o in outcomes]))
