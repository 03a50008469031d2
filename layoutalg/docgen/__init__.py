"""Generated documentation: a Markdown page and an SVG picture per spec.

Used by ``layoutalg docs`` and by the MkDocs hook (docs/hooks.py); imports
nothing from MkDocs itself, so ``import layoutalg`` stays light.
"""
