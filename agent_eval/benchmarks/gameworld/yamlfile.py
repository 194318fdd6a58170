"""A YAML file read with the line of every key, so a catalog error names its file and line (`path:line: ...`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent_eval.datamodel.jsonl import DataError

Key = tuple[object, ...]  # a path into the document: mapping keys and list indices


class YamlFile:
    """One YAML document whose root is a mapping: `data`, and `where(*key)` the `file:line` of a key (or of the
    nearest enclosing one that has a line; the file alone when none has)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.lines: dict[Key, int] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise DataError(f"{self.path}: cannot be read ({error})") from None
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            self.data: Any = loader.construct_document(node) if node is not None else None
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            line = f":{mark.line + 1}" if mark is not None else ""
            raise DataError(f"{self.path}{line}: not valid YAML ({error.problem or error}); fix the file") from None
        except yaml.YAMLError as error:
            raise DataError(f"{self.path}: not valid YAML ({error}); fix the file") from None
        finally:
            loader.dispose()
        if node is not None:
            self._index(node, ())
        if self.data is None:
            self.data = {}
        if not isinstance(self.data, dict):
            kind = {list: "list", str: "text", int: "number", float: "number", bool: "boolean"}.get(type(self.data))
            raise DataError(f"{self.where()}: the file must hold a mapping (key: value lines), not a {kind or 'value'}")

    def _index(self, node: yaml.Node, key: Key, depth: int = 0) -> None:
        if depth > 50:  # an alias that refers to itself: lines this deep say nothing more
            return
        self.lines.setdefault(key, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                child = (*key, key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value))
                self.lines[child] = key_node.start_mark.line + 1
                self._index(value_node, child, depth + 1)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._index(item, (*key, index), depth + 1)

    def where(self, *key: object) -> str:
        for end in range(len(key), -1, -1):
            if key[:end] in self.lines:
                return f"{self.path}:{self.lines[key[:end]]}"
        return str(self.path)

    def error(self, message: str, *key: object) -> DataError:
        return DataError(f"{self.where(*key)}: {message}")
