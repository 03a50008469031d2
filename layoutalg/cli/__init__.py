"""The command line: ``layoutalg prove | show | run | docs``."""

from layoutalg.cli.main import build_parser, entry, main, one_line

__all__ = ["build_parser", "entry", "main", "one_line"]
