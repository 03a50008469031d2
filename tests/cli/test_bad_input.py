"""Bad input, table-driven: every row is one kind of mistake a user makes.

Part (a) calls the Python API (core, combinators, checks, ``@la.spec`` and
every family) and asserts the exception class, that the message is one line,
and the message itself: exact text, or a regex pinning the argument, the rule
and the value where it embeds long reprs. Part (b) runs the CLI through
``main(argv, stream=..., errors=...)`` and asserts exit 2, one
``layoutalg: error: `` line on the errors stream and no traceback. Part (c)
checks that NumPy integers are accepted wherever Python ints are, part (d)
that sizes past int64 come out exact.

Rows marked ``xfail(strict=True)`` are library bugs (issue 13): they state
the right behaviour, so they start to XPASS (and fail) once fixed.
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sympy

from cli_helpers import assert_bad_input, run_cli
import layoutalg as la
from layoutalg.channel import ChannelError, SwizzleError
from layoutalg.cli import main
from layoutalg.dataflow import DataflowError
from layoutalg.execute import CapacityError, MachineError
from layoutalg.mesh import MeshError
from layoutalg.spyre import CoverageError, DimMapError, SpyreError, StickSizeError
from layoutalg.tt import ShardSpecError, TTError

S = la.Space(i=4, j=8)
M = la.linearize(S)  # [i:4, j:8] -> [offset:32], row-major
I, J = sympy.symbols("i j", integer=True)
GRID = la.mesh.MeshLayout.grid(2, 2)
GRID_MAP = GRID.index_map((8, 8))
SPYRE = la.spyre.default_layout((64, 128))
TT = la.tt.TensorSpec((64, 64), "bfloat16")
CHANNEL_SIZES = dict(num_channels=4, m_tiles=2, n_tiles=2, k_tiles=2, tile_bytes=256)
CHANNEL = la.channel.ChannelLayout("round_robin", **CHANNEL_SIZES)
SCHEDULE = la.dataflow.Schedule("os", (64, 64, 64), (16, 16, 16))
A8 = np.arange(64, dtype=np.float32).reshape(8, 8)
WSE = la.execute.Machine.wse
SYMBOLIC = la.linearize(la.Space(i=la.extents("n")[0]))
SPARSE = la.IndexMap(la.Space(i=4), la.Space(b=1, o=2**42), [0, I * 2**40])  # 16 TiB span


def channel_layout(option: str = "round_robin", **changes) -> la.channel.ChannelLayout:
    return la.channel.ChannelLayout(option, **{**CHANNEL_SIZES, **changes})


def bug(reason: str, raises: type[BaseException] = AssertionError):
    """Mark a row that shows a library bug; the row states the right behaviour."""
    return pytest.mark.xfail(strict=True, raises=raises, reason=f"library bug: {reason}")


def row(call, error, message, *, id, marks=()):
    return pytest.param(call, error, message, id=id, marks=marks)


def rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


# -- (a) the Python API ---------------------------------------------------------------

EXTENT_RULE = "must be a positive integer or a positive integer symbol"
TYPES = "['bfloat16', 'bfloat4_b', 'bfloat8_b', 'float32', 'int32', 'uint16', 'uint32', 'uint8']"

API_ROWS = [
    # Space and extents
    row(lambda: la.Space(i=-3), la.SpaceError, f"extent i {EXTENT_RULE}; got -3",
        id="space-negative"),
    row(lambda: la.Space(i=0), la.SpaceError, f"extent i {EXTENT_RULE}; got 0", id="space-zero"),
    row(lambda: la.Space(i=2.5), la.SpaceError, f"extent i {EXTENT_RULE}; got 2.5",
        id="space-float"),
    row(lambda: la.Space(i="4"), la.SpaceError, f"extent i {EXTENT_RULE}; got '4'", id="space-str"),
    row(lambda: la.Space(i=True), la.SpaceError, f"extent i {EXTENT_RULE}; got True",
        id="space-bool"),
    row(lambda: la.Space(i=None), la.SpaceError, f"extent i {EXTENT_RULE}; got None",
        id="space-none"),
    row(lambda: la.Space(i=np.bool_(True)), la.SpaceError, f"extent i {EXTENT_RULE}; got np.True_",
        id="space-numpy-bool"),
    row(lambda: la.Space(i=np.float64(4)), la.SpaceError,
        f"extent i {EXTENT_RULE}; got np.float64(4.0)", id="space-numpy-float"),
    row(lambda: la.Space(i=sympy.Symbol("n")), la.SpaceError,
        f"extent i {EXTENT_RULE} (declare it with layoutalg.extents('...')); got n",
        id="space-symbol-not-integer"),
    row(lambda: la.Space(**{"class": 3}), la.SpaceError,
        "dimension name must be a Python identifier; got 'class'", id="space-keyword-name"),
    row(lambda: la.Space(**{"a b": 3}), la.SpaceError,
        "dimension name must be a Python identifier; got 'a b'", id="space-name-with-space"),
    row(lambda: la.extents(""), la.SpaceError,
        "extents: names must be a string naming at least one size, e.g. extents('M N'); got ''",
        id="extents-empty"),
    row(lambda: la.extents(3), la.SpaceError,
        "extents: names must be a string naming at least one size, e.g. extents('M N'); got 3",
        id="extents-not-a-string"),
    row(lambda: la.extents("1x"), la.SpaceError,
        "extents: each size must be named by a Python identifier; got '1x' in '1x'",
        id="extents-not-an-identifier"),
    # IndexMap
    row(lambda: la.IndexMap(3, la.Space(o=32), [I]), la.MapError,
        "domain must be a Space; got 3", id="indexmap-domain"),
    row(lambda: la.IndexMap(S, "x", [I]), la.MapError,
        "codomain must be a Space; got 'x'", id="indexmap-codomain"),
    row(lambda: la.IndexMap(S, la.Space(o=32), [I, J]), la.MapError,
        "exprs must have one expression per dimension of [o:32] (1); got 2", id="indexmap-count"),
    row(lambda: la.IndexMap(S, la.Space(o=32), {"q": I}), la.MapError,
        "exprs must give one expression per dimension ('o',); missing ['o'], unknown ['q']",
        id="indexmap-mapping-keys"),
    row(lambda: la.IndexMap(S, la.Space(o=32), ["i*8+j"]), la.MapError,
        "exprs[0] must be an integer expression; got 'i*8+j'", id="indexmap-string-expr"),
    row(lambda: la.IndexMap(S, la.Space(o=32), [sympy.Symbol("z", integer=True)]), la.MapError,
        "exprs[0] uses symbol z, which is neither a dimension of [i:4, j:8] nor a positive "
        "integer parameter (declare parameters with layoutalg.extents); got z",
        id="indexmap-stray-symbol"),
    row(lambda: la.IndexMap(S, la.Space(o=32), [8 * I + J], inverse=[I]), la.MapError,
        "inverse must have one expression per dimension of [i:4, j:8] (2); got 1",
        id="indexmap-inverse-count"),
    row(lambda: la.IndexMap(la.Space(i=4), la.Space(o=4), [I], valid="yes"), la.MapError,
        "valid must be a SymPy boolean; got 'yes'", id="indexmap-valid"),
    row(lambda: la.IndexMap(S, la.Space(o=32), [8 * I + J], name=3), la.MapError,
        "name must be a string; got 3", id="indexmap-name"),
    row(lambda: M(1), la.MapError, "coord must have 2 values for [i:4, j:8]; got (1,)",
        id="indexmap-call-arity"),
    row(lambda: M(4, 0), la.MapError, "coord i must lie in [0, 4); got 4",
        id="indexmap-call-range"),
    row(lambda: M(1.5, 0), la.MapError, "coord i must be an int; got 1.5",
        id="indexmap-call-float"),
    row(lambda: M(True, 0), la.MapError, "coord i must be an int; got True",
        id="indexmap-call-bool"),
    row(lambda: SYMBOLIC.bind(n=-1), la.MapError,
        "bind: n must be a positive int; got -1", id="bind-negative"),
    row(lambda: SYMBOLIC.bind(q=3), la.MapError,
        "bind: 'q' is not a parameter of linearize; its parameters are ['n']", id="bind-unknown"),
    # combinators
    row(lambda: la.split(S, "i", 0), la.SpaceError, f"extent factor {EXTENT_RULE}; got 0",
        id="split-zero"),
    row(lambda: la.split(S, "q", 2), la.SpaceError,
        "dimension 'q' is not in the space; its dimensions are ('i', 'j')", id="split-unknown-dim"),
    row(lambda: la.split(S, "i", 2, names="ab"), la.MapError,
        "names must be 2 distinct names given as a tuple, e.g. ('i_o', 'i_i'); "
        "got the single string 'ab'", id="split-names-string"),
    row(lambda: la.split(S, "i", 2, names=("a", "a")), la.MapError,
        "names must be 2 distinct names; got ('a', 'a')", id="split-names-duplicate"),
    row(lambda: la.split(S, "i", 2, names=("j", "x")), la.SpaceError,
        "dimension names must be unique; got 'j' twice", id="split-names-clash"),
    row(lambda: la.fuse(S, "i", "i"), la.MapError,
        "fuse: outer and inner must differ; got 'i' twice",
        id="fuse-same"),
    row(lambda: la.fuse(S, "i", "q"), la.SpaceError,
        "dimension 'q' is not in the space; its dimensions are ('i', 'j')", id="fuse-unknown-dim"),
    row(lambda: la.permute(S, ["i", "i"]), la.MapError,
        "permute: order must be a permutation of ('i', 'j'); got ('i', 'i')",
        id="permute-duplicate"),
    row(lambda: la.permute(S, ["i"]), la.MapError,
        "permute: order must be a permutation of ('i', 'j'); got ('i',)", id="permute-short"),
    row(lambda: la.permute(S, "ji"), la.MapError,
        rx(r"permute: order must be .*single string 'ji'"), id="permute-string"),
    row(lambda: la.linearize(3), la.MapError, "source must be a Space or an IndexMap; got 3",
        id="linearize-source"),
    row(lambda: la.linearize(S, "ij"), la.MapError,
        "linearize: dims must be a list of names, e.g. ['ij']; got the single string 'ij'",
        id="linearize-dims-string"),
    row(lambda: la.linearize(S, name="1x"), la.SpaceError,
        "dimension name must be a Python identifier; got '1x'", id="linearize-name"),
    row(lambda: la.pad(S, "i", -1), la.SpaceError, f"extent multiple {EXTENT_RULE}; got -1",
        id="pad-negative-multiple"),
    row(lambda: la.pad(S, "i", to=2), la.MapError,
        "pad: to must be at least the extent 4 of i; got 2",
        id="pad-to-too-small"),
    row(lambda: la.pad(S, "i", 2, to=8), la.MapError,
        "pad: give exactly one of multiple= and to=; got 2, 8", id="pad-both"),
    row(lambda: la.pad(S, "i"), la.MapError,
        "pad: give exactly one of multiple= and to=; got None, None", id="pad-neither"),
    row(lambda: la.cyclic(S, "i", 0), la.SpaceError, f"extent parts {EXTENT_RULE}; got 0",
        id="cyclic-zero-parts"),
    row(lambda: la.cyclic(S, "i", 2, block=0), la.SpaceError, f"extent block {EXTENT_RULE}; got 0",
        id="cyclic-zero-block"),
    row(lambda: la.cyclic(S, "i", 2, names="ab"), la.MapError,
        "names must be 2 distinct names given as a tuple, e.g. ('i_part', 'i_local'); "
        "got the single string 'ab'", id="cyclic-names-string"),
    row(lambda: la.offset(S, "i", -1), la.MapError,
        "offset: amount must be a nonnegative integer; got -1", id="offset-negative"),
    row(lambda: la.delinearize(la.Space(k=32), "k", a=3, b=4), la.MapError,
        "delinearize: the new extents must hold all 32 indices of k; got {'a': 3, 'b': 4} "
        "(product 12)", id="delinearize-product"),
    row(lambda: la.identity(3), la.MapError, rx(r"identity: space must be a Space; got 3"),
        id="identity-not-a-space"),
    row(lambda: la.compose(M, la.linearize(S)), la.CompositionError,
        "compose: first's codomain [offset:32] and then's domain [i:4, j:8] must have the same "
        "rank; got 1 and 2", id="compose-rank"),
    row(lambda: la.compose("x", M), la.CompositionError,
        "compose: first must be an IndexMap; got 'x'",
        id="compose-first"),
    row(lambda: la.compose(M, 3), la.CompositionError, "compose: then must be an IndexMap; got 3",
        id="compose-then"),
    row(lambda: la.strided((4, 4), (1,)), la.MapError,
        "strided: shape and stride must have the same nesting; got shape (4,4) and stride (1)",
        id="strided-nesting"),
    row(lambda: la.strided((4, 0), (1, 4)), la.SpaceError, f"extent shape[1] {EXTENT_RULE}; got 0",
        id="strided-zero-shape"),
    row(lambda: la.strided(4, -1), la.MapError,
        "strided: stride[0] must be a nonnegative integer (negative strides are not supported); "
        "got -1", id="strided-negative-stride"),
    row(lambda: la.strided(4, 1.5), la.MapError,
        "strided: stride[0] must be a nonnegative integer; got 1.5",
        id="strided-float-stride"),
    row(lambda: la.strided(4, 1, cosize=-1), la.SpaceError, f"extent cosize {EXTENT_RULE}; got -1",
        id="strided-cosize"),
    row(lambda: la.Chain(3), la.CompositionError,
        "Chain: parts must be a non-empty sequence of IndexMaps; got 3", id="chain-not-a-sequence"),
    row(lambda: la.Chain([]), la.CompositionError,
        "Chain: parts must be a non-empty sequence of IndexMaps; got []", id="chain-empty"),
    row(lambda: la.Chain([M, 3]), la.CompositionError, "Chain: parts[1] must be an IndexMap; got 3",
        id="chain-part"),
    row(lambda: la.Chain([M, M]), la.CompositionError,
        "Chain: parts[0]'s codomain [offset:32] must have the extents of parts[1]'s domain "
        "[i:4, j:8]", id="chain-links"),
    row(lambda: la.Chain([M], name=5), la.CompositionError,
        rx(r"Chain: name must be a string; got 5"),
        id="chain-name"),
    # checks
    row(lambda: la.check_injective(3), la.MapError, "m must be an IndexMap; got 3",
        id="injective-subject"),
    row(lambda: la.check_in_bounds("x"), la.MapError, "m must be an IndexMap; got 'x'",
        id="in-bounds-subject"),
    row(lambda: la.check_bijective(None), la.MapError, "m must be an IndexMap; got None",
        id="bijective-subject"),
    row(lambda: la.check_equivalent(M, 3), la.MapError, "m2 must be an IndexMap; got 3",
        id="equivalent-subject"),
    row(lambda: la.check_equivalent(M, la.linearize(la.Space(i=2))), la.MapError,
        "check_equivalent needs domains with equal extents; got [i:4, j:8] and [i:2]",
        id="equivalent-domains"),
    row(lambda: la.check_bijective_by_parts(3), la.MapError,
        "check_bijective_by_parts: chain must be a Chain; got 3", id="by-parts-subject"),
    row(lambda: la.check_equivalent(M, M, timeout_ms="abc"), la.MapError,
        "timeout_ms must be a positive whole number of milliseconds; got 'abc'",
        id="equivalent-timeout-string"),
    row(lambda: la.check_injective(M, timeout_ms="abc"), la.MapError,
        "timeout_ms must be a positive whole number of milliseconds; got 'abc'",
        id="injective-timeout-string"),
    row(lambda: la.check_injective(M, timeout_ms=-1), la.MapError,
        "timeout_ms must be a positive whole number of milliseconds; got -1",
        id="timeout-negative"),
    row(lambda: la.check_bijective(M, timeout_ms=True), la.MapError,
        "timeout_ms must be a positive whole number of milliseconds; got True", id="timeout-bool"),
    row(lambda: la.check_injective(M, assume="x"), la.MapError,
        "assume must be a sequence of SymPy booleans; got 'x'", id="assume-string"),
    row(lambda: la.check_injective(M, assume=["x"]), la.MapError,
        "assume[0] must be a SymPy boolean; got 'x'", id="assume-entry"),
    row(lambda: la.check_fits(M, -1), la.MapError,
        "check_fits: capacity must be at least 0 bytes; got -1",
        id="fits-negative"),
    row(lambda: la.check_fits(M, "4096"), la.MapError,
        "check_fits: capacity must be a number of bytes; got '4096'", id="fits-string"),
    row(lambda: la.check_fits(M, 32.0), la.MapError,
        "check_fits: capacity must be a number of bytes; got 32.0", id="fits-float"),
    row(lambda: la.check_fits(M, 32, per=["q"]), la.MapError,
        "check_fits: per must name codomain dims of [offset:32]; got ['q']", id="fits-per"),
    row(lambda: la.check_fits(M, 32, per=3), la.MapError,
        rx(r"check_fits: per must name codomain dims of \[offset:32\]; got 3"), id="fits-per-int"),
    row(lambda: la.check_fits(M, 32, element_bytes=0), la.MapError,
        "check_fits: element_bytes must be a positive int; got 0", id="fits-element-bytes"),
    row(lambda: la.check_fits(M, 32, offsets_in_bytes="yes"), la.MapError,
        rx(r"check_fits: offsets_in_bytes must be True or False; got 'yes'"),
        id="fits-offsets-in-bytes"),
    row(lambda: la.padding(3), la.MapError, "padding: m must be an IndexMap; got 3",
        id="padding-subject"),
    row(lambda: la.padding(M, assume="x"), la.MapError,
        rx(r"assume must be a sequence of SymPy booleans; got 'x'"), id="padding-assume"),
    # @la.spec
    row(lambda: la.spec(claims=["injectiv"]), la.SpecError,  # families add claims to the list
        rx(r"unknown claim 'injectiv'; known claims are \[.*'bijective', .*'fits', .*'in_bounds', "
           r"'injective', .*\]"), id="spec-unknown-claim"),
    row(lambda: la.spec(claims=[3]), la.SpecError,
        "a claim must be a name or a (name, *args) tuple; got 3", id="spec-claim-type"),
    row(lambda: la.spec(claims=[()]), la.SpecError,
        "a claim must be a name or a (name, *args) tuple; got ()", id="spec-claim-empty-tuple"),
    row(lambda: la.spec(claims="injective"), la.SpecError,
        "claims must be a non-empty list of claims; got 'injective'", id="spec-claims-string"),
    row(lambda: la.spec(claims=[]), la.SpecError,
        "claims must be a non-empty list of claims; got []",
        id="spec-claims-empty"),
    row(lambda: la.spec(claims=[("injective", 3)]), la.SpecError,
        "claim 'injective' takes 0 argument(s) after its name; got ('injective', 3)",
        id="spec-claim-arity"),
    row(lambda: la.spec(claims=[("fits",)]), la.SpecError,
        "claim 'fits' takes 1 to 2 argument(s) after its name; got ('fits',)",
        id="spec-fits-arity"),
    row(lambda: la.spec(claims=[("fits", "4096")]), la.SpecError,
        "claim 'fits': capacity must be a whole number of bytes; got '4096'",
        id="spec-fits-string"),
    row(lambda: la.spec(claims=[("fits", -1)]), la.SpecError,
        "claim 'fits': capacity must be at least 0 bytes; got -1", id="spec-fits-negative"),
    row(lambda: la.spec(claims=[("fits", 32, {"bogus": 1})]), la.SpecError,
        "claim 'fits': unknown option 'bogus'; the options are per, element_bytes, "
        "offsets_in_bytes, memory_name", id="spec-fits-unknown-option"),
    row(lambda: la.spec(claims=[("fits", 32, 5)]), la.SpecError,
        "claim 'fits': options must be a dict such as {'element_bytes': 2}; got 5",
        id="spec-fits-options-type"),
    row(lambda: la.spec(claims=[("fits", 32, {"element_bytes": 0})]), la.SpecError,
        "claim 'fits': option element_bytes must be a positive int; got 0",
        id="spec-fits-element-bytes"),
    row(lambda: la.spec(claims=[("fits", 32, {"offsets_in_bytes": "yes"})]), la.SpecError,
        rx(r"claim 'fits': option offsets_in_bytes must be True or False; got 'yes'"),
        id="spec-fits-offsets-in-bytes"),
    row(lambda: la.spec(claims=[("equivalent", 3)]), la.SpecError,
        rx(r"claim 'equivalent': .*IndexMap.*; got 3"), id="spec-equivalent-argument"),
    row(lambda: la.spec(claims=["injective"], assume="x"), la.SpecError,
        rx(r"assume must be a sequence of SymPy booleans; got 'x'"), id="spec-assume"),
    row(lambda: la.spec(claims=["injective"], expect="proved"), la.SpecError,
        "expect must be one of ('PROVED', 'REFUTED'); got 'proved'", id="spec-expect-value"),
    row(lambda: la.spec(claims=["injective"], expect=1), la.SpecError,
        "expect must be 'PROVED', 'REFUTED' or a list of them; got 1", id="spec-expect-type"),
    row(lambda: la.spec(claims=["injective"], expect=["PROVED", "PROVED"]), la.SpecError,
        "expect must be one verdict or one per claim (1); got ['PROVED', 'PROVED']",
        id="spec-expect-count"),
    row(lambda: la.spec(claims=["injective"], timeout_ms="abc"), la.SpecError,
        "timeout_ms must be a positive whole number of milliseconds or None; got 'abc'",
        id="spec-timeout-string"),
    row(lambda: la.spec(claims=["injective"], timeout_ms=-5), la.SpecError,
        "timeout_ms must be a positive whole number of milliseconds or None; got -5",
        id="spec-timeout-negative"),
    row(lambda: la.spec(claims=["injective"], name=""), la.SpecError,
        "name must be a non-empty string; got ''", id="spec-name"),
    row(lambda: la.spec(claims=["injective"])(3), la.SpecError, "@spec decorates a function; got 3",
        id="spec-decorates-non-function"),
    row(lambda: la.spec(claims=["injective"])(lambda: 42).build(), la.SpecError,
        rx(r"spec <lambda> must return an IndexMap, an object with \.index_map\(\) or a "
           r"framework layout \(.*torch DTensor \(torch\.distributed\.tensor\.DTensor\).*\); "
           r"got 42"),
        id="spec-returns-non-layout"),
    # mesh
    row(lambda: la.mesh.MeshLayout.grid(0, 2), MeshError,
        "grid: rows must be a positive int; got 0",
        id="mesh-grid-zero"),
    row(lambda: la.mesh.MeshLayout.grid("2", 2), MeshError,
        "grid: rows must be a positive int; got '2'",
        id="mesh-grid-string"),
    row(lambda: la.mesh.MeshLayout.row_partition(-2), MeshError,
        "row_partition: num_pes must be a positive int; got -2", id="mesh-row-partition"),
    row(lambda: la.mesh.MeshLayout.col_partition(True), MeshError,
        "col_partition: num_pes must be a positive int; got True", id="mesh-col-partition-bool"),
    row(lambda: la.mesh.MeshLayout.block_cyclic(2, 2, 0, 1), MeshError,
        "block_cyclic: block_rows must be a positive int; got 0", id="mesh-block-cyclic"),
    row(lambda: la.mesh.MeshLayout.grid(2, 2, dim_to_pe=(0, 0)), MeshError,
        "grid: dim_to_pe must be (0, 1) (tensor rows down PE rows) or (1, 0) (tensor rows across "
        "PE columns); got (0, 0)", id="mesh-dim-to-pe"),
    row(lambda: la.mesh.MeshLayout("grid", 2, 2), MeshError,
        "MeshLayout: kind must be a LayoutKind; got 'grid'", id="mesh-constructor-kind"),
    row(lambda: GRID.pe_for_element((8, 0), (8, 8)), MeshError,
        "index: coordinate 0 must lie in [0, 8) for shape (8, 8); got (8, 0)",
        id="mesh-pe-for-element"),
    row(lambda: GRID.pe_for_element((1,), (8, 8)), MeshError,
        "index: must have 2 coordinates for shape (8, 8); got (1,)", id="mesh-index-rank"),
    row(lambda: GRID.local_indices((0, 0), (0, 8)), MeshError,
        "shape: dimension 0 must be a positive int; got (0, 8)", id="mesh-local-indices-shape"),
    row(lambda: GRID.tile_shape((2, 0), (8, 8)), MeshError,
        "pe: must lie in the 2×2 PE grid of the layout; got (2, 0)", id="mesh-tile-shape-pe"),
    row(lambda: GRID.tile_shape(3, (8, 8)), MeshError,
        "pe: must be a (row, col) pair of ints; got 3",
        id="mesh-tile-shape-pe-type"),
    row(lambda: GRID.memory_per_pe((8, 8), 0), MeshError,
        "element_size: must be a positive int (bytes per element); got 0", id="mesh-memory-per-pe"),
    row(lambda: GRID.index_map("8x8"), MeshError,
        "shape: must be a tuple of positive ints; got '8x8'",
        id="mesh-index-map-shape"),
    row(lambda: GRID.index_map(()), MeshError,
        "shape: rank must be at least 1 (a PE mesh places arrays, not scalars); got ()",
        id="mesh-index-map-scalar"),
    row(lambda: la.mesh.memory_usage(GRID, (8, 8), "float99"), MeshError,
        "dtype: must be one of ['bfloat16', 'float16', 'float32', 'int16', 'int32']; got 'float99'",
        id="mesh-memory-usage-dtype"),
    row(lambda: la.mesh.memory_usage(3, (8, 8)), MeshError,
        rx(r".*layout.* must be a MeshLayout; got 3"), id="mesh-memory-usage-layout"),
    # spyre
    row(lambda: la.spyre.default_layout((-1, 64)), SpyreError,
        "size[0] must be a positive int; got -1 in size=[-1, 64]", id="spyre-size-negative"),
    row(lambda: la.spyre.default_layout((64.0, 128)), SpyreError,
        "size[0] must be an int; got 64.0 in size=(64.0, 128)", id="spyre-size-float"),
    row(lambda: la.spyre.default_layout("64x64"), SpyreError,
        "size must be a sequence of ints; got '64x64'", id="spyre-size-string"),
    row(lambda: la.spyre.default_layout((64, 64), dtype="float99"), SpyreError,
        rx(r"dtype must be one of \[.*'float16'.*\] \(or an alias \[.*\]\); got 'float99'"),
        id="spyre-dtype"),
    row(lambda: la.spyre.default_layout((64, 64), dim_order=(0, 0)), SpyreError,
        "dim_order must be a permutation of range(2) (the dims of the rank-2 tensor), optionally "
        "followed by -1 for a sparse layout; got (0, 0)", id="spyre-dim-order"),
    row(lambda: la.spyre.default_layout((2,) * 9), SpyreError,
        rx(r"default_layout supports tensors of rank 0 to 6 .*; "
           r"got size=\[2(, 2){8}\] \(rank 9 .*\)"),
        id="spyre-rank"),
    row(lambda: la.spyre.SpyreLayout((64, 128), "float16", (2, 64, 64), (0, 0, 0, 0)), DimMapError,
        "device_size and dim_map must have the same length (the device rank); got 3 and 4 "
        "(device_size=[2, 64, 64], dim_map=[0, 0, 0, 0])", id="spyre-dim-map-length"),
    row(lambda: la.spyre.SpyreLayout((64, 128), "float16", (2, 64, 64), (1, 0, 5)), DimMapError,
        "dim_map[2] must be in range(-1, 2) (a torch dim of the rank-2 tensor, or -1 for the "
        "synthetic dim); got 5 in dim_map=[1, 0, 5]", id="spyre-dim-map-range"),
    row(lambda: la.spyre.SpyreLayout((64, 128), "float16", (2, 64, 32), (1, 0, 1)), StickSizeError,
        "device_size[-1] is the stick dim and must hold one 128-byte stick: 128 // 2 = 64 elements "
        "of float16; got 32 in device_size=[2, 64, 32]", id="spyre-stick"),
    row(lambda: la.spyre.SpyreLayout((64, 128), "float16", (1, 64, 64), (1, 0, 1)), CoverageError,
        rx(r"the device dims of torch dim 1 .* must cover its size 128; .*"
           r"\(device_size=\[1, 64, 64\], dim_map=\[1, 0, 1\], size=\[64, 128\]\)"),
        id="spyre-coverage"),
    row(lambda: la.spyre.SpyreLayout((64, 128), "float16", (2, 64, 64), (1, 0, 1), stride=(1,)),
        SpyreError, "stride must have one entry per dim of size [64, 128] (2); got (1,)",
        id="spyre-stride"),
    row(lambda: SPYRE.device_to_host((99, 0, 0)), SpyreError,
        "device_coord[0] must lie in [0, 2) for device_size [2, 64, 64]; got 99",
        id="spyre-device-coord"),
    row(lambda: SPYRE.device_to_host((0,)), SpyreError,
        "device_coord must have 3 ints for device_size [2, 64, 64]; got (0,)",
        id="spyre-device-rank"),
    row(lambda: SPYRE.host_to_device((64, 0)), SpyreError,
        "host_coord[0] must lie in [0, 64) for size [64, 128]; got 64", id="spyre-host-coord"),
    row(lambda: SPYRE.host_to_device((0.5, 0)), SpyreError,
        "host_coord[0] must be an int; got 0.5 in host_coord=(0.5, 0)", id="spyre-host-float"),
    row(lambda: la.spyre.default_dim_map((0, 0)), SpyreError,
        rx(r".*must be a permutation of range\(2\).*; got \(0, 0\)"), id="spyre-default-dim-map"),
    row(lambda: la.spyre.default_dim_map(3), SpyreError, rx(r".*order.*; got 3"),
        id="spyre-default-dim-map-type"),
    # tenstorrent
    row(lambda: la.tt.tile_offset(32, 0), TTError,
        "row must be an int in [0, 32) for a 32x32 tile; got 32",
        id="tt-tile-offset-row"),
    row(lambda: la.tt.tile_offset(0, 0, (7, 32)), TTError,
        rx(r"tile: Tile size is not valid for TT hardware; the tile shapes are \[\(32, 32\), .*\]; "
           r"got \(7, 32\)"), id="tt-tile-shape"),
    row(lambda: la.tt.tile_offset(0, 0, "32x32"), TTError,
        "tile must be a (height, width) pair of ints; got '32x32'", id="tt-tile-type"),
    row(lambda: la.tt.TensorSpec((64, 64), "float99"), TTError,
        f"dtype must be one of {TYPES}; got 'float99'", id="tt-dtype"),
    row(lambda: la.tt.TensorSpec((0, 64), "bfloat16"), TTError,
        "shape must be a non-empty tuple of positive ints; got (0, 64)", id="tt-shape"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", layout="TILED"), TTError,
        "layout must be one of ('TILE', 'ROW_MAJOR'); got 'TILED'", id="tt-layout"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", memory="SHARDED"), TTError,
        "memory must be 'INTERLEAVED', a ShardSpec or an NdShardSpec; got 'SHARDED'",
        id="tt-memory"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", storage="SRAM"), TTError,
        "storage must be one of ('DRAM', 'L1'); got 'SRAM'", id="tt-storage"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", device="h100"), TTError,
        "device must be one of ['blackhole', 'grayskull', 'wormhole_b0'] or a layoutalg.tt.Device; "
        "got 'h100'", id="tt-device"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", base_address=-1), TTError,
        "base_address must be an int >= 0; got -1", id="tt-base-address"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat8_b", layout="ROW_MAJOR"), TTError,
        "dtype: BFLOAT4_B and BFLOAT8_B data types are not supported for ROW_MAJOR layout "
        "(block-float elements share exponents per tile face); got bfloat8_b",
        id="tt-block-float-row-major"),
    row(lambda: TT.page_location(4), TTError, "page must be an int in [0, 4); got 4", id="tt-page"),
    row(lambda: TT.page_location("0"), TTError, "page must be an int in [0, 4); got '0'",
        id="tt-page-type"),
    row(lambda: TT.pages_by_core(), TTError,
        "pages_by_core: an INTERLEAVED tensor's pages live in banks, not on named cores; "
        "use pages_by_bank()", id="tt-pages-by-core-interleaved"),
    row(lambda: la.tt.ShardSpec("DIAGONAL", (2, 2), (32, 32)), TTError,
        "strategy must be one of ('HEIGHT', 'WIDTH', 'BLOCK'); got 'DIAGONAL'",
        id="tt-shard-strategy"),
    row(lambda: la.tt.ShardSpec("HEIGHT", (0, 2), (32, 32)), TTError,
        "grid must be (x, y) = (columns, rows), two positive ints; got (0, 2)", id="tt-shard-grid"),
    row(lambda: la.tt.ShardSpec("HEIGHT", (2, 2), (32, -1)), TTError,
        "shard_shape must be a non-empty tuple of positive ints; got (32, -1)",
        id="tt-shard-shape"),
    row(lambda: la.tt.ShardSpec("HEIGHT", (2, 2), (32, 32), orientation="DIAG"), TTError,
        "orientation must be one of ('ROW_MAJOR', 'COL_MAJOR'); got 'DIAG'",
        id="tt-shard-orientation"),
    row(lambda: la.tt.TensorSpec((64, 64), "bfloat16", storage="L1",
                                 memory=la.tt.ShardSpec("BLOCK", (99, 99), (32, 32))),
        ShardSpecError,
        "memory: grid (x=99, y=99) exceeds the wormhole_b0 L1 core grid (x=8, y=10); got "
        "ShardSpec(strategy='BLOCK', grid=(99, 99), shard_shape=(32, 32), orientation='ROW_MAJOR')",
        id="tt-shard-grid-too-big"),
    row(lambda: la.tt.cores_in_order((2, 2), "DIAG"), TTError,
        "orientation must be one of ('ROW_MAJOR', 'COL_MAJOR'); got 'DIAG'",
        id="tt-cores-in-order-orientation"),
    row(lambda: la.tt.cores_in_order((0, 2), "ROW_MAJOR"), TTError,
        rx(r"grid must be \(x, y\) = \(columns, rows\), two positive ints; got \(0, 2\)"),
        id="tt-cores-in-order-grid"),
    row(lambda: la.tt.cores_in_order(3, "ROW_MAJOR"), TTError,
        rx(r"grid must be \(x, y\) = \(columns, rows\), two positive ints; got 3"),
        id="tt-cores-in-order-grid-type"),
    # channels
    row(lambda: channel_layout("diagonal"), ChannelError,
        "ChannelLayout: option must be one of ('matrix', 'round_robin', 'iteration_aware', "
        "'hardware'); got 'diagonal'", id="channel-option"),
    row(lambda: channel_layout(num_channels=0), ChannelError,
        "ChannelLayout: num_channels must be a positive int; got 0", id="channel-num-channels"),
    row(lambda: channel_layout(tile_bytes="256"), ChannelError,
        "ChannelLayout: tile_bytes must be a positive int; got '256'", id="channel-tile-bytes"),
    row(lambda: channel_layout(interleave=100), ChannelError,
        "ChannelLayout: tile_bytes must be a multiple of interleave (100), so a tile streams as "
        "whole beats; got tile_bytes=256", id="channel-interleave"),
    row(lambda: channel_layout(channel_bytes=-5), ChannelError,
        "ChannelLayout: channel_bytes must be a positive int; got -5", id="channel-channel-bytes"),
    row(lambda: channel_layout(name=5), ChannelError, "ChannelLayout: name must be a string; got 5",
        id="channel-name"),
    row(lambda: CHANNEL.channel("D", 0, 0, 0), ChannelError,
        "matrix must be one of ('A', 'B', 'C'); got 'D'", id="channel-matrix"),
    row(lambda: CHANNEL.channel("A", 2, 0, 0), ChannelError, "ti must lie in [0, 2); got 2",
        id="channel-tile-index"),
    row(lambda: CHANNEL.address("A", 0.0, 0, 0), ChannelError, "ti must be an int; got 0.0",
        id="channel-address-float"),
    row(lambda: la.channel.check_conflict_free(CHANNEL, dataflow="xx"), ChannelError,
        "dataflow must be one of ('os', 'ws', 'is') or a tuple of matrix names; got 'xx'",
        id="channel-conflict-dataflow"),
    row(lambda: la.channel.check_conflict_free(CHANNEL, grain="xx"), ChannelError,
        "grain must be one of ('tile', 'beat', 'footprint'); got 'xx'",
        id="channel-conflict-grain"),
    row(lambda: la.channel.check_conflict_free(3), ChannelError,
        "check_conflict_free: layout must be a ChannelLayout; got 3", id="channel-conflict-layout"),
    row(lambda: la.channel.check_fits(CHANNEL, -1), ChannelError,
        "check_fits: capacity must be a positive number of bytes; got -1",
        id="channel-fits-negative"),
    row(lambda: la.channel.check_fits(CHANNEL, "4096"), ChannelError,
        "check_fits: capacity must be a positive number of bytes; got '4096'",
        id="channel-fits-string"),
    row(lambda: la.channel.check_load_balance(CHANNEL, 0.5), ChannelError,
        "check_load_balance: max_ratio must be a number >= 1; got 0.5", id="channel-load-balance"),
    row(lambda: la.channel.check_channel_totals(CHANNEL, {9: 3}), ChannelError,
        "check_channel_totals: channel 9 does not exist; the layout has 4 channels",
        id="channel-totals"),
    row(lambda: la.channel.check_bank_conflict_free(la.strided(32, 1), lane="zz"), SwizzleError,
        "check_bank_conflict_free: lane must name a dim of the access domain ('i',); got 'zz'",
        id="channel-bank-lane"),
    row(lambda: la.channel.Banks(num_banks=0, bank_bytes=4), SwizzleError,
        "Banks: num_banks must be a positive int; got 0", id="channel-banks"),
    # dataflow
    row(lambda: la.dataflow.Schedule("xs", (64, 64, 64), (16, 16, 16)), DataflowError,
        "Schedule: dataflow must be one of ('os', 'ws', 'is'); got 'xs'",
        id="dataflow-schedule-dataflow"),
    row(lambda: la.dataflow.Schedule("os", (64, 64), (16, 16, 16)), DataflowError,
        "Schedule: problem must be a tuple ('M', 'N', 'K'); got (64, 64)", id="dataflow-problem"),
    row(lambda: la.dataflow.Schedule("os", (64, 0, 64), (16, 16, 16)), DataflowError,
        "Schedule: problem N must be a positive int; got 0", id="dataflow-problem-zero"),
    row(lambda: la.dataflow.Schedule("os", (64, 64, 64), (128, 16, 16)), DataflowError,
        "Schedule: tile Ti must be at most M=64 (a larger tile only holds padding; use Ti=64); "
        "got 128",
        id="dataflow-tile-too-big"),
    row(lambda: la.dataflow.Schedule("os", (64, 64, 64), (16, 16, 16), element_bytes=0),
        DataflowError,
        "Schedule: element_bytes must be a positive int; got 0", id="dataflow-element-bytes"),
    row(lambda: la.dataflow.Capacities(l2_bytes=-1), DataflowError,
        "Capacities: l2_bytes must be a positive int; got -1", id="dataflow-capacities"),
    row(lambda: la.dataflow.check_tiles_fit(3), DataflowError,
        "check_tiles_fit: schedule must be a Schedule; got 3", id="dataflow-tiles-fit-schedule"),
    row(lambda: la.dataflow.check_tiles_fit(SCHEDULE, 3), DataflowError,
        "check_tiles_fit: capacities must be a Capacities; got 3",
        id="dataflow-tiles-fit-capacities"),
    row(lambda: la.dataflow.energy(3), DataflowError,
        "energy: subject must be a Schedule or a Traffic; got 3", id="dataflow-energy"),
    row(lambda: la.dataflow.traffic(3), DataflowError,
        "traffic: schedule must be a Schedule; got 3",
        id="dataflow-traffic"),
    row(lambda: la.dataflow.systolic_cycles((64, 64, 64), "os", rows=0), DataflowError,
        "systolic_cycles: rows must be a positive int; got 0", id="dataflow-systolic-rows"),
    row(lambda: la.dataflow.optimize((64, 64, 64), "zz"), DataflowError,
        "optimize: dataflow must be one of ('os', 'ws', 'is'); got 'zz'", id="dataflow-optimize"),
    row(lambda: la.dataflow.check_reuse_above(SCHEDULE, SCHEDULE, "Q"), DataflowError,
        "check_reuse_above: operand must be one of ('A', 'B', 'C'); got 'Q'",
        id="dataflow-reuse-operand"),
    row(lambda: la.dataflow.fetch_factor(SCHEDULE, "Q"), DataflowError,
        "fetch_factor: operand must be one of ('A', 'B', 'C'); got 'Q'",
        id="dataflow-fetch-factor-operand"),
    row(lambda: la.dataflow.fetch_factor(3, "A"), DataflowError,
        "fetch_factor: schedule must be a Schedule; got 3", id="dataflow-fetch-factor-schedule"),
    row(lambda: la.dataflow.simulate(3), DataflowError,
        "simulate: schedule must be a Schedule; got 3", id="dataflow-simulate"),
    row(lambda: list(la.dataflow.loop_nest(3)), DataflowError,
        "loop_nest: schedule must be a Schedule; got 3", id="dataflow-loop-nest"),
    row(lambda: la.dataflow.tile_constraints(SCHEDULE, 3), DataflowError,
        "tile_constraints: capacities must be a Capacities; got 3",
        id="dataflow-tile-constraints"),
    # executor
    row(lambda: WSE(0, 2), MachineError,
        "Machine: each dim must be (name, positive int); got ('pe_row', 0)", id="execute-wse-rows"),
    row(lambda: WSE(2, 2, sram_bytes=0), MachineError,
        rx(r".*sram_bytes.*; got 0"), id="execute-wse-sram"),
    row(lambda: la.execute.Machine("xx", 16), MachineError,
        "Machine: dims must be a tuple of (name, positive int) pairs; got 'xx'",
        id="execute-machine-dims"),
    row(lambda: la.execute.place(np.zeros((4, 4), np.float32), GRID_MAP, WSE(2, 2)),
        MachineError, "array shape (4, 4) must equal the layout's domain extents (8, 8)",
        id="execute-place-shape"),
    row(lambda: la.execute.place(A8, 3, WSE(2, 2)), MachineError,
        "layout must be an IndexMap; got 3", id="execute-place-layout"),
    row(lambda: la.execute.place(A8, GRID_MAP, 3), MachineError, "machine must be a Machine; got 3",
        id="execute-place-machine"),
    row(lambda: la.execute.place(A8, GRID_MAP, WSE(2, 2, sram_bytes=16)),
        CapacityError, "PE (0, 0) exceeds memory: 244 > 16 bytes", id="execute-place-capacity"),
    row(lambda: la.execute.place(A8, GRID_MAP, WSE(4, 4)), MachineError,
        "layout Grid(2, 2) of [8, 8] places onto [pe_row:2, pe_col:2, offset:64] but the machine "
        "has memories {'pe_row': 4, 'pe_col': 4} (the layout's first 2 dims must match them)",
        id="execute-place-mesh"),
    row(lambda: la.execute.place(np.full((8, 8), "a", dtype=object), GRID_MAP, WSE(2, 2)),
        MachineError, "array must hold fixed-size values (numbers); got dtype object",
        id="execute-place-object-array"),
    row(lambda: la.execute.place(np.zeros(4, np.float32), SPARSE,
                                 la.execute.Machine((("b", 1),), 2**45)),
        MachineError,
        rx(r"reserve: emulating 1 memories of 17592186044416 bytes each needs 16\.0 TiB, past "
           r"the emulator's limit of .*; the layout's offsets are too sparse to emulate .*"),
        id="execute-place-sparse"),
    row(lambda: la.execute.place(np.zeros(4, np.float32), SYMBOLIC,
                                 la.execute.Machine((("b", 1),), 64)),
        MachineError,
        "layout linearize has symbolic extents; bind them first with .bind(...)",
        id="execute-place-symbolic"),
    row(lambda: la.execute.fetch(GRID_MAP, WSE(2, 2), "notadtype"), MachineError,
        "dtype must be a NumPy dtype; got 'notadtype'", id="execute-fetch-dtype"),
    row(lambda: la.execute.fetch(3, WSE(2, 2), np.float32), MachineError,
        "layout must be an IndexMap; got 3", id="execute-fetch-layout"),
    row(lambda: la.execute.fetch(GRID_MAP, WSE(2, 2), np.float32, offsets_in_bytes="no"),
        MachineError, rx(r"offsets_in_bytes must be True or False; got 'no'"),
        id="execute-fetch-flag"),
    row(lambda: la.execute.matmul(A8, A8, dataflow="zz", tiles=(4, 4, 4)), MachineError,
        "matmul: dataflow must be one of ('os', 'ws', 'is', 'summa'); got 'zz'",
        id="execute-matmul-dataflow"),
    row(lambda: la.execute.matmul(A8, np.zeros((4, 4), np.float32), dataflow="os", tiles=(4, 4, 4)),
        MachineError, "matmul: A's columns must equal B's rows; got A 8×8 and B 4×4",
        id="execute-matmul-shapes"),
    row(lambda: la.execute.matmul(A8, A8, dataflow="os", tiles=(4, 4)), MachineError,
        "matmul: tiles must be (Ti, Tj, Tk), three positive ints; got (4, 4)",
        id="execute-matmul-tiles"),
    row(lambda: la.execute.matmul(np.zeros(8), A8, dataflow="os", tiles=(4, 4, 4)), MachineError,
        "matmul: A must be a 2-D array; got shape (8,)", id="execute-matmul-rank"),
    row(lambda: la.execute.matmul(A8, A8, dataflow="os", tiles=(8, 8, 8),
                                  machine=WSE(1, 1)), MachineError,
        "matmul: machine for dataflow 'os' must be a layoutalg.execute.Hierarchy; got "
        "Machine(dims=(('pe_row', 1), ('pe_col', 1)), capacity=49152, name='PE')",
        id="execute-matmul-machine"),
]


def raised(call) -> la.LayoutError:
    """The LayoutError ``call()`` raises; any other exception propagates."""
    try:
        value = call()
    except la.LayoutError as exc:
        return exc
    raise AssertionError(f"bad input accepted; returned {value!r:.200}")


@pytest.mark.parametrize("call, error, message", API_ROWS)
def test_api_bad_input_is_refused_in_one_line(call, error, message):
    exc = raised(call)
    assert type(exc) is error, f"{type(exc).__name__}: {exc}"
    text = str(exc)
    assert "\n" not in text
    if isinstance(message, re.Pattern):
        assert message.fullmatch(text), text
    else:
        assert text == message


# -- (b) the CLI ----------------------------------------------------------------------

GOOD = '''
import layoutalg as la


@la.spec(claims=["bijective", ("fits", 32)])
def row_major():
    """[4, 8] row-major in 32 one-byte slots."""
    return la.linearize(la.Space(i=4, j=8))
'''

FILES = {
    "good.py": GOOD,
    "notes.txt": "injective\n",
    "empty.py": "import layoutalg as la\n",
    "rows72.py": '''
        import layoutalg as la


        @la.spec(claims=["injective"], expect="REFUTED")
        def overlapping_rows():
            return la.strided((16, 8), (1, 8))
        ''',
    "raises.py": "raise RuntimeError('boom at import')\n",
    "exits.py": "import sys\n\nsys.exit(0)\n",
    "body_raises.py": '''
        import layoutalg as la


        @la.spec(claims=["injective"])
        def broken():
            raise ValueError("no layout today")
        ''',
    "body_exits.py": '''
        import sys

        import layoutalg as la


        @la.spec(claims=["injective"])
        def quits():
            sys.exit(0)
        ''',
    "sparse.py": '''
        import layoutalg as la


        @la.spec(claims=["injective"])
        def sparse():
            return la.strided((4, 4), (1, 2**40))
        ''',
    "dense.py": '''
        import layoutalg as la


        @la.spec(claims=["injective"])
        def dense():
            return la.linearize(la.Space(i=2**20, j=2**20))
        ''',
    "fits_string.py": '''
        import layoutalg as la


        @la.spec(claims=[("fits", "4096")])
        def s():
            return la.strided(4, 1)
        ''',
    "timeout_abc.py": '''
        import layoutalg as la


        @la.spec(claims=["injective"], timeout_ms="abc")
        def s():
            return la.strided(4, 1)
        ''',
    "equivalent_int.py": '''
        import layoutalg as la


        @la.spec(claims=[("equivalent", 3)])
        def s():
            return la.strided(4, 1)
        ''',
    "a_file": "not a folder\n",
    "user_folder/keep.txt": "precious\n",
    "only_text/readme.txt": "no specs here\n",
}


def cli_row(argv, line, *, id, out=None, kept=None, marks=()):
    """argv and the expected error line are templates: {d} is the scratch folder
    (escaped in ``line``, a regex matched against the whole line)."""
    return pytest.param(argv, line, out, kept, id=id, marks=marks)


CLI_ROWS = [
    # prove: paths and spec modules
    cli_row(["prove", "{d}/nowhere.py"], r"path '{d}/nowhere\.py' does not exist",
            id="prove-missing-path"),
    cli_row(["prove", "{d}/notes.txt"],
            r"path '{d}/notes\.txt' must be a \.py spec module or a folder; it is neither",
            id="prove-not-python"),
    cli_row(["prove", "{d}/empty.py"],
            r"paths: no specs found in {d}/empty\.py; a spec module defines functions decorated "
            r"with @la\.spec", id="prove-empty-module"),
    cli_row(["prove", "{d}/only_text"], r"paths: no specs found in {d}/only_text; .*",
            id="prove-folder-without-specs"),
    cli_row(["prove", "{d}/raises.py"],
            r"spec module {d}/raises\.py does not import: RuntimeError: boom at import \(line 1\)",
            id="prove-module-raises"),
    cli_row(["prove", "-j", "2", "{d}/raises.py"],
            r"spec module {d}/raises\.py does not import: RuntimeError: boom at import \(line 1\)",
            id="prove-jobs-module-raises"),
    cli_row(["prove", "{d}/exits.py"],
            r"spec module {d}/exits\.py does not import: it calls sys\.exit\(0\)",
            id="prove-module-exits-0"),
    cli_row(["prove", "{d}/fits_string.py"],
            r"spec module {d}/fits_string\.py does not import: claim 'fits': capacity must be a "
            r"whole number of bytes; got '4096'", id="prove-fits-string"),
    cli_row(["prove", "{d}/timeout_abc.py"],
            r"spec module {d}/timeout_abc\.py does not import: timeout_ms must be a positive whole "
            r"number of milliseconds or None; got 'abc'", id="prove-timeout-string"),
    cli_row(["prove", "--no-cache", "{d}/equivalent_int.py"],
            r"spec module {d}/equivalent_int\.py does not import: claim 'equivalent': .*; got 3",
            id="prove-equivalent-argument"),
    cli_row(["prove"],
            r"paths: none given, and the working folder {d} has no specs/ or proofs/ folder; pass "
            r"spec modules or folders, e\.g\. layoutalg prove my_specs\.py",
            id="prove-no-argument"),
    # prove: options
    cli_row(["prove", "{d}/good.py", "-j", "0"],
            r"argument -j/--jobs: N must be a positive int; got 0", id="prove-jobs-zero"),
    cli_row(["prove", "{d}/good.py", "-j", "1.5"],
            r"argument -j/--jobs: N must be a positive int; got '1\.5'", id="prove-jobs-float"),
    cli_row(["prove", "{d}/good.py", "--claim-timeout", "-1"],
            r"argument --claim-timeout: SECONDS must be a positive finite number; got -1\.0",
            id="prove-claim-timeout-negative"),
    cli_row(["prove", "{d}/good.py", "--claim-timeout", "abc"],
            r"argument --claim-timeout: SECONDS must be a positive finite number; got 'abc'",
            id="prove-claim-timeout-text"),
    cli_row(["prove", "{d}/good.py", "--claim-timeout", "nan"],
            r"argument --claim-timeout: SECONDS must be a positive finite number; got nan",
            id="prove-claim-timeout-nan"),
    cli_row(["prove", "{d}/good.py", "--claim-timeout", "1e309"],
            r"argument --claim-timeout: SECONDS must be a positive finite number; got inf",
            id="prove-claim-timeout-infinite"),
    cli_row(["prove", "{d}/good.py", "--dask", "not an address"],
            r"--dask: cannot reach a Dask scheduler at 'not an address': .*",
            id="prove-dask-address",
            marks=pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                     reason="needs the 'dask' extra")),
    cli_row(["prove", "{d}/good.py", "--json", "{d}/no_such_dir/r.json"],
            r"--json: cannot write the report '{d}/no_such_dir/r\.json': No such file or directory",
            out="2 claims in 1 spec: all as expected", id="prove-json-missing-folder"),
    cli_row(["prove", "-q", "{d}/good.py", "--junit", "{d}/user_folder"],
            r"--junit: cannot write the report '{d}/user_folder': Is a directory",
            out="2 claims in 1 spec: all as expected", id="prove-junit-into-folder"),
    cli_row(["prove", "{d}/good.py", "--cache-dir", "{d}/a_file"],
            r"--cache-dir: '{d}/a_file' is a file.*", id="prove-cache-dir-file"),
    cli_row(["prove", "{d}/good.py", "--cache-dir"], r"argument --cache-dir: expected one argument",
            id="prove-cache-dir-without-value"),
    cli_row(["prove", "{d}/good.py", "--no-cache=yes"],
            r"argument --no-cache: ignored explicit argument 'yes'",
            id="prove-no-cache-with-value"),
    cli_row(["prove", "--bogus"], r"unrecognized arguments: --bogus", id="prove-unknown-option"),
    cli_row(["disprove"],
            r"argument COMMAND: invalid choice: 'disprove' \(choose from 'prove', 'show', 'run', "
            r"'docs'\)", id="unknown-command"),
    # show
    cli_row(["show"], r"the following arguments are required: SPEC", id="show-without-spec"),
    cli_row(["show", "{d}/nowhere.py"], r"path '{d}/nowhere\.py' does not exist",
            id="show-missing-path"),
    cli_row(["show", "{d}/good.py::nope"],
            r"show/run: SPEC must name exactly one spec \(path\.py::name\); no spec match "
            r"'{d}/good\.py::nope'; some specs are: row_major", id="show-no-match"),
    cli_row(["show", "no_such_spec"], r".*SPEC.*'no_such_spec'.*", id="show-unknown-name"),
    cli_row(["show", "{d}/empty.py"], r".*no specs found in {d}/empty\.py.*",
            id="show-empty-module"),
    cli_row(["show", "{d}/raises.py"],
            r"spec module {d}/raises\.py does not import: RuntimeError: boom at import \(line 1\)",
            id="show-module-raises"),
    cli_row(["show", "{d}/body_raises.py"],
            r"spec body_raises::broken did not build: ValueError: no layout today \(line 7\)",
            id="show-spec-raises"),
    cli_row(["show", "{d}/body_exits.py"], r"spec body_exits::quits called sys\.exit\(0\)",
            id="show-spec-exits-0"),
    cli_row(["show", "{d}/good.py", "--svg", "{d}/no_such_dir/x.svg"],
            r"--svg: .*{d}/no_such_dir/x\.svg.*", id="show-svg-missing-folder"),
    cli_row(["show", "{d}/good.py", "-q"], r"unrecognized arguments: -q",
            id="show-quiet-not-an-option"),
    # run
    cli_row(["run", "{d}/body_raises.py"],
            r"spec body_raises::broken did not build: ValueError: no layout today \(line 7\)",
            id="run-spec-raises"),
    cli_row(["run", "{d}/good.py::nope"],
            r"show/run: SPEC must name exactly one spec .*'{d}/good\.py::nope'.*",
            id="run-no-match"),
    cli_row(["run", "{d}/sparse.py"],
            r"reserve: emulating 1 memories of 13194139533376 bytes each needs 12\.0 TiB, past the "
            r"emulator's limit of .*; the layout's offsets are too sparse to emulate .*",
            id="run-huge-sparse-layout"),
    cli_row(["run", "{d}/dense.py"],
            r"run: layout linearize has 1099511627776 elements; the executor runs layouts of "
            r"at most \d+", id="run-huge-dense-layout"),
    cli_row(["run", "{d}/good.py", "--seed", "abc"], r"argument --seed: invalid int value: 'abc'",
            id="run-seed"),
    cli_row(["run", "{d}/good.py", "--capacity", "0"],
            r"argument --capacity: BYTES must be a positive int; got 0", id="run-capacity-zero"),
    cli_row(["run", "{d}/rows72.py", "--offsets-in-bytes", "--capacity", "75"],
            r"each memory's 75 bytes must be a whole number of 4-byte elements: give a "
            r"capacity that is a multiple of 4", id="run-capacity-not-whole-elements"),
    cli_row(["run", "{d}/good.py", "--element-bytes", "3"],
            r"argument --element-bytes: invalid choice: 3 \(choose from 1, 2, 4, 8\)",
            id="run-element-bytes"),
    # docs
    cli_row(["docs", "{d}/good.py", "--site", "{d}/a_file"],
            r"--site: '{d}/a_file' is a file, not a folder; give a folder to write into",
            id="docs-site-is-a-file"),
    cli_row(["docs", "{d}/good.py", "--site", "{d}/user_folder"],
            r"--site: the folder '{d}/user_folder' is not empty and was not made by layoutalg; "
            r"give a new or empty folder \(layoutalg never overwrites files it did not write\)",
            kept="user_folder/keep.txt", id="docs-site-user-folder"),
    cli_row(["docs", "{d}/good.py", "--out", "{d}/a_file"],
            r"--out: '{d}/a_file' is a file, not a folder; give a folder to write into",
            id="docs-out-is-a-file"),
    cli_row(["docs", "{d}/raises.py", "--out", "{d}/pages"],
            r"spec module {d}/raises\.py does not import: RuntimeError: boom at import \(line 1\)",
            id="docs-module-raises"),
    cli_row(["docs", "{d}/empty.py", "--out", "{d}/pages"], r".*no specs found in {d}/empty\.py.*",
            id="docs-empty-module"),
    cli_row(["docs"],
            r"paths: none given, and the working folder {d} has no specs/ or proofs/ folder; .*",
            id="docs-no-argument"),
]


@pytest.fixture
def scratch(tmp_path, monkeypatch) -> Path:
    """A working folder with the CLI rows' files; the proof cache kept inside it."""
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("argv, line, out, kept", CLI_ROWS)
def test_cli_bad_input_is_one_line_and_exit_2(scratch, argv, line, out, kept):
    folder = str(scratch)
    code, stdout, stderr = run_cli(*(a.replace("{d}", folder) for a in argv))
    message = assert_bad_input(code, stdout, stderr).removeprefix("layoutalg: error: ")
    pattern = line.replace("{d}", re.escape(folder))
    assert re.fullmatch(pattern, message), message
    if out is not None:  # the error comes after the verdict table, not instead of it
        assert out in stdout
    if kept is not None:
        assert (scratch / kept).read_text() == FILES[kept]


# -- (c) NumPy integers are accepted where Python ints are ----------------------------

def same(call_numpy, call_python, *, id, marks=()):
    return pytest.param(call_numpy, call_python, id=f"numpy-{id}", marks=marks)


def verdict(result) -> tuple:
    return result.status, result.counterexample, result.reason


N64, N32 = np.int64, np.int32

NUMPY_ROWS = [
    same(lambda: la.Space(i=N64(4), j=N32(8)), lambda: la.Space(i=4, j=8), id="space-extents"),
    same(lambda: la.split(S, "i", N64(2)), lambda: la.split(S, "i", 2), id="split-factor"),
    same(lambda: la.cyclic(S, "j", N32(2)), lambda: la.cyclic(S, "j", 2), id="cyclic-parts"),
    same(lambda: M(N64(1), N32(2)), lambda: M(1, 2), id="indexmap-call"),
    same(lambda: la.pad(S, "i", to=N64(8)), lambda: la.pad(S, "i", to=8), id="pad-to"),
    same(lambda: la.scale(S, "i", N64(3)), lambda: la.scale(S, "i", 3), id="scale-factor"),
    same(lambda: la.delinearize(la.Space(k=32), "k", a=N64(4), b=N32(8)),
         lambda: la.delinearize(la.Space(k=32), "k", a=4, b=8), id="delinearize-extents"),
    same(lambda: verdict(la.check_fits(M, N64(31))), lambda: verdict(la.check_fits(M, 31)),
         id="check-fits-capacity"),
    same(lambda: la.spec(claims=["injective"], timeout_ms=N64(500))(lambda: M).timeout_ms,
         lambda: 500, id="spec-timeout"),
    same(lambda: la.mesh.MeshLayout.grid(N64(2), N32(2)), lambda: GRID, id="mesh-grid"),
    same(lambda: GRID.index_map((N64(8), N64(8))), lambda: GRID_MAP, id="mesh-index-map-shape"),
    same(lambda: la.mesh.MeshLayout.block_cyclic(N64(2), 2, N32(2), 2),
         lambda: la.mesh.MeshLayout.block_cyclic(2, 2, 2, 2), id="mesh-block-cyclic"),
    same(lambda: la.spyre.default_layout((N64(64), N32(128))), lambda: SPYRE, id="spyre-size"),
    same(lambda: la.spyre.SpyreLayout((64, 128), "float16", (N64(2), 64, 64), (1, 0, 1)),
         lambda: SPYRE,
         id="spyre-layout-device-size"),
    same(lambda: SPYRE.host_to_device((N64(3), N64(5))), lambda: SPYRE.host_to_device((3, 5)),
         id="spyre-host-coord"),
    same(lambda: la.tt.TensorSpec((N64(64), N64(64)), "bfloat16"), lambda: TT, id="tt-shape"),
    same(lambda: la.tt.ShardSpec("BLOCK", (N64(2), 2), (N32(32), 32)),
         lambda: la.tt.ShardSpec("BLOCK", (2, 2), (32, 32)), id="tt-shard-spec"),
    same(lambda: TT.page_location(N64(3)), lambda: TT.page_location(3), id="tt-page"),
    same(lambda: la.dataflow.Schedule("os", (N64(64), 64, 64), (N32(16), 16, 16)), lambda: SCHEDULE,
         id="dataflow-schedule"),
    same(lambda: la.dataflow.Capacities(l2_bytes=N64(1024)),
         lambda: la.dataflow.Capacities(l2_bytes=1024),
         id="dataflow-capacities"),
    same(lambda: CHANNEL.channel("A", N64(1), 0, N32(1)), lambda: CHANNEL.channel("A", 1, 0, 1),
         id="channel-tile-index"),
    same(lambda: la.execute.matmul(A8, A8, dataflow="os", tiles=(N64(4), 4, 4))[0].tolist(),
         lambda: la.execute.matmul(A8, A8, dataflow="os", tiles=(4, 4, 4))[0].tolist(),
         id="execute-matmul-tiles"),
    same(lambda: la.strided(N64(4), N64(2)), lambda: la.strided(4, 2), id="strided"),
    same(lambda: SYMBOLIC.bind(n=N64(4)), lambda: SYMBOLIC.bind(n=4), id="bind"),
    same(lambda: GRID.memory_per_pe((8, 8), N64(4)), lambda: GRID.memory_per_pe((8, 8), 4),
         id="mesh-memory-per-pe"),
    same(lambda: la.tt.tile_offset(N64(17), N32(3)), lambda: la.tt.tile_offset(17, 3),
         id="tt-tile-offset"),
    same(lambda: channel_layout(num_channels=N64(4), tile_bytes=N64(256)), lambda: CHANNEL,
         id="channel-layout"),
    same(lambda: verdict(la.channel.check_fits(CHANNEL, N64(4096))),
         lambda: verdict(la.channel.check_fits(CHANNEL, 4096)), id="channel-check-fits"),
    same(lambda: la.offset(S, "i", N64(3)), lambda: la.offset(S, "i", 3), id="offset-amount"),
    same(lambda: la.tt.TensorSpec((64, 64), "bfloat16", tile=(N64(16), N64(32))),
         lambda: la.tt.TensorSpec((64, 64), "bfloat16", tile=(16, 32)), id="tt-tile"),
    same(lambda: la.dataflow.systolic_cycles((64, 64, 64), "os", rows=N64(8)),
         lambda: la.dataflow.systolic_cycles((64, 64, 64), "os", rows=8),
         id="dataflow-systolic-rows"),
    same(lambda: WSE(N64(2), N32(2), sram_bytes=N64(1024)),
         lambda: WSE(2, 2, sram_bytes=1024), id="execute-wse"),
]


@pytest.mark.parametrize("call_numpy, call_python", NUMPY_ROWS)
def test_numpy_integers_are_accepted_like_python_ints(call_numpy, call_python):
    assert call_numpy() == call_python()


# -- (d) sizes past int64 are exact, never wrapped ------------------------------------

def exact(call, expected, *, id, marks=()):
    return pytest.param(call, expected, id=f"huge-{id}", marks=marks)


HUGE_ROWS = [
    exact(lambda: la.strided((4, 4), (1, 2**62))(15), (3 + 3 * 2**62,), id="indexmap-call"),
    exact(lambda: la.padding(la.strided((2, 2), (1, 2**63))).count, 2**63 - 2, id="padding-count"),
    exact(lambda: GRID.tile_shape((1, 1), (2**33, 2**33)), (2**32, 2**32), id="mesh-tile-shape"),
    exact(lambda: GRID.reserved_bytes((2**33, 2**33), 4), 4 * 2**64, id="mesh-reserved-bytes"),
    exact(lambda: la.tt.TensorSpec((2**40, 2**40), "bfloat16").num_pages, 2**70, id="tt-num-pages"),
    exact(lambda: la.mesh.MeshLayout.grid(1, 1).memory_per_pe((2**32, 2**32), 8), 8 * 2**64,
          id="mesh-memory-per-pe"),
    exact(lambda: GRID.memory_usage((2**33, 2**33)).max, 4 * 2**64, id="mesh-memory-usage"),
]


@pytest.mark.parametrize("call, expected", HUGE_ROWS)
def test_sizes_past_int64_are_exact(call, expected):
    assert call() == expected


def test_the_tables_cover_at_least_70_kinds():
    assert len(API_ROWS) + len(CLI_ROWS) >= 70
    ids = [p.id for p in API_ROWS + CLI_ROWS + NUMPY_ROWS + HUGE_ROWS]
    assert len(ids) == len(set(ids))
