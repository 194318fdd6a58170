"""The one way a typed file on disk (items.jsonl records, steps.json, run.json, a kind's metrics) is
read and written back: fields this version knows are typed, any other key is kept in `extra` and
written back as read, so a file from a newer version survives a round trip through an older one."""

from __future__ import annotations

import functools
import typing
from dataclasses import MISSING, fields, is_dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def known_fields(cls: type[DataclassInstance], data: dict[str, Any] | None) -> dict[str, Any]:
    """The keys of `data` that are fields of the dataclass `cls` (`extra` excluded). A null in a field
    that cannot hold one reads as the field's default (an older writer's way of saying "nothing")."""
    nullable = _fields(cls)
    return {k: v for k, v in (data or {}).items() if k in nullable and (v is not None or nullable[k])}


@functools.cache
def _fields(cls: type[DataclassInstance]) -> dict[str, bool]:
    """Field name -> whether a null is a value of it (its type admits None, or it has no default)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in fields(cls):
        if f.name != "extra":
            required = f.default is MISSING and f.default_factory is MISSING
            out[f.name] = required or type(None) in typing.get_args(hints.get(f.name))
    return out


def split_known(cls: type[DataclassInstance], data: dict[str, Any]) -> dict[str, Any]:
    """Constructor arguments for `cls`: its known fields, and every other key under `extra`."""
    names = {f.name for f in fields(cls)}
    values = known_fields(cls, data)
    values["extra"] = {k: v for k, v in data.items() if k not in names}
    return values


@overload
def dump(obj: DataclassInstance) -> dict[str, Any]: ...
@overload
def dump(obj: object) -> Any: ...
def dump(obj: object) -> Any:
    """A dataclass as JSON data, nested ones too, each with its kept unknown keys first (as read)."""
    if is_dataclass(obj) and not isinstance(obj, type):
        out = {k: dump(v) for k, v in (getattr(obj, "extra", None) or {}).items()}
        out.update((f.name, dump(getattr(obj, f.name))) for f in fields(obj) if f.name != "extra")
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(dump(v) for v in obj)
    if isinstance(obj, dict):
        return {k: dump(v) for k, v in obj.items()}
    return obj
