"""The import graph of a package, read with ast (every import: also those inside functions and those under
`if TYPE_CHECKING:`, since a name in an annotation is a dependency too), and the house rules checked on it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    importer: str  # module doing the import
    target: str  # module imported (a package's __init__ is the package's name)
    names: tuple[str, ...]
    line: int


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_imports(root: Path) -> tuple[set[str], list[Import]]:
    """(every module of the package at `root`, every import between them)."""
    modules = {module_name(root, p): p for p in root.rglob("*.py")}
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                if not (base == root.name or base.startswith(root.name + ".")):
                    continue
                for alias in node.names:  # `from pkg import module` imports the module
                    sub = f"{base}.{alias.name}"
                    target = sub if sub in modules else base
                    found.append(Import(module, target, (alias.name,) if target == base else (), node.lineno))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == root.name or alias.name.startswith(root.name + "."):
                        found.append(Import(module, alias.name, (), node.lineno))
    return set(modules), found


def cycles(modules: set[str], imports: list[Import]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    graph = {
        m: sorted({i.target for i in imports if i.importer == m and i.target in modules and i.target != m})
        for m in modules
    }
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return groups


def private_imports(imports: list[Import]) -> list[str]:
    """`from other_module import _name`: reaching into another module's private helpers."""
    return [
        f"{i.importer}:{i.line} imports {i.target}.{name}"
        for i in imports
        for name in i.names
        if name.startswith("_") and not name.startswith("__") and i.target != i.importer
    ]


def under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _package_of(module: str, layers: dict[str, int]) -> str | None:
    """The longest package in `layers` that holds `module`."""
    found = [p for p in layers if under(module, p)]
    return max(found, key=len) if found else None


def layer_breaches(layers: dict[str, int], imports: list[Import]) -> list[str]:
    """Imports that leave their package for another of the same or a higher layer."""
    bad = []
    for i in imports:
        mine, theirs = _package_of(i.importer, layers), _package_of(i.target, layers)
        if mine is None or theirs is None or mine == theirs or layers[theirs] < layers[mine]:
            continue
        why = "same layer, another package" if layers[theirs] == layers[mine] else f"above {layers[mine]}"
        bad.append(f"{i.importer}:{i.line} imports {i.target} (layer {layers[theirs]}, {why})")
    return sorted(bad)


def script_imports(directory: Path) -> tuple[set[str], list[Import]]:
    """(every script of a directory of scripts run by path, as perf/'s are; their imports of one another by bare
    name, also inside functions and under `if TYPE_CHECKING:`)."""
    scripts = {path.stem for path in directory.glob("*.py")}
    found = []
    for path in sorted(directory.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [Import(path.stem, n, (), node.lineno) for n in names if n.split(".")[0] in scripts]
    return scripts, found


def unlisted_files(root: Path) -> list[str]:
    """Each package's modules (file.py) and subpackages (dir/) that its __init__'s docstring does not name."""
    missing = []
    for init in sorted(root.rglob("__init__.py")):
        text = ast.get_docstring(ast.parse(init.read_text())) or ""
        folder = init.parent
        entries = [p.name for p in folder.glob("*.py") if p.name != "__init__.py"]
        entries += [f"{p.name}/" for p in folder.iterdir() if (p / "__init__.py").is_file()]
        for entry in sorted(entries):
            if not re.search(rf"(?<![\w./]){re.escape(entry)}(?!\w)", text):
                missing.append(f"{init.relative_to(root.parent)} does not name {entry}")
    return missing
