"""The package's import graph: layers point down, and no module imports in a cycle.

Issue 12, item 6. The layers, lowest first::

    foundation  errors, validate
    core        layoutalg.core
    verify      layoutalg.verify
    families    mesh, spyre, tt, channel, dataflow, dtensor, linear
    execute     layoutalg.execute
    runner      layoutalg.runner (dsl, prover, claim_limit, spec_imports, proof_cache,
                reports, pytest_plugin, worker_pool)
    surface     layoutalg.cli (main, prove, show, run), docgen, __main__

A module may import from its own layer and the layers below it. The package
root (``layoutalg/__init__.py``) is the facade that re-exports every layer,
so nothing below the surface may import it. Imports inside functions count
(a function-level import hides a cycle, it does not remove it).

``KNOWN_UPWARD`` and ``KNOWN_CYCLES`` list what breaks these rules today, as
debt to pay off: the tests fail on anything not listed, and also when a
listed item is gone (so the lists only shrink, and say what is left).
"""

from __future__ import annotations

import ast
import pathlib
from collections import defaultdict

import layoutalg as la

PACKAGE = pathlib.Path(la.__file__).parent

LAYERS = {
    "errors": 0, "validate": 0,
    "core": 1,
    "verify": 2,
    "mesh": 3, "spyre": 3, "tt": 3, "channel": 3, "dataflow": 3, "dtensor": 3, "linear": 3,
    "execute": 4,
    "runner": 5,
    "cli": 6, "docgen": 6, "__main__": 6,
    "(root)": 7,
}

# (importing part, imported part): the arrows that point up today — none.
# (core once imported verify: compose proves that each image lies in the next
# map's domain, so compose, Chain, the combinators applied to a map and the
# CuTe postconditions now live in verify, and the core keeps the algebra and
# the exact-by-construction bookkeeping, core/exact.py. Families once
# registered claims with the spec DSL; claims are now defined beside their
# checks, in ``layoutalg.verify.claims``. The CLI read its version from the
# facade; it asks the installed metadata.)
KNOWN_UPWARD: set[tuple[str, str]] = set()

# Module cycles today (issue 12 counts six), each hidden by an import inside
# a function. Same rule: no new one, and a cycle broken leaves this list.
KNOWN_CYCLES: set[frozenset[str]] = set()


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    """The layer key of a module: its subpackage, or its name at the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def imports_of(path: pathlib.Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports, anywhere in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import sub`` imports the module pkg.sub; ``from pkg
            # import name`` imports pkg itself (its __init__ defines name).
            submodules = [f"{module}.{alias.name}" for alias in node.names]
            targets = submodules + ([module] if not all(s in modules for s in submodules)
                                    else [])
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: imports_of(path, modules) for name, path in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward_arrows(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    arrows: dict[tuple[str, str], list[str]] = defaultdict(list)
    for source, targets in graph.items():
        for target in targets:
            a, b = part_of(source), part_of(target)
            if a != b and LAYERS[b] > LAYERS[a]:
                arrows[(a, b)].append(f"{source} -> {target}")
    return dict(arrows)


def test_every_part_of_the_package_has_a_layer():
    parts = {part_of(name) for name in import_graph()}
    assert parts - set(LAYERS) == set()


def test_arrows_point_down_except_the_listed_debt():
    arrows = upward_arrows(import_graph())
    new = {pair: where for pair, where in arrows.items() if pair not in KNOWN_UPWARD}
    paid = KNOWN_UPWARD - set(arrows)
    assert new == {}, "new upward imports (move the code down, or the import up)"
    assert paid == set(), "these arrows are gone: remove them from KNOWN_UPWARD"


def test_no_import_cycles_but_the_listed_debt():
    found = {frozenset(component) for component in cycles(import_graph())}
    assert found - KNOWN_CYCLES == set(), "new import cycles"
    assert KNOWN_CYCLES - found == set(), "these cycles are broken: remove them from KNOWN_CYCLES"


def test_the_checker_sees_a_cycle_and_an_upward_arrow():
    graph = {"layoutalg.core.a": {"layoutalg.verify.b"}, "layoutalg.verify.b": {"layoutalg.core.a"}}
    assert cycles(graph) == [["layoutalg.core.a", "layoutalg.verify.b"]]
    assert list(upward_arrows(graph)) == [("core", "verify")]


def test_the_package_root_holds_at_most_six_modules():
    """Issue 12: the root shows the architecture; subsystems live in their packages."""
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 6, modules


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


# The pytest plugin is an entry point loaded into every pytest session on a
# machine with layoutalg installed: it imports the runner (sympy, z3) only
# when a session collects a spec file.
LAZY_IMPORTS_ALLOWED = {"layoutalg.runner.pytest_plugin"}


def imports_inside_functions(path: pathlib.Path) -> list[str]:
    """``layoutalg`` modules imported in a function body (doctests not counted)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.level or (inner.module or "")
                                                          .startswith("layoutalg")):
                    found.append(f"{node.name}: from {inner.module}")
                if isinstance(inner, ast.Import) and any(a.name.startswith("layoutalg")
                                                         for a in inner.names):
                    found.append(f"{node.name}: import {inner.names[0].name}")
    return found


def test_no_package_import_inside_a_function():
    inside = {module_name(p): imports_inside_functions(p) for p in PACKAGE.rglob("*.py")}
    hidden = {m: found for m, found in inside.items() if found and m not in LAZY_IMPORTS_ALLOWED}
    assert hidden == {}
    assert inside["layoutalg.runner.pytest_plugin"]  # the one allowed is still seen


def test_the_scan_sees_an_import_in_a_function(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("import numpy\n\ndef f():\n    from layoutalg.core import space\n"
                      "    import torch\n")
    assert imports_inside_functions(sneaky) == ["f: from layoutalg.core"]
