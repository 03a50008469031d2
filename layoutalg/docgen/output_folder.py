"""Folders layoutalg writes generated files into, and never anything else.

A folder is ours when it did not exist, was empty, or holds the marker file
``MARKER`` that layoutalg left there when it first wrote into it. A folder
holding files of the user's (and no marker) is refused, never emptied or
overwritten (``layoutalg docs --site .`` once deleted a whole project, since
MkDocs empties its site folder). Every file is written only after checking
that its resolved path lies inside the folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from layoutalg.errors import OutputError

MARKER = ".layoutalg-generated"
MARKER_TEXT = "Written by layoutalg docs; layoutalg may replace everything in this folder.\n"


def claim(folder: Path, option: str) -> Path:
    """Make ``folder`` ours (see the module docstring) and return it resolved.

    Raises OutputError naming ``option`` when it is a file, holds files
    layoutalg did not make, or cannot be written.
    """
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option}: {str(folder)!r} is a file, not a folder; "
                          "give a folder to write into")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MARKER).is_file():
        raise OutputError(f"{option}: the folder {str(folder)!r} is not empty and was not made "
                          "by layoutalg; give a new or empty folder (layoutalg never overwrites "
                          "files it did not write)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MARKER).write_text(MARKER_TEXT)
    except OSError as exc:
        raise OutputError(f"{option}: cannot write into {str(folder)!r}: "
                          f"{exc.strerror or exc}") from None
    return folder.resolve()


def write_text(folder: Path, relative: str | Path, text: str, option: str) -> None:
    """Write one generated file, ``folder / relative``, refused unless it resolves
    inside ``folder``."""
    root = folder.resolve()
    target = (root / relative).resolve()
    if target == root or not target.is_relative_to(root):
        raise OutputError(f"{option}: refusing to write {str(relative)!r}, which lies outside "
                          f"the output folder {str(root)!r}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    except OSError as exc:
        raise OutputError(f"{option}: cannot write {str(target)!r}: "
                          f"{exc.strerror or exc}") from None


def replace_with(folder: Path, built: Path, option: str) -> None:
    """Put the contents of ``built`` in ``folder`` (already ``claim``-ed):
    what layoutalg wrote there before is removed first, then the marker is
    written again."""
    try:
        for old in folder.iterdir():
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            else:
                old.unlink()
        shutil.copytree(built, folder, dirs_exist_ok=True)
        (folder / MARKER).write_text(MARKER_TEXT)
    except OSError as exc:
        raise OutputError(f"{option}: cannot write into {str(folder)!r}: "
                          f"{exc.strerror or exc}") from None
