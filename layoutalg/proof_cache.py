"""A cache of proof outcomes keyed by content, so unchanged proofs are not redone.

The key hashes everything a verdict depends on: the spec module's text, the
text of every module of the user's own that it imports (a helper holding the
sizes, and the helpers those import), the spec's name, claims, assumptions
and timeout, the source of the layoutalg package (a fixed bug may change a
verdict) and the versions of z3-solver and SymPy. When a spec imports a
module of the user's whose file cannot be read, its outcomes are not cached:
when unsure, prove again.

Only PROVED and REFUTED are cached (UNKNOWN and ERROR may depend on time
limits and load). Caching is best-effort: a cache folder that cannot be
written is skipped, never an error. Entries are written to a temporary file
and renamed into place (two runs sharing a cache never see half an entry),
and carry a checksum of their contents: an entry that is truncated or
altered is proved again, never trusted.

The cache lives in the user's cache folder (``$XDG_CACHE_HOME/layoutalg``,
else ``~/.cache/layoutalg``), never in the source tree; ``layoutalg prove
--cache-dir DIR`` puts it elsewhere.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import sysconfig
import tempfile
from dataclasses import asdict, replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from layoutalg.prover import Found, Outcome

CACHEABLE = ("PROVED", "REFUTED")
FORMAT = 2  # bump when the entry layout changes


def default_directory() -> Path:
    """``$XDG_CACHE_HOME/layoutalg``, else ``~/.cache/layoutalg``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "layoutalg"


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """Hash of every source file of the installed layoutalg package and the
    versions of the solver and the algebra it runs on."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    for package in ("z3-solver", "sympy"):
        try:
            digest.update(f"{package}=={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{package} not installed".encode())
    return digest.hexdigest()


def user_modules(path: Path) -> list[Path] | None:
    """The files of the user's own modules that the spec module at ``path``
    imports, directly or through each other; None when one of them is
    imported but its file cannot be found (then nothing is cached).

    A module is the user's when it was loaded from a file outside the
    interpreter's own folders and outside layoutalg (which the library
    fingerprint covers).
    """
    seen: dict[Path, None] = {}
    todo = [path.resolve()]
    while todo:
        current = todo.pop()
        try:
            tree = ast.parse(current.read_bytes())
        except (OSError, SyntaxError, ValueError):
            return None
        for name in _imported_names(tree):
            module = sys.modules.get(name)
            if module is None:
                continue  # not imported at all (a branch not taken)
            file = getattr(module, "__file__", None)
            if file is None:
                if getattr(module, "__path__", None) is not None and not _is_library(module):
                    return None  # a namespace package of the user's: cannot tell
                continue  # built into the interpreter
            file_path = Path(file).resolve()
            if _outside_user_tree(file_path) or file_path in seen or file_path == path.resolve():
                continue
            seen[file_path] = None
            todo.append(file_path)
    return sorted(seen)


def _imported_names(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


@lru_cache(maxsize=1)
def _library_roots() -> tuple[Path, ...]:
    roots = {Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if (p := sysconfig.get_paths().get(key))}
    roots |= {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots.add(Path(__file__).resolve().parent)  # layoutalg itself
    return tuple(roots)


def _outside_user_tree(file: Path) -> bool:
    return any(file.is_relative_to(root) for root in _library_roots())


def _is_library(module) -> bool:
    return all(_outside_user_tree(Path(p).resolve()) for p in getattr(module, "__path__", []))


class ProofCache:
    """Outcomes on disk, one JSON file per key (see the module docstring)."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        self.hits = 0
        self.unwritable = False

    def key(self, found: Found) -> str | None:
        """The entry's name, or None when the spec must not be cached."""
        helpers = user_modules(found.path)
        if helpers is None:
            return None
        digest = hashlib.sha256()
        for part in (str(FORMAT), library_fingerprint(), found.path.read_bytes(),
                     found.spec.name, found.spec.fingerprint, repr(found.spec.assume),
                     repr(found.spec.timeout_ms)):
            digest.update(part if isinstance(part, bytes) else part.encode())
            digest.update(b"\0")
        for helper in helpers:
            digest.update(str(helper).encode() + b"\0" + helper.read_bytes() + b"\0")
        return digest.hexdigest()[:40]

    def get(self, found: Found) -> list[Outcome] | None:
        """The cached outcomes of ``found``, under its path as given now; None
        when there are none or the entry does not check out."""
        key = self.key(found)
        if key is None:
            return None
        try:
            entry = json.loads((self.directory / f"{key}.json").read_text())
            rows = entry["outcomes"]
            if entry["checksum"] != _checksum(rows):
                return None  # truncated or altered: prove again, never trust it
            outcomes = [replace(Outcome(**row), path=str(found.path)) for row in rows]
        except (OSError, ValueError, TypeError, KeyError):
            return None
        self.hits += 1
        return outcomes

    def put(self, found: Found, outcomes: list[Outcome]) -> None:
        if not outcomes or any(o.status not in CACHEABLE for o in outcomes):
            return
        key = self.key(found)
        if key is None:
            return
        rows = [asdict(o) for o in outcomes]
        text = json.dumps({"checksum": _checksum(rows), "outcomes": rows})
        temporary = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.",
                                                 suffix=".tmp")
            with os.fdopen(handle, "w") as file:
                file.write(text)
            os.replace(temporary, self.directory / f"{key}.json")
        except OSError:
            self.unwritable = True  # best-effort: the proofs stand without it
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


def _checksum(rows: list[dict]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
