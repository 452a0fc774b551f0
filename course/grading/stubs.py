"""A lab notebook made from its solution: each answer becomes a stub, each exercise states its rules.

In a solution notebook, the answer to an exercise sits between two marker lines in a code cell whose
metadata names the exercise (`"course": {"exercise": "03.claim"}`):

    def claim(conn, lease_s):
        # BEGIN SOLUTION
        ...the answer...
        # END SOLUTION

In the lab, an indented region becomes `raise NotImplementedError("03.claim: ...")`; a region at the
top level (a quiz) keeps its assignments with `...` as the value: `q1 = ...  # your answer`. Markdown
between `<!-- BEGIN SOLUTION -->` and `<!-- END SOLUTION -->` (a model answer) becomes a prompt to
write your own. Cells tagged `solution-only` are left out. Outputs are cleared; everything else —
prose, set-up, demos, check cells, cell ids — is kept, so a lab and its solution line up cell by cell.

Each exercise's rules (labs.toml) are rendered into its statement — the markdown cell with its
"Exercise NN.name" heading — as a block between two markers, in the solution and so in the lab.

The build (course/authoring/build.py) writes these to labs/ and solutions/; `compare` and `check` make
them too, to tell a lab still untouched from one a learner worked in.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat

from course.errors import CourseError
from course.grading import manifest
from course.grading.notebooks import exercise_of

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
MD_REGION = re.compile(r"<!-- BEGIN SOLUTION -->.*?<!-- END SOLUTION -->", re.DOTALL)
MD_PROMPT = "*Your answer here: write it before you open the solution.*"
RULES_BLOCK = re.compile(r"\n*<!-- BEGIN RULES (\S+) .*?<!-- END RULES \1 -->", re.DOTALL)


def stub_code(source: str, exercise_id: str, where: str) -> str:
    lines = source.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.strip() != BEGIN:
            if line.strip() == END:
                raise CourseError(f"{where}: '{END}' without '{BEGIN}' before it")
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        try:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == END)
        except StopIteration:
            raise CourseError(f"{where}: '{BEGIN}' is never closed by '{END}'") from None
        out.extend(_stub(lines[i + 1:end], indent, exercise_id, where))
        i = end + 1
    return "\n".join(out)


def _stub(region: list[str], indent: str, exercise_id: str, where: str) -> list[str]:
    title = manifest.load().exercise(exercise_id).title
    if indent:
        return [f'{indent}raise NotImplementedError("{exercise_id}: {title} — write your code here")']
    try:
        tree = ast.parse("\n".join(region))
    except SyntaxError as error:
        raise CourseError(f"{where}: the solution region does not parse: {error}") from None
    names = [target.id for node in tree.body if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)]
    if not names:
        raise CourseError(f"{where}: a top-level solution region must assign the answers (q1 = ...)")
    return [f"{name} = ...  # your answer" for name in names]


def rules_block(exercise: manifest.Exercise) -> str:
    """The markdown an exercise's statement ends with: its rules, as labs.toml lists them."""
    lines = [f"<!-- BEGIN RULES {exercise.id} (written by `python -m course build` from labs.toml) -->",
             f"**The rules `check(\"{exercise.id}\")` holds your answer to:**", ""]
    lines += [f"{number}. {rule.text} <small>(`{rule.id}`)</small>"
              for number, rule in enumerate(exercise.rules, start=1)]
    if exercise.free:
        lines += ["", f"Left to you (the check does not compare it): {exercise.free}"]
    return "\n".join(lines + [f"<!-- END RULES {exercise.id} -->"])


def _statement_cell(cells, code_index: int, exercise_id: str, where: str):
    """The last markdown cell from the exercise's heading to its code cell: where the statement ends."""
    heading = re.compile(rf"Exercise {re.escape(exercise_id)}(?![\w])")
    for start in range(code_index - 1, -1, -1):
        if cells[start].cell_type == "markdown" and heading.search(cells[start].source):
            return [cell for cell in cells[start:code_index] if cell.cell_type == "markdown"][-1]
    raise CourseError(f"{where}: no markdown cell before exercise {exercise_id} has the heading "
                      f"'Exercise {exercise_id}', so its rules have nowhere to go")


def with_rules(notebook, where: str):
    """`notebook` with every exercise's rules block rewritten from the manifest (in place; returned)."""
    course = manifest.load()
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = RULES_BLOCK.sub("", cell.source)
    for index, cell in enumerate(notebook.cells):
        exercise_id = exercise_of(cell)
        if cell.cell_type != "code" or exercise_id is None:
            continue
        exercise = course.exercise(exercise_id)
        if exercise.rules:
            statement = _statement_cell(notebook.cells, index, exercise_id, where)
            statement.source = statement.source.rstrip("\n") + "\n\n" + rules_block(exercise)
    return notebook


def solution_notebook(solution_path: Path):
    """One solution notebook as the build leaves it: its rules blocks rendered from the manifest."""
    return with_rules(nbformat.read(solution_path, as_version=4), solution_path.name)


def lab_notebook(solution_path: Path):
    """The lab version of one solution notebook."""
    notebook = solution_notebook(solution_path)
    known = {e.id for e in manifest.load().exercises}
    cells = []
    for index, cell in enumerate(notebook.cells):
        where = f"{solution_path.name}, cell {index + 1}"
        if "solution-only" in cell.get("metadata", {}).get("tags", []):
            continue
        cell = nbformat.from_dict(dict(cell))
        cell.metadata.pop("execution", None)  # run timestamps: they would change the lab on every run
        if cell.cell_type == "code":
            if BEGIN in cell.source:
                exercise_id = exercise_of(cell)
                if exercise_id not in known:
                    raise CourseError(f"{where}: a solution region needs the cell's metadata to name a "
                                      f"manifest exercise (course.exercise); found {exercise_id!r}")
                cell.source = stub_code(cell.source, exercise_id, where)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = MD_REGION.sub(MD_PROMPT, cell.source)
        cells.append(cell)
    notebook.cells = cells
    notebook.metadata.pop("widgets", None)  # the solution run's widget state: dead weight in a lab
    return notebook


def render(notebook) -> str:
    return nbformat.writes(notebook) + "\n"
