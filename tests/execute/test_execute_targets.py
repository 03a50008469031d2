"""What ``layoutalg run`` runs a subject on (``execute.targets``).

A layout says where it runs with ``home()`` (the ``Placeable`` protocol); a
toy family defined here, unknown to ``targets.py``, runs with its own
element size, capacity and memory names, and a bare ``index_map()`` runs
as a plain map. The shipped families keep the machines they had (values
pinned from their presets: 48 KB per WSE PE, Wormhole's 12 DRAM banks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.execute import Home, MachineError, Placeable, fetch, home_of, place, target_for
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.placed import PlacedTensor
from layoutalg.tt.tensor import TensorSpec


@dataclass(frozen=True)
class ToyBanks:
    """A toy family: ``n`` 2-byte elements dealt round robin over ``banks``
    banks of ``bank_bytes``, at byte offsets."""

    n: int
    banks: int
    bank_bytes: int

    def index_map(self) -> la.IndexMap:
        dom = la.Space(i=self.n)
        (i,) = dom.symbols
        per_bank = -(-self.n // self.banks)
        return la.IndexMap(dom, la.Space(bank=self.banks, byte=2 * per_bank),
                           [i % self.banks, 2 * (i // self.banks)], name="toy banks")

    def home(self) -> Home:
        return Home("toy", 2, True, 1, f"{self.banks} toy banks", self.bank_bytes, "toy bank")


@dataclass(frozen=True)
class OnlyAMap:
    """Something with a layout and nothing more (the LaidOut protocol)."""

    def index_map(self) -> la.IndexMap:
        return la.split(la.Space(i=6), "i", 4, names=("pe", "offset"))


def test_a_toy_family_runs_on_its_own_home():
    toy = ToyBanks(10, 3, 64)
    assert isinstance(toy, Placeable)
    target = target_for(toy)
    assert (target.family, target.itemsize, target.offsets_in_bytes) == ("toy", 2, True)
    assert target.preset == "3 toy banks"
    assert (target.machine.memories, target.machine.capacity) == (3, 64)
    assert "toy bank" in str(target.machine)
    data = np.arange(10, dtype=np.float16)
    place(data, target.index_map, target.machine, offsets_in_bytes=True)
    # element i is in bank i mod 3 at byte 2·(i // 3): bank 1 holds 1, 4, 7 (hand-computed)
    bank_1 = target.machine.storage.reshape(3, -1)[1, :6].view(np.float16)
    assert bank_1.tolist() == [1.0, 4.0, 7.0]
    assert fetch(target.index_map, target.machine, np.float16,
                 offsets_in_bytes=True).tolist() == data.tolist()


def test_overrides_win_over_the_home():
    target = target_for(ToyBanks(10, 3, 64), capacity=128, element_bytes=4, source="here")
    assert (target.itemsize, target.machine.capacity) == (4, 128)
    assert target.preset == "128 B per memory (here)"


def test_a_bare_layout_runs_as_a_plain_map():
    target = target_for(OnlyAMap())
    assert (target.family, target.itemsize, target.offsets_in_bytes) == ("core", 4, False)
    assert target.machine.memories == 2 and target.preset == "just large enough"
    assert not isinstance(OnlyAMap(), Placeable)


class BadHome(OnlyAMap):
    def home(self):
        return {"element_bytes": 2}


class NotAMap:
    def index_map(self):
        return "a map"


@pytest.mark.parametrize("subject, words", [
    (BadHome(), r"home\(\) of BadHome\(\) must return a layoutalg.execute.Home; got "),
    (NotAMap(), "must build an IndexMap or a family layout"),
    (3, "must build an IndexMap or a family layout; got 3"),
])
def test_a_subject_without_a_usable_layout_is_one_clear_error(subject, words):
    with pytest.raises(MachineError, match=words):
        target_for(subject)


@pytest.mark.parametrize("changes, words", [
    ({"element_bytes": 0}, "element_bytes must be a positive int; got 0"),
    ({"memory_dims": -1}, "memory_dims must be a non-negative int; got -1"),
    ({"offsets_in_bytes": 1}, "offsets_in_bytes must be True or False; got 1"),
    ({"capacity": 0}, "capacity must be a positive int or None; got 0"),
])
def test_a_bad_home_names_the_field(changes, words):
    fields = {"family": "toy", "element_bytes": 2, "offsets_in_bytes": True, "memory_dims": 1}
    with pytest.raises(MachineError, match=words):
        Home(**{**fields, **changes})


def test_the_shipped_families_keep_their_machines():
    mesh = target_for(PlacedTensor(MeshLayout.grid(2, 2), (8, 8)))
    assert (mesh.family, mesh.itemsize, mesh.offsets_in_bytes) == ("mesh", 4, True)
    assert mesh.machine.capacity == 48 * 1024 and mesh.preset == "WSE, 48 KB per PE"
    tt = target_for(TensorSpec((64, 64), "bfloat16"))   # Wormhole: 12 DRAM banks
    assert (tt.family, tt.itemsize, tt.machine.memories) == ("tt", 2, 12)
    assert "bank" in str(tt.machine)
    channel = target_for(la.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=2,
                                                  n_tiles=2, k_tiles=2, tile_bytes=256))
    # A, B and C of 2×2 tiles each: 12 tiles of 256 B round robin over 4 channels,
    # 3 · 256 = 768 B per channel
    assert (channel.family, channel.itemsize, channel.machine.memories) == ("channel", 1, 4)
    assert channel.machine.capacity == 768
    m, home = home_of(la.strided((4, 4), (1, 4)))
    assert home == Home("core", 4, False, 0) and m.codomain.rank == 1


def test_a_symbolic_channel_layout_is_refused_before_running():
    M = sympy.Symbol("M", positive=True, integer=True)
    layout = la.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=M, n_tiles=2,
                                      k_tiles=2, tile_bytes=256)
    with pytest.raises(MachineError, match="has symbolic"):
        target_for(layout)
