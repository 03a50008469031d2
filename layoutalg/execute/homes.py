"""Where a layout runs: the small protocol the executor asks a subject.

A spec's subject is anything with a layout (:class:`layoutalg.core.laid_out.LaidOut`:
``index_map()``). To run it, the executor also needs how its elements sit
(bytes per element, offsets in bytes or in elements), which leading codomain
dims name memories, and the machine it belongs on. A family says so by
giving its layout objects a ``home()`` method returning a :class:`Home`
(the :class:`Placeable` protocol); ``execute.targets.home_of`` asks for it.
Nothing here names a family: a new family's layout runs in ``layoutalg run``
by having ``index_map()`` (it runs as a bare map, :func:`bare_home`) or
``index_map()`` and ``home()``.

The protocol and :class:`Home` live in :mod:`layoutalg.core.home`, so the
families (mesh, Tenstorrent, Spyre, channels) answer ``home()`` themselves.

>>> import layoutalg as la
>>> home = bare_home(la.strided((4, 4), (1, 4)))
>>> home.family, home.element_bytes, home.offsets_in_bytes, home.memory_dims
('core', 4, False, 0)
"""

from __future__ import annotations

from layoutalg.core.home import Home, Placeable  # noqa: F401 - re-exported
from layoutalg.core.index_map import IndexMap


def bare_home(m: IndexMap) -> Home:
    """A bare map's home: 4-byte elements at element offsets, one memory per
    value of every codomain dim but the last."""
    return Home("core", 4, False, m.codomain.rank - 1)
