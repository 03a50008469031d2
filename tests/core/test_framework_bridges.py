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
from layoutalg.runner.prover import Found, prove_spec


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

    laid_out._BRIDGES.pop(("fakefw", "Vector", "fake framework"))


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
    from layoutalg.runner.prover import discover, prove

    path = tmp_path / "dtensor_spec.py"
    path.write_text(SPEC_WITH_A_REAL_DTENSOR)
    [found] = discover([path])
    built = found.subject()
    assert isinstance(built, la.dtensor.DTensorLayout)
    assert built == la.dtensor.DTensorLayout((4,), ["S(0)"], (10, 2))
    outcomes = {o.claim: o.status for o in prove([found])}
    assert outcomes == {"bijective": "PROVED", "torch_local_shapes": "PROVED"}


def test_a_bridge_with_a_condition_is_asked_first_and_only_for_what_it_accepts(monkeypatch):
    """A torch-spyre tensor is a plain torch.Tensor on device "spyre": its bridge
    has a condition, and must win over a bridge of the same class without one."""
    from layoutalg.core import laid_out

    module = types.ModuleType("fakefw2")

    class Tensor:
        def __init__(self, device):
            self.device = device

    module.Tensor = Tensor
    monkeypatch.setitem(sys.modules, "fakefw2", module)
    bridge("any tensor", "fakefw2", "Tensor", lambda t: ("plain", t.device))
    bridge("spyre tensor", "fakefw2", "Tensor", lambda t: ("spyre", t.device),
           when=lambda t: t.device == "spyre")
    try:
        assert from_framework(Tensor("spyre")) == ("spyre", "spyre")
        assert from_framework(Tensor("cpu")) == ("plain", "cpu")
    finally:
        laid_out._BRIDGES.pop(("fakefw2", "Tensor", "any tensor"))
        laid_out._BRIDGES.pop(("fakefw2", "Tensor", "spyre tensor"))


def test_a_spyre_tensor_is_bridged_and_a_cpu_tensor_is_not():
    """torch-spyre: a tensor on device "spyre" gives its SpyreTensorLayout with
    device_tensor_layout(); stand-ins with torch's real class (no Spyre device here)."""
    torch = pytest.importorskip("torch")
    la.spyre  # noqa: B018 - the family declares its bridge when imported

    class SpyreTensor(torch.Tensor):
        @property
        def device(self):
            return types.SimpleNamespace(type="spyre")

        def device_tensor_layout(self):
            return {"device_size": [4, 512, 64], "dim_map": [1, 0, 1],
                    "device_dtype": "SEN169_FP16"}

    host = torch.zeros(512, 256, dtype=torch.float16)
    on_spyre = host.as_subclass(SpyreTensor)
    bridged = from_framework(on_spyre)
    assert bridged == la.spyre.SpyreLayout([512, 256], "float16", (4, 512, 64), (1, 0, 1))
    assert from_framework(host) is None          # a CPU tensor is not a layout
