"""TTNN's printed ``MemoryConfig(...)``, read back into its fields.

TT-Metal prints a memory config (``operator<<`` of ``MemoryConfig``, as seen in
tt-metal's graph-capture tests and model configs) as::

    MemoryConfig(memory_layout=TensorMemoryLayout::WIDTH_SHARDED,buffer_type=BufferType::L1,
                 shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=7,y=3)]},shape={32, 128},
                 orientation=ShardOrientation::ROW_MAJOR,mode=ShardMode::PHYSICAL,
                 physical_shard_shape=std::nullopt),nd_shard_spec=std::nullopt,
                 created_with_nd_shard_spec=0)

``parse_memory_config`` turns it into the dict ``MemoryConfig.of`` reads: enums
by name, ``std::nullopt`` as None, ``{a, b}`` and ``Shape([...])`` as int lists,
a core range set as ``((x0, y0), (x1, y1))`` pairs; fields split by ``,`` or
(older prints) ``;``.
"""

from __future__ import annotations

import itertools
import re

from layoutalg.errors import TTError, describe

# the enum type TT-Metal prints for each field (ttnn/cpp/ttnn/tensor/types.hpp operator<<)
ENUM_TYPES = {"memory_layout": "TensorMemoryLayout", "buffer_type": "BufferType",
              "orientation": "ShardOrientation", "mode": "ShardMode",
              "shard_distribution_strategy": "ShardDistributionStrategy"}
_RANGE = re.compile(r"\(x=(\d+),\s*y=(\d+)\)\s*-\s*\(x=(\d+),\s*y=(\d+)\)")
_CALL = re.compile(r"^(?:[\w:]+::)?(\w+)\((.*)\)$", re.DOTALL)


def parse_memory_config(text: str) -> dict:
    """The fields of a printed ``MemoryConfig``.

    >>> fields = parse_memory_config(
    ...     "MemoryConfig(memory_layout=TensorMemoryLayout::WIDTH_SHARDED,"
    ...     "buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=7,y=3)]},shape={32, 128},"
    ...     "orientation=ShardOrientation::ROW_MAJOR,mode=ShardMode::PHYSICAL,"
    ...     "physical_shard_shape=std::nullopt))")
    >>> fields["memory_layout"], fields["shard_spec"]["grid"], fields["shard_spec"]["shape"]
    ('WIDTH_SHARDED', [((0, 0), (7, 3))], [32, 128])
    """
    if not isinstance(text, str):
        raise TTError(f"text must be a printed MemoryConfig(...); got {describe(text)}")
    _split(text, text)  # brackets balanced, or one error saying so
    value = _value(text.strip(), text)
    if not (isinstance(value, dict) and value.get("__type__") == "MemoryConfig"):
        raise TTError(f"text must read 'MemoryConfig(memory_layout=..., buffer_type=..., ...)'; "
                      f"got {describe(text)}")
    return _config(value, text)


def _config(value: dict, text: str) -> dict:
    fields = {k: v for k, v in value.items() if k != "__type__"}
    for key in ("shard_spec", "nd_shard_spec"):
        spec = fields.get(key)
        if isinstance(spec, dict):
            mode = spec.pop("mode", "PHYSICAL")
            if mode not in (None, "PHYSICAL"):
                raise TTError(f"{key}.mode must be PHYSICAL (a LOGICAL shard shape is not "
                              f"modelled); got {mode!r} in {describe(text)}")
            if spec.pop("physical_shard_shape", None) is not None:
                raise TTError(f"{key}.physical_shard_shape is not modelled; give the physical "
                              f"shape as the shard shape; got {describe(text)}")
            spec.pop("__type__", None)
    if "created_with_nd_shard_spec" in fields:
        fields["created_with_nd_shard_spec"] = bool(fields["created_with_nd_shard_spec"])
    return fields


def _value(token: str, text: str):
    token = token.strip()
    if token in ("std::nullopt", "nullopt", "None"):
        return None
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    if token[:1] + token[-1:] in ("{}", "[]"):  # a list, or (in braces) a core range set
        inner = token[1:-1].strip()
        ranges = _RANGE.findall(inner) if token[0] == "{" else []
        if ranges:
            return [((int(a), int(b)), (int(c), int(d))) for a, b, c, d in ranges]
        return [_value(part, text) for part in _split(inner, text)] if inner else []
    if call := _CALL.match(token):
        name, inner = call.groups()
        if name == "Shape":
            return _value(inner, text)
        fields = {"__type__": name}
        for part in _split(inner, text):
            key, sep, rest = part.partition("=")
            key = key.strip()
            if not sep or not re.fullmatch(r"\w+", key):
                raise TTError(f"text: cannot read the field {part.strip()!r} of {name}(...) in "
                              f"{describe(text)}")
            if key in fields:
                raise TTError(f"text: field {key} is given twice in {name}(...), which has one "
                              f"of each; got {describe(text)}")
            enum = re.fullmatch(r"\s*(\w+)::(\w+)\s*", rest)
            if enum and key in ENUM_TYPES and enum.group(1) != ENUM_TYPES[key]:
                raise TTError(f"text: {key} must be a {ENUM_TYPES[key]}; got "
                              f"{rest.strip()!r} in {describe(text)}")
            fields[key] = _value(rest, text)
        return fields
    if re.fullmatch(r"[\w:]+", token):
        return token.rsplit("::", 1)[-1]
    raise TTError(f"text: cannot read {token!r} in {describe(text)}")


def _split(inner: str, text: str) -> list[str]:
    """Split at top-level ``,`` or ``;`` (outside brackets)."""
    depths = list(itertools.accumulate((ch in "([{") - (ch in ")]}") for ch in inner))
    closing = next((ch for ch, d in zip(inner, depths) if d < 0), None)
    if closing is not None:
        raise TTError(f"text: unbalanced {closing!r} in {describe(text)}")
    if depths and depths[-1]:
        raise TTError(f"text: unbalanced brackets in {describe(text)}")
    cuts = [k for k, (ch, d) in enumerate(zip(inner, depths)) if ch in ",;" and not d]
    parts = [inner[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(inner)])]
    return [p for p in parts if p.strip()]


__all__ = ["parse_memory_config"]
