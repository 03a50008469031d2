"""A standalone MkDocs site of the generated spec pages (``layoutalg docs --site``).

A user's folder of specs has no MkDocs configuration, so this writes one beside
the pages and runs ``mkdocs build --strict`` in a subprocess. MkDocs is only
looked up, never imported, so ``import layoutalg`` stays light.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from layoutalg.docgen import offline, output_folder
from layoutalg.docgen.catalog import navigation
from layoutalg.docgen.pages import Page, write_pages
from layoutalg.errors import SpecError

NEEDED = {"mkdocs": "mkdocs", "material": "mkdocs-material", "latex2mathml": "latex2mathml"}

# JSON is valid YAML, and json.dumps quotes every path safely. The settings that make
# the site work from disk and offline are explained in docs/site.md.
CONFIG = {
    "site_name": "Verified layouts",
    "use_directory_urls": False,
    "theme": {"name": "material", "font": False,
              "features": ["content.code.copy", "navigation.sections"]},
    "markdown_extensions": ["admonition", "attr_list", "tables"],
    "plugins": ["search", "offline"],
    "extra": {"polyfills": [offline.SHIM_PATH]},
}


def build_site(pages: Sequence[Page], site_dir: Path) -> Path:
    """Write ``pages`` and build them into ``site_dir``; returns its ``index.html``.

    Raises SpecError (one line) when MkDocs or its theme is not installed or
    the build fails, quoting MkDocs' own first error line; OutputError when
    ``site_dir`` is a file, cannot be written, or holds files layoutalg did
    not make (it is never emptied: the site is built in a temporary folder
    and copied in).
    """
    missing = [package for module, package in NEEDED.items()
               if importlib.util.find_spec(module) is None]
    if missing:
        raise SpecError(f"docs --site: building a site needs {', '.join(missing)}; "
                        "install them with pip install 'layoutalg[docs]'")
    site_dir = output_folder.claim(Path(site_dir), "--site")
    with tempfile.TemporaryDirectory(prefix="layoutalg-docs-") as work:
        docs_dir = Path(work) / "docs"
        write_pages(pages, docs_dir)
        output_folder.write_text(docs_dir, offline.SHIM_PATH, offline.SHIM, "--site")
        config = Path(work) / "mkdocs.yml"
        built_dir = Path(work) / "site"  # MkDocs empties its site folder: never the user's
        config.write_text(json.dumps({**CONFIG, "nav": navigation(pages, folder=""),
                                      "docs_dir": str(docs_dir),
                                      "site_dir": str(built_dir)}, indent=2))
        built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                                "--config-file", str(config)],
                               capture_output=True, text=True,
                               env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        if built.returncode != 0:
            lines = [line for line in built.stderr.splitlines() if line.strip()]
            first = next((line for line in lines if "ERROR" in line or "WARNING" in line),
                         lines[0] if lines else f"exit code {built.returncode}")
            raise SpecError(f"docs --site: mkdocs build --strict failed: {first.strip()}")
        output_folder.replace_with(site_dir, built_dir, "--site")
    return site_dir / "index.html"
