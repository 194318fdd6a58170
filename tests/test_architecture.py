"""The house rules of agent_eval/, checked on its import graph (docs/architecture.md):
commands -> reading -> core; no command imports another command or cli.py; no import cycle; no
module imports another's _private names; nothing outside benchmarks/ imports a benchmark kind and
nothing outside agents/ an agent CLI's package (they are reached through the registries)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support.imports import Import, cycles, package_imports, private_imports, under

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agent_eval"
MODULES, IMPORTS = package_imports(PACKAGE)
KINDS = sorted(p.name for p in (PACKAGE / "benchmarks").iterdir() if (p / "__init__.py").is_file())
AGENT_CLIS = sorted(p.name for p in (PACKAGE / "agents").iterdir() if (p / "__init__.py").is_file())


def _breaking(rule) -> list[str]:
    return sorted(f"{i.importer}:{i.line} imports {i.target}" for i in IMPORTS if rule(i))


def test_the_graph_sees_the_whole_package():
    # The checker reads lazy imports too: show's command imports the run loader inside no function,
    # the CLI's registry names every command by string (importlib), so only reading imports count.
    assert {"agent_eval.cli", "agent_eval.commands.show", "agent_eval.reading.run", "agent_eval.core.runner"} <= MODULES
    assert Import("agent_eval.commands.show", "agent_eval.reading.run", ("LoadedRun",), 0).target in {
        i.target for i in IMPORTS if i.importer == "agent_eval.commands.show"}
    assert KINDS == ["activeobs", "activevision"] and AGENT_CLIS == ["claude_code", "codex"]


def test_no_import_cycles():
    assert cycles(MODULES, IMPORTS) == []


def test_no_private_names_imported_across_modules():
    assert private_imports(IMPORTS) == []


def _command(module: str) -> str | None:
    """agent_eval.commands.<name>[.sub]: the command a module belongs to (a command may be a package)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "commands" else None


def test_no_command_imports_another_command_or_the_cli():
    shared = ("agent_eval.commands", "agent_eval.commands.options")   # not commands: the package and its options
    def rule(i):
        mine = _command(i.importer)
        if mine is None or i.importer in shared:
            return False
        return i.target == "agent_eval.cli" or (_command(i.target) not in (None, mine) and i.target not in shared)
    assert _breaking(rule) == []


def test_libraries_never_import_commands_and_core_never_imports_reading():
    def rule(i):
        if i.target == "agent_eval.cli" or under(i.target, "agent_eval.commands"):
            return not under(i.importer, "agent_eval.commands") and i.importer != "agent_eval.cli"
        return under(i.importer, "agent_eval.core") and under(i.target, "agent_eval.reading")
    assert _breaking(rule) == []


def test_only_benchmarks_import_a_benchmark_kind():
    def rule(i):
        return (not under(i.importer, "agent_eval.benchmarks")
                and any(under(i.target, f"agent_eval.benchmarks.{kind}") for kind in KINDS))
    assert _breaking(rule) == []


def test_kinds_do_not_import_each_other():
    def rule(i):
        mine = next((k for k in KINDS if under(i.importer, f"agent_eval.benchmarks.{k}")), None)
        return mine is not None and any(under(i.target, f"agent_eval.benchmarks.{k}") for k in KINDS if k != mine)
    assert _breaking(rule) == []


def test_only_agents_import_an_agent_cli_package():
    def rule(i):
        return (not under(i.importer, "agent_eval.agents")
                and any(under(i.target, f"agent_eval.agents.{cli}") for cli in AGENT_CLIS))
    assert _breaking(rule) == []


HELPERS_BY_BARE_NAME = {"conftest", *(p.stem for p in (ROOT / "tests" / "support").glob("*.py"))} - {"__init__"}


def test_no_test_imports_another_test_module():
    """Helpers live in tests/support/; a test module is never imported by another."""
    tests = ROOT / "tests"
    bad = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            # a test module, conftest, or a helper imported by its bare name (it lives in support/)
            bad += [f"{path.relative_to(tests)} imports {n}" for n in names
                    if n.split(".")[-1].startswith("test_") or n.split(".")[0] in HELPERS_BY_BARE_NAME]
    assert bad == []


# -- the checker itself finds what it must -----------------------------------------------------
@pytest.fixture
def fake(tmp_path):
    def write(files: dict[str, str]) -> tuple[set[str], list[Import]]:
        for name, text in files.items():
            path = tmp_path / "pkg" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return package_imports(tmp_path / "pkg")
    return write


def test_checker_finds_a_cycle_through_a_lazy_import_but_not_a_type_checking_one(fake):
    modules, imports = fake({
        "__init__.py": "", "a.py": "def f():\n    from pkg.b import g\n",
        "b.py": "from . import a\n", "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n",
        "d.py": "from pkg.c import x\n",
    })
    assert cycles(modules, imports) == [["pkg.a", "pkg.b"]]


def test_checker_finds_private_imports(fake):
    modules, imports = fake({"__init__.py": "", "a.py": "_x = 1\n", "b.py": "from pkg.a import _x, y\nfrom pkg import __version__\n"})
    assert private_imports(imports) == ["pkg.b:1 imports pkg.a._x"]
