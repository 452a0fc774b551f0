"""course.infra.processes: a child started in a `with` block does not outlive it."""

import sys

import pytest

from course.infra import processes

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def test_leaving_the_with_block_kills_a_child_that_still_runs():
    with processes.spawn("sleeper", SLEEPER) as child:
        assert child.alive()
    assert not processes.pid_alive(child.pid)


def test_an_error_in_the_block_still_kills_the_child_and_is_raised():
    with pytest.raises(ZeroDivisionError):
        with processes.spawn("sleeper", SLEEPER) as child:
            1 / 0
    assert not processes.pid_alive(child.pid)


def test_a_child_that_already_exited_is_left_as_it_ended():
    with processes.spawn("quick", [sys.executable, "-c", "raise SystemExit(3)"]) as child:
        assert child.wait(30) == 3
    assert child.popen.returncode == 3
