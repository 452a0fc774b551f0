"""Lab 10: Little's law on a window, whole stays against stays clipped to it
(course/programs/little_window.py)."""

from __future__ import annotations

import pytest

from course.programs import little_window, rush


def test_little_on_a_window_counts_whole_stays_against_stays_clipped_to_it():
    # three jobs of 2 s, arriving at 0, 1 and 2; the count is sampled every 0.5 s
    jobs = [rush.JobTimes(n, float(n), float(n), float(n) + 2) for n in range(3)]
    samples = [(t / 2, sum(j.enqueued <= t / 2 < j.finished for j in jobs)) for t in range(9)]
    run = rush.Rush(1.0, 3.0, jobs, samples)
    whole = little_window.on_window(run, 0, 4)  # from empty to empty: the law is exact
    assert whole.whole_stays == pytest.approx(1.5) == whole.clipped == pytest.approx(whole.counted)
    early = little_window.on_window(run, 0, 1)  # one job arrived, its stay runs past the window
    assert (early.arrivals, early.whole_stays, early.clipped) == (1, 2.0, 1.0)
