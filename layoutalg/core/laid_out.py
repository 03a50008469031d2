"""The one interface for "something with a layout".

Every family object a spec may return — a Cerebras ``PlacedTensor``, a Spyre
``SpyreLayout``, a Tenstorrent ``TensorSpec``, a ``ChannelLayout``, a CuTe
layout, a ``Chain`` — gives its element → memory map with ``index_map()``.
The spec runner, the executor, the CLI and the pictures ask for that map
through :func:`index_map_of` instead of probing attributes one by one.

>>> from layoutalg.core.combinators import identity
>>> from layoutalg.core.space import Space
>>> m = identity(Space(i=2))
>>> index_map_of(m) is m, index_map_of(3) is None
(True, True)

A framework's own object (a torch ``DTensor``, a ``pycute.Layout``) becomes a
family layout through a :class:`Bridge` its family declares: the spec runner
calls :func:`from_framework` on whatever a spec returns that is not a layout.
The framework is never imported for this: an object of its class exists only
if its module is loaded already, so the class is looked up in ``sys.modules``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from layoutalg.core.index_map import IndexMap


@runtime_checkable
class LaidOut(Protocol):
    """A value with a layout: ``index_map()`` maps each element to where it lives."""

    def index_map(self) -> IndexMap: ...


def is_layout(value: object) -> bool:
    """True for an IndexMap or any value that gives one with ``index_map()``."""
    return isinstance(value, (IndexMap, LaidOut))


def index_map_of(value: object) -> IndexMap | None:
    """The IndexMap of ``value`` (itself, or its ``index_map()``), or None."""
    if isinstance(value, IndexMap):
        return value
    return value.index_map() if isinstance(value, LaidOut) else None


@dataclass(frozen=True)
class Bridge:
    """How a framework's layout object becomes a layoutalg layout.

    ``module`` and ``class_name`` name the framework's class (e.g.
    ``torch.distributed.tensor`` / ``DTensor``); ``convert`` turns an
    instance into a family layout (a LaidOut value). ``when`` narrows a class
    that several bridges share (a torch-spyre tensor is a ``torch.Tensor``
    whose ``device.type`` is ``"spyre"``).
    """

    framework: str
    module: str
    class_name: str
    convert: Callable[[object], object]
    when: Callable[[object], bool] | None = None

    def accepts(self, value: object) -> bool:
        cls = getattr(sys.modules.get(self.module), self.class_name, None)
        if not (isinstance(cls, type) and isinstance(value, cls)):
            return False
        return self.when is None or bool(self.when(value))


_BRIDGES: dict[tuple[str, str, str], Bridge] = {}


def bridge(framework: str, module: str, class_name: str,
           convert: Callable[[object], object], *,
           when: Callable[[object], bool] | None = None) -> Bridge:
    """Declare that ``module.class_name`` objects (those ``when`` accepts, if
    given) convert with ``convert``. The most specific bridge is asked first:
    those with a ``when`` before those without."""
    made = Bridge(framework, module, class_name, convert, when)
    _BRIDGES[(module, class_name, framework)] = made
    return made


def bridges() -> tuple[Bridge, ...]:
    """The bridges declared so far (by the families imported)."""
    return tuple(_BRIDGES.values())


def from_framework(value: object) -> object | None:
    """The family layout of a framework object, or None when no bridge takes it."""
    for made in sorted(_BRIDGES.values(), key=lambda b: b.when is None):
        if made.accepts(value):
            return made.convert(value)
    return None
