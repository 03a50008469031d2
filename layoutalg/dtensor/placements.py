"""DTensor placements: ``Shard(dim)``, ``Replicate()``, ``Partial(op)``, read from any form.

PyTorch's own objects (``torch.distributed.tensor.placement_types``, pytorch/pytorch
``torch/distributed/tensor/placement_types.py``) print as ``Shard(dim=0)`` /
``S(0)``, ``Replicate()`` / ``R`` and ``Partial(sum)`` / ``P(sum)``. This module
reads those texts, plain dicts (``{"type": "shard", "dim": 0}``), its own
values, and torch's objects duck-typed through their ``is_shard()`` /
``is_replicate()`` / ``is_partial()`` methods, so torch is never imported.
Strided sharding (torch's ``_StridedShard``) is refused: it is not modelled.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layoutalg.errors import DTensorError, describe
from layoutalg.validate import is_int


@dataclass(frozen=True)
class Shard:
    """Tensor dim ``dim`` is split over the mesh dim with ``torch.chunk``'s rule."""

    dim: int

    def __str__(self) -> str:
        return f"S({self.dim})"


@dataclass(frozen=True)
class Replicate:
    """Every rank along the mesh dim holds the whole (local) tensor."""

    def __str__(self) -> str:
        return "R"


@dataclass(frozen=True)
class Partial:
    """Every rank along the mesh dim holds a summand (``reduce_op``) of each element."""

    reduce_op: str = "sum"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"


Placement = Shard | Replicate | Partial

_SHARD = re.compile(r"^(?:S|Shard)\(\s*(?:dim\s*=\s*)?(-?\d+)\s*\)$")
_REPLICATE = re.compile(r"^(?:R|Replicate\(\s*\))$")
_PARTIAL = re.compile(r"^(?:P|Partial)(?:\(\s*(?:reduce_op\s*=\s*)?['\"]?(\w*)['\"]?\s*\))?$")


def placement(value: object, argument: str = "placement") -> Placement:
    """One placement from any accepted form.

    >>> placement("S(0)"), placement("Replicate()"), placement({"type": "partial"})
    (Shard(dim=0), Replicate(), Partial(reduce_op='sum'))
    """
    if isinstance(value, (Shard, Replicate, Partial)):
        return value
    if isinstance(value, str):
        return _from_text(value.strip(), argument)
    if isinstance(value, Mapping):
        return _from_dict(value, argument)
    if callable(getattr(value, "is_shard", None)):
        return _from_torch(value, argument)
    raise DTensorError(f"{argument}: must be a placement (Shard(d), Replicate(), Partial(), "
                       f"a string such as 'S(0)', 'R', 'P', a dict, or a torch placement); "
                       f"got {describe(value)}")


def placements(values: object, argument: str = "placements") -> tuple[Placement, ...]:
    """A sequence of placements, or one string listing them (``"(S(0), R)"``).

    >>> [str(p) for p in placements("[Shard(dim=0), Replicate()]")]
    ['S(0)', 'R']
    """
    if isinstance(values, str):
        items = _split_text(values, argument)
    elif isinstance(values, Sequence):
        items = list(values)
    else:
        raise DTensorError(f"{argument}: must be a sequence of placements or a string listing "
                           f"them; got {describe(values)}")
    return tuple(placement(v, f"{argument}[{k}]") for k, v in enumerate(items))


def _from_text(text: str, argument: str) -> Placement:
    if shard := _SHARD.match(text):
        return Shard(int(shard.group(1)))
    if _REPLICATE.match(text):
        return Replicate()
    if partial := _PARTIAL.match(text):
        return Partial(partial.group(1) or "sum")
    raise DTensorError(f"{argument}: a placement string must read S(d), Shard(dim=d), R, "
                       f"Replicate(), P, P(op) or Partial(op), as DTensor prints them; "
                       f"got {text!r}")


def _from_dict(value: Mapping, argument: str) -> Placement:
    kind, dim = str(value.get("type", "")).lower(), value.get("dim")
    if kind == "shard" and not is_int(dim):
        raise DTensorError(f"{argument}: a shard dict needs an int 'dim'; "
                           f"got {describe(dict(value))}")
    if kind == "shard":
        return Shard(int(dim))
    if kind == "replicate":
        return Replicate()
    if kind == "partial":
        return Partial(str(value.get("reduce_op", "sum")))
    raise DTensorError(f"{argument}: a placement dict needs 'type' 'shard', 'replicate' or "
                       f"'partial'; got {describe(dict(value))}")


def _from_torch(value: object, argument: str) -> Placement:
    # pytorch/pytorch torch/distributed/tensor/placement_types.py: _StridedShard
    # carries split_factor and also answers is_shard(); its order is not modelled.
    if hasattr(value, "split_factor"):
        raise DTensorError(f"{argument}: strided sharding (_StridedShard) is not modelled; "
                           f"got {describe(value)}")
    if value.is_shard():
        return Shard(int(value.dim))
    if value.is_replicate():
        return Replicate()
    if value.is_partial():
        return Partial(str(getattr(value, "reduce_op", "sum")))
    raise DTensorError(f"{argument}: a torch placement must be a Shard, Replicate or Partial; "
                       f"got {describe(value)}")


def _split_text(text: str, argument: str) -> list[str]:
    """Top-level comma-separated items, outer brackets dropped."""
    body = text.strip()
    depths = _depths(body)
    if body[:1] in "([" and body[-1:] in ")]" and 0 in depths and depths.index(0) == len(body) - 1:
        body = body[1:-1]   # the bracket opened first closes last
    cuts = [k for k, (ch, d) in enumerate(zip(body, _depths(body))) if ch == "," and d == 0]
    items = [body[a + 1:b].strip() for a, b in zip([-1, *cuts], [*cuts, len(body)])]
    if not items[-1]:
        items.pop()
    if not items:
        raise DTensorError(f"{argument}: the string lists no placement; got {text!r}")
    return items


def _depths(body: str) -> list[int]:
    """The bracket depth after each character."""
    return list(itertools.accumulate((ch in "([") - (ch in ")]") for ch in body))
