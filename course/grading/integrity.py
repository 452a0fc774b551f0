"""What a graded class's summary flags, beside the grades: signs that a grade may not mean what it says.

    fingerprint(path)                 a submission's bytes, hashed: compared before and after its grading
    same_answer_key(source)           an answer cell with its names, comments, docstrings and the spacing
                                      of its strings taken out: two cells with the same key are the same
                                      code, whoever typed it and whatever they called things
    identical_answers(cells, ...)     the groups of students whose answer to one exercise has the same key
                                      (not the stub, not the solution)
    Events                            what a checker reported for one notebook, read as it arrives, with
                                      what does not add up: a result for an exercise it was never asked to
                                      start, two results for one exercise, processes left running

The grader adds its own: a submission changed during the run, and a gradebook whose rows, read back
from gradebook.csv, are not the rows it wrote.
"""

from __future__ import annotations

import ast
import hashlib
import os
import stat
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path


def fingerprint(path: Path) -> str:
    """The file's hash; for a link or anything but a plain file, what it is (never followed or read: a
    link to /dev/zero, or a pipe, would hold the grader)."""
    try:
        if path.is_symlink():
            return f"a link to {os.readlink(path)}"
        if not stat.S_ISREG(path.lstat().st_mode):
            return "not a regular file"
        with open(path, "rb") as notebook:
            return hashlib.file_digest(notebook, "sha256").hexdigest()  # streamed: a notebook may be huge
    except OSError as error:
        return f"unreadable: {error.strerror}"


# -- answers that are the same code ------------------------------------------------------------------


class _Names(ast.NodeTransformer):
    """Every name the cell chooses (functions, arguments, variables, imports' aliases) becomes n0, n1...
    in order of first appearance; attributes (queue.enqueue) and strings stay, strings with their runs of
    whitespace made one space (SQL laid out differently is the same SQL)."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"n{len(self.names)}")

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self._name(node.id), node.ctx), node)

    def visit_arg(self, node: ast.arg):
        node.arg, node.annotation = self._name(node.arg), None
        return node

    def visit_FunctionDef(self, node):
        node.name, node.returns = self._name(node.name), None
        _drop_docstring(node)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef):
        node.name = self._name(node.name)
        _drop_docstring(node)
        self.generic_visit(node)
        return node

    def visit_alias(self, node: ast.alias):
        node.asname = self._name(node.asname or node.name.split(".")[0])
        return node

    def visit_Constant(self, node: ast.Constant):
        if isinstance(node.value, str):
            return ast.copy_location(ast.Constant(" ".join(node.value.split())), node)
        return node


def _drop_docstring(node) -> None:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str) and len(body) > 1:
        node.body = body[1:]


def same_answer_key(source: str) -> str | None:
    """The cell as code with every choice of names and layout taken out; None if it is not Python."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
        tree = _Names().visit(tree)
        return ast.dump(tree, annotate_fields=False, include_attributes=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # A 20,000-term sum makes the parser raise RecursionError (unary minuses: MemoryError): such a cell is
        # no answer to compare, and must not stop the comparison of everyone else's (hostile3, attack 5).
        return None


def identical_answers(cells: dict[str, dict[str, str]], exercises: list[str], *,
                      not_counted: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """(exercise, students) for each group of two or more students whose answers have the same key.
    `cells`: student -> exercise -> source; `not_counted`: exercise -> sources everyone has (the stub, the
    solution), whose key is never a group's. A hint's last step can make two honest answers alike: the
    summary says so beside the groups."""
    found = []
    for exercise in exercises:
        common = {same_answer_key(source) for source in not_counted.get(exercise, [])}
        groups: dict[str, list[str]] = defaultdict(list)
        for student, theirs in cells.items():
            source = theirs.get(exercise)
            key = same_answer_key(source) if source else None
            if key is not None and key not in common and key.count("(") > 20:  # tiny cells are alike by nature
                groups[key].append(student)
        found += [(exercise, sorted(students)) for students in groups.values() if len(students) > 1]
    return found


# -- what a checker reported -------------------------------------------------------------------------------


@dataclass
class Events:
    """One notebook's events as the grader reads them; what does not add up is noted in `flags`."""

    asked: list[str]
    started: set[str] = field(default_factory=set)
    results: dict[str, dict] = field(default_factory=dict)
    leftovers: list = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    def take(self, event: dict) -> dict | None:
        """Read one event; the result it carries, if it is a result to count (else None)."""
        kind, exercise = event.get("event"), event.get("exercise")
        if kind == "leftovers":
            found = [p for p in event.get("processes") or [] if isinstance(p, list) and len(p) == 2]
            if found:
                self.leftovers += found
                shown = "; ".join(f"pid {pid} ({str(command)[:60]})" for pid, command in found[:3])
                self.flags.append(f"processes left running after its grading, killed: {shown}")
            return None
        if exercise not in self.asked:
            self.flags.append(f"an event for {str(exercise)[:40]!r}, which was not asked for: ignored")
            return None
        if kind == "start":
            self.started.add(exercise)
            return None
        if kind != "result":
            return None
        if exercise in self.results:
            self.flags.append(f"a second result for {exercise}: ignored (the first counts)")
            return None
        if exercise not in self.started and event.get("status") not in ("no cell",):
            self.flags.append(f"a result for {exercise}, whose checks were never started")
        self.results[exercise] = event
        return event
