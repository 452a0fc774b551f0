"""`python -m course compare 03`: your answer to each exercise of a lab beside the solution's, and
whether the exercise's checks pass on your code right now."""

from __future__ import annotations

import argparse
import shutil
import textwrap


from . import manifest, run_check
from .build import ROOT
from .notebooks import exercise_cells, load_answers


def side_by_side(left: str, right: str, width: int) -> str:
    column = (width - 3) // 2
    def lines(text):
        out = []
        for line in text.splitlines() or [""]:
            out.extend(textwrap.wrap(line, column, drop_whitespace=False, replace_whitespace=False) or [""])
        return out
    a, b = lines(left), lines(right)
    a += [""] * (len(b) - len(a))
    b += [""] * (len(a) - len(b))
    return "\n".join(f"{x:<{column}} | {y}" for x, y in zip(a, b))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course compare", description=__doc__.splitlines()[0])
    parser.add_argument("lab", help="the lab's number, e.g. 03")
    parser.add_argument("--no-run", action="store_true", help="only show the code; do not run the checks")
    args = parser.parse_args(argv)
    lab = manifest.load().lab(args.lab)
    mine_path, solution_path = ROOT / "labs" / lab.notebook, ROOT / "solutions" / lab.notebook
    mine, solution = exercise_cells(mine_path), exercise_cells(solution_path)
    width = shutil.get_terminal_size((160, 40)).columns
    for exercise in lab.exercises:
        print(f"\n=== {exercise.id}: {exercise.title} " + "=" * max(0, width - len(exercise.id) - len(exercise.title) - 8))
        yours, theirs = mine.get(exercise.id, "(no cell for this exercise in your notebook)"), solution[exercise.id]
        if width >= 120:
            print(side_by_side("YOUR CODE (labs/)\n" + yours, "THE SOLUTION (solutions/)\n" + theirs, width))
        else:
            print("--- your code (labs/)\n" + yours + "\n--- the solution (solutions/)\n" + theirs)
        if args.no_run:
            continue
        try:
            report = run_check(exercise.id, **load_answers(mine_path, exercise.id))
        except Exception as error:  # the learner's cell may not even run outside the notebook
            print(f"checks on your code: could not load your answer ({type(error).__name__}: {error})")
            continue
        print("checks on your code: " + report.render())
    return 0
