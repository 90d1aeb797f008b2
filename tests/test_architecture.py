"""The dependency direction of docs/architecture.md ("The floors"), enforced by parsing
imports with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "dlqhandler"

# package -> the dlqhandler packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "outcomes": set(),
    "mq": {"errors"},
    "formats": {"mq", "errors"},
    "rules": {"mq", "errors"},
    "config": {"errors"},
    "logs": {"errors"},
    "qmgr": {"mq", "formats", "config", "logs", "errors"},
    "acting": {"outcomes", "rules", "qmgr", "mq", "errors"},
    "worker": {"outcomes", "acting", "rules", "qmgr", "mq", "formats", "config", "logs", "errors"},
    "spark": {"outcomes", "acting", "rules", "qmgr", "mq", "formats", "config", "logs", "errors"},
    "check": {"outcomes", "acting", "rules", "qmgr", "mq", "errors"},
    "cases": {"rules", "mq", "errors"},
    "report": {"outcomes", "errors"},
    "cli": {"*"},
    "__main__": {"cli"},
    "__init__": set(),
}
THIRD_PARTY_ONLY_IN = {
    "pyspark": {"spark"},
    "ibmmq": {"qmgr/ibmmq/adapter.py"},
    "watchdog": {"worker"},
    "yaml": {"cases"},
}


def _unit(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_package_dependency_direction() -> None:
    """Each package imports only the dlqhandler packages docs/architecture.md allows it."""
    problems = []
    for path in sorted(PKG.rglob("*.py")):
        unit = _unit(path)
        allowed = ALLOWED.get(unit)
        assert allowed is not None, f"{path} is in no known package; add it to ALLOWED"
        for name in _imports(path):
            if not name.startswith("dlqhandler"):
                continue
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else "__init__"
            if target in (unit, "__init__") or "*" in allowed:
                continue
            if target not in allowed:
                problems.append(f"{path.relative_to(PKG)} imports {name}")
    assert problems == []


def test_heavy_third_party_imports_stay_in_their_package() -> None:
    """pyspark only in spark/, ibmmq only in qmgr/ibmmq/adapter.py, watchdog only in worker/,
    yaml (the case files) only in cases/."""
    problems = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        for name in _imports(path):
            root = name.split(".")[0]
            places = THIRD_PARTY_ONLY_IN.get(root)
            if places and not any(rel == p or rel.startswith(p + "/") for p in places):
                problems.append(f"{rel} imports {name}")
    assert problems == []


def test_rules_package_is_pure() -> None:
    """rules/ does no I/O: no open(), no os, subprocess, socket or pathlib imports."""
    banned_modules = {"os", "subprocess", "socket", "pathlib", "shutil", "io"}
    problems = []
    for path in sorted((PKG / "rules").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                problems += [
                    f"{path.name}: import {m}" for m in mods if m.split(".")[0] in banned_modules
                ]
            called = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
            if called in {"open", "eval", "exec", "compile", "__import__"}:
                problems.append(f"{path.name}: calls {called}")
    assert problems == []


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_level_imports(path: Path, modules: set[str]) -> set[str]:
    """The dlqhandler modules ``path`` imports when it is imported: top-level imports and
    those under a top-level ``if`` (``if TYPE_CHECKING:`` included), not lazy ones in
    functions. ``from package import name`` counts as importing ``package.name`` when that
    is a module, else ``package``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    statements: list[ast.stmt] = []
    for node in tree.body:
        statements.extend(node.body + node.orelse if isinstance(node, ast.If) else [node])
    found: set[str] = set()
    for node in statements:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
    return {name for name in found if name in modules and name != own}


def test_no_import_cycles_between_modules() -> None:
    """No module of dlqhandler imports itself back through others at import time
    (``if TYPE_CHECKING:`` imports count: they are a cycle a type checker walks)."""
    paths = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {name: _module_level_imports(path, set(paths)) for name, path in paths.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert cycles == []


ADAPTERS = {"embedded": "dlqhandler.qmgr.embedded", "ibmmq": "dlqhandler.qmgr.ibmmq"}
ADAPTER_MODULES = tuple(ADAPTERS.values())


def test_only_the_composition_root_chooses_an_adapter() -> None:
    """Above the qmgr floor only cli/ imports a queue manager adapter (qmgr/embedded/,
    qmgr/ibmmq/) or the qmgr package itself (which re-exports the embedded one's entry
    points): worker, spark, acting and check use the port (qmgr/port.py) and what lies
    beside it (attempts, snapshot). The two adapters never import each other."""
    problems = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        unit = _unit(path)
        if unit == "cli":
            continue
        adapter = rel.parts[1] if unit == "qmgr" and len(rel.parts) > 2 else None
        for name in _imports(path):
            if unit != "qmgr" and (name == "dlqhandler.qmgr" or name.startswith(ADAPTER_MODULES)):
                problems.append(f"{rel} imports {name}")
            for other, module in ADAPTERS.items():
                if adapter not in (None, other) and name.startswith(module):
                    problems.append(f"{rel} imports {name}")
    assert problems == []
