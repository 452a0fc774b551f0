"""pytest's settings for this repository, whichever way pytest is started from its root.

    pytest                          the unit and integration tests (tests/)
    pytest --nbval solutions/       every solution notebook, its stored outputs compared
    pytest --nbval-lax labs/        every lab notebook runs top to bottom with its stubs untouched
    make test                       all three in one run, in parallel (pytest-xdist), same settings

The Makefile adds nothing of its own but `-n`, the paths, and a check that the run left no server
running (tools/no_servers_left.py): what an instructor types works as typed.
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


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item):
    """pytest-timeout's limit (pyproject's 300 s, or a test's own mark) only bounds a hang: like every HangBound
    it is stretched by the machine's load as the test starts, so a test that is slow only because the machine
    is busy (CI on two cores beside other work) is not failed for it. Runs before pytest-timeout reads it. Here,
    not in tests/conftest.py: a notebook's cells (solutions/, labs/) are bounded the same way."""
    marker = item.get_closest_marker("timeout")
    seconds = marker.args[0] if marker is not None and marker.args else item.config.getini("timeout")
    from course.infra import processes  # imported late: pytest reads this file before anything is set up

    stretch = processes.patience()
    if seconds and float(seconds) > 0 and stretch > 1.0:
        kwargs = marker.kwargs if marker is not None else {}
        item.add_marker(pytest.mark.timeout(float(seconds) * stretch, **kwargs), append=False)
    yield


def _lab_of(path: str) -> str | None:
    """'lab03' for solutions/03_*.ipynb and labs/03_*.ipynb; None for anything that is not a notebook."""
    if not path.endswith(".ipynb"):
        return None
    match = NOTEBOOK.match(Path(path).name)
    return f"lab{match.group(1)}" if match else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With `--dist loadgroup`: every cell of solutions/NN and labs/NN goes to one worker, in order (a
    notebook's cells share its kernel; the two notebooks of a lab share the schema labNN and its stream
    names), and each test is a unit of its own. The largest units start first.

    (pytest-xdist 3.8 groups by renaming node ids, which pytest 9.2 no longer allows: we group here.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ByLab(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _lab_of(nodeid.split("::", 1)[0]) or super()._split_scope(nodeid)

    return ByLab(config, log)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.suffix != ".ipynb":
            continue
        item.add_marker(pytest.mark.slow)
        # labs/ hold stubs and no outputs: they are checked as --nbval-lax would, even in a run that
        # compares solutions/ (a cell that asks for it with `# NBVAL_CHECK_OUTPUT` still is).
        if LABS in item.path.parents and getattr(config.option, "nbval", False) \
                and "NBVAL_CHECK_OUTPUT" not in item.cell.source:
            item.options["check"] = False
