"""pytest's settings for this repository, whichever way pytest is started from its root.

    pytest                          the unit and integration tests (tests/)
    pytest --nbval solutions/       every solution notebook, its stored outputs compared
    pytest --nbval-lax labs/        every lab notebook runs top to bottom with its stubs untouched
    make test                       all three in one run, in parallel (pytest-xdist), same settings

The Makefile adds nothing of its own but `-n` and the paths: what an instructor types works as typed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SANITIZE = ROOT / "tests" / "nbval-sanitize.cfg"
LABS = ROOT / "labs"
NOTEBOOK = re.compile(r"^(\d\d)_")


def _progress_file() -> str:
    """Checks record what passed; a test run's passes must never land in the learner's own progress file.
    Each parallel worker keeps its own, so two kernels never write one file at once."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return str(ROOT / ".course" / f"test-progress-{worker}.json")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("COURSE_PROGRESS_FILE", _progress_file())  # kernels and workers inherit it
    config.addinivalue_line(
        "markers", "slow: starts worker processes, servers or notebooks; `pytest -m 'not slow'` leaves them out")
    option = config.option
    if getattr(option, "nbval", False) or getattr(option, "nbval_lax", False):
        # Outputs that differ by nature (ports, pids, uuids, times) are sanitized before comparing.
        if not option.nbval_sanitize_with:
            option.nbval_sanitize_with = str(SANITIZE)
        # The notebooks run in this environment's Python, where `course` is installed.
        if not option.nbval_kernel_name:
            option.nbval_current_env = True


def _is_notebook_cell(item: pytest.Item) -> bool:
    return item.path.suffix == ".ipynb"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not _is_notebook_cell(item):
            continue
        item.add_marker(pytest.mark.slow)
        # solutions/NN and labs/NN share the schema labNN (and lab NN's stream names): under xdist's
        # --dist loadgroup they run on one worker, one after the other, and a notebook's cells stay
        # together on the kernel that runs them.
        match = NOTEBOOK.match(item.path.name)
        item.add_marker(pytest.mark.xdist_group(f"lab{match.group(1)}" if match else item.path.stem))
        # labs/ hold stubs and no outputs: they are checked as --nbval-lax would, even in a run that
        # compares solutions/ (a cell that asks for it with `# NBVAL_CHECK_OUTPUT` still is).
        if LABS in item.path.parents and getattr(config.option, "nbval", False) and "NBVAL_CHECK_OUTPUT" not in item.cell.source:
            item.options["check"] = False
