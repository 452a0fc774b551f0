"""`python -m course build` (course.authoring.build): labs/ are exactly what it writes from solutions/, with no
outputs and no answers; solutions/ keep theirs."""

import nbformat

from course.authoring import build
from course.grading import manifest, notebooks, stubs

COURSE = manifest.load()


def test_labs_are_exactly_what_the_build_writes_from_solutions():
    assert build.stale() == [], "labs/ or the rules in solutions/ are out of date: run `python -m course build`"


def test_lab_notebooks_carry_no_outputs_and_no_solutions():
    for lab in COURSE.labs:
        notebook = nbformat.read(notebooks.ROOT / "labs" / lab.notebook, as_version=4)
        for cell in notebook.cells:
            assert stubs.BEGIN not in cell.source and "BEGIN SOLUTION -->" not in cell.source
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None


def test_solution_notebooks_are_stored_with_outputs():
    for lab in COURSE.labs:
        notebook = nbformat.read(notebooks.ROOT / "solutions" / lab.notebook, as_version=4)
        assert any(cell.get("outputs") for cell in notebook.cells), lab.notebook
