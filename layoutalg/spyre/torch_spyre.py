"""torch-spyre's ``SpyreTensorLayout``, in its documented forms, as a checked ``SpyreLayout``.

torch-spyre (torch-spyre/torch-spyre ``torch_spyre/csrc/spyre_tensor_impl.h``)
keeps a layout as ``device_size``, ``stride_map`` and ``device_dtype`` (a
``DataFormats`` value); its first version kept a ``dim_map`` instead, and
both forms appear in its docs (``docs/TensorLayouts.md``) and printed reprs::

    SpyreTensorLayout(device_size=[100, 3, 5, 64], stride_map =[150, 64, 15000, 1],
                      device_dtype=DataFormats.SEN169_FP16)

A ``SpyreTensorLayout`` holds no host size: ``TorchSpyreLayout.bind(size, stride)``
pairs it with the host tensor and returns a validated ``SpyreLayout``, every rule
checked up front and named (docs/bridges.md lists them with torch-spyre's reports:
#3604, #4487, #3401). torch-spyre is never imported: its objects are read by their
fields (it installs only on Spyre hosts).

A sparse layout travels in torch-spyre's own form, with a size-1 device dim (``-1`` in
stride_map) at ``device_rank - 3`` (torch-spyre/torch-spyre
``torch_spyre/csrc/spyre_tensor_impl.cpp`` ``SpyreTensorLayout::init`` at commit
049b02ded77ce12f1c99cc3be52c857f0b9ffed7; ``dma_sparse``): ``bind`` reads it by dropping
that dim (the same slots) and ``to_torch_spyre`` adds it back, since in this family's
shorter form the copy (``spyre_mem.cpp`` ``get_dim_map`` at commit 0583ae3) skips a
torch dim.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass

from layoutalg.core.laid_out import bridge as declare_bridge
from layoutalg.errors import SpyreError, TorchSpyreError, describe
from layoutalg.spyre import rules
from layoutalg.spyre.dma import check_dma_rule, copy_plan
from layoutalg.spyre.dma_sparse import family_sparse_form, sparse_note, torch_spyre_form
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.sticks import dtype_name
from layoutalg.spyre.torch_layout import TorchLayout
from layoutalg.validate import instance_of, int_tuple, listed

# Device-side DataFormats of torch-spyre's dtypes (torch_spyre/csrc/types_mapping.h,
# stringToDTDataFormatPair: the second of each pair is the format on Spyre).
DATA_FORMATS = {
    "SEN169_FP16": "float16",
    "BFLOAT16": "bfloat16",
    "IEEE_FP32": "float32",
    "SENINT8": "int8",
    "IEEE_INT32": "int32",
    "SEN143_FP8": "float8_e4m3fn",
}
DEVICE_FORMAT = {dtype: fmt for fmt, dtype in DATA_FORMATS.items()}
ARRANGEMENTS = ("STANDARD",)  # spyre_tensor_impl.h ElementArrangement; others reorder sticks
FIELDS = ("device_size", "stride_map", "dim_map", "device_dtype", "element_arrangement")


@dataclass(frozen=True, init=False)
class TorchSpyreLayout:
    """torch-spyre's ``SpyreTensorLayout`` (its fields, its names), checked.

    Give ``stride_map`` (the current form), ``dim_map`` (the first form) or
    both (older reprs print both; they must then agree once bound).

    >>> stl = TorchSpyreLayout([100, 3, 5, 64], stride_map=[150, 64, 15000, 1])
    >>> print(stl)
    SpyreTensorLayout(device_size=[100, 3, 5, 64], stride_map =[150, 64, 15000, 1], \
device_dtype=DataFormats.SEN169_FP16)
    >>> stl.bind([5, 100, 150]).dim_map
    (1, 2, 0, 2)
    """

    device_size: tuple[int, ...]
    stride_map: tuple[int, ...] | None
    dim_map: tuple[int, ...] | None
    device_dtype: str
    element_arrangement: str

    def __init__(self, device_size, *, stride_map=None, dim_map=None,
                 device_dtype="SEN169_FP16", element_arrangement="STANDARD") -> None:
        sizes = _device_size(device_size)
        if stride_map is None and dim_map is None:
            raise TorchSpyreError(f"SpyreTensorLayout needs stride_map (or the older dim_map) "
                                  f"beside device_size={listed(sizes)}; got neither")
        strides = None if stride_map is None else _entries("stride_map", stride_map, sizes)
        dims = None if dim_map is None else _entries("dim_map", dim_map, sizes)
        fmt = _device_dtype(device_dtype)
        rules.check_stick(sizes, DATA_FORMATS[fmt])
        arrangement = _arrangement(element_arrangement)
        for name, value in zip(FIELDS, (sizes, strides, dims, fmt, arrangement)):
            object.__setattr__(self, name, value)

    @property
    def dtype(self) -> str:
        """The element dtype of ``device_dtype`` (``"float16"`` for SEN169_FP16)."""
        return DATA_FORMATS[self.device_dtype]

    @classmethod
    def of(cls, value: object) -> TorchSpyreLayout:
        """Read a torch-spyre ``SpyreTensorLayout`` object, its printed repr or a dict of
        its fields.

        >>> TorchSpyreLayout.of("SpyreTensorLayout(device_size=[4, 512, 64], "
        ...                     "dim_map =[1, 0, 1], device_dtype=DataFormats.SEN169_FP16)").dim_map
        (1, 0, 1)
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls(**parse_repr(value))
        if isinstance(value, Mapping):
            unknown = sorted(set(map(str, value)) - set(FIELDS))
            if unknown or "device_size" not in value:
                raise TorchSpyreError(
                    f"a SpyreTensorLayout dict has the fields {', '.join(FIELDS)} "
                    f"(device_size required); got {describe(dict(value))}")
            fields = dict(value)
            return cls(fields.pop("device_size"), **fields)
        if hasattr(value, "device_size"):  # torch_spyre._C.SpyreTensorLayout, read by its fields
            fields = {name: getattr(value, name) for name in FIELDS[1:] if hasattr(value, name)}
            # newer torch-spyre computes dim_map with a method (of the host size): not a field
            fields = {name: v for name, v in fields.items() if not callable(v)}
            return cls(value.device_size, **fields)
        raise TorchSpyreError(
            f"layout must be a torch-spyre SpyreTensorLayout, its repr text or a dict of its "
            f"fields; got {describe(value)}")

    def bind(self, size, stride=None) -> SpyreLayout:
        """The layout of a host tensor of ``size`` (and ``stride``, row-major by
        default), every rule checked; torch-spyre's copy runs it without dividing by zero
        and with a move for every element. torch-spyre's sparse form is read as this
        family's layout (``family_sparse_form``)."""
        host = TorchLayout(size, stride)
        for k, (extent, step) in enumerate(zip(host.size, host.stride)):
            if step == 0 and extent > 1:
                raise SpyreError(
                    f"stride[{k}] = 0 on torch dim {k} of size {extent}: an expanded host tensor "
                    f"has no one-slot-per-element Spyre layout (torch-spyre expands it in the "
                    f"copy, not in the layout); got stride={listed(host.stride)}")
        read = family_sparse_form(self.device_size, self.stride_map, self.dim_map)
        sizes, strides, dims = read or (self.device_size, self.stride_map, self.dim_map)
        if dims is not None:
            layout = SpyreLayout(host.size, self.dtype, sizes, dims, stride=host.stride)
        else:
            layout = SpyreLayout.from_stride_map(host.size, self.dtype, sizes, strides,
                                                 stride=host.stride)
        copied = torch_spyre_form(layout) if read else layout  # the fields as given
        if dims is not None and self.stride_map is not None \
                and self.stride_map != copied.stride_map:
            k = next(k for k, (a, b) in enumerate(zip(self.stride_map, copied.stride_map))
                     if a != b)
            raise TorchSpyreError(
                f"stride_map[{k}] = {self.stride_map[k]} disagrees with dim_map="
                f"{listed(self.dim_map)}, which gives {copied.stride_map[k]} there for "
                f"size={listed(host.size)}, stride={listed(host.stride)}; got "
                f"stride_map={listed(self.stride_map)}")
        check_dma_rule(copied)
        _check_every_element_moved(copied)
        return layout

    def __str__(self) -> str:
        # torch-spyre's toString(), spacing included (spyre_tensor_impl.cpp)
        maps = [f"{name} ={listed(value)}" for name, value in
                (("dim_map", self.dim_map), ("stride_map", self.stride_map)) if value is not None]
        parts = [f"device_size={listed(self.device_size)}", *maps,
                 f"device_dtype=DataFormats.{self.device_dtype}"]
        return f"SpyreTensorLayout({', '.join(parts)})"


def parse_repr(text: str) -> dict:
    """The fields of a printed ``SpyreTensorLayout(...)``.

    >>> fields = parse_repr("SpyreTensorLayout(device_size=[3, 2, 1, 64], dim_map =[1, 2, 0, 2], "
    ...                     "stride_map =[128, 64, -1, 1], device_dtype=DataFormats.SEN169_FP16)")
    >>> fields["stride_map"], fields["device_dtype"]
    ([128, 64, -1, 1], 'DataFormats.SEN169_FP16')
    """
    match = re.fullmatch(r"\s*SpyreTensorLayout\((.*)\)\s*", text, re.DOTALL)
    if not match:
        raise TorchSpyreError(f"text must read 'SpyreTensorLayout(device_size=[...], "
                              f"stride_map =[...], device_dtype=DataFormats....)'; got "
                              f"{describe(text)}")
    fields, rest = {}, match.group(1)
    pattern = re.compile(r"\s*(\w+)\s*=\s*(\[[^\]]*\]|[\w.]+)\s*(?:,|$)")
    at = 0
    while at < len(rest.strip()):
        item = pattern.match(rest, at)
        if not item:
            raise TorchSpyreError(f"text: cannot read a 'name=value' field at {rest[at:]!r} of "
                                  f"{describe(text)}")
        name, value = item.groups()
        if name not in FIELDS or name in fields:
            raise TorchSpyreError(f"text: field {name!r} is unknown or repeated (fields: "
                                  f"{', '.join(FIELDS)}); got {describe(text)}")
        fields[name] = _value(name, value)
        at = item.end()
    return fields


def to_torch_spyre(layout: SpyreLayout, *, form: str = "stride_map") -> TorchSpyreLayout:
    """The torch-spyre form of a layout: ``"stride_map"`` (current), ``"dim_map"``
    (the first form) or ``"both"``; a sparse layout in torch-spyre's form
    (``dma_sparse.torch_spyre_form``): the shorter form loses elements in its copy.

    >>> from layoutalg.spyre import default_layout
    >>> print(to_torch_spyre(default_layout([5, 100, 150])))
    SpyreTensorLayout(device_size=[100, 3, 5, 64], stride_map =[150, 64, 15000, 1], \
device_dtype=DataFormats.SEN169_FP16)
    """
    instance_of(SpyreError, "layout", layout, SpyreLayout, where="to_torch_spyre")
    if form not in ("stride_map", "dim_map", "both"):
        raise SpyreError(f"form must be 'stride_map', 'dim_map' or 'both'; got {describe(form)}")
    if layout.dtype not in DEVICE_FORMAT:
        raise TorchSpyreError(f"layout.dtype {layout.dtype!r} has no torch-spyre device format "
                              f"here (known: {sorted(DEVICE_FORMAT)})")
    held = torch_spyre_form(layout)  # a sparse layout in torch-spyre's form
    return TorchSpyreLayout(
        held.device_size, device_dtype=DEVICE_FORMAT[layout.dtype],
        stride_map=held.stride_map if form != "dim_map" else None,
        dim_map=held.dim_map if form != "stride_map" else None)


def from_torch_spyre(value: object, size, stride=None) -> SpyreLayout:
    """``TorchSpyreLayout.of(value).bind(size, stride)``."""
    return TorchSpyreLayout.of(value).bind(size, stride)


def as_layout(value: object, size=None, stride=None) -> SpyreLayout:
    """A ``SpyreLayout`` from what a spec may return: a SpyreLayout, a Spyre tensor
    (anything with ``device_tensor_layout()``, ``shape`` and ``stride()``), or a
    torch-spyre layout (object, repr or dict) with the host ``size``."""
    if isinstance(value, SpyreLayout):
        return value
    if callable(getattr(value, "device_tensor_layout", None)):
        return from_torch_spyre(value.device_tensor_layout(), tuple(value.shape),
                                tuple(value.stride()))
    if size is None:
        raise SpyreError(f"as_layout: a SpyreTensorLayout holds no host size; give size= (and "
                         f"stride=) or pass the Spyre tensor; got {describe(value)}")
    return from_torch_spyre(value, size, stride)


def _check_every_element_moved(layout: SpyreLayout) -> None:
    """Each iteration of torch-spyre's copy moves one element (spyre_mem.cpp
    get_device_stride_infos at 0583ae3, replayed by ``copy_plan``): fewer iterations
    than elements leave some element unmoved, whatever else the copy does."""
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    moves = sum(math.prod(sizes) for sizes, _, _ in plan.boxes)
    if moves >= layout.numel:
        return
    raise TorchSpyreError(
        f"stride_map={listed(layout.stride_map)}: torch-spyre's copy must move every host "
        f"element, but its loop nests (spyre_mem.cpp get_device_stride_infos) make {moves:,} "
        f"moves for the {layout.numel:,} elements of size={listed(layout.size)}, so "
        f"{layout.numel - moves:,} would be lost"
        + sparse_note(layout.device_size, layout.stride_map, plan.dim_map, layout.dim_map)
        + f"; got device_size={listed(layout.device_size)}")


def _device_size(value) -> tuple[int, ...]:
    sizes = int_tuple(SpyreError, "device_size", value)
    if not sizes:
        raise SpyreError("device_size must have at least one dim (the stick dim); got []")
    for k, extent in enumerate(sizes):
        if extent < 1:
            raise SpyreError(
                f"device_size[{k}] must be a positive int (torch-spyre's copy divides by each "
                f"device size: a zero killed the process with SIGFPE, torch-spyre#3604); got "
                f"{extent} in device_size={listed(sizes)}")
    return sizes


def _entries(name: str, value, sizes) -> tuple[int, ...]:
    entries = int_tuple(SpyreError, name, value)
    if len(entries) != len(sizes):
        raise SpyreError(f"{name} must have one entry per device dim ({len(sizes)}, the length "
                         f"of device_size={listed(sizes)}); got {listed(entries)}")
    for k, entry in enumerate(entries):
        if entry < -1:
            raise SpyreError(f"{name}[{k}] must be -1 (none) or at least 0; got {entry} in "
                             f"{name}={listed(entries)}")
    return entries


def _device_dtype(value) -> str:
    name = getattr(value, "name", value)
    if isinstance(name, str):
        name = name.removeprefix("DataFormats.")
        if name in DATA_FORMATS:
            return name
        with suppress(SpyreError, KeyError):  # a torch dtype name ("float16", torch.float16)
            return DEVICE_FORMAT[dtype_name(name)]
    raise TorchSpyreError(
        f"device_dtype must be one of DataFormats {', '.join(DATA_FORMATS)} (a format with no "
        f"elements per stick made torch-spyre divide by zero, torch-spyre#4487); got "
        f"{describe(value)}")


def _arrangement(value) -> str:
    name = getattr(value, "name", value)
    if isinstance(name, str) and name.removeprefix("ElementArrangement.") in ARRANGEMENTS:
        return "STANDARD"
    raise TorchSpyreError(
        f"element_arrangement must be STANDARD: other arrangements (DL16_TO_FP32, QFP8CH, "
        f"EXX2) reorder elements inside sticks, which this model does not cover; got "
        f"{describe(value)}")


def _value(name: str, text: str):
    if text.startswith("["):
        inner = text[1:-1].strip()
        try:
            return [int(part) for part in inner.split(",")] if inner else []
        except ValueError:
            raise TorchSpyreError(f"text: {name} must list ints; got {text!r}") from None
    return text


__all__ = ["DATA_FORMATS", "DEVICE_FORMAT", "TorchSpyreLayout", "as_layout", "from_torch_spyre",
           "parse_repr", "to_torch_spyre"]


def _on_spyre(tensor: object) -> bool:
    """A torch tensor on the Spyre device (torch-spyre registers device type "spyre")."""
    return getattr(getattr(tensor, "device", None), "type", None) == "spyre"


#: A spec may return a torch-spyre tensor itself: a torch.Tensor on device "spyre".
declare_bridge("torch-spyre tensor", "torch", "Tensor", as_layout, when=_on_spyre)
