"""Running the CLI in-process, and what bad input must look like on it."""

from __future__ import annotations

from io import StringIO

import pytest

from layoutalg.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``main(argv)``: its exit code, stdout and stderr (it must return, never exit)."""
    out, err = StringIO(), StringIO()
    try:
        code = main(list(argv), stream=out, errors=err)
    except SystemExit as exc:
        pytest.fail(f"main{argv} raised SystemExit({exc.code!r}) instead of returning a code")
    return code, out.getvalue(), err.getvalue()


def assert_bad_input(code: int, out: str, err: str) -> str:
    """Exit 2, exactly one ``layoutalg: error: `` line on stderr, no traceback
    anywhere; returns that line."""
    assert "Traceback" not in err + out
    assert code == 2, (code, out[-300:], err)
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines}"
    assert err.endswith("\n")
    assert lines[0].startswith("layoutalg: error: ")
    return lines[0]
