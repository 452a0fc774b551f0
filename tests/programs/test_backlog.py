"""Lab 10: the fluid arithmetic of a backlog that grows while arrivals exceed the service rate and
drains afterwards (course/programs/backlog.py)."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.programs import backlog


def test_the_backlog_arithmetic_grows_and_drains_at_the_differences():
    phases = [backlog.Phase(2, 0.3), backlog.Phase(5, 0.8), backlog.Phase(6, 0.3)]
    peak, empty = backlog.peak_and_drain(11, 5, phases)
    assert peak == pytest.approx((11 - 5 / 0.8) * 5, rel=0.01)               # 23.75 at 7 s
    assert empty == pytest.approx(7 + peak / (5 / 0.3 - 11), abs=0.05)     # drained about 4.2 s later


def test_no_backlog_when_capacity_always_exceeds_arrivals():
    assert backlog.peak_and_drain(11, 5, [backlog.Phase(3, 0.3)])[0] == 0


def test_a_phase_of_no_length_is_refused():
    with pytest.raises(InvalidArgument):
        backlog.predicted(11, 5, [backlog.Phase(0, 0.3)])
