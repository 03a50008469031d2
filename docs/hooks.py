"""MkDocs hook: the generated pages of every shipped spec and proof, and
MathML for the formulas of the hand-written pages.

All the work is done by plain functions of ``layoutalg.docgen`` (the same
ones ``layoutalg docs`` calls); this file only hands their results to MkDocs.
"""

from __future__ import annotations

from mkdocs.structure.files import File

from layoutalg.docgen import catalog, mathml, offline
from layoutalg.docgen.pages import build_pages
from layoutalg.runner.proof_cache import ProofCache

GENERATED_NAV = "generated/index.md"  # the nav entry the grouped pages replace
_pages = []


def on_config(config):
    """Prove and render the pages once, and put their grouped navigation
    where mkdocs.yml lists ``generated/index.md``."""
    _pages[:] = build_pages(cache=ProofCache())
    grouped = catalog.navigation(_pages)
    for k, item in enumerate(config.nav or []):
        if isinstance(item, dict) and list(item.values()) == [GENERATED_NAV]:
            config.nav[k] = {next(iter(item)): grouped}
    return config


def on_files(files, config):
    for page in _pages:
        files.append(File.generated(config, page.path, content=page.text))
    # mkdocs.yml names it in extra.polyfills: search works from file:// offline
    files.append(File.generated(config, offline.SHIM_PATH, content=offline.SHIM))
    return files


def on_page_markdown(markdown, page, config, files):
    """``$…$`` and ``$$…$$`` of the hand-written pages as MathML (generated
    pages already hold MathML)."""
    if page.file.generated_by:
        return markdown
    return mathml.render(markdown)
