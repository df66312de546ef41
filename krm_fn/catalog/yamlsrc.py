"""Safe YAML loading for catalog files: C loader, duplicate keys and aliases reported, never code execution."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from krm_fn.errors import InputError, shown
from krm_fn.io.loader import load_documents
from krm_fn.kube.paths import FieldPath


class _Loader(yaml.CSafeLoader):
    """``CSafeLoader`` that records duplicate mapping keys and alias use instead of silently accepting them."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[Any, str, int, int]] = []  # (mapping, key, line, first line)
        self.alias_lines: list[int] = []

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node in self.constructed_objects or node in self.recursive_objects:
            self.alias_lines.append(node.start_mark.line + 1)
        return super().construct_object(node, deep)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[str, int] = {}
        target = self.constructed_objects.get(node)
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                line = key_node.start_mark.line + 1
                if key_node.value in seen:
                    self.duplicates.append((target, key_node.value, line, seen[key_node.value]))
                else:
                    seen[key_node.value] = line
        return super().construct_mapping(node, deep)


def load(text: str) -> tuple[Any, list[tuple[FieldPath, str]]]:
    """Parse one YAML document; returns the data and problems as ``(key path, message)``."""
    try:  # PyYAML's composer recurses in C: refuse absurd nesting before it can overflow the stack
        load_documents(text)
    except InputError as exc:
        if "nested deeper" in exc.message:
            return None, [((), exc.message)]
    loader = _Loader(text)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        return None, [((), f"{line}invalid YAML: {exc.problem or exc.context}")]
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML parse error is marked
        return None, [((), f"invalid YAML: {exc}")]
    finally:
        loader.dispose()
    problems: list[tuple[FieldPath, str]] = []
    for alias_line in sorted(set(loader.alias_lines)):
        problems.append(((), f"line {alias_line}: this anchored value is reused by an alias; YAML anchors and "
                             "aliases are not supported in catalogs (use a component or write the value out)"))
    if loader.duplicates:
        paths = _paths_by_id(data)
        for target, key, dup_line, first in loader.duplicates:
            path = paths.get(id(target), ())
            problems.append(((*path, key), f"duplicate key {shown(key)} (line {dup_line}; first defined on line {first})"))
    problems += _huge_integers(data)
    return data, problems


def _nodes(data: Any) -> Iterator[tuple[Any, FieldPath]]:
    """Every node of ``data`` with its key path; a container reached twice (an alias) is visited once."""
    seen: set[int] = set()
    stack: list[tuple[Any, FieldPath]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if isinstance(value, dict):
                stack.extend((v, (*path, str(k))) for k, v in value.items())
            else:
                stack.extend((v, (*path, i)) for i, v in enumerate(value))
        yield value, path


def _paths_by_id(data: Any) -> dict[int, FieldPath]:
    return {id(value): path for value, path in _nodes(data) if isinstance(value, dict)}


INT64 = range(-(1 << 63), 1 << 63)


def _huge_integers(data: Any) -> list[tuple[FieldPath, str]]:
    """Integers no Kubernetes field holds (beyond int64): kubectl would read the text we write as a float, so
    such a value is refused here, where it enters, rather than generated into an object."""
    out = [(path, f"integer {shown(value, 40)} is beyond 64 bits") for value, path in _nodes(data)
           if type(value) is int and value not in INT64]
    return sorted(out, key=lambda problem: str(problem[0]))
