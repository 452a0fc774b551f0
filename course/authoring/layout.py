"""The package's layers and each lab's whole code: what tests/authoring/test_layout.py holds the tree to,
and what `python -m course map` prints.

A module belongs to the layer of the folder it sits in, and imports only from its own layer or lower
ones, so the reference queue (core) can be lifted out with nothing but errors and infra beside it:

    errors < infra < core < programs < grading < authoring < evidence < the package's entry points (cli)

A lab is made of the course modules its notebook and checks import (and the course.programs modules
those import in turn), the SQL files they show or run, its checks and its tests: `whole_lab` computes
them from the sources, labs.toml lists them, and the layout test holds the two equal. A notebook
imports only public modules: errors, infra, core, its own lab's programs, and the names course.grading
exports.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from course.grading import manifest
from course.grading.notebooks import python_source

PACKAGE = Path(__file__).resolve().parents[1]  # course/
ROOT = PACKAGE.parent

# (layer, the dotted prefix of its modules, what lives there), lowest first
LAYERS = (
    ("errors", "course.errors", "every layer's exceptions"),
    ("infra", "course.infra", "what starts real things: PostgreSQL, NATS, child processes"),
    ("core", "course.core", "the reference queue: SQL, queue, worker, scheduler, outbox, monitoring"),
    ("programs", "course.programs", "the labs' programs: the Tiffin and StayHub systems, each lab's demos"),
    ("grading", "course.grading", "the learner's checks, hints and progress, the fault injector, compare, grade"),
    ("authoring", "course.authoring", "the authors' tools: build, this map, the mutation sweep, cell writers"),
    ("evidence", "course.evidence", "bench and chaos: how fast, and what is lost when things die"),
    ("entry", "course", "`python -m course`: the command line"),
)
RANK = {name: rank for rank, (name, _, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str:
    """The layer a dotted module name belongs to ("course.core.queue" -> "core")."""
    for name, prefix, _ in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return name
    raise ValueError(f"{module} is not in the course package")


def modules() -> list[str]:
    """Every module of the course package, dotted, in path order."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _module_names(node: ast.ImportFrom | ast.Import) -> list[str]:
    """The course modules an import statement reaches (`from course.core import queue` -> course.core.queue)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "course"]
    if node.level or not node.module or node.module.split(".")[0] != "course":
        return []
    names = []
    for alias in node.names:
        candidate = f"{node.module}.{alias.name}"
        names.append(candidate if _is_module(candidate) else node.module)
    return names


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class Import:
    module: str  # the course module imported
    names: tuple[str, ...]  # the names taken from it ("*" never appears: star imports are refused)
    line: int
    relative: bool = False


def imports_in(source: str) -> list[Import]:
    """Every import of a course module in a piece of Python source (a module or a notebook's cell)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            found.append(Import(node.module or ".", tuple(a.name for a in node.names), node.lineno, True))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for module in _module_names(node):
                taken = tuple(a.name for a in node.names) if isinstance(node, ast.ImportFrom) else ()
                if isinstance(node, ast.ImportFrom) and module != node.module:
                    taken = (module.rsplit(".", 1)[1],)
                found.append(Import(module, taken, node.lineno))
    return found


# -- a lab's whole code, computed from what its notebook and checks import -------------------------------

LAB_LAYERS = ("errors", "infra", "core", "programs")  # what a lab is made of; grading is every lab's
SQL_READERS = {"show", "query", "script", "queries"}  # sql.show("tiffin", ...) and the like
SQL_FOLDERS = (PACKAGE / "core" / "sql", PACKAGE / "programs" / "sql")


@dataclass(frozen=True)
class LabParts:
    """Every file a lab is made of, as labs.toml lists it (paths from the repository's root)."""

    modules: tuple[str, ...]  # course modules, lowest layer first
    sql: tuple[str, ...]
    checks: str
    tests: tuple[str, ...]


def module_path(module: str) -> Path:
    """course.core.queue -> course/core/queue.py; a package -> its __init__.py."""
    path = ROOT / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def checks_path(lab_id: str) -> Path:
    """A lab's checks: course/grading/checks/labNN.py, or the package labNN/ once they outgrow one module."""
    package = PACKAGE / "grading" / "checks" / f"lab{lab_id}"
    return package if package.is_dir() else package.with_suffix(".py")


def checks_source(lab_id: str) -> str:
    """A lab's checks, as one text (every module of the package, in name order)."""
    path = checks_path(lab_id)
    return "\n".join(part.read_text() for part in sorted(path.glob("*.py"))) if path.is_dir() else path.read_text()


def _imported(source: str) -> set[str]:
    return {i.module for i in imports_in(source) if not i.relative and layer_of(i.module) in LAB_LAYERS}


def _sql_names(source: str) -> set[str]:
    """The SQL files a source reads by name: the first argument of every `<...sql>.show/query/script(...)`."""
    return {node.args[0].value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_READERS
            and isinstance(node.func.value, ast.Name) and node.func.value.id.endswith("sql")
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)}


def _sql_files(source: str) -> set[Path]:
    found = set()
    for name in _sql_names(source):
        paths = [folder / f"{name}.sql" for folder in SQL_FOLDERS if (folder / f"{name}.sql").exists()]
        if len(paths) != 1:
            raise ValueError(f"sql file {name!r}: found {len(paths)} of them in {[str(f) for f in SQL_FOLDERS]}")
        found.add(paths[0])
    return found


def _tests_of(module: str) -> Path:
    """Where a module's tests are: course/core/queue.py -> tests/core/test_queue.py."""
    parts = module.split(".")[1:]
    return ROOT / "tests" / Path(*parts[:-1]) / f"test_{parts[-1]}.py"


def whole_lab(lab: manifest.Lab) -> LabParts:
    """What a lab is made of, from its sources: the course modules its solution notebook and its checks
    import (and the course.programs modules those import in turn: its own code, all of it), the SQL files
    they show or run, its checks, the wrong-answer tests of its checks and the tests of its modules."""
    notebook = python_source(ROOT / "solutions" / lab.notebook)
    checks = checks_source(lab.id)
    used = _imported(notebook) | _imported(checks)
    todo = [m for m in used if layer_of(m) == "programs"]
    while todo:  # its own programs' own programs
        for found in _imported(module_path(todo.pop()).read_text()):
            if layer_of(found) == "programs" and found not in used:
                used.add(found)
                todo.append(found)
    order = sorted(used, key=lambda m: (RANK[layer_of(m)], m))
    sources = [notebook, checks, *(module_path(m).read_text() for m in order)]
    sql = sorted({path for source in sources for path in _sql_files(source)})
    tests = [ROOT / "tests" / "grading" / "checks" / f"test_lab{lab.id}.py"]
    tests += [path for path in map(_tests_of, order) if path.exists()]
    relative = lambda path: str(path.relative_to(ROOT))  # noqa: E731
    return LabParts(tuple(order), tuple(map(relative, sql)), relative(checks_path(lab.id)),
                    tuple(map(relative, tests)))


def owners() -> dict[str, list[str]]:
    """course module -> the labs that list it in labs.toml."""
    owned: dict[str, list[str]] = {}
    for lab in manifest.load().labs:
        for name in lab.modules:
            owned.setdefault(name, []).append(lab.id)
    return owned


def map_text() -> str:
    """The package by layer, then each lab with every file it is made of: one hop from a lab to its code."""
    by_layer: dict[str, list[str]] = {name: [] for name, _, _ in LAYERS}
    for module in modules():
        by_layer[layer_of(module)].append(module)
    out = ["The course package, lowest layer first (a module imports only its own layer or lower ones):", ""]
    for name, prefix, what in LAYERS:
        out.append(f"{name:9} {prefix.replace('.', '/') + ('/' if name not in ('errors', 'entry') else '')}"
                   f"  {what}")
        shown = [m.removeprefix(prefix + ".") for m in by_layer[name] if m != prefix]
        if shown:
            out.append("          " + ", ".join(shown))
    out += ["", "Each lab, and every file it is made of (labs.toml; tests/authoring/test_layout.py keeps it true):"]
    for lab in manifest.load().labs:
        out += ["", f"{lab.id}  solutions/{lab.notebook}, labs/{lab.notebook}"]
        for layer in LAB_LAYERS:
            mine = [m.removeprefix("course.") for m in lab.modules if layer_of(m) == layer]
            if mine:
                out.append(f"    {layer + ':':9} " + ", ".join(mine))
        out.append(f"    {'sql:':9} " + (", ".join(lab.sql) or "(none)"))
        out.append(f"    {'checks:':9} {lab.checks}")
        out.append(f"    {'tests:':9} " + ", ".join(lab.tests))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m course map", description=__doc__.split("\n\n")[0]).parse_args(argv)
    print(map_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
