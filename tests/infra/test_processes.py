"""course.infra.processes: a child started in a `with` block does not outlive it."""

import sys
import time

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


def test_a_hang_bound_stretches_with_the_load_and_says_how_long_it_waited(monkeypatch):
    # At load 40 on two cores a process gets a twentieth of a CPU: a wait that only bounds a hang waits up
    # to MOST_PATIENCE times longer there, never less than its seconds on an idle machine.
    monkeypatch.setattr(processes.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(processes.os, "getloadavg", lambda: (40.0, 40.0, 40.0))
    assert processes.patience() == processes.MOST_PATIENCE
    bound = processes.HangBound(0.05)
    time.sleep(0.1)
    assert not bound.passed()
    monkeypatch.setattr(processes.os, "getloadavg", lambda: (0.3, 0.3, 0.3))
    assert processes.patience() == 1.0
    assert bound.passed()
    with pytest.raises(TimeoutError, match=r"^never not reached within 0.05 s$"):
        processes.wait_until(lambda: False, 0.05, what="never")
