"""MkDocs hook: add a generated page per shipped spec and proof at build time."""

from __future__ import annotations

from mkdocs.structure.files import File

from layoutalg.docgen.pages import build_pages
from layoutalg.proof_cache import ProofCache


def on_files(files, config):
    for page in build_pages(cache=ProofCache()):
        files.append(File.generated(config, page.path, content=page.text))
    return files
