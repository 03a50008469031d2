"""pytest plugin (entry point ``pytest11``): ``pytest specs/`` checks every claim.

Each claim of each spec becomes one test item ``spec::claim``, failing when its
verdict differs from the expectation. Spec modules are collected from folders named
``specs`` or ``proofs`` (ini option ``layoutalg_spec_dirs``) below pytest's rootdir
(``/home/me/specs/project/deploy.py`` with the rootdir at ``project`` is not one).
Nothing heavy is imported until a spec file is collected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DEFAULT_DIRS = ("specs", "proofs")


def pytest_addoption(parser) -> None:
    parser.addini("layoutalg_spec_dirs", "folder names whose .py files hold layoutalg specs",
                  type="args", default=list(DEFAULT_DIRS))


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".py" or file_path.name.startswith(("_", "test_", "conftest")):
        return None
    dirs = parent.config.getini("layoutalg_spec_dirs")
    try:  # only the folders below pytest's rootdir count
        folders = file_path.resolve().parent.relative_to(parent.config.rootpath.resolve()).parts
    except ValueError:
        return None  # outside the rootdir
    if not any(part in dirs for part in folders):
        return None
    return SpecModule.from_parent(parent, path=file_path)


class SpecModule(pytest.File):
    """A spec module: one item per claim of every spec in it."""

    def collect(self):
        from layoutalg.runner.dsl import Spec
        from layoutalg.runner.prover import Found, load_module

        module = load_module(self.path)
        for value in vars(module).values():
            if isinstance(value, Spec):
                found = Found(self.path, value)
                for claim in value.claims:
                    yield ClaimItem.from_parent(self, name=f"{value.name}::{claim.label}",
                                                found=found, claim=claim)


class ClaimFailure(Exception):
    """A claim's verdict differed from the spec's expectation."""


class ClaimItem(pytest.Item):
    def __init__(self, *, found, claim, **kwargs) -> None:
        super().__init__(**kwargs)
        self.found = found
        self.claim = claim

    def runtest(self) -> None:
        from layoutalg.runner.dsl import run_claim

        subject = _built(self.parent, self.found)
        result = run_claim(self.found.spec, self.claim, subject)
        self.user_properties.append(("verdict", result.status.value))
        if result.status.value != self.claim.expect:
            raise ClaimFailure(
                f"expected {self.claim.expect}, got {result.status.value}: {result.reason}"
            )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailure):
            return f"{self.name}: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"{self.found.spec.name}::{self.claim.label}"


def _built(module: SpecModule, found):
    """Build each spec once per module, however many claims it has."""
    cache = module.__dict__.setdefault("_layoutalg_built", {})
    if found.spec.name not in cache:
        cache[found.spec.name] = found.spec.build()
    return cache[found.spec.name]
