"""The ``layoutalg`` command line: ``main(argv, *, stream) -> exit code``.

Exit codes: 0 every claim met its expectation; 1 some claim did not (its
counterexample or error printed), or layoutalg itself failed (one line; set
LAYOUTALG_TRACEBACK=1 for the traceback); 2 bad input or an output that
could not be written (one line on stderr, no traceback); 130 interrupted
(Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import TextIO

from layoutalg.cli.prove import run_prove
from layoutalg.cli.run import run_run
from layoutalg.cli.show import run_docs, run_show
from layoutalg.errors import LayoutError
from layoutalg.validate import positive_int, positive_number

EXIT_OK, EXIT_UNEXPECTED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C
DEFAULT_CLAIM_SECONDS = 300.0

EXAMPLES = """examples:
  layoutalg prove                      prove specs/ and proofs/ of this folder
  layoutalg prove specs/cute.py        prove one spec module
  layoutalg prove specs --json r.json --junit r.xml
  layoutalg prove -j 2 --no-cache      two worker processes, redo every proof
  layoutalg show specs/grid.py::grid_uneven          draw a layout in the terminal
  layoutalg show specs/cute.py::complement_4_2 --svg c.svg
  layoutalg run specs/grid.py::grid_uneven           place random data by the layout, fetch it back
  layoutalg docs --out docs/generated  write the generated spec pages
  layoutalg docs my_specs.py --site site             an HTML site of my specs' proofs
"""


COMMANDS = {"prove": run_prove, "show": run_show, "run": run_run, "docs": run_docs}


class BadInput(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, and prints help and version to ``stream``."""

    stream: TextIO | None = None

    def error(self, message: str):  # one line, no usage dump
        raise BadInput(message)

    def _print_message(self, message: str, file=None) -> None:
        if message:
            (self.stream or sys.stdout).write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="layoutalg", description="Prove tensor layouts right with Z3.",
                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"layoutalg {version('layoutalg')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    prove = commands.add_parser(
        "prove", help="check every claim of the specs under PATHs",
        description="Check every claim of the spec modules under PATHs "
        "(default: specs/ and proofs/ of the working folder).",
    )
    prove.add_argument("paths", nargs="*", metavar="PATH", help="spec module or folder")
    prove.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    prove.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    prove.add_argument("-q", "--quiet", action="store_true",
                       help="print only failures and the summary")
    prove.add_argument("-j", "--jobs", type=_positive, default=1, metavar="N",
                       help="prove N specs at once in worker processes (default 1)")
    prove.add_argument("--dask", metavar="ADDRESS",
                       help="prove on a Dask cluster (scheduler address; needs the 'dask' extra)")
    _cache_options(prove)
    prove.add_argument("--claim-timeout", type=_positive_seconds, default=DEFAULT_CLAIM_SECONDS,
                       metavar="SECONDS",
                       help="a claim still running after SECONDS is UNKNOWN "
                       f"(default {DEFAULT_CLAIM_SECONDS:g})")
    show = commands.add_parser("show", help="draw a spec's layout in the terminal or as SVG")
    show.add_argument("spec", metavar="SPEC", help="path.py::name, path.py, or a shipped spec name")
    show.add_argument("--svg", type=Path, metavar="FILE", help="write an SVG picture instead")
    run = commands.add_parser("run", help="execute a spec's layout on the emulated machine")
    run.add_argument("spec", metavar="SPEC", help="path.py::name, path.py, or a shipped spec name")
    run.add_argument("--seed", type=int, default=0, help="seed of the random data (default 0)")
    run.add_argument("--capacity", type=_positive_bytes, metavar="BYTES",
                     help="bytes per memory (default: the family's preset, or what fits)")
    run.add_argument("--element-bytes", type=int, choices=(1, 2, 4, 8), default=None,
                     help="bytes per element (default: the spec's own, e.g. 2 for a bfloat16 "
                     "tensor, else 4)")
    run.add_argument("--offsets-in-bytes", action="store_true",
                     help="the layout's offsets already count bytes")
    docs = commands.add_parser("docs", help="write the generated spec pages (Markdown + SVG)")
    docs.add_argument("paths", nargs="*", metavar="PATH", help="spec module or folder")
    docs.add_argument("--out", metavar="DIR",
                      help="write the Markdown pages and SVG pictures here "
                      "(default docs/generated, unless --site is given)")
    docs.add_argument("--site", type=Path, metavar="DIR",
                      help="build a standalone HTML site of the pages into DIR "
                      "(needs mkdocs and mkdocs-material: the 'docs' extra)")
    _cache_options(docs)
    return parser


def _cache_options(command: argparse.ArgumentParser) -> None:
    """``--no-cache`` and ``--cache-dir``, alike for ``prove`` and ``docs``."""
    command.add_argument("--no-cache", action="store_true", help="redo every proof (default: "
                         "reuse the outcomes of unchanged specs from the cache)")
    command.add_argument("--cache-dir", type=_folder, metavar="DIR", help="keep the proof cache "
                         "in DIR (default $XDG_CACHE_HOME/layoutalg, else ~/.cache/layoutalg)")


def main(argv: Sequence[str] | None = None, *, stream: TextIO | None = None,
         errors: TextIO | None = None) -> int:
    """Run the CLI; returns the exit code instead of exiting."""
    stream, errors = stream or sys.stdout, errors or sys.stderr

    def refuse(text: str) -> int:
        print(f"layoutalg: error: {text}", file=errors)
        return EXIT_BAD_INPUT

    parser = build_parser()
    _Parser.stream = stream
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help and --version end here
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except BadInput as exc:
        return refuse(one_line(str(exc)))
    try:
        if args.command is None:
            parser.print_help(stream)
            return EXIT_BAD_INPUT
        return COMMANDS[args.command](args, stream)
    except SystemExit as exc:  # e.g. rich on a closed pipe; never a green exit
        if exc.code in (0, None):
            return refuse("the run was ended by sys.exit(0) before it finished")
        return exc.code if isinstance(exc.code, int) else EXIT_UNEXPECTED
    except (BadInput, LayoutError) as exc:
        return refuse(one_line(str(exc)))
    except OSError as exc:
        text = f"layoutalg: error: {exc.strerror or exc}: {exc.filename or ''}"
        print(text.rstrip(": "), file=errors)
        return EXIT_BAD_INPUT
    except MemoryError as exc:
        return refuse(f"out of memory ({one_line(str(exc)) or 'no detail'}); the layout is too "
                      "large to run or draw here: bind smaller sizes")
    except KeyboardInterrupt as exc:
        note = getattr(exc, "note", None)  # e.g. a partial report that could not be written
        if note:
            refuse(one_line(note))
        print("layoutalg: interrupted", file=errors)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - a bug of layoutalg's: one line, traceback on request
        if os.environ.get("LAYOUTALG_TRACEBACK"):
            traceback.print_exc(file=errors)
        print(f"layoutalg: internal error (a bug in layoutalg; please report it): "
              f"{type(exc).__name__}: {one_line(str(exc))} (set LAYOUTALG_TRACEBACK=1 to see "
              "where)", file=errors)
        return EXIT_UNEXPECTED


def _checked(rule, name: str, parse):
    """An argparse ``type=``: ``parse`` the text, then ``rule`` (from
    layoutalg.validate) names ``name``, the rule and the value; text that does
    not parse is refused as typed."""
    def convert(text: str):
        try:
            value = parse(text)
        except ValueError:
            value = text
        try:
            return rule(LayoutError, name, value)
        except LayoutError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return convert


_positive = _checked(positive_int, "N", int)
_positive_bytes = _checked(positive_int, "BYTES", int)
_positive_seconds = _checked(positive_number, "SECONDS", float)


def _folder(text: str) -> Path:
    """A folder named on the command line: an empty name would mean the
    working folder, silently (the cache must never land in the source tree)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must name a folder; got {text!r}")
    return Path(text)


def one_line(text: str) -> str:
    return " ".join(text.split())


def entry() -> None:
    """Console-script entry point. Once ``main`` has returned, the process ends
    without tearing the interpreter down: freeing every SymPy expression and Z3
    term of a prove one by one took 0.7-1 s (measured over the shipped specs),
    and nothing is left to do but flush the two streams (reports are closed,
    worker pools shut down and temporary folders removed inside ``main``)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader gone, or stream closed
            stream.flush()
    os._exit(code)
