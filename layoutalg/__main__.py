"""``python -m layoutalg`` runs the CLI."""

from layoutalg.cli import entry

entry()
