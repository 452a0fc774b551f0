"""`python -m course build`: write `labs/` from `solutions/`, one source, two trees.

Each lab is its solution with every answer made a stub and every exercise's rules (labs.toml) rendered
into its statement (course/grading/stubs.py says how). The build writes the rules block into
`solutions/` too (markdown only: no output changes), so the notebook a learner reads always states the
rules the check enforces.

`python -m course build` writes the labs; `--check` only says whether they are up to date.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course.errors import CourseError
from course.grading import manifest
from course.grading.notebooks import LABS, ROOT, SOLUTIONS
from course.grading.stubs import lab_notebook, render, solution_notebook


def planned(only: str | None = None) -> dict[Path, str]:
    """Every file the build writes (or just lab `only`'s), with its content: each solution (its rules
    rendered) and the lab made from it."""
    course = manifest.load()
    out = {}
    for lab in [course.lab(only)] if only else course.labs:
        source = SOLUTIONS / lab.notebook
        if not source.exists():
            raise CourseError(f"labs.toml lists lab {lab.id}, but {source.relative_to(ROOT)} does not exist")
        out[source] = render(solution_notebook(source))
        out[LABS / lab.notebook] = render(lab_notebook(source))
    return out


def stale() -> list[Path]:
    """Files that differ from what the build would write now — a lab, or a solution whose rendered rules
    are not the manifest's — or lab files that should not be there."""
    wanted = planned()
    differ = [path for path, text in wanted.items() if not path.exists() or path.read_text() != text]
    extra = [path for path in LABS.glob("*.ipynb") if path not in wanted]
    return differ + extra


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course build", description=(
        "Write labs/ from solutions/, and each exercise's rules from labs.toml into both."))
    parser.add_argument("--check", action="store_true", help="only report labs that are out of date")
    parser.add_argument("--only", metavar="NN", help="build just this lab, e.g. 03")
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale()
        for path in out_of_date:
            print(f"out of date: {path.relative_to(ROOT)}")
        if out_of_date:
            print("Run `python -m course build` and commit labs/ and solutions/.", file=sys.stderr)
        return 1 if out_of_date else 0
    LABS.mkdir(exist_ok=True)
    for path, text in planned(args.only).items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    for path in LABS.glob("*.ipynb"):
        if path.name not in {lab.notebook for lab in manifest.load().labs}:
            print(f"not in the manifest (left alone): {path.relative_to(ROOT)}")
    return 0
