"""Issue 16 item 5: a spec may return a framework's own layout object.

The family that bridges the framework turns it into a layoutalg layout
(``layoutalg.core.laid_out.bridge``); the framework is never imported for
this, its class is looked up among the modules already loaded.
"""

from __future__ import annotations

import sys
import types

import pytest

import layoutalg as la
from layoutalg.core.laid_out import bridge, bridges, from_framework
from layoutalg.prover import Found, prove_spec


class _Vector:
    """A fake framework's layout object: n elements, stored reversed."""

    def __init__(self, n):
        self.n = n


def _reversed_map(vector):
    n = vector.n
    return la.IndexMap(la.Space(i=n), la.Space(slot=n), [n - 1 - la.Space(i=n).symbols[0]])


@pytest.fixture
def fake_framework(monkeypatch):
    module = types.ModuleType("fakefw")
    module.Vector = _Vector
    monkeypatch.setitem(sys.modules, "fakefw", module)
    made = bridge("fake framework", "fakefw", "Vector", _reversed_map)
    yield made
    from layoutalg.core import laid_out

    laid_out._BRIDGES.pop(("fakefw", "Vector"))


def test_a_spec_returning_a_framework_object_is_proved_through_its_bridge(fake_framework):
    declared = la.spec(claims=["bijective"])(lambda: _Vector(5))
    built = declared.build()
    assert isinstance(built, la.IndexMap)
    assert [built(i) for i in range(5)] == [(4,), (3,), (2,), (1,), (0,)]
    [outcome] = prove_spec(Found(__import__("pathlib").Path(__file__), declared))
    assert outcome.status == "PROVED"


def test_the_bridge_needs_the_framework_class_not_a_lookalike(fake_framework):
    class Lookalike:  # same attributes, another class: not the framework's object
        n = 5

    assert from_framework(Lookalike()) is None
    assert from_framework(_Vector(2)) is not None


def test_a_framework_not_loaded_bridges_nothing(monkeypatch, fake_framework):
    monkeypatch.delitem(sys.modules, "fakefw")
    assert from_framework(_Vector(2)) is None


def test_an_unbridged_object_is_a_spec_error_naming_the_bridges():
    declared = la.spec(claims=["bijective"])(lambda: object())
    with pytest.raises(la.SpecError) as info:
        declared.build()
    message = str(info.value)
    assert "torch DTensor (torch.distributed.tensor.DTensor)" in message
    assert "pycute Layout (pycute.Layout)" in message
    assert "got <object object" in message
    assert {b.framework for b in bridges()} >= {"torch DTensor", "pycute Layout"}


def test_a_pycute_layout_returned_by_a_spec_is_read_as_cute():
    pycute = pytest.importorskip("pycute")
    declared = la.spec(claims=["injective"])(lambda: pycute.Layout((2, 3), (3, 1)))
    built = declared.build()
    assert isinstance(built, la.CuteLayout)
    m = built.index_map()
    # (2,3):(3,1) colexicographic: flat index k = a + 2·b → offset 3a + b
    assert [m(k)[0] for k in range(6)] == [0, 3, 1, 4, 2, 5]


SPEC_WITH_A_REAL_DTENSOR = '''
import contextlib
import torch
import torch.distributed as dist
from torch.distributed._local_tensor import LocalTensorMode, maybe_disable_local_tensor_mode
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor
import layoutalg as la


@la.spec(claims=["bijective", "torch_local_shapes"])
def uneven_rows_over_four_ranks():
    """A real torch DTensor: 10 rows sharded over 4 ranks (3, 3, 3, 1)."""
    dist.init_process_group("fake", rank=0, world_size=4)
    try:
        with LocalTensorMode(frozenset(range(4))):
            with maybe_disable_local_tensor_mode():
                mesh = init_device_mesh("cpu", (4,))
            return distribute_tensor(torch.arange(20.0).reshape(10, 2), mesh, [Shard(0)])
    finally:
        dist.destroy_process_group()
'''


def test_layoutalg_prove_takes_a_spec_returning_a_real_dtensor(tmp_path):
    pytest.importorskip("torch.distributed._local_tensor")
    from layoutalg.prover import discover, prove

    path = tmp_path / "dtensor_spec.py"
    path.write_text(SPEC_WITH_A_REAL_DTENSOR)
    [found] = discover([path])
    built = found.subject()
    assert isinstance(built, la.dtensor.DTensorLayout)
    assert built == la.dtensor.DTensorLayout((4,), ["S(0)"], (10, 2))
    outcomes = {o.claim: o.status for o in prove([found])}
    assert outcomes == {"bijective": "PROVED", "torch_local_shapes": "PROVED"}
