"""A cache of proof outcomes keyed by content, so unchanged proofs are not redone
(docs/cli.md, "The proof cache": what the key covers, where the cache lives).

Only PROVED and REFUTED are cached (UNKNOWN and ERROR may depend on time
limits and load); a spec importing a module of the user's that cannot be read
is not cached (when unsure, prove again). Best-effort: a folder that cannot
be written is skipped, never an error. Entries are renamed into place (two
runs sharing a cache never see half an entry) and carry a checksum: a
truncated or altered entry is proved again, never trusted.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict, replace
from functools import lru_cache
from importlib import metadata
from importlib.machinery import PathFinder
from pathlib import Path

from layoutalg.runner.prover import Found, Outcome
from layoutalg.runner.spec_imports import outside_user_tree

CACHEABLE = ("PROVED", "REFUTED")
FORMAT = 3  # bump when the entry layout changes


def default_directory() -> Path:
    """``$XDG_CACHE_HOME/layoutalg``, else ``~/.cache/layoutalg``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "layoutalg"


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """Hash of every source file of the installed layoutalg package and the
    versions of the solver and the algebra it runs on."""
    root = Path(__file__).resolve().parent.parent  # the layoutalg package
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
    imports — at top level or inside its functions, directly or through each
    other — found as Python would with the spec's folder first on the path;
    None when an imported name cannot be found. Nothing is imported, and
    ``sys.modules`` is not consulted: what matters is the file the spec would
    import now, not one another spec imported earlier under the same name.
    """
    path = path.resolve()
    seen: dict[Path, None] = {}
    todo = [path]
    while todo:
        current = todo.pop()
        names = _imported_names_of(current)
        if names is None:
            return None
        for name in names:
            file = (_relative_file(name, current) if name.startswith(".")
                    else _module_file(name, path.parent))
            if file is False:
                return None
            if file is None or file in seen or file == path:
                continue
            seen[file] = None
            todo.append(file)
    return sorted(seen)


@lru_cache(maxsize=4096)
def _parsed_names(path: Path, _stamp: tuple[int, int]) -> tuple[str, ...] | None:
    """The names ``path`` imports; ``_stamp`` (its mtime and size) is only part
    of the memo's key, so an edited file is parsed again."""
    try:
        return tuple(_imported_names(ast.parse(path.read_bytes())))
    except (OSError, SyntaxError, ValueError):
        return None


def _imported_names_of(path: Path) -> tuple[str, ...] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return _parsed_names(path, (stat.st_mtime_ns, stat.st_size))


def _module_file(name: str, folder: Path) -> Path | None | bool:
    """The file of the user's module ``name`` (dotted names: the deepest one
    found), None for a module of the interpreter, its libraries or
    layoutalg, False when it cannot be found at all."""
    parts = name.split(".")
    if parts[0] in sys.builtin_module_names or parts[0] == "__future__":
        return None
    search = [str(folder), *sys.path]
    spec = PathFinder.find_spec(parts[0], search)
    if spec is None:
        return None if parts[0] in sys.modules and _is_library(sys.modules[parts[0]]) else False
    file = _spec_file(spec)
    if file is None:
        locations = [Path(p).resolve() for p in spec.submodule_search_locations or ()]
        if any(not outside_user_tree(p) for p in locations):
            return False  # a namespace package of the user's: cannot tell which files
        return None  # frozen or built in
    if outside_user_tree(file):
        return None
    for part in parts[1:]:  # a user package: follow the dotted name into it
        inner = spec.submodule_search_locations
        if not inner:
            break
        sub = PathFinder.find_spec(f"{spec.name}.{part}", list(inner))
        if sub is None or _spec_file(sub) is None:
            break  # `from package import name` where name is not a module
        spec, file = sub, _spec_file(sub)
    return file


def _spec_file(spec) -> Path | None:
    if spec.origin and spec.origin not in ("built-in", "frozen") and Path(spec.origin).is_file():
        return Path(spec.origin).resolve()
    return None


def _imported_names(tree: ast.AST) -> list[str]:
    """Every dotted name an import runs, its packages too: ``from pkg.const import N``
    executes ``pkg/__init__.py`` before ``pkg/const.py``."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):  # from m import x; from .const import M
            module = "." * node.level + (node.module or "")
            if node.module:
                names.append(module)
            dot = "." if node.module else ""
            names += [f"{module}{dot}{alias.name}" for alias in node.names]
    return list(dict.fromkeys(prefix for name in names for prefix in _packages_and(name)))


def _packages_and(name: str) -> list[str]:
    """``a.b.c`` → ``a``, ``a.b``, ``a.b.c`` (leading dots of a relative name kept)."""
    level = len(name) - len(name.lstrip("."))
    parts = name[level:].split(".")
    return [name[:level] + ".".join(parts[:k]) for k in range(1, len(parts) + 1)]


def _relative_file(name: str, importer: Path) -> Path | None | bool:
    """The file a relative import in ``importer`` names (``..pkg.mod``), None
    when it names no module (``from . import CONSTANT``) but its package
    exists, False when not even the package can be found."""
    level = len(name) - len(name.lstrip("."))
    base = importer.parent
    for _ in range(level - 1):
        base = base.parent
    parts = [part for part in name[level:].split(".") if part]
    found: Path | None = None
    folder = base
    for part in parts:
        if (folder / part / "__init__.py").is_file():
            folder = folder / part
            found = folder / "__init__.py"
        elif (folder / f"{part}.py").is_file():
            found = folder / f"{part}.py"
            break
        else:
            break
    if found is None:
        return None if (base / "__init__.py").is_file() else False
    return found.resolve()


def _is_library(module) -> bool:
    return all(outside_user_tree(Path(p).resolve()) for p in getattr(module, "__path__", []))


class ProofCache:
    """Outcomes on disk, one JSON file per key (see the module docstring)."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        self.hits = 0

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
            if entry["key"] != key or entry["checksum"] != _checksum(key, rows) \
                    or any(row["spec"] != found.spec.name for row in rows):
                return None  # truncated, altered or another spec's: prove again, never trust it
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
        entry = {"key": key, "checksum": _checksum(key, rows), "outcomes": rows}
        write_atomically(self.directory / f"{key}.json", json.dumps(entry))


def _checksum(key: str, rows: list[dict]) -> str:
    """Covers the entry's own key too: an entry copied over another spec's
    file does not check out."""
    return hashlib.sha256((key + json.dumps(rows, sort_keys=True)).encode()).hexdigest()


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place;
    best-effort: skipped (the temporary removed) when the folder cannot be written."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.",
                                             suffix=".tmp")
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
