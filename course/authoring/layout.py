"""The package's layers and each lab's own modules: what tests/authoring/test_layout.py holds the tree to, and what
`python -m course map` prints.

A module belongs to the layer of the folder it sits in, and imports only from its own layer or lower
ones, so the reference queue (core) can be lifted out with nothing but errors and infra beside it:

    errors < infra < core < programs < grading < authoring < evidence < the package's entry points (cli)

A lab owns the course.programs modules its [[lab]] lists as `modules` in labs.toml. A notebook imports
only public modules: errors, infra, core, its own lab's programs, and the names course.grading exports.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from course.grading import manifest

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


def lab_modules() -> dict[str, tuple[str, ...]]:
    """Each lab's own course.programs modules, from labs.toml."""
    return {lab.id: lab.modules for lab in manifest.load().labs}


def owners() -> dict[str, list[str]]:
    """course.programs module -> the labs that list it."""
    owned: dict[str, list[str]] = {}
    for lab_id, names in lab_modules().items():
        for name in names:
            owned.setdefault(name, []).append(lab_id)
    return owned


def map_text() -> str:
    """The package by layer, then each lab with its own modules: one hop from a lab to its code."""
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
    out += ["", "Each lab's own code (labs.toml `modules`; every lab also uses core and infra):", ""]
    for lab in manifest.load().labs:
        own = ", ".join(m.removeprefix("course.programs.") for m in lab.modules) or "(core and infra only)"
        out.append(f"{lab.id}  {lab.notebook:34} {own}")
        out.append(f"    checks: course/grading/checks/lab{lab.id}.py")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m course map", description=__doc__.split("\n\n")[0]).parse_args(argv)
    print(map_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
