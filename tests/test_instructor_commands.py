"""The instructors' commands work as README types them: `pytest --nbval solutions/` and `pytest --nbval-lax
labs/`, from the repository's folder, with no other flag (conftest.py brings the sanitizing, the kernel
and a progress file of the tests' own). Run here on lab 00, whose outputs hold a run-dependent socket
folder and timestamps that only the sanitize file makes comparable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # each starts a notebook kernel


def plain_pytest(*args: str) -> subprocess.CompletedProcess:
    """pytest as an instructor starts it: none of this run's settings in the environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COURSE_PROGRESS"))}
    learners = ROOT / ".course" / "progress.json"
    before = learners.read_bytes() if learners.exists() else None
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=600)
    after = learners.read_bytes() if learners.exists() else None
    assert before == after, "the checks a test run passed landed in the learner's own progress file"
    return result


def test_pytest_nbval_on_a_solution_needs_no_other_flag():
    solution = "solutions/00_start_here.ipynb"
    stored = json.loads((ROOT / solution).read_text())
    assert any("socket in" in "".join(o.get("text", "")) for c in stored["cells"] for o in c.get("outputs", [])), \
        "the test means something only while lab 00 shows a run-dependent line the sanitize file handles"
    result = plain_pytest("--nbval", solution)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_pytest_nbval_lax_on_a_lab_needs_no_other_flag():
    result = plain_pytest("--nbval-lax", "labs/00_start_here.ipynb")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_a_lab_run_with_nbval_is_compared_laxly_and_a_solution_strictly():
    """make test runs both trees with --nbval: labs/ hold no outputs, so only their cells' running counts."""
    import conftest  # the repository's root conftest

    assert conftest.LABS == ROOT / "labs" and conftest.SANITIZE.is_file()
    assert conftest._lab_of("labs/03_postgres_queue.ipynb") == conftest._lab_of("solutions/03_postgres_queue.ipynb")
    assert conftest._lab_of("tests/core/test_queue.py") is None
