"""The one way a typed file on disk (items.jsonl records, steps.json, run.json, a kind's metrics) is
read and written back: fields this version knows are typed, any other key is kept in `extra` and
written back as read, so a file from a newer version survives a round trip through an older one."""
from __future__ import annotations

from dataclasses import fields, is_dataclass


def known_fields(cls, data: dict | None) -> dict:
    """The keys of `data` that are fields of the dataclass `cls` (`extra` excluded)."""
    names = {f.name for f in fields(cls)} - {"extra"}
    return {k: v for k, v in (data or {}).items() if k in names}


def split_known(cls, data: dict) -> dict:
    """Constructor arguments for `cls`: its known fields, and every other key under `extra`."""
    values = known_fields(cls, data)
    values["extra"] = {k: v for k, v in data.items() if k not in values and k != "extra"}
    return values


def dump(obj):
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
