"""The imports of a spec module: its own folder first, and forgotten afterwards.

A spec module may import a helper beside it (``from sizes import M``). Two spec
folders may each hold a ``sizes.py``, and Python caches a module by name: the second
folder's spec would silently be proved on the first one's sizes. So a spec module's
code runs inside ``isolated``: its folder first on ``sys.path``, and the user's modules
imported meanwhile dropped from ``sys.modules`` afterwards. A module is the user's
when its file lies outside the interpreter's folders, its installed packages and
layoutalg.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

SPEC_MODULE_PREFIX = "layoutalg_specs_"


#: ``sys.path`` and ``sys.modules`` are shared by every thread (a Dask worker
#: proves specs in threads): one spec's code runs inside ``isolated`` at a time.
_ONE_AT_A_TIME = threading.RLock()


@contextmanager
def isolated(folder: Path) -> Iterator[None]:
    """Run a spec's code with ``folder`` first on the path, then forget the
    user modules it imported (spec modules themselves are kept). Threads
    take turns (see ``_ONE_AT_A_TIME``)."""
    with _ONE_AT_A_TIME:
        entry = str(folder.resolve())
        before = set(sys.modules)
        stale = _users_modules_named_from(entry)
        sys.path.insert(0, entry)
        try:
            yield
        finally:
            if entry in sys.path:
                sys.path.remove(entry)  # the first occurrence: ours
            for name in set(sys.modules) - before:
                if name != "__main__" and not name.startswith(SPEC_MODULE_PREFIX) \
                        and is_users(sys.modules.get(name)):
                    sys.modules.pop(name, None)  # pop: another thread (Dask) may import too
            sys.modules.update(stale)


def _users_modules_named_from(folder: str) -> dict[str, object]:
    """Set aside a user module already imported from another folder when
    this spec's folder holds a module of the same name: while this spec
    runs, its own folder's module must win."""
    aside, here = {}, Path(folder)
    for name in module_names_in(folder):  # the few names the folder holds, not every module
        module = sys.modules.get(name)
        if module is None or name == "__main__" or name.startswith(SPEC_MODULE_PREFIX):
            continue
        # not from this folder (a module, or a package's __init__.py)
        if is_users(module) and here not in Path(module.__file__).resolve().parents[:2]:
            aside[name] = sys.modules.pop(name, module)
    return aside


def module_names_in(folder: str) -> frozenset[str]:
    """The top-level module names ``folder`` holds: ``name.py`` files and
    ``name/__init__.py`` packages. One listing of the folder, not a look-up
    per imported module (a spec is built inside ``isolated`` while a thousand
    modules are imported)."""
    names = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                stem = entry.name[:-3] if entry.name.endswith(".py") else None
                if stem is not None and "." not in stem and entry.is_file():
                    names.add(stem)
                elif "." not in entry.name and entry.is_dir() \
                        and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                    names.add(entry.name)
    except OSError:
        return frozenset()
    return frozenset(names)


def is_users(module) -> bool:
    """True for a module loaded from a file of the user's (see the module docstring)."""
    file = getattr(module, "__file__", None)
    return bool(file) and not outside_user_tree(Path(file).resolve())


@lru_cache(maxsize=1)
def library_roots() -> tuple[Path, ...]:
    """The interpreter's own folders, its installed packages and layoutalg."""
    # Not the whole prefixes: with a system Python sys.prefix is /usr, and a
    # project in /usr/src/app is the user's.
    roots = {Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if (p := sysconfig.get_paths().get(key))}
    roots |= {Path(p).resolve() for p in site.getsitepackages()}
    roots.add(Path(site.getusersitepackages()).resolve())
    roots.add(Path(__file__).resolve().parent.parent)  # layoutalg itself
    return tuple(roots)


def outside_user_tree(file: Path) -> bool:
    """True when ``file`` belongs to the interpreter, a library or layoutalg."""
    return any(file.is_relative_to(root) for root in library_roots())
