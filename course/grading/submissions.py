"""Which files of SUBMISSIONS are a class's notebooks, and whether each can be read: the grader's first step,
before any student's code runs. A notebook is found by its name (`<student>/<NN>_*.ipynb`, or flat
`<student>_<NN>_*.ipynb`), refused when it is not a plain file of its own (a link would have us grade
solutions/ or a classmate's notebook; a pipe would hang the grader; a sparse 2 GB file held 4 GB), and
read once, as text, so that what is graded is what was read."""

from __future__ import annotations

import json
import re
import stat
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from course.grading.gradebook import Row

MAX_NOTEBOOK_BYTES = 32 << 20  # a lab's solution with its outputs is under 2 MiB
FLAT = re.compile(r"^(?P<student>.+)_(?P<lab>\d\d)_[^/]*\.ipynb$")
IN_FOLDER = re.compile(r"^(?P<lab>\d\d)_[^/]*\.ipynb$")


@dataclass
class Submission:
    student: str
    lab: str
    path: Path
    also: list[Path] = field(default_factory=list)  # older notebooks of the same lab, not graded
    shown: str = ""  # the path under SUBMISSIONS, for the gradebook


# -- finding the notebooks -----------------------------------------------------------------------------


def find_submissions(root: Path, labs: set[str], course_labs: set[str] | None = None) -> tuple[list[Submission], list[Row]]:
    """The notebooks of `labs` to grade, and a row for each .ipynb file whose name we cannot place (a
    notebook of another of `course_labs`, not asked for, is left alone)."""
    course_labs = labs if course_labs is None else course_labs
    root = root.resolve()
    found: dict[tuple[str, str], list[Path]] = defaultdict(list)
    unplaced: list[Row] = []
    for path in sorted(root.rglob("*.ipynb")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):  # .ipynb_checkpoints, .git
            continue
        if len(relative.parts) == 1:
            match = FLAT.match(path.name)
            student = match and match["student"]
        else:
            match = IN_FOLDER.match(path.name)
            student = relative.parts[0]
        if match and match["lab"] in course_labs and match["lab"] not in labs:
            continue  # a lab not asked for (--lab)
        refused = _not_a_plain_file(root, relative)
        if refused:
            unplaced.append(Row(printable(student or path.stem), match["lab"] if match else "", "", "unreadable",
                                notebook=str(relative), detail=f"{refused}: hand in the notebook itself"))
            continue
        if not match or match["lab"] not in labs:
            unplaced.append(Row(printable(student or path.stem), "", "", "unreadable", notebook=str(relative),
                                detail="not a course lab's file name: expected <student>/<NN>_*.ipynb or "
                                       "<student>_<NN>_*.ipynb with NN one of the course's labs"))
            continue
        found[(printable(student), match["lab"])].append(path)
    for path in sorted(root.rglob("*")):  # a linked folder (rglob does not enter it): a row that says so
        relative = path.relative_to(root)
        if path.is_symlink() and path.is_dir() and not any(part.startswith(".") for part in relative.parts):
            unplaced.append(Row(printable(relative.parts[0]), "", "", "unreadable", notebook=str(relative),
                                detail=f"{relative} is a symbolic link: hand in the notebook itself"))
    submissions = []
    for (student, lab), paths in sorted(found.items()):
        paths.sort(key=lambda p: (p.stat().st_mtime, str(p)), reverse=True)
        submissions.append(Submission(student, lab, paths[0], paths[1:], str(paths[0].relative_to(root))))
    return submissions, unplaced


def printable(name: str) -> str:
    """A student's name (a folder's) as the gradebook shows it: a newline or another control character
    written as its escape, so a name cannot add a line to summary.md (and a backslash doubled, so two
    names stay two)."""
    if name.isprintable() and "\\" not in name:
        return name
    return "".join(ch if ch.isprintable() and ch != "\\" else ch.encode("unicode_escape").decode() for ch in name)


def _not_a_plain_file(root: Path, relative: Path) -> str | None:
    """Why this submission is not read (a link would have us grade solutions/ or a classmate's notebook, a
    pipe would hang the grader), or None for a plain file of its own."""
    for depth in range(1, len(relative.parts) + 1):
        if (root / Path(*relative.parts[:depth])).is_symlink():
            return f"{Path(*relative.parts[:depth])} is a symbolic link"
    info = (root / relative).lstat()
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > MAX_NOTEBOOK_BYTES:  # read whole before grading: a 2 GB file (a sparse one fits a zip) held 4 GB
        return f"{info.st_size / 2**20:,.0f} MiB, over the {MAX_NOTEBOOK_BYTES >> 20} MiB a notebook may be"
    if info.st_nlink > 1:
        return "a hard link (the same file as another somewhere)"
    return None


# -- reading one ------------------------------------------------------------------------------------------


def unreadable(text: str | None) -> str | None:
    import nbformat

    if text is None:
        return "cannot read the file (not UTF-8 text, or not readable)"
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"not a notebook: not JSON ({error})"
    except (RecursionError, MemoryError):  # "[" * 200_000: json's parser gives up (hostile3, attack 6)
        return "not a notebook: JSON nested deeper than Python's parser goes"
    try:
        notebook = nbformat.reads(text, as_version=4)
        notebook.cells  # noqa: B018
    except Exception as error:  # nbformat raises several kinds
        return f"not a notebook: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return None


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
